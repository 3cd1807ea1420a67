"""The ``jarvis`` command line.

Each concern registers its own subcommands through a ``register(subparsers)`` function
in its ``commands`` module; heavy imports happen only inside the command handlers so
``jarvis --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from app import __version__
from app.frozen import prepare_runtime

# Modules that contribute subcommands; a missing one is skipped so a partial install
# still offers what it has.
COMMAND_MODULES = (
    "app.document.commands",
    "app.models.commands",
    "app.speech.commands",
    "app.eval.commands",
    "app.session.commands",
    "app.summary.commands",
    "app.retranscribe.commands",
    "app.ui.commands",
    "app.doctor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jarvis",
        description="A local meeting participant that checks the talk against a PDF.",
    )
    parser.add_argument("--version", action="version", version=f"jarvis {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    prepare_runtime()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return int(handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
