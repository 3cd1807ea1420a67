"""Pull path against a loopback imitation of the hub: real huggingface_hub, real files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import huggingface_hub.constants
import pytest

from app.models import (
    ModelChecksumError,
    ModelGatedError,
    ModelManager,
    ModelMissingError,
    ModelPullError,
    ModelStore,
)
from app.models.manifest import parse_manifest
from app.models.pull import RECORD_NAME
from tests.models.fake_hub import TOKEN, FakeHub

REPO = "acme/tiny-gguf"
FILE = "tiny-q4.gguf"


def payload(size: int, seed: int = 1) -> bytes:
    block = hashlib.sha256(str(seed).encode()).digest()
    return (block * (size // len(block) + 1))[:size]


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch):
    server = FakeHub()
    server.start()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_ENDPOINT", server.endpoint)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    yield server
    server.stop()


def manager_for(tmp_path: Path, files: list[dict], gated: bool = False,
                kind: str = "file", repo: str = REPO) -> ModelManager:
    entry = {
        "name": "tiny", "role": "llm", "kind": kind, "size": sum(f.get("size", 0) for f in files),
        "licence": "MIT",
        "hub": {"repo_id": repo, "revision": "main", "gated": gated, "files": files},
    }
    store = ModelStore(tmp_path / "data", tmp_path / "cache")
    return ModelManager(parse_manifest({"models": [entry]}), store)


def test_pull_downloads_verifies_and_reports_progress(hub: FakeHub, tmp_path: Path) -> None:
    data = payload(700_000)
    sha = hub.add(REPO, FILE, data)
    manager = manager_for(tmp_path, [{"path": FILE, "sha256": sha, "size": len(data)}])
    seen: list[tuple[str, int, int | None]] = []

    path = manager.pull("tiny", progress=lambda f, done, total: seen.append((f, done, total)))

    assert path == tmp_path / "data" / "tiny" / FILE
    assert path.read_bytes() == data
    assert seen[-1] == (FILE, len(data), len(data))
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)
    assert len(seen) >= 2
    assert manager.resolve("tiny") == path
    assert manager.status("tiny") == "pulled"
    assert hub.requests("hub", "HEAD") and hub.requests("cdn", "GET")
    assert not (tmp_path / "data" / ".staging" / "tiny").exists()


def test_interrupted_download_resumes_with_range(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small read chunks so the bytes received before the drop reach the file (10 MB default).
    monkeypatch.setattr(huggingface_hub.constants, "DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    data = payload(1_500_000, seed=2)
    sha = hub.add(REPO, FILE, data)
    hub.drop_after[sha] = 400_000
    manager = manager_for(tmp_path, [{"path": FILE, "sha256": sha}])

    path = manager.pull("tiny")

    assert path.read_bytes() == data
    ranges = [h.get("range") for _, h in hub.requests("cdn", "GET")]
    assert ranges[0] is None
    assert any(r and r.startswith("bytes=") and int(r[6:].split("-")[0]) > 0 for r in ranges)


def test_checksum_failure_leaves_nothing_valid_and_repull_works(
    hub: FakeHub, tmp_path: Path
) -> None:
    data = payload(200_000, seed=3)
    sha = hub.add(REPO, FILE, data)
    bad = manager_for(tmp_path, [{"path": FILE, "sha256": "0" * 64}])

    with pytest.raises(ModelChecksumError) as caught:
        bad.pull("tiny")

    assert "jarvis models pull tiny" in caught.value.user_message
    assert not (tmp_path / "data" / "tiny" / RECORD_NAME).exists()
    assert not (tmp_path / "data" / "tiny" / FILE).exists()
    assert not (tmp_path / "data" / ".staging" / "tiny").exists()
    with pytest.raises(ModelMissingError):
        bad.resolve("tiny")

    gets_before = len(hub.requests("cdn", "GET"))
    good = manager_for(tmp_path, [{"path": FILE, "sha256": sha}])
    assert good.pull("tiny").read_bytes() == data
    assert len(hub.requests("cdn", "GET")) == gets_before + 1  # downloaded afresh


def test_size_mismatch_is_a_checksum_error(hub: FakeHub, tmp_path: Path) -> None:
    hub.add(REPO, FILE, payload(50_000))
    manager = manager_for(tmp_path, [{"path": FILE, "size": 49_999}])
    with pytest.raises(ModelChecksumError):
        manager.pull("tiny")
    assert manager.status("tiny") == "missing"


def test_tampered_pull_is_not_trusted_until_pulled_again(hub: FakeHub, tmp_path: Path) -> None:
    data = payload(100_000, seed=4)
    hub.add(REPO, FILE, data)  # no sha256 in the manifest: the pull records what it got
    manager = manager_for(tmp_path, [{"path": FILE}])
    path = manager.pull("tiny")
    with open(path, "r+b") as fh:
        fh.write(b"XXXX")
    os.utime(path, ns=(1, 1))

    with pytest.raises(ModelMissingError):
        manager.resolve("tiny")
    (result,) = manager.verify("tiny")
    assert result.source == "pulled" and not result.ok

    manager.pull("tiny")
    assert manager.resolve("tiny").read_bytes() == data


def test_touched_but_intact_file_is_rehashed_and_kept(hub: FakeHub, tmp_path: Path) -> None:
    data = payload(80_000, seed=5)
    hub.add(REPO, FILE, data)
    manager = manager_for(tmp_path, [{"path": FILE}])
    path = manager.pull("tiny")
    os.utime(path, ns=(10**18, 10**18))
    assert manager.resolve("tiny") == path
    assert manager.verify("tiny")[0].ok


def test_dir_model_with_subfolders(hub: FakeHub, tmp_path: Path) -> None:
    a, b = payload(30_000, 6), payload(20_000, 7)
    hub.add(REPO, "config.yaml", a)
    hub.add(REPO, "segmentation/pytorch_model.bin", b)
    manager = manager_for(
        tmp_path, [{"path": "config.yaml"}, {"path": "segmentation/pytorch_model.bin"}], kind="dir"
    )
    root = manager.pull("tiny")
    assert root == tmp_path / "data" / "tiny"
    assert (root / "segmentation" / "pytorch_model.bin").read_bytes() == b
    assert manager.resolve("tiny") == root


def test_gated_model_needs_a_token(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = payload(10_000, seed=8)
    hub.add("pyannote/gated", FILE, data)
    hub.gated.add("pyannote/gated")
    manager = manager_for(tmp_path, [{"path": FILE}], gated=True, repo="pyannote/gated")

    with pytest.raises(ModelGatedError) as caught:
        manager.pull("tiny")
    assert "HF_TOKEN" in caught.value.user_message
    assert "https://huggingface.co/pyannote/gated" in caught.value.user_message

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert manager.pull("tiny").read_bytes() == data


def test_file_missing_on_hub(hub: FakeHub, tmp_path: Path) -> None:
    manager = manager_for(tmp_path, [{"path": "nope.gguf"}])
    with pytest.raises(ModelPullError) as caught:
        manager.pull("tiny")
    assert "not found" in caught.value.user_message


def test_offline_mode_says_so(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add(REPO, FILE, payload(1000))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelPullError) as caught:
        manager_for(tmp_path, [{"path": FILE}]).pull("tiny")
    assert "HF_HUB_OFFLINE" in caught.value.user_message


def test_missing_model_names_the_command(tmp_path: Path) -> None:
    manager = manager_for(tmp_path, [{"path": FILE, "size": 2_000_000_000}], gated=True)
    with pytest.raises(ModelMissingError) as caught:
        manager.resolve("tiny")
    message = caught.value.user_message
    assert "jarvis models pull tiny" in message and "HF_TOKEN" in message and "2.0 GB" in message
