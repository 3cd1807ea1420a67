"""Turns from a written transcript, released at their end times on a clock.

Stands in for the speech worker when it is not available (or in tests of the layers
above it): the same ``Turn`` events arrive in the same order and spacing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.clock import Clock, RealClock
from app.events import Turn


def load_turns(path: Path) -> list[Turn]:
    """Turns of a ``meeting_transcript.json`` (speaker, text, start, end)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [
        Turn(
            speaker=t["speaker"],
            text=t["text"],
            start=float(t["start"]),
            end=float(t["end"]),
            index=i,
        )
        for i, t in enumerate(data["turns"])
    ]


class ScriptedTurns:
    """Publishes each turn when the clock reaches its end time; a thread of its own."""

    def __init__(
        self,
        turns: list[Turn],
        emit: Callable[[Any], None],
        clock: Clock | None = None,
        tail: float = 0.0,
    ) -> None:
        self._turns = turns
        self._emit = emit
        self._clock = clock or RealClock()
        self._tail = tail
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scripted-turns", daemon=True)
        self.done = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        t0 = self._clock.now()
        for turn in self._turns:
            if not self._wait_until(t0 + turn.end):
                return
            self._emit(turn)
        self._wait_until(self._clock.now() + self._tail)
        self.done.set()

    def _wait_until(self, due: float) -> bool:
        while not self._stop.is_set():
            left = due - self._clock.now()
            if left <= 0:
                return True
            self._clock.sleep(min(left, 0.1))
        return False
