"""Audio sources and the speech worker, built from whatever the speech package offers."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from app.clock import Clock
from app.settings import Settings

log = logging.getLogger(__name__)


def file_source(path: Path, realtime: bool, clock: Clock | None = None) -> tuple[Any, str | None]:
    try:
        from app.speech.audio import FileSource
    except ImportError as exc:
        return None, f"the speech package is not installed ({exc})"
    try:
        return FileSource(path, realtime=realtime, clock=clock), None
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or str(exc)


def mic_source(device: str | None = None) -> tuple[Any, str | None]:
    try:
        from app.speech import audio
    except ImportError as exc:
        return None, f"the speech package is not installed ({exc})"
    factory = getattr(audio, "MicSource", None) or getattr(audio, "MicrophoneSource", None)
    if factory is None:
        return None, "microphone capture is not built yet"
    try:
        return (factory(device=device) if device else factory()), None
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or f"microphone: {exc}"


def speech_worker(
    source: Any, settings: Settings, clock: Clock, wake: bool = True, reference: Any = None
) -> tuple[Any, str | None]:
    """A SpeechWorker on ``source`` (not started), or why there is none."""
    try:
        from app.speech.worker import SpeechWorker
    except ImportError as exc:
        return None, f"the speech worker is not installed ({exc})"
    detector = None
    if wake:
        try:
            from app.speech.wake import WakeWordDetector

            detector = WakeWordDetector(settings.speech)
        except Exception as exc:  # the transcript fallback still catches "Jarvis"
            log.warning("wake word model unavailable: %s", exc)
    try:
        return SpeechWorker(
            source, settings.speech, wake=detector, clock=clock, reference=reference
        ), None
    except Exception as exc:
        log.exception("speech worker construction failed")
        return None, getattr(exc, "user_message", None) or f"speech models: {exc}"
