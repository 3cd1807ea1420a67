"""``jarvis index FILE``: index a document and print what the agent will see."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index a PDF (or .txt/.md) and print pages, sentences, tokens, table rows",
    )
    parser.add_argument("file", help="the document to index")
    parser.add_argument("--dump", action="store_true", help="print the numbered [S#] block")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(handler=run_index)


def run_index(args: argparse.Namespace) -> int:
    from app.document import DocumentError, open_document

    try:
        index = open_document(args.file)
    except DocumentError as exc:
        print(exc.user_message, file=sys.stderr)
        return 2
    summary = {
        "file": str(index.path),
        "title": index.title,
        "sha256": index.sha256,
        "pages": index.page_count,
        "sentences": len(index.sentences),
        "tokens": index.token_estimate(),
        "table_rows": index.table_rows,
    }
    for warning in index.warnings:  # on stderr, so a piped --json or --dump stays clean
        print(f"warning: {warning.what}", file=sys.stderr)
    if args.json:
        summary["warnings"] = [{"what": w.what, "pages": list(w.pages)} for w in index.warnings]
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key:>10}: {value}")
    if args.dump:
        print(index.numbered_block())
    return 0
