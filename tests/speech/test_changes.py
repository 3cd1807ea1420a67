"""Speaker changes inside one local voice: the windows (exact, on synthetic masks and
embeddings) and the worker on a real far-field meeting where two alike voices alternate
inside one local speaker."""

from __future__ import annotations

import numpy as np
import pytest

from app.speech.changes import VoiceWindow, moved_windows, window_frames
from app.speech.diarization import OnlineSpeakerClustering, SpeakerSegment
from tests.speech.scoring import der_components, unit, worker_events

A, B, C = unit(1), unit(0, 1), unit(0, 0, 1)


def test_windows_tile_the_turn_from_the_voices_clean_frames() -> None:
    alone = np.zeros(40, dtype=bool)
    alone[[2, 3, 4, 10, 11, 12, 20, 21, 22, 30]] = True
    cut = window_frames(alone, 3)
    assert [(a, b) for a, b, _ in cut] == [(0, 10), (10, 20), (20, 40)]
    assert [f.tolist() for _, _, f in cut] == [[2, 3, 4], [10, 11, 12], [20, 21, 22]]


def test_a_voice_with_less_than_two_windows_of_clean_audio_is_not_cut() -> None:
    alone = np.zeros(40, dtype=bool)
    alone[:5] = True
    assert window_frames(alone, 3) == []
    assert window_frames(alone, 0) == []


def clusters() -> OnlineSpeakerClustering:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    c.place(B, 3.0)
    return c


def window(vector: np.ndarray, first: int = 0) -> VoiceWindow:
    return VoiceWindow(first, first + 10, vector)


def test_a_window_that_is_clearly_another_known_speaker_moves_to_it() -> None:
    c = clusters()
    windows = (window(unit(1, 0.2)), window(unit(0.2, 1), 10), window(unit(1, 0.1), 20))
    moved = moved_windows(windows, 0, c.scores, 0.6, 0.05, taken=set())
    assert [(w.first, to) for w, to in moved] == [(10, 1)]


def test_windows_stay_when_unclear_unknown_or_the_other_speaker_talks_in_the_turn() -> None:
    c = clusters()
    both = unit(1, 1.05)  # cosine ~0.69 to S1 and ~0.72 to S2: within the margin
    stranger = unit(0.3, 0.3, 1)  # nobody known matches it at 0.6
    stays = (window(both), window(stranger, 10))
    assert moved_windows(stays, 0, c.scores, 0.6, 0.05, taken=set()) == []
    other = (window(B),)
    assert moved_windows(other, 0, c.scores, 0.6, 0.05, taken={1}) == []


# --- real audio ---------------------------------------------------------------------------


def run_worker(name: str, change_window: float) -> tuple[list, list[SpeakerSegment]]:
    reference, events = worker_events(name, speaker_change_window=change_window)
    return reference, [e for e in events if isinstance(e, SpeakerSegment)]


@pytest.mark.slow
def test_alike_voices_alternating_in_one_local_speaker_are_told_apart() -> None:
    """AMI dev00: two men at a far-field microphone; segmentation hears one local speaker
    for seconds at a time across their exchanges, so without windows the second man's
    replies go to the first."""
    reference, whole = run_worker("ami_dev00", 0.0)
    _, windowed = run_worker("ami_dev00", 1.0)
    before = der_components(reference, whole, (0.0, 30.0))
    after = der_components(reference, windowed, (0.0, 30.0))
    assert before["confusion"] > 0.1
    assert after["confusion"] < 0.07
    assert after["miss"] <= before["miss"] + 1e-9
    assert after["false_alarm"] <= before["false_alarm"] + 1e-9
