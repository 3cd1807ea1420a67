"""``jarvis run [PDF ...] [--audio FILE]`` (the app on the microphone or on a recording) and
``jarvis demo`` (the bundled meeting)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="the app: window, live microphone, agent")
    run.add_argument(
        "pdfs", nargs="*", type=Path, metavar="PDF",
        help="the meeting's documents, opened at start (the first is shown)",
    )
    run.add_argument("--llm", help="model name, .gguf path or http://host:port/v1")
    run.add_argument(
        "--audio",
        type=Path,
        help="a recorded meeting (WAV/FLAC, any rate) played in real time in place of "
        "the microphone",
    )
    run.add_argument(
        "--headless",
        action="store_true",
        help="no window, no sound; print what happens and exit once the recording has "
        "been played and the agent is done (or at --timeout, or Ctrl-C)",
    )
    run.add_argument(
        "--timeout", type=float, help="seconds before a --headless run ends in any case"
    )
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
    audio: Path | None = args.audio
    if audio is not None and not audio.is_file():
        print(f"jarvis run: the recording {audio} does not exist.", file=sys.stderr)
        return 2
    pdfs: list[Path] = list(dict.fromkeys(args.pdfs))
    missing = [p for p in pdfs if not p.is_file()]
    if missing:
        names = ", ".join(str(p) for p in missing)
        print(f"jarvis run: no such document: {names}.", file=sys.stderr)
        return 2
    headless = args.headless
    if not headless and not _has_display():
        print("No display found: running headless (add --headless to say so).")
        headless = True
    if not headless:
        from app.ui.app import run_app

        return run_app(pdfs, llm_spec=args.llm, audio=audio)
    if not pdfs:
        print("jarvis run: --headless needs a PDF to check the talk against.", file=sys.stderr)
        return 2
    return _run_headless(pdfs, audio, args.llm, args.timeout)


def _run_headless(
    pdfs: list[Path], audio: Path | None, llm: str | None, timeout: float | None
) -> int:
    from app.pipeline.live import AudioInput, LiveMeeting, Outcome, print_event, run_headless
    from app.speech.voiceprints import VoiceprintStore

    settings, prefs = _preferences()
    meeting = LiveMeeting(
        settings,
        AudioInput(file=audio, device=getattr(prefs, "input_device", "") or None),
        voice_sink="null",
        voiceprints=VoiceprintStore.default(),
    )
    meeting.pipeline.hub.subscribe(print_event)
    meeting.record.append(
        "session_started", document=str(pdfs[0]), documents=[str(p) for p in pdfs],
        audio=str(audio or "mic"),
    )  # fmt: skip
    print(f"Session record: {meeting.record.path}", flush=True)
    spec = llm or getattr(prefs, "llm_model", "") or None

    def prepare() -> bool:
        return meeting.prepare(pdfs[0], spec, more=pdfs[1:])

    outcome = run_headless(meeting, prepare, meeting.start_audio, timeout=timeout)
    if outcome is Outcome.AGENT_FAILED:
        print(f"jarvis run: the agent could not start ({meeting.agent_problem}).", flush=True)
        return 1
    print(f"Session ended ({outcome.value.replace('_', ' ')}).", flush=True)
    lost = sum(seconds for _, seconds in getattr(meeting.source, "dropped", ()))
    if lost:
        print(f"  note: {lost:.1f} s of audio went unheard while recognition lagged.", flush=True)
    return 130 if outcome is Outcome.INTERRUPTED else 0


def _preferences() -> tuple[Any, Any]:
    """Product settings with the saved preferences laid over them, where Qt can read them."""
    from app.settings import Settings

    try:
        from app.ui.settings_store import load_preferences

        prefs = load_preferences()
    except ImportError:
        return Settings(), None
    return prefs.apply(Settings()), prefs


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
