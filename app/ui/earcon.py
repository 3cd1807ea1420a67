"""Short chimes on wake and on a raised hand; silent when there is no output device."""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np

from app.ui.theme import RESOURCES

log = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def _load(name: str) -> tuple[np.ndarray, int]:
    import soundfile as sf

    data, rate = sf.read(str(RESOURCES / "earcons" / f"{name}.wav"), dtype="float32")
    return data, int(rate)


class Earcons:
    def __init__(self, enabled: bool = True, device: str | None = None) -> None:
        self.enabled = enabled
        self.device = device or None
        self.played: list[str] = []

    def play(self, name: str) -> None:
        self.played.append(name)
        if not self.enabled:
            return
        try:
            import sounddevice as sd

            data, rate = _load(name)
            sd.play(data, rate, device=self.device, blocking=False)
        except Exception as exc:  # no sound card: the glyph still shows the state
            log.info("earcon %s not played: %s", name, exc)
            self.enabled = False
