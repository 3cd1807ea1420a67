"""``jarvis summarize [RECORD | --last] [--out FILE.md|.html] [--llm MODEL]``: a cited
summary of a meeting from its session record."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from app.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    summary = subparsers.add_parser(
        "summarize",
        help="write a cited summary of a meeting from its session record",
        description="Summarise a meeting: what was discussed and decided (each statement "
        "with the turns it comes from), what Jarvis contributed, the questions left open "
        "(and whether the document answers them), action items and a clean transcript. "
        "Without RECORD (or with --last) the newest session is summarised.",
    )
    which = summary.add_mutually_exclusive_group()
    which.add_argument("record", nargs="?", type=Path, help="a session record (.jsonl)")
    which.add_argument("--last", action="store_true", help="the newest session record")
    summary.add_argument("--out", type=Path,
                         help="file to write, .md or .html (default: beside the record)")
    summary.add_argument("--llm", help="model: a manifest name, a .gguf path or an http(s) URL")
    summary.add_argument("--document", type=Path,
                         help="the document, when it is not where the record says")
    summary.set_defaults(handler=_summarize)


def _summarize(args: argparse.Namespace) -> int:
    from app.llm import LLMError
    from app.session.recovery import chosen_record
    from app.summary.run import summarize_record
    from app.summary.summarize import SummaryCancelled

    record, code = chosen_record(args.record, "Summarising")
    if record is None:
        return code

    def progress(done: int, total: int, what: str) -> None:
        print(f"[{done}/{total}] {what}", file=sys.stderr, flush=True)

    try:
        run = summarize_record(record, args.out, llm_spec=args.llm, document=args.document,
                               settings=_offline(), progress=progress)
    except (OSError, ValueError, LLMError) as exc:
        print(f"Could not summarise {record}: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SummaryCancelled):
        print("Summary stopped.", file=sys.stderr)
        return 130
    for note in (*run.summary.meeting.notes, *run.notes, *run.summary.problems):
        print(f"Note: {note}", file=sys.stderr)
    s = run.summary
    print(f"Summary written to {run.out} ({len(s.points)} statements, {len(s.questions)} "
          f"open questions, {len(s.actions)} action items; {s.seconds:.0f} s)")
    return 0


def _offline() -> Settings:
    """No recognition runs beside a summary from the command line: the model gets every core."""
    from app.llm.factory import offline_settings

    base = Settings()
    return dataclasses.replace(base, llm=offline_settings(base.llm))
