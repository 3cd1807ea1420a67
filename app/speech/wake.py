"""Wake word: openWakeWord "hey jarvis" on audio, a text fallback on committed turns, and
a contextual filter that tells an address ("hey Jarvis, ...") from a mention ("the Jarvis
demo", "say Jarvis")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.settings import SpeechSettings

CHUNK = 1280  # openWakeWord's 80 ms step at 16 kHz

# Words that make the following "jarvis" a mention rather than an address.
MENTION_BEFORE = frozenset(
    "the a an say says said saying called named call about of with like this that "
    "his her their our your my".split()
)
ADDRESS_BEFORE = frozenset("hey hi hello ok okay yo excuse".split())
# A turn's first word before "jarvis" that is a greeting as the recognizer may write it
# ("a Jarvis, which ..." for "Hey Jarvis"), or a filler: an address there, not a mention.
OPENING_BEFORE = frozenset("a ah eh uh um oh".split())
_WORD = re.compile(r"[a-z']+")


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


def text_wake(text: str) -> int | None:
    """Word index of an addressing "jarvis" in a committed transcript, else None.

    Accepted: "hey/ok jarvis ...", a turn that starts with "jarvis" (or "a/uh jarvis"),
    "..., jarvis, ...". Rejected: "the jarvis", "say jarvis", "called jarvis" and other
    mentions.
    """
    words = _WORD.findall(text.lower().replace("-", " "))
    for i, w in enumerate(words):
        if w not in ("jarvis", "jarvis's"):
            continue
        before = words[i - 1] if i > 0 else ""
        if i == 1 and before in OPENING_BEFORE:
            return i
        if before in MENTION_BEFORE:
            continue
        if i == 0 or before in ADDRESS_BEFORE or _comma_before(text, i):
            return i
    return None


def _comma_before(text: str, index: int) -> bool:
    """``..., jarvis`` counts as an address; needs the original punctuation."""
    parts = re.split(r"(?i)\bjarvis\b", text)
    return len(parts) > 1 and parts[0].rstrip().endswith((",", ".", "?", "!"))


def mentions_only(text: str) -> bool:
    """The transcript names Jarvis but never addresses it."""
    return "jarvis" in text.lower() and text_wake(text) is None


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
