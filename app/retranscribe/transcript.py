"""Recognition over the whole kept recording, and its words as speaker turns.

After the meeting there is no latency to keep: the best Whisper model in the model store
decodes the whole file at once (beam search, each window with the text before it as its
context, faster-whisper's own VAD skipping silence), and each word takes the speaker the
offline diarization heard at its time.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.events import Turn
from app.speech.asr import HallucinationGuard, SegmentInfo, Word, _device, _words, join_words
from app.speech.diarization import SpeakerSegment

log = logging.getLogger(__name__)

RATE = 16000


@dataclass(frozen=True)
class RecognitionTuning:
    beam_size: int = 5
    # Each 30 s window is decoded with the previous window's text as its prompt; the
    # hallucination guard drops what a loop would invent.
    with_context: bool = True
    vad_filter: bool = True  # faster-whisper's Silero VAD: silence is never decoded


@dataclass(frozen=True)
class TurnTuning:
    max_gap: float = 1.5  # seconds between one speaker's words that start a new turn
    # A word outside every speaker segment takes the nearest segment's speaker within this
    # many seconds, else the speaker of the word before it.
    reach: float = 1.0
    # Diarization and word times disagree by a word or two where speakers change: up to
    # this many words that end a sentence left open by the previous speaker go back to it
    # (0: words stay where their times put them).
    sentence_words: int = 2


@dataclass(frozen=True)
class AsrChoice:
    name: str  # the model store's name, e.g. "whisper-small.en"
    path: Path


def best_asr_model(manager: Any = None) -> AsrChoice:
    """The largest Whisper model the model store has, pulled or embedded."""
    from app.models import ModelMissingError, default_manager

    manager = manager or default_manager()
    present = [
        e for e in manager.manifest.entries if e.role == "asr" and manager.present(e.name)
    ]
    for entry in sorted(present, key=lambda e: -e.size):
        try:
            return AsrChoice(entry.name, Path(manager.resolve(entry.name)))
        except Exception as exc:  # a damaged copy: the next best one
            log.warning("%s is not usable: %s", entry.name, exc)
    raise ModelMissingError("No Whisper model is installed. Run `jarvis models pull` first.")


class WholeRecording:
    """faster-whisper over a whole recording (CUDA float16 on a GPU, int8 on a CPU)."""

    def __init__(
        self,
        model: AsrChoice,
        tuning: RecognitionTuning | None = None,
        threads: int = 0,
        guard: HallucinationGuard | None = None,
    ) -> None:
        from faster_whisper import WhisperModel

        logging.getLogger("faster_whisper").setLevel(logging.WARNING)
        device, compute = _device()
        self.choice = model
        self.tuning = tuning or RecognitionTuning()
        self.model = WhisperModel(str(model.path), device=device, compute_type=compute,
                                  cpu_threads=threads)  # fmt: skip
        self.guard = guard or HallucinationGuard()

    def words(self, audio: np.ndarray, progress: Callable[[float], None] | None = None
              ) -> list[Word]:  # fmt: skip
        """Every word heard, with its time in the recording; ``progress`` hears the
        seconds decoded so far."""
        t = self.tuning
        english = self.choice.name.endswith(".en")
        segments, _ = self.model.transcribe(
            np.ascontiguousarray(audio, dtype=np.float32),
            language="en" if english else None,
            beam_size=t.beam_size,
            word_timestamps=True,
            condition_on_previous_text=t.with_context,
            vad_filter=t.vad_filter,
            no_speech_threshold=self.guard.no_speech,
            compression_ratio_threshold=self.guard.compression,
        )
        words: list[Word] = []
        for seg in segments:
            info = SegmentInfo(seg.text, seg.no_speech_prob, seg.avg_logprob, seg.compression_ratio)
            if self.guard.accept(info, seg.end - seg.start):
                words.extend(_words(seg, 0.0))
            else:
                log.debug("dropped a segment as hallucination: %r", seg.text)
            if progress is not None:
                progress(float(seg.end))
        return words


def speaker_at(word: Word, segments: list[SpeakerSegment], ends: list[float],
               reach: float) -> str | None:  # fmt: skip
    """The speaker of the segment sharing most time with the word; else the nearest
    segment within ``reach`` seconds; else None. ``segments`` sorted, ``ends`` their ends."""
    first = bisect.bisect_right(ends, word.start)
    best, share = None, 0.0
    for seg in segments[first:]:
        if seg.start >= word.end:
            break
        common = min(seg.end, word.end) - max(seg.start, word.start)
        if common > share:
            best, share = seg.speaker, common
    if best is not None:
        return best
    near = [s for s in segments[max(0, first - 1) : first + 1]]
    gaps = [(max(s.start - word.end, word.start - s.end), s.speaker) for s in near]
    gaps = [g for g in gaps if g[0] <= reach]
    return min(gaps)[1] if gaps else None


def speaker_turns(
    words: list[Word], segments: list[SpeakerSegment], tuning: TurnTuning | None = None
) -> list[Turn]:
    """Consecutive words of one speaker as a turn; a change of speaker or a long pause
    ends it. Turns are numbered from 1 in order."""
    t = tuning or TurnTuning()
    ordered = sorted(segments, key=lambda s: s.start)
    ends = [s.end for s in ordered]
    groups: list[tuple[str, list[Word]]] = []
    previous = ordered[0].speaker if ordered else "R1"
    for word in words:
        speaker = speaker_at(word, ordered, ends, t.reach) or previous
        same = groups and groups[-1][0] == speaker
        if same and word.start - groups[-1][1][-1].end < t.max_gap:
            groups[-1][1].append(word)
        else:
            groups.append((speaker, [word]))
        previous = speaker
    groups = [g for g in finish_sentences(groups, t.sentence_words) if g[1]]
    return [
        Turn(speaker, join_words(group), group[0].start, group[-1].end, index=i)
        for i, (speaker, group) in enumerate(groups, 1)
    ]


SENTENCE_END = (".", "?", "!")


def finish_sentences(
    groups: list[tuple[str, list[Word]]], most: int
) -> list[tuple[str, list[Word]]]:
    """A turn that opens with at most ``most`` words ending a sentence, after a turn of
    another speaker whose last sentence is unfinished: those words finish that sentence."""
    out = [(speaker, list(group)) for speaker, group in groups]
    for (first, before), (second, after) in zip(out, out[1:], strict=False):
        if first == second or not before or before[-1].text.endswith(SENTENCE_END):
            continue
        end = next((i for i, w in enumerate(after[:most]) if w.text.endswith(SENTENCE_END)), -1)
        if end >= 0:
            before.extend(after[: end + 1])
            del after[: end + 1]
    return out
