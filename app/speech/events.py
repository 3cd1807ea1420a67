"""Speech events beyond the shared set in ``app.events`` (emitted by SpeechWorker)."""

from __future__ import annotations

from dataclasses import dataclass

from app.speech.diarization import SpeakerSegment
from app.speech.wake import WakeRetracted

__all__ = ["DeviceStatus", "SpeakerSegment", "SpeechError", "WakeRetracted"]


@dataclass(frozen=True)
class DeviceStatus:
    """The capture device changed state: "running", "lost" (retrying) or "stopped"."""

    state: str
    message: str = ""
    time: float = 0.0


@dataclass(frozen=True)
class SpeechError:
    """A stage failed on some audio; the worker carried on."""

    stage: str
    message: str
    time: float = 0.0
