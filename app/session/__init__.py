"""Append-only session record (JSONL, flushed per event) and its export."""

from app.session.export import export_record, to_html, to_markdown
from app.session.record import SessionRecord, read_record, sessions_dir

__all__ = [
    "SessionRecord",
    "export_record",
    "read_record",
    "sessions_dir",
    "to_html",
    "to_markdown",
]
