"""The session record: one JSON object per line, written and flushed as things happen.

A crash loses nothing already recorded: every append is flushed and fsynced before it
returns. Events from ``app.events`` are stored as plain dicts with a ``kind`` field.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import IO, Any

from app.paths import data_dir

log = logging.getLogger(__name__)

SESSION_ENDED = "session_ended"  # the kind of the entry a clean close writes last


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
    """Append-only JSONL writer; thread-safe. ``close`` writes the clean end marker."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torn = _ends_unterminated(self.path)
        self._file: IO[str] | None = self.path.open(
            "a", encoding="utf-8", errors="backslashreplace", newline="\n"
        )
        self._lock = threading.Lock()
        self._seq = 0
        self._ended = False
        self.unfinished_before: Path | None = None  # see ``create``
        if torn:  # a torn write of an earlier session stays one line of its own
            self._file.write("\n")

    @classmethod
    def create(cls, directory: Path | None = None, label: str = "session") -> SessionRecord:
        """A new record in the sessions folder. When the newest record there ended
        unexpectedly, it is logged with the command that exports it and kept as
        ``unfinished_before`` for the window's offer."""
        from app.session.recovery import crash_hint, unfinished_session

        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        folder = directory or sessions_dir()
        unfinished = unfinished_session(folder)
        if unfinished is not None:
            log.warning("%s", crash_hint(unfinished))
        path = folder / f"{stamp}-{label}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{stamp}-{label}-{n}.jsonl"
        record = cls(path)
        record.unfinished_before = unfinished
        return record

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
            return self._write(kind, {**body, **to_plain(extra)})

    def _write(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        assert self._file is not None
        entry = {
            "seq": self._seq,
            "kind": kind,
            "wall": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "mono": round(time.monotonic(), 3),
            **body,
        }
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._seq += 1
        self._ended = self._ended or kind == SESSION_ENDED
        return entry

    def record(self, event: Any) -> dict[str, Any]:
        """Append an ``app.events`` dataclass under its snake-cased class name."""
        return self.append(_kind_of(event), event)

    @property
    def closed(self) -> bool:
        return self._file is None

    def close(self, reason: str = "closed") -> None:
        """End the record: the end marker (once) tells a later start it was not a crash."""
        with self._lock:
            if self._file is None:
                return
            try:
                if not self._ended:
                    self._write(SESSION_ENDED, {"reason": reason})
            finally:
                self._file.close()
                self._file = None

    def __enter__(self) -> SessionRecord:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close("closed" if kind is None else f"closed after {kind.__name__}")


def _ends_unterminated(path: Path) -> bool:
    """The file exists and its last byte is not a newline (a write was cut off)."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _kind_of(event: Any) -> str:
    name = type(event).__name__
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


@dataclass(frozen=True)
class SkippedLine:
    """A line of a JSONL file that could not be read, and where it was."""

    number: int  # line number in the file, from 1
    offset: int  # bytes from the start of the file to the line's first byte
    size: int  # bytes of the line, its newline excluded
    torn: bool  # the file's unterminated last line: a write cut off by a crash
    why: str  # what was wrong with it, in words

    def describe(self) -> str:
        what = "torn last line" if self.torn else f"damaged line {self.number}"
        return f"{what} ({self.size} bytes at byte {self.offset}: {self.why})"


@dataclass(frozen=True)
class JsonLines:
    """The objects of a JSONL file with their line numbers, and the lines skipped."""

    objects: tuple[tuple[int, dict[str, Any]], ...]
    skipped: tuple[SkippedLine, ...]


def parse_json_lines(data: bytes) -> JsonLines:
    """Each line decoded on its own, so damage costs only the lines it touches.

    A crash can cut the last write anywhere, even inside a multi-byte character; a line
    damaged in the middle (a torn write that a later session appended to) is skipped too.
    """
    objects: list[tuple[int, dict[str, Any]]] = []
    skipped: list[SkippedLine] = []
    offset = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            why = f"not UTF-8 at byte {start + exc.start}"
        except json.JSONDecodeError as exc:
            why = f"not JSON ({exc.msg})"
        else:
            if isinstance(value, dict):
                objects.append((number, value))
                continue
            why = "not a JSON object"
        torn = number == len(lines)  # no newline after it: the write never finished
        skipped.append(SkippedLine(number, start, len(raw), torn, why))
    return JsonLines(tuple(objects), tuple(skipped))


def read_json_lines(path: Path) -> JsonLines:
    """``parse_json_lines`` of a file; every skipped line is logged as a warning."""
    lines = parse_json_lines(Path(path).read_bytes())
    for line in lines.skipped:
        log.warning("%s: skipped the %s", path, line.describe())
    return lines


@dataclass(frozen=True)
class RecordContents:
    """A session record as read back: its entries in order and what could not be read."""

    path: Path
    entries: list[dict[str, Any]]
    skipped: tuple[SkippedLine, ...] = ()

    @property
    def ended_cleanly(self) -> bool:
        """The app closed the record itself (it wrote the end marker)."""
        return ended_cleanly(self.entries)

    def skipped_note(self) -> str:
        """What was left out, in words; "" when every line was read."""
        if not self.skipped:
            return ""
        parts = "; ".join(line.describe() for line in self.skipped)
        count = len(self.skipped)
        return f"{count} unreadable line{'s' if count > 1 else ''} skipped: {parts}"


def ended_cleanly(entries: list[dict[str, Any]]) -> bool:
    return any(e.get("kind") == SESSION_ENDED for e in entries)


def read_record_contents(path: Path) -> RecordContents:
    """All readable entries of a record, and the lines skipped (logged)."""
    lines = read_json_lines(path)
    return RecordContents(Path(path), [entry for _, entry in lines.objects], lines.skipped)


def read_record(path: Path) -> list[dict[str, Any]]:
    """All readable entries of a record; damaged or torn lines are skipped (and logged)."""
    return read_record_contents(path).entries
