"""TurnStage: from judged frames to committed turns.

The frame side of the speech worker (app.speech.worker) judges every 32 ms frame in real
time: echo, voicing, levels, the wake word. What it heard reaches this stage as
``HeardFrame`` records, in order. Here a turn's audio is collected, decoded for partials
while it grows, speculatively once its silence begins, and committed (words, speaker, wake
binding) when the silence reaches the turn-end threshold. Speech the VAD missed is looked
for again by the segmentation model in the audio outside turns heard while the agent was
silent (app.speech.recovery): the silence before a turn while its end-silence runs, and
every few seconds of a silent room; what it finds becomes turns of its own.

The decodes take seconds on a CPU; the stage runs on a thread of its own
(app.speech.handoff), so they never hold back the frame side: the floor hears a pause
when it happens, not when the last decode is done.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.clock import Clock
from app.events import PartialTranscript, Turn, TurnsRecognized, WakeEvent
from app.language.address import mentions_only, text_wake
from app.settings import SpeechSettings
from app.speech.asr import LocalAgreement, Word, join_words
from app.speech.diarization import Diarizer, SpeakerSegment, TurnEmbedding, speaker_renames
from app.speech.events import SpeechError
from app.speech.partials import DecodeLoad, PartialSchedule
from app.speech.recovery import MissedSpeech, Stretch
from app.speech.segmentation import speech_spans
from app.speech.turns import TurnAction, TurnStep, TurnTracker
from app.speech.wake import WakeHit, WakeRetracted

log = logging.getLogger(__name__)

RATE = 16000
Emit = Callable[[object], None]


@dataclass(frozen=True)
class TurnTuning:
    """Engineering knobs of the turn stage (the product parameters live in SpeechSettings)."""

    partial_interval: float = 1.0  # seconds of new audio between partial decodes, at least
    partial_share: float = 0.25  # the most of real time partial decodes may take (0-1)
    max_partial_lag: float = 0.3  # skip a partial when this far behind the microphone (s)
    speculate_after: float = 0.15  # silence before the final decode starts (s)
    speculate_max_load: float = 0.5  # no speculation while decodes take this share of time
    preroll: float = 0.2  # audio kept before the first voiced frame (s)
    max_turn: float = 15.0  # a longer monologue is committed in pieces (s)
    min_voiced: float = 0.25  # less voiced audio than this is never a turn (s)
    # A turn with this much voiced audio (s) that decodes to no words under the prompt is
    # read once more without it (SpeechSettings.asr_retry_without_prompt).
    unprompted_retry_voiced: float = 1.0
    partials: bool = True


@dataclass(frozen=True)
class HeardFrame:
    """One frame as the frame side judged it."""

    samples: np.ndarray  # the audio turns are heard from (a talker's residual over the agent)
    start: float  # audio time the frame began (s)
    seconds: float  # its length (s)
    voiced: bool  # the VAD segmenter's verdict
    agent_audible: bool  # the agent's voice or its echo tail may be in it
    judged_at: float  # work-clock time the frame side judged it (s)
    wakes: tuple[tuple[WakeHit, str | None], ...] = ()  # wake words heard in it, by whom


@dataclass(frozen=True)
class Quiet:
    """No audio arrived by ``judged_at`` (work clock, s): the watchdog may close a turn."""

    judged_at: float


@dataclass(frozen=True)
class AudioStopped:
    """The device was lost: what was said before it still counts."""


@dataclass(frozen=True)
class StreamEnded:
    """The audio ended at ``time`` (s): commit the open turn, read the last silence."""

    time: float


StageInput = HeardFrame | Quiet | AudioStopped | StreamEnded


@dataclass
class _OpenTurn:
    start: float
    audio: list[np.ndarray] = field(default_factory=list)
    agreement: LocalAgreement = field(default_factory=LocalAgreement)
    voiced: float = 0.0
    last_partial: float = 0.0
    spec_words: list[Word] | None = None
    spec_embedding: TurnEmbedding | None = None
    voiced_spans: list[list[float]] = field(default_factory=list)
    missed: list[Stretch] | None = None  # speech the VAD missed before it, once looked at

    def mark_voiced(self, start: float, end: float) -> None:
        if self.voiced_spans and start - self.voiced_spans[-1][1] < 0.05:
            self.voiced_spans[-1][1] = end
        else:
            self.voiced_spans.append([start, end])

    def heard(self, word: Word, slack: float = 0.25) -> bool:
        """Did the VAD hear voice around this word? Words in silence are invented."""
        return any(a - slack <= word.end and word.start <= b + slack for a, b in self.voiced_spans)

    def samples(self) -> np.ndarray:
        return np.concatenate(self.audio) if self.audio else np.zeros(0, np.float32)


class TurnStage:
    """Owns the open turn, the decoding prompt and the turn count; ``take`` each input in
    order. ``speakers`` guards the diarizer, which the frame side also asks (wake words)."""

    def __init__(
        self,
        settings: SpeechSettings,
        tuning: TurnTuning,
        transcriber: Any,
        diarizer: Diarizer,
        emit: Emit,
        work_clock: Clock,
        lag: Callable[[float], float],
        speakers: threading.RLock,
    ) -> None:
        self.settings, self.tuning = settings, tuning
        self.transcriber, self.diarizer = transcriber, diarizer
        self._emit, self.work_clock, self._lag, self.speakers = emit, work_clock, lag, speakers
        s = settings
        self.tracker = TurnTracker(s.turn_end_silence, s.turn_watchdog, tuning.speculate_after)
        self._turn: _OpenTurn | None = None
        self._preroll: list[np.ndarray] = []
        self._wake_hits: list[tuple[WakeHit, str | None]] = []
        self._turn_index = 0
        self._pending_text_wake = False
        self._context = ""  # recent committed text, the decoding prompt
        self._said_until = 0.0  # audio time the last emitted turn ended
        self._merges_announced: set[str] = set()
        self._partials = PartialSchedule(tuning.partial_interval, tuning.partial_share)
        self._load = DecodeLoad(limit=tuning.speculate_max_load)
        self._missed: MissedSpeech | None = None  # speech the VAD missed, found again
        if s.recover_missed_speech:
            keep = tuning.max_turn + s.recover_window + 1.0  # a turn and a window
            self._missed = MissedSpeech(
                self._speech_spans, s.recover_window, s.recover_min_speech, s.turn_end_silence,
                keep=keep, min_snr_db=s.recover_min_snr_db,
            )  # fmt: skip
        self._last_look = 0.0  # audio time the missed speech was last looked for
        self._heard_until = 0.0  # audio time of the end of the last frame taken

    def take(self, item: StageInput) -> None:
        try:
            if isinstance(item, HeardFrame):
                self._frame(item)
            elif isinstance(item, Quiet):
                self._steps(self.tracker.tick(item.judged_at))
            elif isinstance(item, AudioStopped):
                self._steps(self.tracker.flush())
            else:
                self._end(item.time)
        except Exception as exc:  # a model hiccup must not end listening
            log.exception("turn stage failed on %s", type(item).__name__)
            self._emit(SpeechError("turn", str(exc), getattr(item, "start", 0.0)))

    def _frame(self, frame: HeardFrame) -> None:
        self._wake_hits.extend(frame.wakes)
        end = self._heard_until = frame.start + frame.seconds
        self._collect(frame.samples, frame.voiced, frame.seconds)
        if self._missed is not None:
            self._missed.hear(frame.samples, end, not frame.agent_audible)
        self._steps(self.tracker.update(frame.start, end, frame.voiced, frame.judged_at))
        self._look_in_silence(end, frame.agent_audible)
        self._maybe_partial(end)
        if self._turn is not None and end - self._turn.start >= self.tuning.max_turn:
            self._steps(self.tracker.flush())  # commit a monologue in pieces

    def _end(self, now: float) -> None:
        self._steps(self.tracker.flush())
        for stretch in self._find_missed(now, now, hold=False):
            self._commit_missed(stretch)

    def _collect(self, frame: np.ndarray, voiced: bool, dur: float) -> None:
        turn = self._turn
        if turn is None:
            self._preroll.append(frame)
            keep = max(1, int(self.tuning.preroll * RATE / frame.size))
            del self._preroll[:-keep]
            return
        turn.audio.append(frame)
        if voiced:
            end = turn.start + sum(f.size for f in turn.audio) / RATE
            turn.mark_voiced(end - dur, end)
            turn.voiced += dur

    # --- turns --------------------------------------------------------------------------

    def _steps(self, steps: list[TurnStep]) -> None:
        for step in steps:
            try:
                self._step(step)
            except Exception as exc:  # a model failure loses one turn, not the worker
                log.exception("turn step %s failed", step.action)
                self._emit(SpeechError("turn", str(exc), step.end))
                if step.action is TurnAction.CLOSE:
                    self._turn = None

    def _step(self, step: TurnStep) -> None:
        if step.action is TurnAction.OPEN:
            start = step.start - sum(f.size for f in self._preroll) / RATE
            self._turn = _OpenTurn(max(0.0, start), audio=list(self._preroll))
            self._turn.voiced = step.end - step.start
            self._turn.mark_voiced(step.start, step.end)
            self._turn.last_partial = step.end
            self._preroll = []
        elif self._turn is None:
            return
        elif step.action is TurnAction.SPECULATE:
            self._look_before(self._turn)  # while the turn-end silence runs, not after it
            self._speculate(self._turn, step)
        elif step.action is TurnAction.RESUME:
            self._turn.spec_words = self._turn.spec_embedding = None
        elif step.action is TurnAction.CLOSE:
            turn, self._turn = self._turn, None
            try:
                self._close(turn, step)
            finally:  # said, dropped or failed: nothing before this is still being read
                self._emit(TurnsRecognized(max(self._heard_until, step.end)))

    def _close(self, turn: _OpenTurn, step: TurnStep) -> None:
        if self._missed is not None:
            self._look_before(turn)
            for stretch in turn.missed or []:
                self._commit_missed(stretch)
            self._missed.skip_to(step.end)  # the silence after it is looked at later
        self._commit(turn, step)

    # --- speech the VAD missed (app.speech.recovery) ------------------------------------

    def _speech_spans(self, audio: np.ndarray) -> list[tuple[float, float]]:
        with self.speakers:
            return speech_spans(self.diarizer.segmenter.activity(audio))

    def _find_missed(self, until: float, end: float, hold: bool) -> list[Stretch]:
        """Speech found between the last turn or look and ``until``, the model reading
        the audio up to ``end`` (app.speech.recovery.MissedSpeech.examine)."""
        if self._missed is None:
            return []
        try:
            return self._missed.examine(until, end, hold)
        except Exception as exc:  # the VAD's turns go on without the second look
            log.exception("looking for missed speech failed")
            self._emit(SpeechError("recovery", str(exc), until))
            return []

    def _look_in_silence(self, now: float, agent_audible: bool) -> None:
        """Every few seconds while nobody holds a turn and the agent is silent; the end of
        what the model reads is looked at again next time, with what follows as context."""
        every = self.settings.recover_every
        if self._turn is not None or agent_audible or now - self._last_look < every:
            return
        self._last_look = now
        for stretch in self._find_missed(now - every / 2, now, hold=True):
            self._commit_missed(stretch)

    def _look_before(self, turn: _OpenTurn) -> None:
        """The silence before a turn, read with the turn's start as context (once)."""
        if self._missed is not None and turn.missed is None:
            context = turn.start + self._missed.window / 2
            turn.missed = self._find_missed(turn.start, context, hold=False)

    def _commit_missed(self, stretch: Stretch) -> None:
        assert self._missed is not None
        turn = _OpenTurn(stretch.start, audio=[self._missed.audio(stretch.start, stretch.end)])
        for a, b in stretch.spans:
            turn.mark_voiced(a, b)
        turn.voiced = stretch.seconds
        try:
            self._commit(turn, TurnStep(TurnAction.CLOSE, stretch.start, stretch.end))
        except Exception as exc:  # a model failure loses this turn, not the worker
            log.exception("a turn of missed speech failed")
            self._emit(SpeechError("turn", str(exc), stretch.end))

    # --- decoding -----------------------------------------------------------------------

    def _decode(
        self, turn: _OpenTurn, final: bool = False
    ) -> tuple[list[Word], np.ndarray, float]:
        """The turn's words, the audio decoded and the seconds the decode took; ``final``:
        the words the turn commits (a speculative or closing decode, not a partial)."""
        # Whisper pads every call to 30 s, so re-reading the whole turn costs the same as
        # a tail and keeps the words' context (max_turn bounds it). Trailing silence is
        # cut to 0.2 s: Whisper fills longer silence with stock phrases. The prompt is
        # what came before this turn: prompting with the turn's own words skips them.
        audio = turn.samples()
        if turn.voiced_spans:
            audio = audio[: int((turn.voiced_spans[-1][1] + 0.2 - turn.start) * RATE)]
        began = self.work_clock.now()
        words = self.transcriber.transcribe(audio, turn.start, self._context, turn.voiced)
        words = [w for w in words if turn.heard(w)]
        if not words and final and self._context and self._retry_unprompted(turn):
            # The small model, led by a prompt, can return nothing at all for seconds of
            # clear speech it reads well alone; that much voice is not silence.
            words = self.transcriber.transcribe(audio, turn.start, "", turn.voiced)
            words = [w for w in words if turn.heard(w)]
        seconds = self.work_clock.now() - began
        self._load.spent(turn.start + audio.size / RATE, seconds)
        return words, audio, seconds

    def _retry_unprompted(self, turn: _OpenTurn) -> bool:
        return (
            self.settings.asr_retry_without_prompt
            and turn.voiced >= self.tuning.unprompted_retry_voiced
        )

    def _speculate(self, turn: _OpenTurn, step: TurnStep) -> None:
        if not self._load.room(step.end):
            return  # near the machine's limit: the turn is decoded once, when it closes
        words, audio, _ = self._decode(turn, final=True)
        turn.spec_words = words
        speech = audio[: int((step.end - turn.start) * RATE)]
        turn.spec_embedding = self._embed(speech) if speech.size else None

    def _embed(self, speech: np.ndarray) -> TurnEmbedding:
        with self.speakers:
            return self.diarizer.embed(speech)

    def _maybe_partial(self, now: float) -> None:
        turn = self._turn
        if turn is None or not self.tuning.partials or turn.spec_words is not None:
            return
        if not self._partials.due(now - turn.last_partial):
            return
        if self._lag(now) > self.tuning.max_partial_lag:
            return  # behind the microphone: partials wait, the turn end must not
        turn.last_partial = now
        words, _, seconds = self._decode(turn)
        self._partials.spent(seconds)
        turn.agreement.insert(words)
        text = join_words([*turn.agreement.committed, *turn.agreement.pending])
        if text:
            with self.speakers:
                speaker = self.diarizer.identify(turn.samples()[-int(1.5 * RATE) :])
            self._emit(PartialTranscript(speaker, text, turn.start, now))

    # --- committing ---------------------------------------------------------------------

    def _commit(self, turn: _OpenTurn, step: TurnStep) -> None:
        if turn.voiced < self.tuning.min_voiced:
            return
        words = turn.spec_words
        if words is None:
            words, _, _ = self._decode(turn, final=True)
        turn.agreement.finish(words)
        committed = turn.agreement.committed
        if not committed:
            return
        self._context = (self._context + " " + join_words(committed))[-200:]
        speech = turn.samples()[: max(1, int((step.end - turn.start) * RATE))]
        embedding = turn.spec_embedding or self._embed(speech)
        with self.speakers:
            _, segments = self.diarizer.label(embedding, turn.start)
            merges = speaker_renames(self.diarizer.clusters, self._merges_announced)
        for event in [*merges, *segments]:
            self._emit(event)
        wake_time = self._wake_time(turn.start, step.end, join_words(committed), committed)
        for speaker, group in split_by_speaker(committed, segments):
            start = turn.start if group is committed or group[0] is committed[0] else group[0].start
            end = step.end if group[-1] is committed[-1] else group[-1].end
            # Turns never overlap: a turn's pre-roll or Whisper's word times can reach back
            # into the turn before.
            start = min(max(start, self._said_until), end)
            self._said_until = end
            direct = wake_time is not None and start - 0.3 <= wake_time <= end + 0.3
            self._turn_index += 1
            unsure = tuple(w.text for w in group
                           if w.probability < self.settings.asr_unsure_probability)
            turn_event = Turn(speaker, join_words(group), start, end, direct, self._turn_index,
                              unsure)
            if direct and wake_time is not None:
                self._announce_text_wake(turn_event, wake_time)
            self._emit(turn_event)

    def _wake_time(self, start: float, end: float, text: str, words: list[Word]) -> float | None:
        """When the turn addressed Jarvis (audio hit or transcript), or None."""
        inside = [h for h, _ in self._wake_hits if start - 0.3 <= h.time <= end + 0.3]
        self._wake_hits = [(h, s) for h, s in self._wake_hits if h.time > end + 0.3]
        self._pending_text_wake = not inside
        if inside and mentions_only(text):
            self._emit(WakeRetracted(inside[0].time, None, text))
            return None
        if inside:
            return inside[0].time
        index = text_wake(text)
        if index is None:
            return None
        return words[min(index, len(words) - 1)].end

    def _announce_text_wake(self, turn: Turn, time: float) -> None:
        if self._pending_text_wake:
            self._pending_text_wake = False
            self._emit(WakeEvent(time, turn.speaker, int(time * RATE), 1.0, "text"))


def split_by_speaker(
    words: list[Word], segments: list[SpeakerSegment]
) -> list[tuple[str, list[Word]]]:
    """Group consecutive words by the speaker segment holding each word's midpoint."""
    groups: list[tuple[str, list[Word]]] = []
    for word in words:
        mid = (word.start + word.end) / 2
        speaker = segments[-1].speaker
        for seg in segments:
            if mid < seg.end:
                speaker = seg.speaker
                break
        if groups and groups[-1][0] == speaker:
            groups[-1][1].append(word)
        else:
            groups.append((speaker, [word]))
    return groups
