"""Streaming ASR: faster-whisper hypotheses, LocalAgreement commits, hallucination guards.

Partial hypotheses are for display and barge-in only; words become committed when two
consecutive hypotheses agree on them (LocalAgreement-2), and a closed turn commits its
final hypothesis. Whisper invents text on silence and noise, so decoding is gated by the
VAD and every segment passes the no-speech / compression / known-phrase guards.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.cores import speech_threads
from app.settings import SpeechSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Word:
    start: float  # absolute audio time
    end: float
    text: str  # as Whisper spelled it, leading space stripped
    probability: float = 1.0
    # Whisper wrote it without a leading space: it goes on with the word before ("'T" after
    # "DON", "-CoV" after "SARS"), so it is joined to it without one.
    glued: bool = False


def normalize(text: str) -> str:
    return re.sub(r"[^a-z0-9']+", "", text.lower())


def join_words(words: Iterable[Word]) -> str:
    """The words as one text, spaced as Whisper wrote them ("DON'T", "SARS-CoV")."""
    return "".join(w.text if w.glued else " " + w.text for w in words).strip()


class LocalAgreement:
    """Commit the longest prefix shared by the last two hypotheses (whisper_streaming).

    Hypotheses carry absolute word times; words ending before the last committed time
    are ignored, and a 1-5 word overlap with the committed tail is dropped.
    """

    def __init__(self) -> None:
        self.committed: list[Word] = []
        self._previous: list[Word] = []
        self._last_time = 0.0

    def insert(self, hypothesis: Sequence[Word]) -> list[Word]:
        """Add a new hypothesis; returns the newly committed words."""
        fresh = [w for w in hypothesis if w.start > self._last_time - 0.1]
        fresh = self._drop_overlap(fresh)
        agreed: list[Word] = []
        for new, old in zip(fresh, self._previous, strict=False):
            if normalize(new.text) != normalize(old.text):
                break
            agreed.append(new)
        self._commit(agreed)
        self._previous = fresh[len(agreed) :]
        return agreed

    def _drop_overlap(self, words: list[Word]) -> list[Word]:
        if not words or not self.committed:
            return words
        if abs(words[0].start - self._last_time) > 1.0:
            return words
        for n in range(min(5, len(words), len(self.committed)), 0, -1):
            tail = [normalize(w.text) for w in self.committed[-n:]]
            head = [normalize(w.text) for w in words[:n]]
            if tail == head:
                return words[n:]
        return words

    def _commit(self, words: list[Word]) -> None:
        if words:
            self.committed.extend(words)
            self._last_time = words[-1].end

    @property
    def pending(self) -> list[Word]:
        return list(self._previous)

    def finish(self, final: Sequence[Word]) -> list[Word]:
        """The turn is over: commit the final hypothesis past the committed prefix."""
        fresh = self._drop_overlap([w for w in final if w.start > self._last_time - 0.1])
        self._commit(fresh)
        self._previous = []
        return fresh

    def text(self) -> str:
        return join_words(self.committed)


# Phrases Whisper produces from silence, music or noise (faster-whisper #506 and friends).
_PHANTOMS = (
    "thank you for watching",
    "thanks for watching",
    "please subscribe",
    "subtitles by",
    "transcribed by",
    "you",
    "thank you",
    "bye",
    "the end",
)


@dataclass(frozen=True)
class SegmentInfo:
    text: str
    no_speech_prob: float
    avg_logprob: float
    compression_ratio: float


class HallucinationGuard:
    """Decides whether a decoded segment is real speech."""

    def __init__(
        self, settings: SpeechSettings | None = None, log_prob_floor: float = -1.0
    ) -> None:
        s = settings or SpeechSettings()
        self.no_speech = s.asr_no_speech_threshold
        self.compression = s.asr_compression_ratio_threshold
        self.log_prob_floor = log_prob_floor

    def accept(self, seg: SegmentInfo, voiced_seconds: float) -> bool:
        if not seg.text.strip():
            return False
        if seg.compression_ratio > self.compression:
            return False
        if seg.no_speech_prob > self.no_speech and seg.avg_logprob < self.log_prob_floor:
            return False
        phrase = " ".join(normalize(t) for t in seg.text.split()).strip()
        # A stock phrase over little voiced audio is the model talking to itself.
        return not (phrase in _PHANTOMS and voiced_seconds < 1.0)


class WhisperTranscriber:
    """faster-whisper on the embedded or pulled CTranslate2 weights.

    CUDA float16 when a GPU is visible to CTranslate2, int8 on CPU.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        settings: SpeechSettings | None = None,
        threads: int = 0,
    ) -> None:
        from faster_whisper import WhisperModel

        from app.speech.weights import resolve

        logging.getLogger("faster_whisper").setLevel(logging.WARNING)
        s = settings or SpeechSettings()
        path = str(model) if model else str(resolve(f"whisper-{s.asr_model}"))
        device, compute = _device()
        threads = threads or s.asr_threads or speech_threads()
        self.model = WhisperModel(path, device=device, compute_type=compute, cpu_threads=threads)
        self.guard = HallucinationGuard(s)

    def transcribe(
        self, audio: np.ndarray, offset: float, prompt: str = "", voiced_seconds: float = 99.0
    ) -> list[Word]:
        if audio.size < 1600:  # under 0.1 s: nothing to hear
            return []
        segments, _ = self.model.transcribe(
            audio,
            language="en",
            beam_size=1,
            word_timestamps=True,
            condition_on_previous_text=False,
            initial_prompt=prompt[-200:] or None,
            vad_filter=False,
            no_speech_threshold=self.guard.no_speech,
            compression_ratio_threshold=self.guard.compression,
            temperature=0.0,
        )
        words: list[Word] = []
        for seg in segments:
            info = SegmentInfo(seg.text, seg.no_speech_prob, seg.avg_logprob, seg.compression_ratio)
            if not self.guard.accept(info, voiced_seconds):
                log.debug("dropped a segment as hallucination: %r", seg.text)
                continue
            words.extend(_words(seg, offset))
        return words


def _words(seg: Any, offset: float) -> list[Word]:
    out: list[Word] = []
    for w in seg.words or []:
        text = w.word.strip()
        if text:
            # A segment's first word starts a word, spaced or not.
            glued = bool(out) and not w.word[:1].isspace()
            out.append(Word(float(offset + w.start), float(offset + w.end), text,
                            float(w.probability), glued))
    return out


def _device() -> tuple[str, str]:
    try:
        import ctranslate2

        if ctranslate2.get_cuda_device_count() > 0:
            return "cuda", "float16"
    except Exception:
        pass
    return "cpu", "int8"
