"""The session record: one JSON object per line, written and flushed as things happen.

A crash loses nothing already recorded: every append is flushed and fsynced before it
returns. Events from ``app.events`` are stored as plain dicts with a ``kind`` field.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import IO, Any

from app.paths import data_dir


def sessions_dir() -> Path:
    """Where session records live: ``$JARVIS_DATA_DIR/sessions`` or the user data dir."""
    return data_dir() / "sessions"


def to_plain(value: Any) -> Any:
    """Dataclasses, enums and tuples as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


class SessionRecord:
    """Append-only JSONL writer; thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = self.path.open("a", encoding="utf-8")
        self._lock = threading.Lock()
        self._seq = 0

    @classmethod
    def create(cls, directory: Path | None = None, label: str = "session") -> SessionRecord:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        folder = directory or sessions_dir()
        path = folder / f"{stamp}-{label}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{stamp}-{label}-{n}.jsonl"
        return cls(path)

    def append(self, kind: str, payload: Any = None, **extra: Any) -> dict[str, Any]:
        """Write one entry and flush it to disk; returns the entry as written."""
        body = to_plain(payload) if payload is not None else {}
        if not isinstance(body, dict):
            body = {"value": body}
        if "kind" in body:  # e.g. Intervention.kind; the entry's kind names the entry
            body["subtype"] = body.pop("kind")
        with self._lock:
            if self._file is None:
                raise ValueError("the session record is closed")
            entry = {
                "seq": self._seq,
                "kind": kind,
                "wall": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                "mono": round(time.monotonic(), 3),
                **body,
                **to_plain(extra),
            }
            self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
            self._seq += 1
        return entry

    def record(self, event: Any) -> dict[str, Any]:
        """Append an ``app.events`` dataclass under its snake-cased class name."""
        return self.append(_kind_of(event), event)

    @property
    def closed(self) -> bool:
        return self._file is None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> SessionRecord:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kind_of(event: Any) -> str:
    name = type(event).__name__
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def read_record(path: Path) -> list[dict[str, Any]]:
    """All entries of a record; a torn last line (crash mid-write) is skipped."""
    entries = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries
