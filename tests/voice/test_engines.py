"""Kokoro and Piper on real weights: audible, sensibly long, and intelligible to Whisper."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import resample_poly

from app.language.words import tokens
from app.settings import VoiceSettings
from app.voice import CachingEngine, VoiceModelError, open_engine
from app.voice.engines import is_english, pick_voice, voice_language

pytestmark = pytest.mark.slow

SENTENCE = "Please turn to the last page of the report."


def _check_audio(samples: np.ndarray, rate: int) -> None:
    seconds = len(samples) / rate
    assert samples.dtype == np.float32
    assert 1.0 < seconds < 5.0, seconds  # eight words
    rms = float(np.sqrt(np.mean(samples**2)))
    assert rms > 0.02, rms
    assert np.abs(samples).max() <= 1.0


def _heard(whisper, samples: np.ndarray, rate: int) -> list[str]:  # type: ignore[no-untyped-def]
    audio16 = resample_poly(samples, 16000, rate).astype(np.float32)
    segments, _ = whisper.transcribe(audio16, language="en", beam_size=1)
    return tokens(" ".join(s.text for s in segments))


def test_piper_says_the_sentence(piper: CachingEngine, whisper) -> None:  # type: ignore[no-untyped-def]
    [(text, samples, rate)] = list(piper.synthesize_sentences(SENTENCE))
    assert text == SENTENCE and rate == 22050
    _check_audio(samples, rate)
    assert _heard(whisper, samples, rate) == tokens(SENTENCE)


def test_kokoro_says_the_sentence(kokoro, whisper) -> None:  # type: ignore[no-untyped-def]
    [(text, samples, rate)] = list(kokoro.synthesize_sentences(SENTENCE))
    assert rate == 24000
    _check_audio(samples, rate)
    assert _heard(whisper, samples, rate) == tokens(SENTENCE)


def test_sentences_stream_one_by_one(piper: CachingEngine) -> None:
    items = piper.synthesize_sentences("First point. Second point here.")
    first = next(items)
    assert first[0] == "First point."
    assert [t for t, _, _ in items] == ["Second point here."]


def test_cache_returns_the_same_audio(piper: CachingEngine) -> None:
    [(_, a, _)] = list(piper.synthesize_sentences(SENTENCE))
    [(_, b, _)] = list(piper.synthesize_sentences(SENTENCE))
    assert a is b


def test_speed_shortens_the_audio(piper: CachingEngine) -> None:
    from app.voice import PiperEngine

    fast = PiperEngine(VoiceSettings(engine="piper", speed=1.5))
    [(_, normal, _)] = list(piper.synthesize_sentences(SENTENCE))
    [(_, quick, _)] = list(fast.synthesize_sentences(SENTENCE))
    assert len(quick) < 0.8 * len(normal)


def test_unknown_engine_is_a_typed_error() -> None:
    with pytest.raises(VoiceModelError) as e:
        open_engine(VoiceSettings(engine="espeak"))
    assert "kokoro" in e.value.user_message


def test_default_voice_speaks_english_with_a_note() -> None:
    """The default asks for an English Kokoro voice; a pack without one gives Piper's English
    voice and says why, never a voice of another language in silence."""
    engine = open_engine(VoiceSettings())
    if engine.name == "kokoro":
        assert is_english(engine.voice)  # type: ignore[attr-defined]
    else:
        assert engine.name == "piper"
        assert "Piper English voice" in engine.note and "models pull kokoro" in engine.note


def test_a_chosen_voice_of_another_language_is_named(kokoro) -> None:  # type: ignore[no-untyped-def]
    assert kokoro.voice == "jf_alpha"
    assert "Japanese" in kokoro.note


@pytest.mark.parametrize(
    ("wanted", "voices", "picked"),
    [
        ("af_heart", ["jf_alpha", "af_heart"], "af_heart"),
        ("af_heart", ["jf_alpha", "bf_emma", "am_adam"], "bf_emma"),
        ("jf_alpha", ["jf_alpha", "af_heart"], "jf_alpha"),
    ],
)
def test_pick_voice_prefers_the_wanted_then_english(wanted: str, voices: list[str],
                                                    picked: str) -> None:
    assert pick_voice(wanted, voices) == picked


def test_a_pack_without_english_is_an_error() -> None:
    with pytest.raises(VoiceModelError) as e:
        pick_voice("af_heart", ["jf_alpha", "zf_xiaobei"])
    assert "no English voice" in e.value.user_message


def test_voice_language_from_the_name() -> None:
    assert voice_language("af_heart") == "English (US)"
    assert voice_language("bm_george") == "English (UK)"
    assert voice_language("jf_alpha") == "Japanese"
    assert voice_language("qq") == "an unknown language"
