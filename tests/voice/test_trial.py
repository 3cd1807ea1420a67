"""The test sentence and the installed voices the picker lists, with the real voices."""

from __future__ import annotations

import pytest

from app.settings import VoiceSettings
from app.voice import MemorySink, VoiceModelError
from app.voice.engines import InstalledVoice, installed_voices, piper_language
from app.voice.trial import say_test_sentence


def test_the_test_sentence_is_played_whole_by_the_voice_the_meeting_would_use():
    sink = MemorySink()
    trial = say_test_sentence(VoiceSettings(engine="piper"), sink)
    assert (trial.engine, trial.voice, trial.note) == ("piper", "en_US-joe-medium", "")
    assert trial.seconds == pytest.approx(sink.seconds, abs=0.05) and trial.seconds > 1.5


def test_a_kokoro_voice_that_is_not_there_is_heard_as_the_fallback_with_its_note():
    voices = installed_voices()
    if any(v.engine == "kokoro" and v.english for v in voices):
        pytest.skip("Kokoro's English voices are pulled here: no fallback to hear")
    trial = say_test_sentence(VoiceSettings(engine="kokoro", voice="af_heart"), MemorySink())
    assert trial.engine == "piper"
    assert trial.note.startswith("Jarvis speaks with the Piper English voice")


def test_an_unknown_engine_is_an_error_for_the_user():
    with pytest.raises(VoiceModelError, match="Unknown voice engine 'espeak'"):
        say_test_sentence(VoiceSettings(engine="espeak"), MemorySink())


def test_labels_say_engine_voice_and_language():
    assert InstalledVoice("piper", "en_US-joe-medium", "English (US)").label == (
        "Piper en_US-joe-medium \u2014 English (US)")
    assert InstalledVoice("kokoro", "jf_alpha", "Japanese").label == (
        "Kokoro jf_alpha \u2014 Japanese (not an English voice)")
    assert piper_language({"language": {"name_english": "English", "region": "GB"}}) == (
        "English (GB)")
    assert piper_language({"language": {"code": "de_DE"}}) == "de_DE"
    assert piper_language({}) == "an unknown language"
