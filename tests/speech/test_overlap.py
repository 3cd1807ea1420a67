"""Overlap listener (what a participant says over the agent) on simulated frames, and the
short-window Whisper decoder on real recordings."""

from __future__ import annotations

import numpy as np
import pytest

from app.events import OverlapTranscript, VadEvent, VadKind
from app.language.talk import is_backchannel
from app.speech.overlap import OverlapListener, OverlapTuning, collapse_repeats

F = 512
DT = F / 16000  # 0.032 s


def t(i: int) -> float:
    """Audio time at the end of frame ``i``."""
    return round((i + 1) * DT, 6)


class Script:
    """A decoder that answers from a list and records how much audio it was given."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = list(texts)
        self.frames: list[int] = []

    def __call__(self, audio: np.ndarray) -> str:
        self.frames.append(audio.size // F)
        return self.texts.pop(0) if self.texts else self.last

    @property
    def last(self) -> str:
        return "Yeah."


def feed(
    listener: OverlapListener,
    frames: int,
    events: dict[int, list[VadKind]],
    audible: bool | set[int] = True,
    voiced: range | None = None,
) -> list[tuple[int, OverlapTranscript]]:
    out = []
    for i in range(frames):
        evs = [VadEvent(k, t(i), 0.05, True) for k in events.get(i, [])]
        heard = audible if isinstance(audible, bool) else i in audible
        frame = np.full(F, i, np.float32)
        v = voiced is None or i in voiced
        out += [(i, tr) for tr in listener.update(frame, t(i), evs, heard, v)]
    return out


ONSET, SUSTAINED, SHORT = VadKind.SPEECH_ONSET, VadKind.SUSTAINED_SPEECH, VadKind.SHORT_SILENCE

CASES = [
    pytest.param(
        ["Yeah.", "Yeah, but the", "ignored"],
        {20: [ONSET], 29: [SUSTAINED]},
        True,
        [(29, "Yeah.", 20), (36, "Yeah, but the", 20)],
        [17, 24],  # 7 frames of preroll + the speech so far
        id="backchannel-then-words-stops-decoding",
    ),
    pytest.param(
        [],
        {20: [ONSET], 29: [SUSTAINED]},
        False,
        [],
        [],
        id="agent-silent-nothing-decoded",
    ),
    pytest.param(
        ["Mm-hmm."],
        {20: [ONSET], 29: [SUSTAINED], 60: [SHORT]},
        True,
        [(29, "Mm-hmm.", 20), (36, "Yeah.", 20), (43, "Yeah.", 20), (50, "Yeah.", 20)]
        + [(57, "Yeah.", 20)],
        [17, 24, 31, 38, 45],
        id="a-held-backchannel-is-decoded-every-0.2s-until-it-ends",
    ),
    pytest.param(
        ["Okay.", "So what"],
        {5: [ONSET], 12: [SHORT], 30: [ONSET], 39: [SUSTAINED]},
        True,
        [(39, "Okay.", 30), (46, "So what", 30)],
        [17, 24],
        id="each-speech-from-its-own-onset",
    ),
    pytest.param(
        ["Yeah."],
        {2: [ONSET], 11: [SUSTAINED], 14: [SHORT]},
        True,
        [(11, "Yeah.", 2)],
        [12],
        id="preroll-is-what-there-was-before-the-onset",
    ),
]


@pytest.mark.parametrize(("texts", "events", "audible", "expected", "frames"), CASES)
def test_listener(texts, events, audible, expected, frames) -> None:
    decode = Script(texts)
    listener = OverlapListener(decode, OverlapTuning(preroll=0.2, interval=0.2, max_seconds=1.2))
    out = feed(listener, 70, events, audible)
    assert [(i, tr.text, round(tr.start / DT) - 1) for i, tr in out] == expected
    assert all(tr.end == t(i) for i, tr in out)
    assert decode.frames == frames


@pytest.mark.parametrize(
    ("voiced", "decoded_at", "frames"),
    [
        (range(20, 34), [29, 36], [17, 24]),  # voice until frame 33: one more decode
        (range(20, 32), [29], [17]),  # voice until 31: frame 36 is past the 0.1 s tail
        (range(20, 50), [29, 36, 43], [17, 24, 31]),
    ],
)
def test_decodes_need_new_voice(voiced: range, decoded_at: list[int], frames: list[int]) -> None:
    """After a "yeah" only the agent's residual echo is left: it is not decoded."""
    decode = Script([])
    listener = OverlapListener(decode, OverlapTuning(interval=0.2, max_seconds=2.0, tail=0.1))
    out = feed(listener, 60, {20: [ONSET], 29: [SUSTAINED], 50: [SHORT]}, voiced=voiced)
    assert [i for i, _ in out] == decoded_at
    assert decode.frames == frames


def test_decodes_stop_after_max_seconds() -> None:
    decode = Script([])
    listener = OverlapListener(decode, OverlapTuning(interval=0.2, max_seconds=1.0))
    out = feed(listener, 120, {0: [ONSET], 9: [SUSTAINED]})
    # onset at 0.032 s; decodes at sustained and every 7 frames while <= 1.0 s after it
    assert [i for i, _ in out] == [9, 16, 23, 30]


def test_sustained_while_audible_arms_it_for_good() -> None:
    decode = Script(["Uh", "Wait a second"])
    listener = OverlapListener(decode, OverlapTuning(interval=0.2, max_seconds=2.0))
    out = feed(listener, 40, {0: [ONSET], 9: [SUSTAINED]}, audible={9})
    assert [(i, tr.text) for i, tr in out] == [(9, "Uh"), (16, "Wait a second")]


@pytest.mark.parametrize(
    ("raw", "collapsed"),
    [
        ("Okay? Okay? Okay? Okay?", "Okay?"),
        ("No... No... No...", "No..."),
        ("Yeah, yeah.", "Yeah,"),
        ("Yeah okay yeah", "Yeah okay yeah"),
        ("What do you need? What do you need?", "What do you need? What do you need?"),
        ("", ""),
    ],
)
def test_collapse_repeats(raw: str, collapsed: str) -> None:
    assert collapse_repeats(raw) == collapsed


# --- the short-window decoder on real speech ------------------------------------------

AMI = "data/audio_diarization/ami_debug"


def _segment(path, start: float, seconds: float) -> np.ndarray:
    from app.speech.audio import load_audio

    x = load_audio(path)
    return x[int(start * 16000) : int((start + seconds) * 16000)]


@pytest.fixture(scope="module")
def glance():
    from app.speech.asr import WhisperTranscriber
    from app.speech.overlap import WhisperGlance

    asr = WhisperTranscriber(threads=1)
    return WhisperGlance(asr.model, guard=asr.guard)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("relative", "start", "seconds", "backchannel"),
    [
        (f"{AMI}/tst00.wav", 25.66, 0.55, True),  # "Yeah."
        (f"{AMI}/tst01.wav", 16.50, 0.54, True),  # "Okay."
        (f"{AMI}/tst01.wav", 4.39, 0.35, False),  # "Nope."
        ("data/audio_diarization/pyannote_sample/sample.wav", 7.55, 0.8, False),  # "Hello."
        ("data/audio_asr/jfk.flac", 0.0, 2.0, False),  # "And so my fellow Americans"
    ],
)
def test_glance_tells_backchannels_from_words(
    glance, relative: str, start: float, seconds: float, backchannel: bool
) -> None:
    from tests.conftest import shared_path

    text = glance(_segment(shared_path(relative), start, seconds))
    assert text, "heard nothing"
    assert is_backchannel(text) == backchannel, text


@pytest.mark.slow
def test_glance_hears_nothing_in_silence_and_noise(glance) -> None:
    rng = np.random.default_rng(3)
    assert glance(np.zeros(8000, np.float32)) == ""
    assert glance(rng.normal(0, 0.001, 8000).astype(np.float32)) == ""
