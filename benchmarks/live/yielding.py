"""A room that lets the agent finish: the rendered meeting, held while the agent speaks.

People in a meeting mostly wait for whoever has begun to speak. A participant whose turn
has not started when the agent's voice begins waits until it stops, and a short beat more;
a turn already under way goes on (and stops the agent, as barge-in should).
``YieldingRoom`` plays the rendered recording as a microphone would and inserts silence
before such a turn. ``as_played`` moves the script's lines by the silence inserted before
them, so the scorer reads the meeting as the app heard it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.clock import Clock
from app.events import PlaybackReceipt, ReceiptStatus
from app.speech.audio import PacedSource
from live.render import Line, Rendering

BEAT = 0.7  # s a participant leaves after the agent stops before taking the turn


@dataclass(frozen=True)
class Hold:
    """Silence the room inserted because the agent was speaking."""

    at: float  # s of the recording: the start of the turn that waited
    seconds: float


def hold_points(lines: Sequence[Line]) -> list[float]:
    """The starts (s, ascending) of lines that begin while no other line sounds: the
    turns a participant can hold back. A backchannel or an overlap starts inside another
    line and plays as rendered."""
    starts = sorted({line.start for line in lines})
    return [t for t in starts
            if not any(other.start < t < other.end for other in lines)]  # fmt: skip


def as_played(rendering: Rendering, holds: Sequence[Hold]) -> Rendering:
    """The rendering with every line moved by the silence inserted at or before its start."""

    def moved(line: Line) -> Line:
        shift = sum(h.seconds for h in holds if h.at <= line.start)
        return dataclasses.replace(line, start=line.start + shift, end=line.end + shift)

    return dataclasses.replace(rendering, lines=tuple(moved(line) for line in rendering.lines))


class AgentVoice:
    """Whether the room hears the agent, from its playback receipts (any thread)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._playing: set[str] = set()
        self._quiet_since = float("-inf")  # clock time the agent last stopped

    def observe(self, event: Any) -> None:
        if not isinstance(event, PlaybackReceipt):
            return
        with self._lock:
            if event.status == ReceiptStatus.STARTED:
                self._playing.add(event.intervention_id)
            elif event.intervention_id in self._playing:
                self._playing.discard(event.intervention_id)
                self._quiet_since = self._clock.now()

    def holds_the_room(self, beat: float = BEAT) -> bool:
        """The agent is speaking, or stopped less than ``beat`` seconds ago."""
        with self._lock:
            return bool(self._playing) or self._clock.now() - self._quiet_since < beat


class YieldingRoom(PacedSource):
    """A rendered recording paced like a microphone whose participants wait for the agent:
    at each hold point the feed inserts silence while ``voice`` holds the room. Blocks are
    stamped with their place in the stream, silence included; ``holds`` lists what was
    inserted."""

    def __init__(self, samples: np.ndarray, lines: Sequence[Line], voice: AgentVoice,
                 beat: float = BEAT, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(samples, **kwargs)
        self.voice = voice
        self.beat = beat
        self._points = hold_points(lines)
        self.holds: list[Hold] = []

    def blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        points = iter(self._points)
        point = next(points, None)
        inserted = 0
        for pos, chunk in super().blocks():
            end = pos + chunk.size
            while point is not None and point * self.sample_rate < pos:
                point = next(points, None)
            if point is not None and point * self.sample_rate < end:
                waited = 0
                while self.voice.holds_the_room(self.beat) and not self._halt.is_set():
                    yield pos + inserted, np.zeros_like(chunk)
                    inserted += chunk.size
                    waited += chunk.size
                if waited:
                    self.holds.append(Hold(point, waited / self.sample_rate))
                point = next(points, None)
            yield pos + inserted, chunk
