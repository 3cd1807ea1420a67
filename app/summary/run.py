"""A session record summarised to a file: the record, its document and the model opened,
the summary written, the model closed again. Shared by ``jarvis summarize`` and the
window's Summary action."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.session.export import ExportFormat, export_format
from app.settings import Settings
from app.summary.meeting import Meeting, read_meeting
from app.summary.questions import DocumentAnswers
from app.summary.render import render
from app.summary.settings import SummarySettings
from app.summary.summarize import MeetingSummary, Progress, summarize

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SummaryRun:
    """Where a summary went and what it holds."""

    out: Path
    summary: MeetingSummary
    notes: tuple[str, ...]  # what the reader of the console or window must know


def default_out(record: Path, fmt: ExportFormat = ExportFormat.MARKDOWN) -> Path:
    return record.with_name(f"{record.stem}.summary.{fmt.value}")


def open_meeting_document(meeting: Meeting, override: Path | None, settings: Settings
                          ) -> tuple[Any | None, str]:
    """The indexed document (or None) and, when there is none, why in words."""
    from app.document import DocumentError, open_document

    path = override or meeting.document
    if path is None:
        return None, "the record names no document, so open questions were not looked up"
    try:
        return open_document(path, settings.document), ""
    except DocumentError as exc:
        return None, f"{exc.user_message} Open questions were not looked up."


def summarize_record(
    record: Path,
    out: Path | None = None,
    llm: Any | None = None,
    llm_spec: str | None = None,
    document: Path | None = None,
    settings: Settings | None = None,
    summary_settings: SummarySettings | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    embedder: Any | None = None,
) -> SummaryRun:
    """Summarise ``record`` into ``out`` (Markdown or HTML by its suffix; default beside
    the record). ``llm``: a backend to use, else ``llm_spec`` is opened (and closed)."""
    base = settings or Settings()
    fmt = export_format(out)
    target = out or default_out(record, fmt)
    meeting = read_meeting(record)
    doc, why = open_meeting_document(meeting, document, base)
    backend = llm
    if backend is None:
        from app.llm import open_backend

        backend = open_backend(llm_spec, base.llm)
    try:
        answerer = DocumentAnswers(doc, backend, base, embedder) if doc is not None else None
        summary = summarize(meeting, backend, summary_settings, base.llm.context_tokens,
                            answerer, progress, cancel)
    finally:
        if llm is None:
            backend.close()
    target.write_text(render(summary, fmt), encoding="utf-8")
    return SummaryRun(target, summary, tuple(n for n in (why,) if n))
