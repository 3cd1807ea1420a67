"""Finding the last session, and whether it ended without the app closing its record.

A record the app closed ends with the ``session_ended`` marker; one without it was cut
off (a crash, kill -9, power loss) and is offered for export on the next start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.session.delivery import CARRIERS
from app.session.record import ended_cleanly, read_record_contents, sessions_dir

# Entries that make a record worth exporting: the meeting itself, not only start-up.
MEETING_KINDS = frozenset({"turn", "decision", *CARRIERS})

CRASH_OFFER = "The last meeting ended unexpectedly \u2014 Export its record"


def session_records(directory: Path | None = None) -> list[Path]:
    """Every session record in the folder, oldest first (by modification time, then name)."""
    folder = directory or sessions_dir()
    if not folder.is_dir():
        return []
    paths = [p for p in folder.glob("*.jsonl") if p.is_file()]
    return sorted(paths, key=lambda p: (p.stat().st_mtime, p.name))


def newest_record(directory: Path | None = None) -> Path | None:
    records = session_records(directory)
    return records[-1] if records else None


def ended_unexpectedly(entries: list[dict[str, Any]]) -> bool:
    """The record holds some of a meeting and no clean end marker."""
    held = any(e.get("kind") in MEETING_KINDS for e in entries)
    return held and not ended_cleanly(entries)


def unfinished_session(directory: Path | None = None) -> Path | None:
    """The newest record when it ended unexpectedly; call before a new record is created."""
    path = newest_record(directory)
    if path is None:
        return None
    try:
        entries = read_record_contents(path).entries
    except OSError:
        return None
    return path if ended_unexpectedly(entries) else None


def crash_hint(path: Path) -> str:
    """The offer in words for a console: what happened and the command that exports it."""
    return f"{CRASH_OFFER}: jarvis export {path}"


def chosen_record(record: Path | None, doing: str) -> tuple[Path | None, int]:
    """The record a command works on: the one named, else the newest (said on stderr as
    "``doing`` the newest session record"); ``(None, exit code)`` with the reason printed
    when there is none."""
    import sys

    if record is None:
        record = newest_record()
        if record is None:
            print(f"No session records in {sessions_dir()}.", file=sys.stderr)
            return None, 1
        print(f"{doing} the newest session record: {record}", file=sys.stderr)
    if not record.is_file():
        print(f"No such session record: {record}", file=sys.stderr)
        return None, 2
    return record, 0
