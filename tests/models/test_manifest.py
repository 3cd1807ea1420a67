"""The shipped manifest: names other parts of the app rely on, and self-consistency."""

from __future__ import annotations

import pytest

from app.cli import main
from app.models import load_manifest
from app.models.embedded import package_path
from app.models.manifest import MANIFEST_PATH, ROLES

REQUIRED = {
    "llm-1.5b": "llm", "llm-0.5b": "llm", "llm-qwen3-4b": "llm", "whisper-tiny.en": "asr",
    "whisper-base": "asr", "whisper-small.en": "asr", "kokoro": "tts", "piper-joe": "tts",
    "minilm": "embedding", "oww-hey-jarvis": "wake", "silero-vad": "vad",
    "diar-segmentation": "diarization", "diar-embedding": "diarization",
    "pyannote-community-1": "diarization",
}


def test_manifest_ships_inside_the_package() -> None:
    assert MANIFEST_PATH.parent.name == "models" and MANIFEST_PATH.parent.parent.name == "app"


def test_required_names_and_roles() -> None:
    manifest = load_manifest()
    assert {n: manifest.get(n).role for n in REQUIRED} == REQUIRED
    assert manifest.default("llm").name == "llm-1.5b"
    assert len(set(manifest.names())) == len(manifest.names())


@pytest.mark.parametrize("entry", load_manifest().entries, ids=lambda e: e.name)
def test_entry_is_consistent(entry) -> None:  # type: ignore[no-untyped-def]
    assert entry.role in ROLES and entry.licence and entry.size > 0
    assert entry.hub is not None or entry.embedded is not None
    if entry.kind == "file" and entry.hub is not None:
        assert len(entry.hub.files) == 1
    if entry.embedded is not None:
        for spec in entry.embedded.files:
            assert spec.sha256 is None or len(spec.sha256) == 64
            present = [package_path(p) for p in spec.parts]
            if all(p is not None for p in present) and spec.size is not None:
                assert sum(p.stat().st_size for p in present if p) == spec.size
        for rel in entry.embedded.entrypoints.values():
            assert any(f.name == rel for f in entry.embedded.files) or entry.embedded.directory


def test_cli_list_and_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    for name in REQUIRED:
        assert name in out
    assert "missing" in out  # pull-only models are not here
    assert main(["models", "path", "silero-vad"]) == 0
    assert capsys.readouterr().out.strip().endswith(".onnx")
    assert main(["models", "path", "whisper-small.en"]) == 1
    assert "jarvis models pull whisper-small.en" in capsys.readouterr().err
