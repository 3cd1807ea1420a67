"""``jarvis retranscribe RECORD [--out FILE]``: a cleaner transcript of a finished
meeting, from the audio it kept."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "retranscribe",
        help="re-run a meeting's transcript from its kept audio (best Whisper, pyannote)",
        description="Re-run recognition over the meeting audio a session kept (the speech "
        "setting keep_meeting_audio) with the best Whisper model installed and offline "
        "diarization with pyannote.audio, keep the names the meeting gave its speakers "
        "(matched by voice), and write the meeting record with the new transcript.",
    )
    parser.add_argument("record", type=Path, help="a session record (.jsonl)")
    parser.add_argument(
        "--out",
        type=Path,
        help="file to write, .md or .html (default: RECORD.retranscribed.md beside it)",
    )
    parser.set_defaults(handler=_retranscribe)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _retranscribe(args: argparse.Namespace) -> int:
    from app.retranscribe.run import RetranscribeError, retranscribe
    from app.session.export import export_format
    from app.session.recovery import chosen_record

    record, code = chosen_record(args.record, "Re-running")
    if record is None:
        return code
    try:
        export_format(args.out)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    try:
        out, result = retranscribe(record, args.out, progress=_say)
    except RetranscribeError as exc:
        print(exc.user_message, file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"Could not re-run the transcript of {record}: {exc}", file=sys.stderr)
        return 2
    speakers = ", ".join(sorted(set(result.shown.values()))) or "nobody"
    print(f"{len(result.turns)} turns ({speakers}) written to {out}")
    return 0
