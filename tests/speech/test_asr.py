"""LocalAgreement commits, hallucination guards, and Whisper on real speech."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from app.speech.asr import (
    HallucinationGuard,
    LocalAgreement,
    SegmentInfo,
    Word,
    _words,
    join_words,
    normalize,
)
from tests.conftest import shared_path

JFK = (
    "And so my fellow Americans, ask not what your country can do for you, "
    "ask what you can do for your country."
)


def words(text: str, start: float = 0.0, step: float = 0.3) -> list[Word]:
    return [Word(start + i * step, start + i * step + 0.25, w) for i, w in enumerate(text.split())]


def wer(reference: str, hypothesis: str) -> float:
    import jiwer

    def clean(s: str) -> str:
        return " ".join(normalize(w) for w in s.split() if normalize(w))

    return float(jiwer.wer(clean(reference), clean(hypothesis)))


def test_agreement_commits_the_shared_prefix_only() -> None:
    la = LocalAgreement()
    assert la.insert(words("ask not what")) == []
    got = la.insert(words("ask not what your country"))
    assert [w.text for w in got] == ["ask", "not", "what"]
    assert [w.text for w in la.pending] == ["your", "country"]
    assert la.insert(words("ask not what you are")) == []  # "your" vs "you": no new agreement
    assert la.text() == "ask not what"


def test_agreement_ignores_case_and_punctuation() -> None:
    la = LocalAgreement()
    la.insert(words("Hello, world"))
    assert [w.text for w in la.insert(words("hello world!"))] == ["hello", "world!"]


def test_agreement_skips_words_before_the_last_commit() -> None:
    la = LocalAgreement()
    la.insert(words("one two three"))
    la.insert(words("one two three four"))
    assert la.text() == "one two three"
    # a re-decode of a tail window repeats "three" (overlap) then goes on
    tail = [Word(0.6, 0.85, "three"), Word(0.9, 1.15, "four"), Word(1.2, 1.45, "five")]
    la.insert(tail)
    la.insert(tail)
    assert la.text() == "one two three four five"


def test_finish_commits_the_final_hypothesis_past_the_prefix() -> None:
    la = LocalAgreement()
    la.insert(words("so my fellow"))
    la.insert(words("so my fellow Americans"))
    new = la.finish(words("so my fellow Americans ask not"))
    assert [w.text for w in new] == ["Americans", "ask", "not"]
    assert la.text() == "so my fellow Americans ask not"
    assert la.pending == []


@pytest.mark.parametrize(
    ("seg", "voiced", "ok"),
    [
        (SegmentInfo("We should ship it.", 0.1, -0.3, 1.2), 2.0, True),
        (SegmentInfo("Thank you for watching!", 0.2, -0.4, 1.1), 0.5, False),
        (SegmentInfo("Thank you for watching!", 0.2, -0.4, 1.1), 3.0, True),
        (SegmentInfo("the the the the the the the the", 0.1, -0.2, 3.1), 3.0, False),
        (SegmentInfo("Hmm.", 0.9, -1.5, 0.8), 1.0, False),
        (SegmentInfo("Hmm.", 0.9, -0.5, 0.8), 1.0, True),
        (SegmentInfo("   ", 0.0, 0.0, 0.0), 1.0, False),
    ],
)
def test_guard(seg: SegmentInfo, voiced: float, ok: bool) -> None:
    assert HallucinationGuard().accept(seg, voiced) is ok


@pytest.fixture(scope="module")
def transcriber():
    from app.speech.asr import WhisperTranscriber

    return WhisperTranscriber()


def test_words_whisper_wrote_without_a_space_are_joined_to_the_one_before() -> None:
    said = [(" I", 0.0), (" DON", 0.2), ("'T", 0.4), (" know", 0.5), (" SARS", 0.8),
            ("-CoV.", 1.1)]
    segment = SimpleNamespace(words=[SimpleNamespace(word=w, start=t, end=t + 0.2,
                                                     probability=0.9) for w, t in said])
    words = _words(segment, offset=10.0)
    assert [w.glued for w in words] == [False, False, True, False, False, True]
    assert words[2].text == "'T" and words[2].start == 10.4
    assert join_words(words) == "I DON'T know SARS-CoV."
    # A segment's first word starts a word, spaced or not.
    first = _words(SimpleNamespace(words=[SimpleNamespace(word="So", start=0.0, end=0.1,
                                                          probability=1.0)]), 0.0)
    assert join_words([*words, *first]) == "I DON'T know SARS-CoV. So"


@pytest.mark.slow
def test_whisper_transcribes_jfk_with_absolute_word_times(transcriber) -> None:
    from app.speech.audio import load_audio

    audio = load_audio(shared_path("data/audio_asr/jfk.flac"))
    got = transcriber.transcribe(audio, offset=100.0)
    text = join_words(got)
    assert wer(JFK, text) <= 0.1, text
    assert 100.0 <= got[0].start < 101.0 and got[-1].end <= 111.5
    assert all(a.start <= b.start for a, b in zip(got, got[1:], strict=False))


@pytest.mark.slow
def test_whisper_gives_no_text_on_silence_or_noise(transcriber) -> None:
    rng = np.random.default_rng(0)
    assert transcriber.transcribe(np.zeros(32000, np.float32), 0.0, voiced_seconds=0.0) == []
    for amplitude in (0.003, 0.05):
        noise = (rng.standard_normal(48000) * amplitude).astype(np.float32)
        got = transcriber.transcribe(noise, 0.0, voiced_seconds=0.0)
        assert got == [], [w.text for w in got]
