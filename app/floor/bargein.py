"""Barge-in with a backchannel filter: does speech heard while the agent plays take the floor?

Sustained participant speech stops the agent (SPEC §5), but a backchannel ("yeah",
"mm-hmm", "okay") does not. While the agent plays, the speech worker decodes the
overlapping speech since its onset and sends what it heard (``OverlapTranscript``). Once
the speech is sustained:

- words that are not all backchannel words take the floor at once;
- while everything heard so far is a backchannel, or no words yet, the agent holds;
- speech that goes on for ``barge_in_hold_max`` seconds (from its onset to its latest
  voiced frame) takes the floor whatever was heard: a backchannel is short (a drawn-out
  "okaaay" about 1.1 s, hence 1.2 s by default), and this also covers a decoder that
  hears nothing.

Pure: fed VAD events, per-frame input levels and transcripts, each carrying its own time.
Every input answers whether to stop now; one overlap answers yes at most once.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.events import InputLevel, OverlapTranscript, VadEvent, VadKind
from app.floor.timing import EPS, reached
from app.language.talk import is_backchannel
from app.settings import FloorSettings

_MAX_FRAME = 0.1  # a longer gap between input levels counts as this much


@dataclass
class Overlap:
    """One stretch of participant speech, from its onset to its short silence."""

    start: float  # the onset event (end of the first voiced frame)
    began: float | None = None  # start of the first voiced frame
    heard_until: float | None = None  # end of the latest voiced frame
    sustained: bool = False  # sustained speech that may take the floor was reported
    words: str | None = None  # the latest transcript of it; None: none yet
    decided: bool = False  # it already took the floor


class BargeIn:
    def __init__(self, settings: FloorSettings | None = None) -> None:
        self.settings = settings or FloorSettings()
        self.overlap: Overlap | None = None
        self._last_level: float | None = None
        self._last_step = 0.0  # voiced seconds of the last input level (0: unvoiced)

    def on_vad(self, event: VadEvent, may_take_floor: bool = True) -> bool:
        """``may_take_floor``: sustained speech of this kind is allowed to stop the agent."""
        if event.kind == VadKind.SPEECH_ONSET:
            # The level of the onset frame may arrive just before its event.
            same_frame = self._last_level is not None and abs(self._last_level - event.time) < EPS
            o = self.overlap = Overlap(event.time)
            if same_frame and self._last_step > 0:
                o.began, o.heard_until = event.time - self._last_step, event.time
        elif event.kind == VadKind.SUSTAINED_SPEECH:
            if self.overlap is None:  # the onset came before we listened
                self.overlap = Overlap(event.time)
            self.overlap.sustained = self.overlap.sustained or may_take_floor
            return self._verdict()
        else:  # a short or long silence: that speech is over
            self.overlap = None
        return False

    def on_level(self, level: InputLevel) -> bool:
        last, self._last_level = self._last_level, level.time
        step = _MAX_FRAME if last is None else min(max(level.time - last, 0.0), _MAX_FRAME)
        self._last_step = step if level.is_speech else 0.0
        o = self.overlap
        if o is None or not level.is_speech or level.time < o.start - EPS:
            return False
        if o.began is None:
            o.began = level.time - step
        o.heard_until = level.time
        return self._verdict()

    def on_transcript(self, transcript: OverlapTranscript) -> bool:
        o = self.overlap
        if o is None or abs(transcript.start - o.start) > EPS:
            return False  # about speech that is over, or not this one
        o.words = transcript.text
        return self._verdict()

    def _verdict(self) -> bool:
        o, s = self.overlap, self.settings
        if o is None or not o.sustained or o.decided:
            return False
        span = 0.0 if o.began is None or o.heard_until is None else o.heard_until - o.began
        take = (
            not s.barge_in_backchannel_filter
            or reached(span, 0.0, s.barge_in_hold_max)
            or (o.words is not None and _words_take_floor(o.words, s))
        )
        o.decided = take
        return take


def _words_take_floor(text: str, s: FloorSettings) -> bool:
    return bool(text.strip()) and not is_backchannel(text, max_words=s.backchannel_max_words)
