"""benchmarks/gguf_replica.py and benchmarks/gpu_check.sh, on this machine's CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import gguf_replica  # noqa: E402


def embedded_gguf(name: str = "llm-0.5b") -> Path:
    from app.models import resolve

    return Path(resolve(name))


def test_rejects_files_that_are_not_gguf(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(gguf_replica.GGUFFormatError):
        gguf_replica.data_offset(bogus)
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\x01\x00")
    with pytest.raises(gguf_replica.GGUFFormatError):
        gguf_replica.data_offset(truncated)
    assert gguf_replica.main(["expand", str(bogus), str(tmp_path / "x.gguf")]) == 1


@pytest.mark.slow
def test_replica_has_the_real_header_and_zero_weights(tmp_path: Path) -> None:
    model = embedded_gguf()
    header = tmp_path / "m.ggufhdr"
    info = gguf_replica.write_header(model, header)
    assert 1_000_000 < info["header_bytes"] < 20_000_000  # tokenizer + tensor table only
    assert info["header_bytes"] % 32 == 0
    replica = tmp_path / "replica.gguf"
    gguf_replica.expand(header, replica)
    assert replica.stat().st_size == model.stat().st_size
    with open(model, "rb") as real, open(replica, "rb") as copy:
        assert copy.read(info["header_bytes"]) == real.read(info["header_bytes"])
        copy.seek(info["header_bytes"] + 1_000_000)
        assert copy.read(4096) == bytes(4096)


@pytest.mark.slow
def test_llama_cpp_loads_the_replica_and_tokenizes_like_the_model(tmp_path: Path) -> None:
    import llama_cpp
    import numpy as np

    model = embedded_gguf()
    replica = tmp_path / "replica.gguf"
    gguf_replica.write_header(model, tmp_path / "h")
    gguf_replica.expand(tmp_path / "h", replica)
    text = b"The survey had 240 participants [S12]."
    real = llama_cpp.Llama(model_path=str(model), vocab_only=True, verbose=False)
    copy = llama_cpp.Llama(model_path=str(replica), n_ctx=128, n_threads=2, logits_all=True,
                           verbose=False)
    tokens = copy.tokenize(text)
    assert tokens == real.tokenize(text)
    copy.eval(tokens[:4])
    assert np.allclose(copy.scores[: copy.n_tokens], 0.0)  # zero weights: flat logits


def gpu_check(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPO / "benchmarks" / "gpu_check.sh"), *args],
        env={**os.environ, "OUT": str(tmp_path / "out"), "JARVIS_GPU_CARRY":
             str(tmp_path / "carry"), "JARVIS_GPU_CHECK_CPU": "1", "PYTHON": sys.executable,
             **env},
        capture_output=True, text=True, timeout=600,
    )


def test_gpu_check_skips_the_llm_without_a_model(tmp_path: Path) -> None:
    result = gpu_check(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "LLM skipped: no GGUF given" in result.stdout
    summary = json.loads((tmp_path / "out" / "gpu_check.json").read_text())
    assert summary["llm_status"] == "skipped" and summary["llm"] is None
    assert "ctranslate2" in summary["whisper"] or "skipped" in summary["whisper"]


@pytest.mark.slow
def test_gpu_check_runs_the_stage_benchmark_on_a_carried_header(tmp_path: Path) -> None:
    (tmp_path / "carry").mkdir()
    gguf_replica.write_header(embedded_gguf(), tmp_path / "carry" / "llm-0.5b.ggufhdr")
    result = gpu_check(tmp_path, JARVIS_GPU_LLM_ARGS="--doc-tokens 40 --rounds 1 --n-ctx 512 "
                       "--turns 2 --max-tokens-scale 0.03")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "out" / "gpu_check.json").read_text())
    assert report["model_kind"] == "zero-weight replica"
    stages = {s["stage"]: s for s in report["llm"]["stages"]}
    assert set(stages) == {"monitor", "self_repair", "generate", "direct"}
    for stage in stages.values():
        assert 0 < stage["ttft_ms"] <= stage["total_ms"]
        assert stage["completion_tokens"] >= 1 and stage["prompt_tokens"] > 20
    assert "TTFT ms" in result.stdout
