"""Append-only session record (JSONL, flushed per event), its export and its recovery."""

from app.session.delivery import Delivery, InterventionFate, intervention_fates
from app.session.export import export_record, to_html, to_markdown
from app.session.record import (
    RecordContents,
    SessionRecord,
    SkippedLine,
    read_record,
    read_record_contents,
    sessions_dir,
)
from app.session.recovery import unfinished_session

__all__ = [
    "Delivery",
    "InterventionFate",
    "RecordContents",
    "SessionRecord",
    "SkippedLine",
    "export_record",
    "intervention_fates",
    "read_record",
    "read_record_contents",
    "sessions_dir",
    "to_html",
    "to_markdown",
    "unfinished_session",
]
