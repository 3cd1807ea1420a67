"""The floor's clock: audio time, so ``now`` and the speech events' times agree."""

from __future__ import annotations

import threading
import time
from typing import Any


class AudioFollowingClock:
    """The floor's clock in audio time: the floor compares ``now`` with the times of speech
    events, so it must not run ahead when recognition lags (a busy CPU) or behind when
    the file is read faster than real time (``--fast``). Once the audio has ended it moves
    on in real time, so the closing pause still lasts as long as it sounds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._audio = 0.0
        self._ended_at: float | None = None

    def start(self) -> None:
        pass

    def end_audio(self) -> None:
        with self._lock:
            if self._ended_at is None:
                self._ended_at = time.monotonic()

    def observe(self, event: Any) -> None:
        name = type(event).__name__
        if name == "DeviceStatus" and event.state == "stopped":
            self.end_audio()
            return
        t = getattr(event, "time", None)
        if name in ("VadEvent", "InputLevel") and isinstance(t, float):
            with self._lock:
                self._audio = max(self._audio, t)

    def now(self) -> float:
        with self._lock:
            extra = 0.0 if self._ended_at is None else time.monotonic() - self._ended_at
            return self._audio + extra

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))
