"""Named voices: the store, matching, naming session speakers by a remembered voice (on
synthetic embeddings, exact), enrolment, and recognition across two real clips."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from app.events import NameSource, SpeakerRenamed
from app.speech.audio import ArraySource
from app.speech.diarization import (
    ClusteringTuning,
    OnlineSpeakerClustering,
    SpeakerSegment,
    speaker_renames,
)
from app.speech.voiceprints import (
    EMBEDDING,
    MAX_EXEMPLARS,
    MIN_ENROL_SPEECH,
    EnrolmentError,
    Voiceprint,
    VoiceprintStore,
    best_match,
    capture,
    enrol,
    voiced_audio,
    voiceprint,
)
from tests.conftest import shared_path
from tests.speech.scoring import read_rttm

RATE = 16000


def unit(*xs: float) -> np.ndarray:
    v = np.zeros(8, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


A, B, C = unit(1), unit(0, 1), unit(0, 0, 1)


def known(name: str, vector: np.ndarray, seconds: float = 10.0) -> Voiceprint:
    return voiceprint(name, [vector], [seconds], now=100.0)


# --- store ------------------------------------------------------------------------------


def test_store_remembers_lists_and_deletes(tmp_path) -> None:
    store = VoiceprintStore(tmp_path / "voices.json")
    assert store.voices() == []
    store.remember(known("Maya", A))
    store.remember(known("bo", B))
    assert [p.name for p in store.voices()] == ["bo", "Maya"]  # by name, case aside
    again = VoiceprintStore(tmp_path / "voices.json").get("MAYA")  # read back from disk
    assert again is not None and again.name == "Maya"
    assert float(again.centroid @ A) == pytest.approx(1.0, abs=1e-4)
    assert store.delete("maya") is True
    assert store.delete("maya") is False
    assert [p.name for p in store.voices()] == ["bo"]
    body = json.loads((tmp_path / "voices.json").read_text())
    assert body["embedding"] == EMBEDDING and [v["name"] for v in body["voices"]] == ["bo"]


def test_remembering_a_known_name_merges_by_speech(tmp_path) -> None:
    store = VoiceprintStore(tmp_path / "voices.json")
    store.remember(known("Maya", A, seconds=30.0))
    kept = store.remember(voiceprint("maya", [B] * 8, [1.0] * 8, now=200.0))
    assert len(store.voices()) == 1
    assert kept.name == "maya" and kept.seconds == pytest.approx(38.0)
    # 30 s of A against 8 s of B: the centroid leans to A
    assert float(kept.centroid @ A) > float(kept.centroid @ B) > 0.2
    assert kept.exemplars.shape[0] == MAX_EXEMPLARS
    assert kept.updated == 200.0


def test_a_damaged_store_is_kept_aside_and_starts_empty(tmp_path) -> None:
    path = tmp_path / "voices.json"
    path.write_text("{not json")
    store = VoiceprintStore(path)
    assert store.voices() == []
    assert not path.exists()
    assert len(list(tmp_path.glob("voices.damaged-*.json"))) == 1
    store.remember(known("Maya", A))
    assert [p.name for p in store.voices()] == ["Maya"]


def test_prints_of_another_embedder_are_ignored(tmp_path) -> None:
    path = tmp_path / "voices.json"
    path.write_text(json.dumps({"version": 1, "embedding": "other-256", "voices": []}))
    assert VoiceprintStore(path).voices() == []


def test_best_match_needs_the_threshold_and_a_free_name() -> None:
    prints = [known("Maya", A), known("Bo", B)]
    voice = unit(1, 0.3)
    match = best_match(voice, prints, 0.6)
    assert match is not None and match.name == "Maya"
    assert match.score == pytest.approx(float(voice @ A))
    assert best_match(voice, prints, 0.99) is None
    assert best_match(voice, prints, 0.0, taken=["maya"]).name == "Bo"  # type: ignore[union-attr]
    assert best_match(voice, [], 0.0) is None


# --- naming session speakers ------------------------------------------------------------


def test_a_speaker_takes_a_remembered_name_once_it_has_said_enough() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(recognise_after=2.0))
    c.know([known("Maya", A), known("Bo", B)], threshold=0.7)
    c.place(unit(1, 0.2), 1.0)
    assert c.names == {} and c.take_recognised() == []  # 1 s: too thin to name
    c.place(unit(1, 0.2), 1.5)
    assert c.display("S1") == "Maya"
    score = round(float(unit(1, 0.2) @ A), 3)
    assert c.take_recognised() == [SpeakerRenamed("S1", "Maya", NameSource.VOICE, score)]
    assert c.take_recognised() == []  # announced once
    c.place(C, 3.0)  # a voice nobody remembers stays a label
    assert c.active == ["S1", "S2"] and c.display("S2") == "S2"


def test_a_remembered_name_goes_to_one_speaker_only() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(merge_above=0.99))
    c.know([known("Maya", A)], threshold=0.5)
    c.place(unit(1, 0.5), 3.0)
    c.place(unit(1, -0.6), 3.0)  # cosine 0.54 to S1: another speaker, also near Maya
    assert c.active == ["S1", "S2"]
    assert c.display("S1") == "Maya" and c.display("S2") == "S2"


def test_a_name_the_user_gave_is_never_replaced_by_voice() -> None:
    c = OnlineSpeakerClustering(0.6)
    c.place(A, 1.0)
    c.rename("S1", "Diane")
    c.know([known("Maya", A)], threshold=0.5)
    c.place(A, 3.0)
    assert c.display("S1") == "Diane" and c.take_recognised() == []


def test_speaker_renames_announce_recognitions_then_merges() -> None:
    c = OnlineSpeakerClustering(0.6, ClusteringTuning(merge_above=0.85))
    c.know([known("Maya", A)], threshold=0.9)
    c.place(A, 3.0)
    c.place(unit(0.5, 1), 3.0)
    for _ in range(6):  # S2 keeps hearing S1's voice until the two merge
        c.place(unit(1, 0.45), 5.0, exclude={0})
    events = speaker_renames(c, set())
    assert events == [
        SpeakerRenamed("S1", "Maya", NameSource.VOICE, 1.0),
        SpeakerRenamed("S2", "Maya"),
    ]


def test_a_session_speaker_as_a_voiceprint() -> None:
    c = OnlineSpeakerClustering(0.6)
    for i in range(8):
        c.place(unit(1, 0.05 * i), 0.5 + 0.5 * i)
    heard = c.voiceprint("S1", " Maya ", now=5.0)
    assert heard.name == "Maya" and heard.updated == 5.0
    assert heard.seconds == pytest.approx(sum(0.5 + 0.5 * i for i in range(8)))
    assert np.allclose(heard.centroid, c.centroids()[0])
    assert heard.exemplars.shape == (MAX_EXEMPLARS, 8)
    # the best-evidenced turns are the exemplars, the longest first
    assert np.allclose(heard.exemplars[0], unit(1, 0.35), atol=1e-6)
    with pytest.raises(KeyError):
        c.voiceprint("S4", "Nobody", now=5.0)


# --- enrolment --------------------------------------------------------------------------


def tone(seconds: float, level: float = 0.3, hz: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return (level * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def test_voiced_audio_drops_the_quiet_parts() -> None:
    rng = np.random.default_rng(0)
    hiss = (0.002 * rng.standard_normal(RATE)).astype(np.float32)
    audio = np.concatenate([hiss, tone(2.0), hiss, tone(1.0), hiss])
    speech = voiced_audio(audio)
    assert speech.size / RATE == pytest.approx(3.0, abs=0.1)
    assert voiced_audio(np.zeros(10, np.float32)).size == 0


class NoEmbedding:
    """An embedder that must not be reached."""

    def embed(self, windows: list[np.ndarray]) -> np.ndarray:
        raise AssertionError("too little speech must be refused before embedding")


def test_enrolment_refuses_silence_and_a_nameless_voice() -> None:
    with pytest.raises(EnrolmentError, match="say a longer sentence"):
        enrol("Maya", np.zeros(5 * RATE, np.float32), NoEmbedding(), now=0.0)
    with pytest.raises(EnrolmentError, match="name"):
        enrol("  ", tone(5.0), NoEmbedding(), now=0.0)


def test_capture_reads_the_seconds_asked_for() -> None:
    audio = np.concatenate([tone(3.0), np.array([np.nan], np.float32), tone(3.0)])
    got = capture(ArraySource(audio), 5.0)
    assert got.size == 5 * RATE and np.isfinite(got).all()
    assert RATE <= capture(ArraySource(tone(1.0)), 5.0).size < RATE + 512  # it ran out


# --- real clips -------------------------------------------------------------------------

CLIPS = "data/audio_diarization"


def halves(rows, middle: float):
    first = [(s, a, min(b, middle)) for s, a, b in rows if a < middle]
    second = [(s, max(a, middle), b) for s, a, b in rows if b > middle]
    return first, second


def turns(rows, lo: float, hi: float):
    from tests.speech.test_diarization import oracle_turns

    inside = [(s, max(a, lo), min(b, hi)) for s, a, b in rows if min(b, hi) > max(a, lo)]
    return oracle_turns(inside)


def run_turns(diarizer, audio: np.ndarray, spans) -> list[SpeakerSegment]:
    segments: list[SpeakerSegment] = []
    for a, b in spans:
        lo = max(0.0, a - 0.2)
        segments += diarizer.assign(audio[int(lo * RATE) : int(b * RATE)], lo)[1]
    return segments


def majority(rows, segments: list[SpeakerSegment]) -> dict[str, str]:
    """Reference speaker -> the session label covering most of their speech."""
    cover: dict[str, dict[str, float]] = {}
    for spk, a, b in rows:
        for seg in segments:
            shared = min(b, seg.end) - max(a, seg.start)
            if shared > 0:
                cover.setdefault(spk, {}).setdefault(seg.speaker, 0.0)
                cover[spk][seg.speaker] += shared
    return {spk: max(row, key=lambda k: row[k]) for spk, row in cover.items()}


def owners(rows, segments: list[SpeakerSegment]) -> dict[str, str]:
    """Session label -> the reference speaker with most speech under it."""
    cover: dict[str, dict[str, float]] = {}
    for spk, a, b in rows:
        for seg in segments:
            shared = min(b, seg.end) - max(a, seg.start)
            if shared > 0:
                cover.setdefault(seg.speaker, {}).setdefault(spk, 0.0)
                cover[seg.speaker][spk] += shared
    return {label: max(row, key=lambda k: row[k]) for label, row in cover.items()}


@pytest.fixture(scope="module")
def models():
    from app.speech.diarization import CamppEmbedder
    from app.speech.segmentation import Segmenter

    return CamppEmbedder(), Segmenter()


def load(wav: str, rttm: str, uri: str | None = None):
    import soundfile as sf

    audio, _ = sf.read(shared_path(f"{CLIPS}/{wav}"), dtype="float32")
    return audio, read_rttm(shared_path(f"{CLIPS}/{rttm}"), uri)


@pytest.mark.slow
def test_speakers_named_in_one_clip_are_recognised_in_the_next(models, tmp_path) -> None:
    """The AMI ES2004a minute as two clips: the speakers of the first are named as a user
    would name them; in the second the main speaker is named by voice and nobody takes
    another's name, and the people of another meeting (dev00) get no name at all."""
    from app.settings import SpeechSettings
    from app.speech.diarization import Diarizer

    embedder, segmenter = models
    audio, rows = load("ami_ES2004a_mixture/mixture.wav", "ami_ES2004a_mixture/mixture.rttm")
    middle = audio.size / RATE / 2
    first, second = halves(rows, middle)
    teacher = Diarizer(embedder, segmenter=segmenter)
    heard = [replace(seg, speaker=teacher.clusters.resolve(seg.speaker))  # merges folded
             for seg in run_turns(teacher, audio, turns(rows, 0.0, middle))]  # fmt: skip
    store = VoiceprintStore(tmp_path / "voices.json")
    for label, spk in owners(first, heard).items():  # named as a user would name them
        store.remember(teacher.clusters.voiceprint(label, spk, now=0.0))
    enrolled = {p.name for p in store.voices()}
    assert "FEE016" in enrolled and len(enrolled) >= 2
    threshold = SpeechSettings().voiceprint_match_cosine

    def recognise(audio: np.ndarray, rows, spans) -> dict[str, str | None]:
        later = Diarizer(embedder, segmenter=segmenter)
        later.know(store.voices(), threshold)
        found = majority(rows, run_turns(later, audio, spans))
        return {s: later.clusters.names.get(later.clusters.resolve(label))
                for s, label in found.items()}  # fmt: skip

    named = recognise(audio, second, turns(rows, middle, 2 * middle))
    assert named["FEE016"] == "FEE016", named
    assert all(named[s] in (s, None) for s in enrolled if s in named), named
    other, other_rows = load("ami_debug/dev00.wav", "ami_debug/debug.development.rttm", "dev00")
    strangers = recognise(other, other_rows, turns(other_rows, 0.0, other.size / RATE))
    assert set(strangers.values()) == {None}, strangers


@pytest.mark.slow
def test_a_short_enrolment_names_its_speaker(models) -> None:
    """Five seconds of the pyannote sample's first speaker, from the clip's first half,
    enrol them; their later turns are named by it, the other speaker's are not."""
    from app.settings import SpeechSettings
    from app.speech.diarization import Diarizer

    embedder, segmenter = models
    audio, rows = load("pyannote_sample/sample.wav", "pyannote_sample/sample.rttm")
    middle = audio.size / RATE / 2
    first, second = halves(rows, middle)
    enrolled, other = "speaker90", "speaker91"  # only the first says 5 s in the first half
    clip = np.concatenate([audio[int(a * RATE) : int(b * RATE)] for s, a, b in first
                           if s == enrolled])  # fmt: skip
    print_ = enrol(enrolled, clip[: 5 * RATE], embedder, now=0.0)
    assert print_.seconds >= MIN_ENROL_SPEECH and print_.exemplars.shape[0] >= 2
    threshold = SpeechSettings().voiceprint_match_cosine

    def named(speaker: str) -> str:
        later = Diarizer(embedder, segmenter=segmenter)
        later.know([print_], threshold)
        spans = [(a, b) for s, a, b in second if s == speaker and b - a > 1.0]
        label = run_turns(later, audio, spans)[-1].speaker
        return later.clusters.display(label)

    assert named(enrolled) == enrolled
    assert named(other) != enrolled
