"""`jarvis doctor` re-hashes model files: a file damaged in place, with its size and
modification time kept, is reported damaged (starting the app looks at size and time only).

Real files from an installed weight package in a temporary store; nothing is mocked.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
from pathlib import Path

import pytest

from app.doctor import FAIL, OK, WARN, check_models
from app.models import ModelManager, ModelMissingError, ModelStore
from app.models.commands import ProgressLine
from app.models.embedded import package_path
from app.models.manifest import parse_manifest
from app.models.pull import RECORD_NAME
from app.models.store import file_record, sha256_file, write_json_atomic

SMALL_MODEL = "silero_vad/data/silero_vad.onnx"  # 2.3 MB, from the silero-vad package


def small_model() -> Path:
    path = package_path(SMALL_MODEL)
    assert path is not None, "silero-vad is not installed (installers/setup-embedded.sh)"
    return path


def damage_in_place(path: Path) -> None:
    """Invert bytes in the middle of the file; size and modification time stay as they were."""
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.seek(before.st_size // 2)
        chunk = fh.read(64)
        fh.seek(before.st_size // 2)
        fh.write(bytes(b ^ 0xFF for b in chunk))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def pulled_store(tmp_path: Path) -> tuple[ModelManager, Path]:
    """A manifest with one hub model whose pulled copy sits in a temporary store."""
    entry = {"name": "tiny-vad", "role": "vad", "kind": "file", "size": 1, "licence": "MIT",
             "hub": {"repo_id": "acme/tiny-vad", "files": [{"path": "vad.onnx"}]}}
    store = ModelStore(tmp_path / "data", tmp_path / "cache")
    root = store.pulled_dir("tiny-vad")
    root.mkdir(parents=True)
    target = root / "vad.onnx"
    shutil.copyfile(small_model(), target)
    record = {"files": {"vad.onnx": file_record(target, sha256_file(target))}}
    write_json_atomic(root / RECORD_NAME, record)  # as `jarvis models pull` leaves it
    return ModelManager(parse_manifest({"models": [entry]}), store), target


def test_doctor_reports_a_pulled_file_damaged_in_place(tmp_path: Path) -> None:
    manager, target = pulled_store(tmp_path)
    (row,) = check_models(manager, stream=io.StringIO())
    assert row.status == OK and "checksum verified" in row.detail

    damage_in_place(target)
    assert manager.resolve("tiny-vad") == target  # the start-up check cannot see it

    (row,) = check_models(manager, stream=io.StringIO())
    assert row.status == FAIL and row.detail.startswith("damaged")
    assert "sha256" in row.detail and "jarvis models pull tiny-vad" in row.fix
    with pytest.raises(ModelMissingError):  # and the damaged copy is no longer handed out
        manager.resolve("tiny-vad")


def test_doctor_reports_an_assembled_embedded_file_damaged_in_place(tmp_path: Path) -> None:
    data = small_model().read_bytes()
    joined_sha = hashlib.sha256(data + data).hexdigest()
    entry = {"name": "joined-vad", "role": "vad", "kind": "file", "size": 2 * len(data),
             "licence": "MIT",
             "embedded": {"packages": ["silero-vad"],
                          "files": [{"name": "vad.onnx", "parts": [SMALL_MODEL, SMALL_MODEL],
                                     "sha256": joined_sha}]}}
    store = ModelStore(tmp_path / "data", tmp_path / "cache")
    manager = ModelManager(parse_manifest({"models": [entry]}), store)
    joined = manager.resolve("joined-vad")
    damage_in_place(joined)
    assert manager.resolve("joined-vad") == joined  # its record still matches size and time

    (row,) = check_models(manager, stream=io.StringIO())
    assert row.status == FAIL and "embedded copy" in row.detail
    assert "rebuilt" in row.fix and "pip install --force-reinstall --no-deps silero-vad" in row.fix

    (row,) = check_models(manager, stream=io.StringIO())  # rebuilt from the packages
    assert row.status == OK and sha256_file(joined) == joined_sha


def test_quick_doctor_says_to_run_models_verify(tmp_path: Path) -> None:
    manager, target = pulled_store(tmp_path)
    damage_in_place(target)
    model, checksums = check_models(manager, verify=False)
    assert model.status == OK and "size and date only" in model.detail
    assert checksums.status == WARN and "jarvis models verify" in checksums.fix


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_big_files_get_a_progress_line(tmp_path: Path) -> None:
    manager, target = pulled_store(tmp_path)
    size = target.stat().st_size
    on_terminal, in_log = Terminal(), io.StringIO()
    manager.verify("tiny-vad", ProgressLine("tiny-vad", on_terminal, big=size))
    manager.verify("tiny-vad", ProgressLine("tiny-vad", in_log, big=size))
    lines = on_terminal.getvalue().split("\r")
    assert lines[1].startswith("  checking tiny-vad (vad.onnx, 2 MB):   0%")
    assert lines[-1].endswith(": 100%\n")
    assert in_log.getvalue() == "  checking tiny-vad (vad.onnx, 2 MB)…\n"
    quiet = io.StringIO()
    manager.verify("tiny-vad", ProgressLine("tiny-vad", quiet, big=size + 1))
    assert quiet.getvalue() == ""  # small files hash without a word


def test_language_model_load_failure_points_to_verify(tmp_path: Path) -> None:
    from app.llm.llama import LlamaBackend
    from app.llm.types import LLMError

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    with pytest.raises(LLMError) as caught:
        LlamaBackend(broken)
    assert "jarvis models verify" in str(caught.value)
