"""Speech the VAD missed, found again by the segmentation model.

Silero judges 32 ms at a time with little context, and a far-field participant who
speaks quietly or in a low voice can score near zero for whole phrases, while
segmentation-3.0, reading seconds of audio at once, hears them. So the audio outside
turns is kept for a few seconds, and the segmentation model reads it: the silence before
a turn (once the turn is there as context), every few seconds while the room is silent,
and at the end of the stream. Speech it finds becomes a turn of its own. Only audio heard
while the agent was silent (its echo tail included) counts, so the agent's own voice never
comes back this way. The model was trained on annotations that run a speaker's turn
through their short pauses, so it also calls a pause between two of someone's phrases
speech; a stretch must be clearly louder than the room's noise floor to be a turn, or the
recognizer would be handed silence (where it makes words up).

``MissedSpeech`` is fed frames and a detector (audio -> speech spans in seconds); it does
the bookkeeping, so it is tested with any detector on synthetic audio.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Span = tuple[float, float]
Detector = Callable[[np.ndarray], list[Span]]


@dataclass(frozen=True)
class Stretch:
    """Speech found outside turns: its extent and the spans the detector heard."""

    start: float
    end: float
    spans: tuple[Span, ...]

    @property
    def seconds(self) -> float:
        return sum(b - a for a, b in self.spans)


class MissedSpeech:
    def __init__(
        self,
        detect: Detector,
        window: float = 10.0,
        min_speech: float = 0.3,
        join_gap: float = 0.5,
        keep: float = 30.0,
        min_snr_db: float = 12.0,
        rate: int = 16000,
    ) -> None:
        self.detect = detect
        self.window = window  # seconds of audio the detector reads at once (context)
        self.min_speech = min_speech  # less speech than this in a stretch is not a turn
        self.join_gap = join_gap  # speech spans closer than this are one stretch
        self.keep = keep  # seconds of audio kept (a turn's length and a window before it)
        # How far above the noise floor (the 10th percentile of the kept frames' levels) the
        # median level of a stretch's speech must be, in dB.
        self.min_snr_db = min_snr_db
        self.rate = rate
        self.examined_until = 0.0  # audio time before which nothing is looked at again
        self._frames: deque[tuple[float, np.ndarray, bool]] = deque()  # (end, samples, ok)
        self._levels: deque[float] = deque()  # RMS of each kept frame

    @property
    def heard_until(self) -> float:
        return self._frames[-1][0] if self._frames else 0.0

    def hear(self, samples: np.ndarray, end: float, eligible: bool) -> None:
        """One frame of the audio the turns are heard from, ending at ``end``;
        ``eligible`` False while the agent may be heard (nothing found there counts)."""
        self._frames.append((end, samples, eligible))
        self._levels.append(float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))))
        oldest = end - self.keep
        while self._frames and self._frames[0][0] - self._frames[0][1].size / self.rate < oldest:
            self._frames.popleft()
            self._levels.popleft()

    def skip_to(self, time: float) -> None:
        """Audio before ``time`` is a turn's or was looked at: never look again."""
        self.examined_until = max(self.examined_until, time)

    def audio(self, start: float, end: float) -> np.ndarray:
        """The kept audio from ``start`` to ``end`` (what of it is still kept)."""
        parts = []
        for frame_end, samples, _ in self._frames:
            frame_start = frame_end - samples.size / self.rate
            if frame_end <= start + 1e-9 or frame_start >= end - 1e-9:
                continue
            a = max(0, int(round((start - frame_start) * self.rate)))
            b = min(samples.size, int(round((end - frame_start) * self.rate)))
            parts.append(samples[a:b])
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def examine(self, until: float, end: float, hold: bool) -> list[Stretch]:
        """Stretches of speech between ``examined_until`` and ``until``, the detector
        reading the ``window`` seconds of audio up to ``end`` (audio after ``until`` is
        context: the model hears a phrase at the edge of what it reads poorly). With
        ``hold``, a stretch reaching to within ``join_gap`` of ``until`` may go on: it is
        left for the next look, unless it began more than half a window before ``end``
        (a next look within half a window would no longer read its start)."""
        start = self.examined_until
        if until - start < self.min_speech or not self._frames:
            return []
        end = min(end, self.heard_until)
        first = self._frames[0]
        begin = max(first[0] - first[1].size / self.rate, end - self.window)
        audio = self.audio(begin, end)
        spans = [(begin + a, begin + b) for a, b in self.detect(audio)] if audio.size else []
        spans = self._eligible(_clip(spans, start, until))
        stretches = _join(spans, self.join_gap)
        self.examined_until = max(start, until)
        last = stretches[-1] if stretches else None
        if hold and last and last.end > until - self.join_gap and (
            last.start >= end - self.window / 2
        ):
            self.examined_until = max(start, stretches.pop().start)
        return [s for s in stretches if s.seconds >= self.min_speech and self._audible(s)]

    def _audible(self, stretch: Stretch) -> bool:
        """Is the stretch's speech clearly louder than the room's noise floor?"""
        levels = np.array(self._levels)
        ends = np.array([end for end, _, _ in self._frames])
        starts = ends - np.array([f.size for _, f, _ in self._frames]) / self.rate
        inside = np.zeros(levels.size, dtype=bool)
        for a, b in stretch.spans:
            inside |= (starts < b) & (ends > a)
        if not inside.any():
            return False
        floor = max(float(np.percentile(levels, 10)), 1e-6)
        return float(np.median(levels[inside])) >= floor * 10 ** (self.min_snr_db / 20)

    def _eligible(self, spans: list[Span]) -> list[Span]:
        """The parts of ``spans`` heard while the agent was silent."""
        bad = [
            (end - samples.size / self.rate, end) for end, samples, ok in self._frames if not ok
        ]
        out = spans
        for a, b in bad:
            out = [piece for s in out for piece in _minus(s, (a, b))]
        return out


def _clip(spans: list[Span], start: float, end: float) -> list[Span]:
    return [(max(a, start), min(b, end)) for a, b in spans if b > start and a < end]


def _minus(span: Span, cut: Span) -> list[Span]:
    (a, b), (c, d) = span, cut
    if d <= a or c >= b:
        return [span]
    return [s for s in ((a, c), (d, b)) if s[1] - s[0] > 1e-9]


def _join(spans: list[Span], gap: float) -> list[Stretch]:
    groups: list[list[Span]] = []
    for span in sorted(spans):
        if groups and span[0] - groups[-1][-1][1] < gap:
            groups[-1].append(span)
        else:
            groups.append([span])
    return [Stretch(g[0][0], g[-1][1], tuple(g)) for g in groups]
