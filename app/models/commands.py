"""`jarvis models list | pull NAME... | verify [NAME...] | path NAME`."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

BIG_FILE = 64_000_000  # bytes; smaller files hash in well under a second, silently


class ProgressLine:
    """A line per big file being hashed: rewritten in place on a terminal, else said once."""

    def __init__(self, model: str, stream: TextIO | None = None, big: int = BIG_FILE) -> None:
        self.model = model
        self.stream = stream if stream is not None else sys.stderr
        self.big = big  # bytes: the smallest file that gets a line
        self._shown = -1  # last percentage written

    def __call__(self, name: str, done: int, total: int) -> None:
        from app.models.manager import human_size

        if total < self.big:
            return
        head = f"  checking {self.model} ({name}, {human_size(total)})"
        if not self.stream.isatty():
            if done == 0:
                print(f"{head}…", file=self.stream, flush=True)
            return
        percent = done * 100 // total
        if percent != self._shown:
            self._shown = percent
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{head}: {percent:3d}%{end}")
            self.stream.flush()


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("models", help="list, pull, verify and locate model weights")
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION")
    sub.required = True
    p = sub.add_parser("list", help="every model with its role, size and where it is")
    p.set_defaults(handler=_list)
    p = sub.add_parser("pull", help="download from the Hugging Face hub (HF_TOKEN for gated)")
    p.add_argument("names", nargs="+", metavar="NAME")
    p.set_defaults(handler=_pull)
    p = sub.add_parser("verify", help="re-hash models against the manifest")
    p.add_argument("names", nargs="*", metavar="NAME", help="default: every model on this computer")
    p.set_defaults(handler=_verify)
    p = sub.add_parser("path", help="print the file or folder a model resolves to")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(handler=_path)


def _list(args: argparse.Namespace) -> int:
    from app.models import default_manager
    from app.models.manager import human_size

    manager = default_manager()
    rows = [("NAME", "ROLE", "SIZE", "STATUS", "LICENCE")]
    for entry in manager.manifest.entries:
        size = ("~" if not entry.size_exact else "") + human_size(entry.size)
        status = manager.status(entry.name) + (" (default)" if entry.default else "")
        rows.append((entry.name, entry.role, size, status, entry.licence))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[4])
    return 0


def _pull(args: argparse.Namespace) -> int:
    from app.models import ModelError, default_manager

    manager = default_manager()
    failed = 0
    for name in args.names:
        try:
            path = manager.pull(name)  # huggingface_hub draws its own progress bars
        except ModelError as exc:
            print(f"{name}: {exc.user_message}", file=sys.stderr)
            failed += 1
            continue
        print(f"{name}: {path}")
    return 1 if failed else 0


def _verify(args: argparse.Namespace) -> int:
    from app.models import ModelError, default_manager

    manager = default_manager()
    names = args.names or [n for n in manager.manifest.names() if manager.status(n) != "missing"]
    bad = 0
    for name in names:
        try:
            results = manager.verify(name, ProgressLine(name))
        except ModelError as exc:
            print(f"{name}: {exc.user_message}", file=sys.stderr)
            bad += 1
            continue
        for result in results:
            verdict = "ok" if result.ok else "FAILED: " + "; ".join(result.problems)
            print(f"{name} [{result.source}] {verdict}")
            if result.fix:
                print(f"  {result.fix}")
            bad += 0 if result.ok else 1
    return 1 if bad else 0


def _path(args: argparse.Namespace) -> int:
    from app.models import ModelError, resolve

    try:
        print(resolve(args.name))
    except ModelError as exc:
        print(exc.user_message, file=sys.stderr)
        return 1
    return 0
