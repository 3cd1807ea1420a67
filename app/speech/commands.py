"""``jarvis listen``: speaker-attributed turns from a file or the microphone."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "listen", help="print speaker-attributed turns from the microphone or a file"
    )
    parser.add_argument("--file", "-f", help="an audio file (WAV/FLAC) instead of the mic")
    parser.add_argument("--device", "-d", help="input device, by index or part of its name")
    parser.add_argument("--list-devices", action="store_true", help="list input devices")
    parser.add_argument(
        "--fast", action="store_true", help="with --file: process as fast as possible"
    )
    parser.add_argument("--partials", action="store_true", help="also print partial text")
    parser.add_argument("--no-wake", action="store_true", help="skip the wake-word model")
    parser.set_defaults(handler=listen)


def _print_devices() -> int:
    from app.speech.audio import AudioDeviceError, list_devices

    try:
        devices = list_devices("input")
    except AudioDeviceError as exc:
        print(exc.user_message, file=sys.stderr)
        return 1
    if not devices:
        print("No input devices.", file=sys.stderr)
        return 1
    for dev in devices:
        print(f"{dev['index']:>3}  {dev['name']}  ({dev['rate']:.0f} Hz)")
    return 0


def _printer(worker: Any, partials: bool) -> Any:
    from app.events import PartialTranscript, Turn, WakeEvent
    from app.speech.events import DeviceStatus, SpeechError

    def show(event: object) -> None:
        if isinstance(event, Turn):
            name = worker.diarizer.clusters.display(event.speaker)
            mark = " [to Jarvis]" if event.direct else ""
            print(f"[{event.start:7.2f}-{event.end:7.2f}] {name}{mark}: {event.text}", flush=True)
        elif isinstance(event, WakeEvent):
            print(f"[{event.time:7.2f}] wake ({event.source}, {event.score:.2f})", flush=True)
        elif isinstance(event, PartialTranscript) and partials:
            print(f"            ... {event.text}", flush=True)
        elif isinstance(event, DeviceStatus) and event.state == "lost":
            print(f"audio device: {event.message} (retrying)", file=sys.stderr, flush=True)
        elif isinstance(event, SpeechError):
            print(f"speech {event.stage} error: {event.message}", file=sys.stderr, flush=True)

    return show


def listen(args: argparse.Namespace) -> int:
    if args.list_devices:
        return _print_devices()
    try:
        return _listen(args)
    except KeyboardInterrupt:
        return 130


def _listen(args: argparse.Namespace) -> int:
    from app.settings import SpeechSettings
    from app.speech.audio import AudioError, FileSource, MicrophoneSource, resolve_device
    from app.speech.turn_stage import TurnTuning
    from app.speech.weights import SpeechModelMissingError
    from app.speech.worker import SpeechTuning, SpeechWorker

    try:
        if args.file:
            source: Any = FileSource(args.file, realtime=not args.fast)
        else:
            resolve_device(args.device, "input")
            source = MicrophoneSource(args.device)
        wake = None
        if not args.no_wake:
            from app.speech.wake import WakeWordDetector

            wake = WakeWordDetector()
        tuning = SpeechTuning(turns=TurnTuning(partials=bool(args.partials)))
        worker = SpeechWorker(source, SpeechSettings(), wake=wake, tuning=tuning)
    except (AudioError, SpeechModelMissingError) as exc:
        print(exc.user_message, file=sys.stderr)
        return 1
    except (OSError, RuntimeError, ValueError) as exc:  # a model file that will not load
        print(f"The speech models could not be loaded: {exc}", file=sys.stderr)
        return 1
    worker.subscribe(_printer(worker, bool(args.partials)))
    try:
        worker.run()
    finally:
        worker.stop()
    return 0
