"""Online diarization: the session-speaker rules on synthetic embeddings (exact), and the
whole diarizer on real recordings cut into turns at the reference's pauses."""

from __future__ import annotations

import numpy as np
import pytest

from app.events import SpeakerRenamed
from app.speech.diarization import (
    ClusteringTuning,
    OnlineSpeakerClustering,
    SpeakerSegment,
    frame_runs,
    merge_renames,
    sample_mask,
)
from tests.conftest import shared_path
from tests.speech.scoring import der, read_rttm, unit

RATE = 16000


A, B, C = unit(1), unit(0, 1), unit(0, 0, 1)


def test_first_voice_opens_and_a_match_joins() -> None:
    c = OnlineSpeakerClustering(0.6)
    assert c.place(A, 0.5) == 0
    assert c.place(unit(1, 0.3), 1.0) == 0
    assert c.speakers == ["S1"]


def test_a_new_voice_needs_two_seconds_of_evidence() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    assert c.place(B, 0.8) == 0  # unheard but thin: attributed to the nearest, held
    assert c.place(B, 0.8) == 0
    assert c.speakers == ["S1"]
    assert c.place(B, 0.8) == 1  # the held evidence reaches 2.4 s: a speaker now
    assert c.speakers == ["S1", "S2"]
    assert c.place(B, 0.3) == 1


def test_a_voice_gathering_evidence_beside_another_pending_one_opens() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    c.place(B, 0.8)  # a pending pool that is not the one promoted below
    for _ in range(2):
        assert c.place(C, 0.8) == 0
    assert c.place(C, 0.8) == 1  # C's pool reaches 2.4 s and leaves the pending list
    assert c.speakers == ["S1", "S2"]


def test_enough_evidence_in_one_turn_opens_at_once() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    assert c.place(B, 2.5) == 1


def test_a_voice_between_thresholds_never_opens() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(new_margin=0.2))
    c.place(A, 3.0)
    near = unit(1, 1.5)  # cosine 0.55: not a match, yet not clearly someone else
    assert 0.4 < float(near @ A) < 0.6
    for _ in range(5):
        assert c.place(near, 3.0) == 0
    assert c.speakers == ["S1"]


def test_voices_of_one_turn_go_to_different_speakers() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    c.place(B, 3.0)
    vague = unit(0.55, 0.45, 0.7)  # nearer S1 (0.55) than S2 (0.45), matching neither
    assert c.place(vague, 1.0, exclude={0}) == 1  # S1 already talks in this turn
    assert c.place(vague, 0.5) == 0
    # a voice that clearly is S1 shares it (segmentation split one person in two)
    assert c.place(unit(1, 0.1), 1.0, exclude={0}) == 0


def test_converging_speakers_merge_into_the_older_one() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(merge_above=0.85))
    c.place(A, 3.0)
    c.place(unit(0.5, 1), 3.0)  # cosine 0.45: a second speaker
    c.rename("S2", "Bo")
    assert c.active == ["S1", "S2"]
    for _ in range(6):  # S2 keeps hearing a voice that is really S1's
        c.place(unit(1, 0.45), 5.0, exclude={0})
    assert c.active == ["S1"]
    assert c.merged == {"S2": "S1"}
    assert c.resolve("S2") == "S1"
    assert c.display("S1") == c.display("S2") == "Bo"  # the name survives the merge
    announced: set[str] = set()
    assert merge_renames(c, announced) == [SpeakerRenamed("S2", "Bo")]
    assert merge_renames(c, announced) == []  # each merge is announced once


def test_centroid_weight_is_capped_so_a_voice_can_drift() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(weight_cap=10.0, update_cap=5.0))
    c.place(A, 100.0)
    for _ in range(4):
        c.place(unit(1, 0.6), 100.0)
    assert c._prints[0].weight == 10.0
    assert float(c.centroids()[0] @ unit(1, 0.6)) > 0.98


def test_rename_and_unknown_speakers() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 3.0)
    c.rename("S1", "  Diane ")
    assert c.display("S1") == "Diane"
    assert c.display("S7") == "S7"
    with pytest.raises(KeyError):
        c.rename("S2", "Nobody")


def test_max_speakers_caps_new_ones() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(max_speakers=2))
    for v in (A, B, C):
        c.place(v, 3.0)
    assert c.speakers == ["S1", "S2"]


def test_frame_runs_and_sample_mask() -> None:
    mask = np.array([0, 1, 1, 0, 0, 1], dtype=bool)
    assert frame_runs(mask) == [(1, 3), (5, 6)]
    assert frame_runs(np.zeros(3, dtype=bool)) == []
    samples = sample_mask(mask, RATE // 10)
    assert samples.shape == (RATE // 10,)
    assert not samples[:100].any() and samples[800:900].all()


# --- real audio ---------------------------------------------------------------------------


def oracle_turns(
    reference: list[tuple[str, float, float]], gap: float = 0.5, longest: float = 15.0
) -> list[tuple[float, float]]:
    """Speech stretches of the reference joined across pauses shorter than ``gap`` and cut
    every ``longest`` seconds, as the worker's turn tracker cuts them, whoever speaks."""
    spans: list[list[float]] = []
    for _, a, b in sorted(reference, key=lambda r: r[1]):
        if spans and a - spans[-1][1] < gap:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    return [(t, min(t + longest, b)) for a, b in spans for t in np.arange(a, b, longest).tolist()]


@pytest.fixture(scope="module")
def diarize():
    import soundfile as sf

    from app.speech.diarization import Diarizer

    def run(folder: str, rttm: str) -> tuple[list[tuple[str, float, float]], list[SpeakerSegment]]:
        audio, _ = sf.read(shared_path(f"data/audio_diarization/{folder}"), dtype="float32")
        reference = read_rttm(shared_path(f"data/audio_diarization/{rttm}"))
        diarizer = Diarizer(threshold=0.6)
        segments: list[SpeakerSegment] = []
        for a, b in oracle_turns(reference):
            lo, hi = int(max(0.0, a - 0.2) * RATE), int(b * RATE)
            segments += diarizer.assign(audio[lo:hi], lo / RATE)[1]
        return reference, segments

    return run


@pytest.mark.slow
def test_pyannote_sample_der(diarize) -> None:
    reference, segments = diarize("pyannote_sample/sample.wav", "pyannote_sample/sample.rttm")
    assert {s.speaker for s in segments} == {"S1", "S2"}
    assert der(reference, segments, uem=(0.0, 30.0)) <= 0.15
    assert all(s.end > s.start for s in segments)


@pytest.mark.slow
def test_ami_meeting_speaker_count_and_der(diarize) -> None:
    reference, segments = diarize(
        "ami_ES2004a_mixture/mixture.wav", "ami_ES2004a_mixture/mixture.rttm"
    )
    found = {s.speaker for s in segments}
    assert abs(len(found) - len({r[0] for r in reference})) <= 1, found
    assert der(reference, segments, uem=(0.0, 60.0)) <= 0.25  # the online target


@pytest.mark.slow
def test_the_speaker_embedder_keeps_torch_to_speechs_share_of_the_cores() -> None:
    import torch

    from app.cores import speech_threads
    from app.speech.diarization import CamppEmbedder

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(4)
        CamppEmbedder(threads=1)
        assert torch.get_num_threads() == 1
        CamppEmbedder()
        assert torch.get_num_threads() == speech_threads()
    finally:
        torch.set_num_threads(before)
