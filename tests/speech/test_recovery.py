"""Speech the VAD missed: the bookkeeping of MissedSpeech with a level detector on
synthetic audio (exact), and the worker on a real far-field clip whose quiet speaker
Silero does not hear at all."""

from __future__ import annotations

import numpy as np
import pytest

from app.speech.recovery import MissedSpeech, Span
from app.speech.segmentation import FRAME_DURATION, FRAME_STEP, LocalActivity, speech_spans
from tests.speech.scoring import worker_events

R = 16000
FRAME = 512


def loud(audio: np.ndarray) -> list[Span]:
    """Speech wherever 10 ms of audio is louder than the noise floor."""
    n = audio.size // 160
    level = np.sqrt(np.mean(audio[: n * 160].reshape(n, 160) ** 2, axis=1))
    spans: list[list[float]] = []
    for i in np.flatnonzero(level > 0.01):
        if spans and spans[-1][1] >= i / 100 - 1e-9:
            spans[-1][1] = (i + 1) / 100
        else:
            spans.append([i / 100, (i + 1) / 100])
    return [(a, b) for a, b in spans]


def room(seconds: float, bursts: list[Span]) -> np.ndarray:
    audio = np.random.default_rng(0).standard_normal(int(seconds * R)).astype(np.float32) * 0.001
    for a, b in bursts:
        t = np.arange(int(a * R), int(b * R))
        audio[t] += 0.1 * np.sin(2 * np.pi * 220 * t / R).astype(np.float32)
    return audio


def fed(audio: np.ndarray, agent: Span = (-1.0, -1.0), **kwargs: float) -> MissedSpeech:
    missed = MissedSpeech(loud, **{"window": 10.0, **kwargs})
    for i in range(0, audio.size - FRAME + 1, FRAME):
        end = (i + FRAME) / R
        heard_agent = agent[0] < end and end - FRAME / R < agent[1]
        missed.hear(audio[i : i + FRAME], end, eligible=not heard_agent)
    return missed


def found(stretches: list) -> list[tuple[float, float]]:
    """Where the stretches are, to the detector's 10 ms."""
    return [(round(s.start, 1), round(s.end, 1)) for s in stretches]


def test_a_phrase_in_the_silence_is_found_with_its_audio() -> None:
    audio = room(12.0, [(3.0, 4.0)])
    missed = fed(audio)
    stretches = missed.examine(8.0, 12.0, hold=True)
    assert found(stretches) == [(3.0, 4.0)]
    clip = missed.audio(stretches[0].start, stretches[0].end)
    assert np.array_equal(clip, audio[3 * R : 4 * R])
    assert missed.examine(11.0, 12.0, hold=True) == []  # looked at once only


def test_a_phrase_at_the_end_of_a_look_waits_for_the_next_one() -> None:
    audio = room(12.0, [(3.0, 4.0)])
    missed = fed(audio[: int(6.0 * R)])
    assert missed.examine(3.5, 6.0, hold=True) == []  # it may go on
    assert missed.examined_until == pytest.approx(3.0)
    for i in range(int(6.0 * R), audio.size - FRAME + 1, FRAME):
        missed.hear(audio[i : i + FRAME], (i + FRAME) / R, eligible=True)
    assert found(missed.examine(9.5, 12.0, hold=True)) == [(3.0, 4.0)]


def test_a_long_phrase_is_found_whole_in_pieces_as_the_looks_go_by() -> None:
    audio = room(24.0, [(2.0, 14.0)])
    missed = MissedSpeech(loud, window=10.0)
    pieces = []
    for i in range(0, audio.size - FRAME + 1, FRAME):
        end = (i + FRAME) / R
        missed.hear(audio[i : i + FRAME], end, eligible=True)
        if i % (5 * R) < FRAME and end > 1.0:  # a look every 5 s, as the worker's
            pieces += missed.examine(end - 2.5, end, hold=True)
    pieces += missed.examine(24.0, 24.0, hold=False)
    assert pieces and round(pieces[0].start, 1) == 2.0 and round(pieces[-1].end, 1) == 14.0
    for a, b in zip(pieces, pieces[1:], strict=False):
        assert b.start - a.end < 0.05  # no gap between the pieces


def test_speech_heard_while_the_agent_may_be_heard_never_counts() -> None:
    audio = room(12.0, [(3.0, 4.0)])
    assert fed(audio, agent=(2.5, 4.5)).examine(8.0, 12.0, hold=True) == []
    only_end = fed(audio, agent=(2.5, 3.5)).examine(8.0, 12.0, hold=True)
    assert found(only_end) == [(3.5, 4.0)] and only_end[0].start >= 3.5 - 1e-9


def test_a_turns_own_audio_is_not_looked_at_again() -> None:
    missed = fed(room(12.0, [(3.0, 4.0)]))
    missed.skip_to(4.0)
    assert missed.examine(8.0, 12.0, hold=True) == []


def test_short_sounds_are_dropped_and_close_ones_join() -> None:
    audio = room(12.0, [(2.0, 2.2), (5.0, 5.2), (5.5, 5.7)])
    stretches = fed(audio, min_speech=0.3, join_gap=0.5).examine(8.0, 12.0, hold=True)
    assert found(stretches) == [(5.0, 5.7)]  # 0.2 s alone is not a turn; 0.4 s joined is
    assert len(stretches[0].spans) == 2 and stretches[0].seconds == pytest.approx(0.4)


def test_what_the_model_calls_speech_must_be_louder_than_the_room() -> None:
    """The detector calls 4-5 s and 6-7 s speech; only the first holds a voice above the
    noise floor (a pause inside a phrase, for the segmentation model, is speech too)."""
    audio = room(12.0, [])
    t = np.arange(4 * R, 5 * R)
    audio[t] += 0.01 * np.sin(2 * np.pi * 220 * t / R).astype(np.float32)  # +17 dB

    def model(clip: np.ndarray) -> list[Span]:  # reads 2-12 s
        return [(2.0, 3.0), (4.0, 5.0)]

    missed = MissedSpeech(model, window=10.0)
    for i in range(0, audio.size - FRAME + 1, FRAME):
        missed.hear(audio[i : i + FRAME], (i + FRAME) / R, eligible=True)
    assert found(missed.examine(12.0, 12.0, hold=False)) == [(4.0, 5.0)]


def test_only_the_last_window_is_read_and_old_audio_is_forgotten() -> None:
    audio = room(40.0, [(1.0, 2.0), (30.0, 31.0)])
    missed = fed(audio, window=10.0, keep=15.0)
    assert missed.audio(0.0, 40.0).size == pytest.approx(15 * R, abs=FRAME)
    # the first phrase is gone; the second is read within the window up to 35 s
    assert found(missed.examine(35.0, 35.0, hold=False)) == [(30.0, 31.0)]


def test_segmentation_frames_become_spans_in_seconds() -> None:
    active = np.zeros((10, 3), dtype=bool)
    active[2:4, 0] = True
    active[3:6, 1] = True
    active[8, 2] = True
    spans = speech_spans(LocalActivity(active, np.zeros(10)))
    lead = (FRAME_DURATION - FRAME_STEP) / 2
    assert spans == [
        pytest.approx((lead + 2 * FRAME_STEP, lead + 6 * FRAME_STEP)),
        pytest.approx((lead + 8 * FRAME_STEP, lead + 9 * FRAME_STEP)),
    ]


# --- real audio ---------------------------------------------------------------------------


def turns_of(name: str, recover: bool) -> tuple[list[tuple[str, float, float]], list]:
    from app.events import Turn

    reference, events = worker_events(name, recover_missed_speech=recover)
    return reference, [e for e in events if isinstance(e, Turn)]


def coverage(reference: list[tuple[str, float, float]], turns: list) -> tuple[float, float]:
    """Share of the reference speech inside turns, and seconds of turns outside it."""
    n = 3100
    speech, heard = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for _, a, b in reference:
        speech[int(a * 100) : int(b * 100)] = True
    for t in turns:
        heard[int(t.start * 100) : int(t.end * 100)] = True
    return float((speech & heard).sum() / speech.sum()), float((heard & ~speech).sum() / 100)


@pytest.mark.slow
def test_a_quiet_far_field_speaker_the_vad_misses_becomes_a_turn() -> None:
    """AMI tst01: MEE071 says a few words at 16.5-17.0 s that Silero scores near zero, so
    the VAD alone makes no turn of them at all. The VAD's own turns are kept as they were,
    and nothing is found where nobody speaks."""
    reference, vad_only = turns_of("ami_tst01", recover=False)
    _, recovered = turns_of("ami_tst01", recover=True)
    assert not any(t.start < 17.0 and t.end > 16.5 for t in vad_only)
    assert any(t.start < 17.0 and t.end > 16.5 for t in recovered)
    (before, fa_before), (after, fa_after) = coverage(reference, vad_only), coverage(
        reference, recovered
    )
    assert after >= before + 0.05, (before, after)  # MEE071's 0.5 s of 6.1 s of speech
    assert fa_after <= fa_before + 0.05
    spans = {(round(t.start, 2), round(t.end, 2)) for t in recovered}
    assert {(round(t.start, 2), round(t.end, 2)) for t in vad_only} <= spans
    for a, b in zip(recovered, recovered[1:], strict=False):
        assert a.end <= b.start + 1e-6
