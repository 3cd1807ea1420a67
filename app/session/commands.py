"""``jarvis export [RECORD | --last] [--format md|html] [--out FILE]``: a session record
as a readable meeting record, also after a crash or from a damaged file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser(
        "export",
        help="write a session record as a Markdown or HTML meeting record",
        description="Write a session record as a readable meeting record. Without RECORD "
        "(or with --last) the newest session in the data folder is exported.",
    )
    which = export.add_mutually_exclusive_group()
    which.add_argument("record", nargs="?", type=Path, help="a session record (.jsonl)")
    which.add_argument("--last", action="store_true", help="the newest session record")
    export.add_argument(
        "--format", choices=("md", "html"), help="default: by the --out suffix, else md"
    )
    export.add_argument(
        "--out", type=Path, help="file to write (default: beside the record; '-' for stdout)"
    )
    export.set_defaults(handler=_export)


def _export(args: argparse.Namespace) -> int:
    from app.session.export import export_format, render_record
    from app.session.record import read_record_contents
    from app.session.recovery import chosen_record

    record, code = chosen_record(args.record, "Exporting")
    if record is None:
        return code
    to_stdout = args.out is not None and str(args.out) == "-"
    try:
        fmt = export_format(None if to_stdout else args.out, args.format)
        contents = read_record_contents(record)
        text = render_record(contents, fmt)
    except (OSError, ValueError) as exc:
        print(f"Could not export {record}: {exc}", file=sys.stderr)
        return 2
    if contents.skipped:
        print(f"Note: {contents.skipped_note()}.", file=sys.stderr)
    if to_stdout:
        sys.stdout.write(text)
        return 0
    out = args.out or record.with_suffix(f".{fmt.value}")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"Could not write {out}: {exc}", file=sys.stderr)
        return 2
    print(f"Meeting record written to {out}")
    return 0
