"""Carrying the live speakers' names to the re-run speakers: who the record shows (names,
renames, merges), the most alike pair first, no name twice, new labels for the rest."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.retranscribe.names import (
    NameMatch,
    live_spans,
    match_speakers,
    record_labels,
    rerun_spans,
    shown_as,
    voiceprints_of,
)
from app.speech.diarization import SpeakerSegment
from app.speech.voiceprints import voiceprint


def unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_live_speakers_are_who_the_record_shows() -> None:
    entries: list[dict[str, Any]] = [
        {"kind": "turn", "speaker": "S1", "start": 0.0, "end": 2.0},
        {"kind": "turn", "speaker": "S2", "start": 2.0, "end": 3.0},
        {"kind": "speaker_renamed", "speaker": "S1", "name": "Maya"},
        {"kind": "turn", "speaker": "Maya", "start": 3.0, "end": 5.0},  # after the rename
        {"kind": "turn", "speaker": "S3", "start": 5.0, "end": 6.0},
        {"kind": "speaker_renamed", "speaker": "S3", "name": "Maya"},  # merged into S1
        {"kind": "decision", "turn": 4},
    ]
    assert live_spans(entries) == {
        "Maya": [(0.0, 2.0), (3.0, 5.0), (5.0, 6.0)],
        "S2": [(2.0, 3.0)],
    }
    assert record_labels(entries) == {"S1", "S2", "S3"}


def test_the_most_alike_pair_is_matched_first_and_no_name_twice() -> None:
    live = [voiceprint("Maya", [unit(1, 0, 0)], [5.0], 0.0),
            voiceprint("S2", [unit(0, 1, 0)], [5.0], 0.0)]  # fmt: skip
    rerun = [
        voiceprint("R1", [unit(1, 0.6, 0)], [9.0], 0.0),  # 0.86 to Maya, 0.51 to S2
        voiceprint("R2", [unit(1, 0.1, 0)], [2.0], 0.0),  # 0.995 to Maya: it wins her
        voiceprint("R3", [unit(0, 0, 1)], [4.0], 0.0),  # nobody's voice
    ]
    found = match_speakers(rerun, live, threshold=0.5)
    assert set(found) == {"R1", "R2"}
    assert found["R2"].who == "Maya" and found["R1"].who == "S2"
    assert found["R1"].score == pytest.approx(float(unit(1, 0.6, 0) @ unit(0, 1, 0)))
    assert match_speakers(rerun, live, threshold=0.9).keys() == {"R2"}


def test_an_unmatched_speaker_gets_a_label_no_live_speaker_had() -> None:
    matches = {"R2": NameMatch("R2", "Maya", 0.9), "R3": NameMatch("R3", "S2", 0.7)}
    shown = shown_as(matches, ["R3", "R1", "R2", "R10", "R4"], ["Maya", "S1", "S2", "S3"])
    assert shown == {"R1": "S4", "R2": "Maya", "R3": "S2", "R4": "S5", "R10": "S6"}


def test_voiceprints_come_from_each_speakers_own_audio() -> None:
    """An embedder that hears the level of its clip: each print is the mean of the
    stretches of its own speaker, long ones in pieces, short ones left out."""

    class Level:
        def embed(self, windows: list[np.ndarray]) -> np.ndarray:
            return np.stack([unit(float(np.abs(w).mean()), 1.0) for w in windows])

    audio = np.concatenate([np.full(16000 * 12, 0.5), np.full(16000 * 3, 2.0)]).astype(np.float32)
    segments = [SpeakerSegment("R1", 0.0, 12.0), SpeakerSegment("R2", 12.0, 15.0),
                SpeakerSegment("R2", 14.9, 15.2)]  # fmt: skip
    prints = {p.name: p for p in voiceprints_of(rerun_spans(segments), audio, Level(), 0.0)}
    assert prints["R1"].seconds == 12.0  # a 10 s piece and a 2 s one
    assert len(prints["R1"].exemplars) == 2
    np.testing.assert_allclose(prints["R1"].centroid, unit(0.5, 1.0), atol=1e-5)
    assert prints["R2"].seconds == 3.0  # the 0.3 s stretch says too little
    np.testing.assert_allclose(prints["R2"].centroid, unit(2.0, 1.0), atol=1e-5)
