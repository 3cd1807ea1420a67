"""Wake word: transcript fallback with its contextual filter, and openWakeWord on
synthesized and real recordings."""

from __future__ import annotations

import numpy as np
import pytest

from app.language.address import mentions_only, text_wake
from tests.conftest import shared_path
from tests.speech import synth


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("Hey Jarvis, what sample size did they use?", 1),
        ("Jarvis, what does the paper say?", 0),
        ("okay jarvis go ahead", 1),
        ("So, Jarvis, is that right?", 1),
        ("a Jarvis when was the survey run?", 1),  # "Hey" as the recognizer heard it
        ("Uh, Jarvis, which dataset was that?", 1),
        ("That needs a Jarvis to sort out.", None),
        ("A Jarvis demo would help.", 1),  # a turn that opens so is read as an address
        ("I liked the Jarvis demo.", None),
        ("Can you say Jarvis slowly?", None),
        ("We called it Jarvis last year.", None),
        ("What did Jarvis mean by that", None),
        ("No wake word here.", None),
    ],
)
def test_text_fallback_and_contextual_filter(text: str, index: int | None) -> None:
    assert text_wake(text) == index


def test_mentions_only() -> None:
    assert mentions_only("say jarvis")
    assert not mentions_only("hey jarvis")
    assert not mentions_only("nothing to see")


@pytest.fixture(scope="module")
def detector():
    from app.speech.wake import WakeWordDetector

    return WakeWordDetector()


def detect(detector, audio: np.ndarray) -> list:
    detector.reset()
    padded = np.concatenate([synth.silence(0.5), audio, synth.silence(1.0)])
    return detector.feed(padded, 0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "voice", ["piper", "piper-slow", "espeak-en-us", "espeak-en-gb", "kokoro-jm_kumo"]
)
def test_synthesized_hey_jarvis_wakes(detector, voice: str) -> None:
    text = "Hey Jarvis, what sample size did they use?"
    audio = {
        "piper": lambda: synth.piper(text),
        "piper-slow": lambda: synth.piper(text, 1.2),
        "espeak-en-us": lambda: synth.espeak(text, "en-us"),
        "espeak-en-gb": lambda: synth.espeak(text, "en-gb"),
        "kokoro-jm_kumo": lambda: synth.kokoro(text, "jm_kumo"),
    }[voice]()
    hits = detect(detector, audio)
    assert len(hits) == 1, detector.max_score
    # the hit lands on the wake phrase, within the first 1.5 s of speech
    assert 0.5 < hits[0].time < 0.5 + 1.5
    assert hits[0].sample == int(hits[0].time * 16000)


@pytest.mark.slow
def test_real_non_wake_recordings_stay_quiet(detector) -> None:
    from app.speech.audio import AudioFileError, load_audio

    root = shared_path("data/wakeword")
    clips = sorted((root / "openwakeword").glob("*.wav"))
    clips += sorted((root / "picovoice" / "alexa").glob("*.flac"))[:10]
    clips += sorted((root / "picovoice" / "computer").glob("*.wav"))[:10]
    heard = 0
    for clip in clips:
        try:
            audio = load_audio(clip)
        except AudioFileError:
            continue  # one upstream clip is damaged; the typed error is the contract
        heard += 1
        assert detect(detector, audio) == [], (clip.name, detector.max_score)
    assert heard >= 20


@pytest.mark.slow
def test_synthesized_mention_and_other_speech_stay_quiet(detector) -> None:
    for text in ("I liked the travis demo.", "Turn on the office lights and play some music."):
        assert detect(detector, synth.piper(text)) == []
