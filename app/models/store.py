"""Where models live on disk, and the sha256 records that let later checks be cheap.

A record stores ``sha256`` with the file's ``size`` and ``mtime_ns`` at hashing time; as
long as size and mtime are unchanged the file is trusted without re-hashing it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "jarvis"
CHUNK = 4 * 1024 * 1024

# hash_progress(file name, bytes hashed so far, file size in bytes)
HashProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ModelStore:
    """The user data dir (pulled models) and the user cache dir (assembled embedded ones)."""

    data_dir: Path
    cache_dir: Path

    @classmethod
    def default(cls) -> ModelStore:
        data = os.environ.get("JARVIS_DATA_DIR") or platformdirs.user_data_dir(APP_NAME)
        cache = os.environ.get("JARVIS_CACHE_DIR") or platformdirs.user_cache_dir(APP_NAME)
        return cls(Path(data) / "models", Path(cache) / "models")

    def pulled_dir(self, name: str) -> Path:
        return self.data_dir / name

    def staging_dir(self, name: str) -> Path:
        return self.data_dir / ".staging" / name

    def assembled_dir(self, name: str) -> Path:
        return self.cache_dir / name


def sha256_file(path: Path, on_bytes: Callable[[int], None] | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
            if on_bytes is not None:
                on_bytes(len(block))
    return digest.hexdigest()


def hash_file(path: Path, progress: HashProgress | None = None) -> str:
    """``sha256_file`` that reports its progress through the file to ``progress``."""
    if progress is None:
        return sha256_file(path)
    total, done = path.stat().st_size, 0
    progress(path.name, 0, total)

    def step(n: int) -> None:
        nonlocal done
        done += n
        progress(path.name, done, total)

    return sha256_file(path, step)


def stat_key(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def file_record(path: Path, sha256: str) -> dict[str, Any]:
    return {"sha256": sha256, **stat_key(path)}


def record_matches(path: Path, record: dict[str, Any] | None) -> bool:
    """Cheap check: the file is unchanged since it was hashed."""
    if not record or not path.is_file():
        return False
    return stat_key(path) == {"size": record.get("size"), "mtime_ns": record.get("mtime_ns")}


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def join_parts(parts: Iterable[Path], target: Path) -> tuple[str, int]:
    """Concatenate ``parts`` into ``target`` atomically; return (sha256, size)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    digest, size = hashlib.sha256(), 0
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    while block := fh.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return digest.hexdigest(), size
