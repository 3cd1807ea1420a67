"""The floor state machine (SPEC §5, §7): when the agent may speak, and when it must stop.

Pure and event-driven: every input carries ``now`` (seconds on the session clock), no
threads, no clock reads. Each input returns the commands it caused, in order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from app.events import (
    AgentState,
    AnswerDelta,
    InputLevel,
    Intervention,
    InterventionKind,
    OverlapTranscript,
    PlaybackReceipt,
    ReceiptStatus,
    Setting,
    SettingsChanged,
    Turn,
    TurnsRecognized,
    VadEvent,
    VadKind,
    WakeEvent,
)
from app.floor.bargein import BargeIn
from app.floor.direct import DirectQuestions, StreamedAnswer
from app.floor.freshness import Freshness
from app.floor.glyph import Glyph
from app.floor.outputs import (
    CancelGeneration,
    ClearCitation,
    Command,
    Delivered,
    Dropped,
    Earcon,
    PatienceChanged,
    Play,
    RequestDirectAnswer,
    ShowCitation,
    SnoozeChanged,
    SnoozeSource,
    StateChanged,
    Stop,
)
from app.floor.permission import Permission, classify, snooze_request
from app.floor.timing import EPS, reached, within
from app.language.sentences import sentences
from app.language.talk import is_backchannel
from app.settings import FloorMode, FloorSettings, Patience

_NEVER = float("-inf")


@dataclass(frozen=True)
class Slot:
    """An intervention waiting for the floor (queued, held under a raised hand, or ready)."""

    intervention: Intervention
    since: float
    resume_sentence: int = 0
    recoveries: int = 0

    @property
    def direct(self) -> bool:
        return self.intervention.kind == InterventionKind.DIRECT


@dataclass
class Playing:
    slot: Slot
    started: float
    stop_reason: str | None = None


def spoken_text(intervention: Intervention, resume_sentence: int, prefix: str) -> str:
    """The text to say when starting at ``resume_sentence`` (0: the whole intervention)."""
    if resume_sentence == 0:
        return intervention.text
    rest = " ".join(sentences(intervention.text)[resume_sentence:])
    if rest[:1].isupper() and not rest[1:2].isupper() and not rest.startswith("I "):
        rest = rest[0].lower() + rest[1:]
    return f"{prefix} {rest}"


class FloorFSM:
    def __init__(self, settings: FloorSettings | None = None, freshness: Freshness | None = None):
        self.settings = s = settings or FloorSettings()
        self.freshness = freshness or Freshness(s)
        self.mode = s.mode
        self.patience = Patience.DEFAULT
        self.paused = False
        self.direct = DirectQuestions(s)
        self.glyph = Glyph(s.glyph_debounce)
        # What the room sounds like.
        self.voiced = False
        self.barge = BargeIn(s)
        self.last_onset = _NEVER
        # Audio time before which every turn has been recognized; None while the speech
        # source reports no such progress (every turn is then known when its pause is).
        self.recognized_until: float | None = None
        self.silence_since: float | None = None
        self.quiet_since: float | None = None
        self.last_activity = _NEVER
        self.thinking_since: float | None = None
        self.played_until = _NEVER
        # What the agent has to say.
        self.queued: Slot | None = None
        self.held: Slot | None = None
        self.ready_direct: Slot | None = None
        self.playing: Playing | None = None
        self.permission_at: float | None = None
        self.turns: deque[tuple[float, Turn]] = deque(maxlen=s.turn_history)
        self.phrases: dict[str, list[Turn]] = {}
        # Proactivity limits: a snooze, and the last proactive intervention said (its id
        # and when it started) for the minimum gap between two of them.
        self.snoozed_until: float | None = None
        self.snooze_phrases: dict[str, list[Turn]] = {}
        self.last_proactive: tuple[str, float] | None = None
        self.seen_ids: set[str] = set()
        self.answered: set[int] = set()  # generations whose final answer came
        self.answer: StreamedAnswer | None = None  # the direct answer being streamed
        # Direct answers heard (when their playback ended, what of them was heard whole).
        self.answers_heard: deque[tuple[float, str]] = deque(maxlen=s.turn_history)
        self._out: list[Command] = []

    # --- inputs ---------------------------------------------------------------------------

    def on_vad(self, event: VadEvent, now: float) -> list[Command]:
        return self._run(now, lambda: self._vad(event))

    def on_level(self, level: InputLevel, now: float) -> list[Command]:
        return self._run(now, lambda: self._level(level))

    def on_recognized(self, event: TurnsRecognized, now: float) -> list[Command]:
        def heard() -> None:
            self.recognized_until = max(self.recognized_until or _NEVER, event.time)

        return self._run(now, heard)

    def on_overlap(self, transcript: OverlapTranscript, now: float) -> list[Command]:
        """What the worker heard so far of speech over the agent (the backchannel filter)."""
        return self._run(now, lambda: self._barge_in_if(self.barge.on_transcript(transcript)))

    def on_turn(self, turn: Turn, now: float) -> list[Command]:
        return self._run(now, lambda: self._turn(turn, now))

    def on_wake(self, wake: WakeEvent, now: float) -> list[Command]:
        return self._run(now, lambda: self._wake(wake, now))

    def on_intervention(self, intervention: Intervention, now: float) -> list[Command]:
        return self._run(now, lambda: self._intervention(intervention, now))

    def on_answer_delta(self, delta: AnswerDelta, now: float) -> list[Command]:
        return self._run(now, lambda: self._delta(delta, now))

    def on_receipt(self, receipt: PlaybackReceipt, now: float) -> list[Command]:
        return self._run(now, lambda: self._receipt(receipt, now))

    def tick(self, now: float) -> list[Command]:
        return self._run(now, lambda: None)

    # --- UI commands ----------------------------------------------------------------------

    def grant_floor(self, now: float) -> list[Command]:
        return self._run(now, lambda: self._grant(now))

    def lower_hand(self, now: float) -> list[Command]:
        return self._run(now, lambda: self._lower_hand("hand_lowered"))

    def set_mode(self, mode: FloorMode, now: float) -> list[Command]:
        return self._run(now, lambda: self._set_mode(mode, now))

    def set_patience(self, patience: Patience, now: float) -> list[Command]:
        def change() -> None:
            self.patience = patience
            self._emit(PatienceChanged(patience))

        return self._run(now, change)

    def set_paused(self, paused: bool, now: float) -> list[Command]:
        return self._run(now, lambda: self._pause(now) if paused else self._resume())

    def on_settings(self, change: SettingsChanged, now: float) -> list[Command]:
        """A setting changed on the running agent: the floor applies mode, patience and
        the proactive gap; the others belong to the voice and the devices."""
        return self._run(now, lambda: self._setting(change, now))

    def snooze(self, seconds: float, source: SnoozeSource, now: float) -> list[Command]:
        """Hold proactive interventions back for ``seconds`` (0 ends a snooze)."""
        return self._run(now, lambda: self._snooze(seconds, source, now))

    @property
    def state(self) -> AgentState:
        return self.glyph.shown

    # --- hearing --------------------------------------------------------------------------

    def _vad(self, e: VadEvent) -> None:
        # Captured while the agent was audible (self_voice): it never frees the floor, and
        # takes it only as sustained speech left after echo cancellation. Sustained
        # speech takes it through the backchannel filter (app.floor.bargein).
        may_take = not e.self_voice or self.settings.barge_in_on_flagged
        self._barge_in_if(self.barge.on_vad(e, may_take))
        if e.self_voice:
            return
        if e.kind in (VadKind.SPEECH_ONSET, VadKind.SUSTAINED_SPEECH):
            if e.kind == VadKind.SPEECH_ONSET:
                self.last_onset = self.last_activity = e.time
            self.voiced, self.silence_since = True, None
            self.direct.on_voiced(True, e.time)
            return
        self.voiced = False
        self.direct.on_voiced(False, e.time)
        start = e.time - self.settings.release_silence if e.kind == VadKind.LONG_SILENCE else e.time
        self.silence_since = min(self.silence_since or e.time, start)

    def _level(self, level: InputLevel) -> None:
        self._barge_in_if(self.barge.on_level(level))
        if level.is_speech:
            self.silence_since = None
        elif self.silence_since is None:
            self.silence_since = level.time
        if level.rms >= self.settings.release_rms:
            self.quiet_since = None
        elif self.quiet_since is None:
            self.quiet_since = level.time

    def _opening(self, now: float) -> bool:
        """A real pause: long VAD silence, nobody speaking, a quiet input level, and the
        turn before it recognized (the floor must know what was said before it speaks)."""
        s = self.settings
        if self.voiced or self.silence_since is None or self.quiet_since is None:
            return False
        if self.recognized_until is not None and self.recognized_until < self.last_onset:
            return False
        silent_from = max(self.silence_since, self.played_until)
        return reached(now, silent_from, self._release_silence()) and reached(
            now, self.quiet_since, s.release_rms_hold
        )

    def _release_silence(self) -> float:
        """The pause that opens the floor: ``release_silence``, or the shorter
        ``release_silence_waited`` once the queued intervention has waited through
        ``release_wait_turns`` participants' turns."""
        s, slot = self.settings, self.queued
        if slot is None or s.release_wait_turns <= 0:
            return s.release_silence
        waited = sum(at > slot.since for at, _ in self.turns)
        return s.release_silence_waited if waited >= s.release_wait_turns else s.release_silence

    def _barge_in_if(self, take_floor: bool) -> None:
        if take_floor and self.playing is not None and self.playing.stop_reason is None:
            self._stop("barge_in")

    # --- turns, wake words, permission ----------------------------------------------------

    def _turn(self, turn: Turn, now: float) -> None:
        self.last_activity = now
        if is_backchannel(turn.text):
            return  # neither a question, a permission nor a change of topic
        self.turns.append((now, turn))
        if self._snooze_phrase(turn, now):
            return  # addressed to the agent, but neither a question nor a permission
        if not self.paused:
            self._direct_commands(self.direct.on_turn(turn, now), now)
        if self.held is not None or self.queued is not None:
            self._permission(turn, now)

    def _wake(self, wake: WakeEvent, now: float) -> None:
        if self.paused:
            return
        self.last_activity = now
        self._emit(Earcon("wake"))
        self._direct_commands(self.direct.on_wake(wake, now), now)

    def _joined(self, phrases: dict[str, list[Turn]], turn: Turn) -> list[Turn]:
        """The speaker's earlier sub-phrases that ``turn`` continues (within 1.5 s, 3 s in
        all); ``phrases`` then holds them with ``turn``."""
        s = self.settings
        joined = [
            t
            for t in phrases.get(turn.speaker, [])
            if within(turn.start - t.end, s.permission_join)
            and within(turn.end - t.start, s.permission_span)
        ]
        phrases[turn.speaker] = [*joined, turn]
        return joined

    def _snooze_phrase(self, turn: Turn, now: float) -> bool:
        """ "Jarvis, not now" / "Jarvis, quiet for ten minutes": a snooze by voice."""
        joined = self._joined(self.snooze_phrases, turn)
        default = self.settings.snooze_default
        seconds = snooze_request(turn.text, default)
        if seconds is None and joined:
            seconds = snooze_request(" ".join(t.text for t in [*joined, turn]), default)
        if seconds is None:
            return False
        self.snooze_phrases[turn.speaker] = []
        self.direct.withdraw(turn)
        self._snooze(seconds, SnoozeSource.VOICE, now)
        return True

    def _permission(self, turn: Turn, now: float) -> None:
        joined = self._joined(self.phrases, turn)
        hand_up = self.held is not None
        verdict = classify(turn.text, hand_up)
        if verdict == Permission.NONE and joined:
            verdict = classify(" ".join(t.text for t in [*joined, turn]), hand_up)
        if verdict == Permission.GRANT:
            self._grant(now)
        elif verdict == Permission.DENY:
            self.permission_at = None

    def _grant(self, now: float) -> None:
        if (self.held or self.queued) and self.permission_at is None:
            self.permission_at = now

    def _lower_hand(self, reason: str) -> None:
        if self.held is not None:
            self._drop(self.held, reason)
            self.held, self.permission_at = None, None

    # --- interventions and answers --------------------------------------------------------

    def _intervention(self, iv: Intervention, now: float) -> None:
        if iv.id in self.seen_ids:
            self._emit(Dropped(iv.id, "duplicate"))
            return
        self.seen_ids.add(iv.id)
        slot = Slot(iv, since=now)
        if self.paused:
            self._drop(slot, "paused")
        elif slot.direct:
            self._answer(slot, now)
        elif self._held_back(slot, now):
            return
        elif self.mode == FloorMode.HAND_RAISE:
            self._lower_hand("replaced")
            self.held = slot
        else:
            if self.queued is not None:
                self._drop(self.queued, "replaced")
            self.queued = slot

    def _answer(self, slot: Slot, now: float) -> None:
        generation = slot.intervention.generation
        if generation != self.direct.active_generation:
            self._drop(slot, "superseded")
        elif generation in self.answered:
            self._drop(slot, "duplicate")
        else:
            self.answered.add(generation)
            self.thinking_since = None
            streamed = self._streamed(generation)
            if streamed is not None and streamed.said:
                self._finish_stream(streamed, slot, now)
                return
            self.answer = None  # nothing of it said yet: the checked answer replaces it
            if not slot.intervention.text:
                self._drop(slot, "nothing_to_say")
            elif self.playing is None:
                self._play(slot, now)
            else:
                self.ready_direct = slot

    def _delta(self, d: AnswerDelta, now: float) -> None:
        """Checked sentences of the active answer play as they come; nothing else does."""
        iid = f"direct-{d.generation}"
        if d.generation != self.direct.active_generation or d.generation in self.answered:
            if iid not in self.seen_ids:
                self.seen_ids.add(iid)
                reason = "duplicate" if d.generation in self.answered else "superseded"
                self._emit(Dropped(iid, reason))
            return
        if self.answer is None or self.answer.generation != d.generation:
            self.answer = StreamedAnswer(d.generation)
        self.answer.add(d)
        self._go_on(self.answer, now)

    def _streamed(self, generation: int) -> StreamedAnswer | None:
        a = self.answer
        return a if a is not None and a.generation == generation else None

    def _finish_stream(self, a: StreamedAnswer, slot: Slot, now: float) -> None:
        """The final answer of one partly said: only what it adds to that is played."""
        final = slot.intervention
        if not self._live(a):
            self.answer = None
            self._drop(slot, "interrupted")
            return
        if not a.continues(final):
            self._drop(slot, "inconsistent", "it does not begin with what was said")
            final = a.intervention()
        a.final = final
        self._go_on(a, now)

    def _live(self, a: StreamedAnswer) -> bool:
        """Still being said: playing, waiting for its next checked sentence, or waiting to
        be said again after an interruption."""
        p, q = self.playing, self.queued
        mine = [s for s in (p.slot if p else None, q) if s is not None
                and s.direct and s.intervention.generation == a.generation]
        return a.waiting or bool(mine)

    def _answer_pending(self, now: float) -> bool:
        """A direct question is asked and its answer not yet all said (nor given up on)."""
        q = self.direct.question
        if q is None or (q.closed and not q.requested):
            return False
        if q.requested and q.generation in self.answered:
            a = self._streamed(q.generation)
            return a is not None and self._live(a)
        return not reached(now, q.last_end, self.settings.direct_first_wait)

    def _between(self, slot: Slot) -> bool:
        """Another intervention would fall between sentences of the answer being said."""
        a = self.answer
        return (a is not None and a.waiting
                and not (slot.direct and slot.intervention.generation == a.generation))

    def _go_on(self, a: StreamedAnswer, now: float) -> None:
        """Start the answer, or go on with it once the player is free."""
        if self.playing is not None or self.ready_direct is not None:
            return
        if not a.said:
            if a.checked_text():
                self._play(Slot(a.intervention(), since=now), now)
            return
        if not a.waiting:
            return
        if a.unsaid():
            self._continue(a, now)
        elif a.final is not None:
            self.answer = None
            assert a.heard is not None
            self._emit(Delivered(a.final, a.heard, True))

    def _continue(self, a: StreamedAnswer, now: float, last: Slot | None = None) -> None:
        """The answer's next sentences, straight after the ones already said (``last``:
        the piece that just ended, its citation still shown)."""
        iv = a.intervention()
        parts = a.sentences()
        start, a.said, a.waiting = a.said, len(parts), False
        self._emit(Play(iv, " ".join(parts[start:]), start))
        shown = last.intervention.citations[:1] if last is not None else ()
        if iv.citations[:1] != shown:
            self._emit(ShowCitation(iv.citations[0]))
        recoveries = last.recoveries if last is not None else 0
        self.playing = Playing(Slot(iv, now, start, recoveries), now)
        self.thinking_since = None

    def _direct_commands(self, commands: list[Command], now: float) -> None:
        for c in commands:
            self._emit(c)
            if isinstance(c, RequestDirectAnswer):
                self.thinking_since = now
            elif isinstance(c, CancelGeneration):
                self._cancel_generation(c.generation)

    def _cancel_generation(self, generation: int) -> None:
        self.thinking_since = None
        a = self._streamed(generation)
        if a is not None:
            self.answer = None
            if a.waiting and a.heard is not None:  # what was heard of it ends here
                self._emit(Delivered(a.intervention(), a.heard, False))
        for name in ("ready_direct", "queued"):
            slot: Slot | None = getattr(self, name)
            if slot and slot.direct and slot.intervention.generation == generation:
                self._drop(slot, "superseded")
                setattr(self, name, None)
        p = self.playing
        if p and p.slot.direct and p.slot.intervention.generation == generation:
            if p.stop_reason is None:
                self._stop("superseded")

    # --- playback -------------------------------------------------------------------------

    def _play(self, slot: Slot, now: float) -> None:
        a = self._streamed(slot.intervention.generation) if slot.direct else None
        if a is not None:  # as far as it has been checked by now
            slot = replace(slot, intervention=a.intervention())
            a.said, a.waiting = len(a.sentences()), False
        if not slot.direct and self._held_back(slot, now):
            return
        iv = self.intervention_fresh(slot)
        if iv is None:
            return
        text = spoken_text(iv, slot.resume_sentence, self.settings.resume_prefix)
        self._emit(Play(iv, text, slot.resume_sentence))
        if iv.citations:
            self._emit(ShowCitation(iv.citations[0]))
        self.playing = Playing(slot, now)
        last = self.last_proactive
        if not slot.direct and (last is None or last[0] != iv.id):  # a replay keeps its start
            self.last_proactive = (iv.id, now)

    # --- proactivity limits ---------------------------------------------------------------

    def _held_back(self, slot: Slot, now: float) -> bool:
        """A proactive intervention the snooze or the minimum gap keeps back is dropped."""
        iv, until, last = slot.intervention, self.snoozed_until, self.last_proactive
        gap = self.settings.proactive_gap
        if until is not None and now < until - EPS:
            self._drop(slot, "snoozed", f"snoozed until {until:.1f} s")
        elif gap > 0 and last is not None and last[0] != iv.id and not reached(now, last[1], gap):
            self._drop(slot, "rate_limited", f"{now - last[1]:.0f} s after the last one; "
                       f"at most one every {gap:.0f} s")
        else:
            return False
        return True

    def _snooze(self, seconds: float, source: SnoozeSource, now: float) -> None:
        if seconds <= 0:
            if self.snoozed_until is not None:
                self.snoozed_until = None
                self._emit(SnoozeChanged(None, 0.0, source))
            return
        self.snoozed_until = now + seconds
        self._emit(SnoozeChanged(self.snoozed_until, seconds, source))
        p = self.playing
        if p is not None and not p.slot.direct and p.stop_reason is None:
            self._stop("snoozed")
        for name in ("queued", "held"):
            slot: Slot | None = getattr(self, name)
            if slot is not None and not slot.direct:
                self._drop(slot, "snoozed")
                setattr(self, name, None)
        if self.held is None and self.queued is None:
            self.permission_at = None

    def _setting(self, change: SettingsChanged, now: float) -> None:
        if change.setting == Setting.MODE:
            self._set_mode(FloorMode(change.new), now)
        elif change.setting == Setting.PATIENCE:
            self.patience = Patience(change.new)
            self._emit(PatienceChanged(self.patience))
        elif change.setting == Setting.PROACTIVE_GAP:
            self.settings = replace(self.settings, proactive_gap=float(change.new))

    def intervention_fresh(self, slot: Slot) -> Intervention | None:
        """The intervention if it is still worth saying; drops and records it otherwise."""
        iv = slot.intervention
        if slot.direct:
            return self._answer_fresh(slot)
        if iv.decided_turn >= 0:
            since = [t for _, t in self.turns if t.index > iv.decided_turn]
        else:
            since = [t for at, t in self.turns if at > slot.since]
        answered = [text for at, text in self.answers_heard if at > slot.since]
        stale = self.freshness.check(iv, since, answered)
        if stale is None:
            return iv
        self._drop(slot, f"stale_{stale.reason}", stale.detail)
        return None

    def _answer_fresh(self, slot: Slot) -> Intervention | None:
        """A direct answer is said again after an interruption only until the room has
        talked on for as many turns as make a remark late: then the question is behind it."""
        if not slot.recoveries:
            return slot.intervention
        since = sum(at > slot.since for at, _ in self.turns)
        if since <= self.settings.freshness_late_turns:
            return slot.intervention
        self._drop(slot, "stale_late", f"{since} turns since it was interrupted")
        return None

    def _stop(self, reason: str) -> None:
        assert self.playing is not None
        self.playing.stop_reason = reason
        self._emit(Stop(reason))

    def _receipt(self, r: PlaybackReceipt, now: float) -> None:
        p = self.playing
        if p is None or r.intervention_id != p.slot.intervention.id:
            return
        if r.status == ReceiptStatus.STARTED:
            return
        self.playing, self.played_until = None, now
        a = self._streamed(p.slot.intervention.generation) if p.slot.direct else None
        if a is not None and r.status == ReceiptStatus.FINISHED:
            self._heard(a, p.slot, r, now)
            return
        if p.slot.intervention.citations:
            self._emit(ClearCitation())
        slot = replace(p.slot, intervention=a.intervention()) if a is not None else p.slot
        if r.status == ReceiptStatus.FAILED:
            self._drop(slot, "playback_failed")
        else:
            complete = r.status == ReceiptStatus.FINISHED
            self._emit(Delivered(slot.intervention, r, complete))
            if not complete and p.stop_reason == "barge_in":
                self._recover(slot, r, now)
        if self.ready_direct is not None:
            ready, self.ready_direct = self.ready_direct, None
            self._play(ready, now)

    def _heard(self, a: StreamedAnswer, last: Slot, r: PlaybackReceipt, now: float) -> None:
        """A streamed answer's sentences were heard: go on with the next ones, wait for
        them, or end it."""
        a.heard = r
        if a.unsaid():
            self._continue(a, now, last)
            return
        if last.intervention.citations:
            self._emit(ClearCitation())
        if a.final is None:
            a.waiting = True
            self.thinking_since = now
            return
        self.answer = None
        self._emit(Delivered(a.final, r, True))

    def _recover(self, slot: Slot, r: PlaybackReceipt, now: float) -> None:
        """Replay in full (< 2 s heard), resume at the sentence (2-5 s), else drop the rest."""
        s, heard = self.settings, r.delivered_seconds
        sentence = slot.resume_sentence + r.sentence_index
        count = len(sentences(slot.intervention.text))
        if slot.recoveries >= s.max_recoveries:
            self._drop(slot, "interrupted", f"interrupted {slot.recoveries + 1} times")
            return
        if heard < s.replay_full_below - EPS:
            again = replace(slot, since=now, recoveries=slot.recoveries + 1)
        elif within(heard, s.resume_below) and sentence < count:
            again = Slot(slot.intervention, now, sentence, slot.recoveries + 1)
        else:
            self._drop(slot, "interrupted", f"{heard:.1f} s heard, the rest dropped")
            return
        # What waits wins, unless it is older and what was stopped is said whole again
        # (an answer's last piece after its first were heard does not displace a remark).
        if self.queued is not None and (self.queued.since > slot.since or again.resume_sentence):
            self._drop(again, "replaced")
        elif self.mode == FloorMode.HAND_RAISE and not slot.direct:
            self._lower_hand("replaced")
            self.held = again
        else:
            if self.queued is not None:  # older than the one interrupted (a question went first)
                self._drop(self.queued, "replaced")
            self.queued = again

    # --- modes ----------------------------------------------------------------------------

    def _set_mode(self, mode: FloorMode, now: float) -> None:
        self.mode = mode
        if mode == FloorMode.HAND_RAISE and self.queued and not self.queued.direct:
            self._lower_hand("replaced")
            self.held, self.queued = replace(self.queued, since=now), None
        elif mode == FloorMode.SPEAK and self.held is not None:
            if self.queued is not None:
                self._drop(self.queued, "replaced")
            self.queued, self.held = self.held, None

    def _pause(self, now: float) -> None:
        self.paused = True
        if self.playing is not None and self.playing.stop_reason is None:
            self._stop("paused")
        for name in ("queued", "held", "ready_direct"):
            slot = getattr(self, name)
            if slot is not None:
                self._drop(slot, "paused")
                setattr(self, name, None)
        self.permission_at = None
        if self.direct.active_generation:
            self._direct_commands([CancelGeneration(self.direct.active_generation)], now)
        self.direct.question = None
        self.thinking_since = None

    def _resume(self) -> None:
        self.paused = False

    # --- time -----------------------------------------------------------------------------

    def _run(self, now: float, action: Callable[[], None]) -> list[Command]:
        self._out = []
        action()
        self._advance(now)
        return self._out

    def _advance(self, now: float) -> None:
        if not self.paused:
            self._direct_commands(self.direct.tick(now), now)
        s = self.settings
        if self.snoozed_until is not None and now >= self.snoozed_until - EPS:
            self.snoozed_until = None
            self._emit(SnoozeChanged(None, 0.0, SnoozeSource.EXPIRED))
        if self.held is not None and reached(now, self.held.since, s.hand_timeout):
            self._lower_hand("no_permission")
        if self.permission_at is not None and reached(now, self.permission_at, s.permission_wait):
            self._permitted(now)
        if self.queued is not None and self.playing is None and self._opening(now):
            if (not self.paused and self.permission_at is None and not self._between(self.queued)
                    and (self.queued.direct or not self._answer_pending(now))):
                slot, self.queued = self.queued, None
                self._play(slot, now)
        self._show(now)

    def _permitted(self, now: float) -> None:
        """Permission was given ``permission_wait`` ago: speak unless someone took the floor."""
        slot = self.held or self.queued
        if slot is not None and self._between(slot):
            return  # permission stands until the answer being said is over
        granted, self.permission_at = self.permission_at, None
        assert granted is not None
        if self.voiced or self.last_onset > granted or self.playing is not None:
            return
        self.held = self.queued = None
        if slot is not None:
            self._play(slot, now)

    def _desired(self, now: float) -> AgentState:
        s = self.settings
        if self.paused:
            return AgentState.PAUSED
        if self.playing is not None:
            return AgentState.SPEAKING
        if self.held is not None:
            return AgentState.HAND_RAISED
        thinking = self.thinking_since
        if thinking is not None and not reached(now, thinking, s.glyph_thinking_timeout):
            return AgentState.THINKING
        if not reached(now, self.last_activity, s.glyph_listening_timeout):
            return AgentState.LISTENING
        return AgentState.IDLE

    def _show(self, now: float) -> None:
        state = self.glyph.update(self._desired(now), now)
        if state is not None:
            self._emit(StateChanged(state))

    def _emit(self, command: Command) -> None:
        self._out.append(command)
        if isinstance(command, Delivered) and (
                command.intervention.kind == InterventionKind.DIRECT):
            self._heard_answer(command)

    def _heard_answer(self, d: Delivered) -> None:
        """Remember what a direct answer said: a remark waiting with the same fact is stale."""
        parts = sentences(d.intervention.text)
        heard = parts if d.complete else parts[:d.receipt.sentence_index]
        if heard:
            self.answers_heard.append((d.receipt.time, " ".join(heard)))

    def _drop(self, slot: Slot, reason: str, detail: str = "") -> None:
        self._emit(Dropped(slot.intervention.id, reason, detail))
