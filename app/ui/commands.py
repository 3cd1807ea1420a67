"""``jarvis run [PDF]`` (the app on the microphone) and ``jarvis demo`` (the bundled meeting)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="the app: window, live microphone, agent")
    run.add_argument("pdf", nargs="?", type=Path, help="a PDF to open at start")
    run.add_argument("--llm", help="model name, .gguf path or http://host:port/v1")
    run.set_defaults(handler=_run)
    demo = subparsers.add_parser("demo", help="the bundled demo meeting")
    demo.add_argument(
        "--headless",
        action="store_true",
        help="no visible window, no sound; print what happens and exit when the "
        "agent has spoken (or at --timeout)",
    )
    demo.add_argument(
        "--fast", action="store_true", help="feed the recording as fast as it can be processed"
    )
    demo.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="seconds to wait for the intervention in --headless mode",
    )
    demo.add_argument("--llm", help="model name, .gguf path or http://host:port/v1")
    demo.add_argument(
        "--screenshot", type=Path, help="save a PNG of the window when the agent speaks"
    )
    demo.add_argument(
        "--no-auto-grant",
        action="store_true",
        help="wait for a click on the hand button instead of granting after 3 s",
    )
    demo.set_defaults(handler=_demo)


def _run(args: argparse.Namespace) -> int:
    from app.ui.app import run_app

    return run_app(args.pdf, llm_spec=args.llm)


def _has_display() -> bool:
    """A screen to open the window on (X11, Wayland, or any desktop on macOS/Windows)."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _demo(args: argparse.Namespace) -> int:
    from app.ui.app import run_demo

    headless = args.headless
    if not headless and not _has_display():
        print("No display found: running the demo headless (add --headless to say so).")
        headless = True
    return run_demo(
        headless=headless,
        fast=args.fast,
        timeout=args.timeout,
        llm_spec=args.llm,
        screenshot=args.screenshot,
        auto_grant=not args.no_auto_grant,
    )
