"""Real voices, loaded once per test session (Piper is the quick one)."""

from __future__ import annotations

import pytest

from app.settings import VoiceSettings
from app.voice import CachingEngine, KokoroEngine, PiperEngine


@pytest.fixture(scope="session")
def piper() -> CachingEngine:
    return CachingEngine(PiperEngine())


@pytest.fixture(scope="session")
def kokoro() -> KokoroEngine:
    """A voice the embedded pack has (its voices are all Japanese; it is asked for by name,
    as a user who picked it would)."""
    return KokoroEngine(VoiceSettings(voice="jf_alpha"))


@pytest.fixture(scope="session")
def whisper():  # type: ignore[no-untyped-def]
    from faster_whisper import WhisperModel

    from app.models import resolve

    return WhisperModel(
        str(resolve("whisper-tiny.en")), device="cpu", compute_type="int8", cpu_threads=2
    )
