"""When a turn opens and closes: a pure state machine over voiced/unvoiced frames.

A turn opens on the first voiced frame and closes after ``end_silence`` of audio
silence. Because the final decode costs time, a speculative decode is asked for once
the silence reaches ``speculate_after``; if voice resumes, the speculation is void. A
wall-clock watchdog closes a turn whose silence has begun when audio stops arriving
(stalled device, end of a live stream) ``watchdog`` seconds after the last voiced frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class TurnAction(str, Enum):
    OPEN = "open"
    SPECULATE = "speculate"
    RESUME = "resume"  # voice came back after a speculation: discard it
    CLOSE = "close"


@dataclass(frozen=True)
class TurnStep:
    action: TurnAction
    start: float  # audio time the turn's first voiced frame began
    end: float  # audio time the last voiced frame ended


class TurnTracker:
    def __init__(
        self, end_silence: float = 0.5, watchdog: float = 0.7, speculate_after: float = 0.2
    ) -> None:
        self.end_silence = end_silence
        self.watchdog = watchdog
        self.speculate_after = min(speculate_after, end_silence)
        self._open = False
        self._start = 0.0
        self._last_voiced_end = 0.0
        self._last_voiced_wall = 0.0
        self._speculated = False

    @property
    def is_open(self) -> bool:
        return self._open

    @property
    def start(self) -> float:
        return self._start

    def update(
        self, frame_start: float, frame_end: float, voiced: bool, wall_now: float
    ) -> list[TurnStep]:
        if voiced:
            return self._voiced(frame_start, frame_end, wall_now)
        if not self._open:
            return []
        silence = frame_end - self._last_voiced_end
        if silence + 1e-9 >= self.end_silence:
            return [self._close()]
        if not self._speculated and silence + 1e-9 >= self.speculate_after:
            self._speculated = True
            return [TurnStep(TurnAction.SPECULATE, self._start, self._last_voiced_end)]
        return []

    def _voiced(self, frame_start: float, frame_end: float, wall_now: float) -> list[TurnStep]:
        steps: list[TurnStep] = []
        if not self._open:
            self._open, self._start, self._speculated = True, frame_start, False
            steps.append(TurnStep(TurnAction.OPEN, frame_start, frame_end))
        elif self._speculated:
            self._speculated = False
            steps.append(TurnStep(TurnAction.RESUME, self._start, frame_end))
        self._last_voiced_end = frame_end
        self._last_voiced_wall = wall_now
        return steps

    def tick(self, wall_now: float) -> list[TurnStep]:
        """Called when no audio arrived for a while: the wall-clock watchdog."""
        if self._open and wall_now - self._last_voiced_wall + 1e-9 >= self.watchdog:
            return [self._close()]
        return []

    def flush(self) -> list[TurnStep]:
        """End of the stream: close whatever is open."""
        return [self._close()] if self._open else []

    def _close(self) -> TurnStep:
        self._open = False
        self._speculated = False
        return TurnStep(TurnAction.CLOSE, self._start, self._last_voiced_end)
