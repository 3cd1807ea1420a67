"""Wake word: openWakeWord "hey jarvis" on audio. The text fallback on committed turns
and the filter that tells an address from a mention are ``app.language.address``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.settings import SpeechSettings

CHUNK = 1280  # openWakeWord's 80 ms step at 16 kHz

@dataclass(frozen=True)
class WakeHit:
    """A detection before the speaker is attached."""

    sample: int  # sample index (16 kHz) at the end of the chunk that fired
    time: float
    score: float


@dataclass(frozen=True)
class WakeRetracted:
    """An audio wake whose turn turned out to mention Jarvis rather than address it."""

    time: float
    speaker: str | None
    text: str


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """16-bit PCM for the wake model; NaN/inf (a broken driver) become silence, and values
    beyond full scale are clipped before scaling, so the cast never overflows."""
    clean = np.nan_to_num(np.asarray(samples, dtype=np.float32), nan=0.0, posinf=0.0,
                          neginf=0.0)
    return (np.clip(clean, -1.0, 1.0) * 32767.0).astype(np.int16)


class WakeWordDetector:
    """openWakeWord (ONNX backend) with a threshold and a refractory period."""

    def __init__(
        self,
        settings: SpeechSettings | None = None,
        model_dir: str | Path | None = None,
        refractory: float = 2.0,
    ) -> None:
        from openwakeword.model import Model

        from app.speech.weights import resolve

        s = settings or SpeechSettings()
        base = Path(model_dir) if model_dir else resolve("oww-hey-jarvis")
        self.threshold = s.wake_threshold
        self.refractory = refractory
        self._model = Model(
            wakeword_models=[str(base / "hey_jarvis_v0.1.onnx")],
            inference_framework="onnx",
            melspec_model_path=str(base / "melspectrogram.onnx"),
            embedding_model_path=str(base / "embedding_model.onnx"),
        )
        self._key = next(iter(self._model.models))
        self._pending = np.zeros(0, dtype=np.int16)
        self._pending_start = 0
        self._last_hit = -1e9
        self.max_score = 0.0

    def reset(self) -> None:
        self._model.reset()
        self._pending = np.zeros(0, dtype=np.int16)
        self._last_hit = -1e9
        self.max_score = 0.0

    def feed(self, samples: np.ndarray, sample: int, rate: int = 16000) -> list[WakeHit]:
        """Feed float32 audio whose first sample has index ``sample``."""
        pcm = to_pcm16(samples)
        if self._pending.size == 0:
            self._pending_start = sample
        self._pending = np.concatenate([self._pending, pcm])
        hits = []
        while self._pending.size >= CHUNK:
            chunk, self._pending = self._pending[:CHUNK], self._pending[CHUNK:]
            end = self._pending_start + CHUNK
            self._pending_start = end
            score = float(self._model.predict(chunk)[self._key])
            self.max_score = max(self.max_score, score)
            t = end / rate
            if score >= self.threshold and t - self._last_hit >= self.refractory:
                self._last_hit = t
                hits.append(WakeHit(end, t, score))
        return hits
