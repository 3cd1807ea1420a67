"""Direct questions (SPEC §5): bind wake events to turns and assemble the question.

A wake event binds to the same speaker's turn that overlaps it (±0.3 s) or starts within
5 s after it; unbound wakes expire after 20 s. A wake-only turn ("Hey Jarvis.") opens a
grace window for the question. The speaker may go on (within 4.5 s, or while still voiced,
up to 30 s): the text joins the question and the answer is regenerated. A speculative
request goes out after 0.5 s of silence. A new question supersedes the old one.

The answer streams in as checked sentences (``AnswerDelta.checked``), played as they come;
its final Intervention is the whole checked answer, of which only what was not yet said
remains to be played.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.events import (
    AnswerDelta,
    Citation,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    Turn,
    WakeEvent,
)
from app.floor.outputs import CancelGeneration, Command, RequestDirectAnswer
from app.floor.timing import reached, within
from app.language.sentences import sentences
from app.language.words import tokens
from app.settings import FloorSettings


@dataclass
class Question:
    speaker: str
    texts: list[str]
    start: float
    last_end: float
    generation: int = 0  # 0 until requested
    requested: bool = False
    kept_open: bool = False  # speech began inside the continuation window
    closed: bool = False

    @property
    def text(self) -> str:
        return " ".join(self.texts)


@dataclass
class DirectQuestions:
    settings: FloorSettings
    wakes: list[WakeEvent] = field(default_factory=list)
    recent: list[Turn] = field(default_factory=list)  # to bind a late (text) wake
    grace: tuple[str, float] | None = None  # speaker, until
    question: Question | None = None
    generation: int = 0  # newest generation requested
    voiced: bool = False

    # --- inputs -------------------------------------------------------------------------

    def on_wake(self, wake: WakeEvent, now: float) -> list[Command]:
        self._expire(now)
        for turn in reversed(self.recent):
            if self._binds(wake, turn):
                self.recent.remove(turn)
                return self._bound(turn, now)
        self.wakes.append(wake)
        return []

    def on_turn(self, turn: Turn, now: float) -> list[Command]:
        self._expire(now)
        if self._continues(turn):
            return self._continue(turn, now)
        if self.question is not None:
            self.question.kept_open = False  # someone else spoke: the voiced stretch is over
        wake = next((w for w in self.wakes if self._binds(w, turn)), None)
        if wake is not None:
            self.wakes.remove(wake)
            return self._bound(turn, now)
        if turn.direct or self._in_grace(turn):
            return self._bound(turn, now)
        self.recent = [*self.recent[-4:], turn]
        return []

    def withdraw(self, turn: Turn) -> None:
        """A turn that spoke to the agent without asking anything (a snooze): neither its
        wake word nor its grace window may make a question of a later turn."""
        self.wakes = [w for w in self.wakes if not self._binds(w, turn)]
        if self.grace is not None and self.grace[0] == turn.speaker:
            self.grace = None

    def on_voiced(self, voiced: bool, time: float) -> None:
        self.voiced = voiced
        q = self.question
        if voiced and q and not q.closed:
            if within(time - q.last_end, self.settings.continuation_within):
                q.kept_open = True

    def _expire(self, now: float) -> None:
        self.wakes = [w for w in self.wakes if not reached(now, w.time, self.settings.wake_expire)]
        if self.grace and now > self.grace[1]:
            self.grace = None

    def tick(self, now: float) -> list[Command]:
        s = self.settings
        self._expire(now)
        q = self.question
        if q is None or q.closed:
            return []
        out: list[Command] = []
        if not q.requested and not self.voiced and reached(now, q.last_end, s.speculative_after):
            out.append(self._request(q))
        waiting = self.voiced or q.kept_open  # the speaker may still be going on
        if not within(now - q.start, s.continuation_cap) or (
            not waiting and not within(now - q.last_end, s.continuation_within)
        ):
            q.closed = True
        return out

    # --- rules --------------------------------------------------------------------------

    def _binds(self, wake: WakeEvent, turn: Turn) -> bool:
        s = self.settings
        if wake.speaker is not None and wake.speaker != turn.speaker:
            return False
        overlaps = within(turn.start - wake.time, s.wake_overlap) and within(
            wake.time - turn.end, s.wake_overlap
        )
        starts_soon = within(0.0, turn.start - wake.time) and within(
            turn.start - wake.time, s.wake_bind_within
        )
        return overlaps or starts_soon

    def _in_grace(self, turn: Turn) -> bool:
        return self.grace is not None and (
            self.grace[0] == turn.speaker and within(turn.start, self.grace[1])
        )

    def _wake_only(self, turn: Turn) -> bool:
        s = self.settings
        short = within(turn.end - turn.start, s.wake_only_max_seconds)
        return short and len(tokens(turn.text)) <= s.wake_only_max_tokens

    def _continues(self, turn: Turn) -> bool:
        q = self.question
        if q is None or q.closed or turn.speaker != q.speaker:
            return False
        if not within(turn.end - q.start, self.settings.continuation_cap):
            return False
        return q.kept_open or within(turn.start - q.last_end, self.settings.continuation_within)

    def _bound(self, turn: Turn, now: float) -> list[Command]:
        if self._wake_only(turn) and not self._in_grace(turn):
            self.grace = (turn.speaker, turn.end + self.settings.wake_grace)
            return []
        self.grace = None
        out = self._cancel()
        self.question = Question(turn.speaker, [turn.text], turn.start, turn.end)
        return out + self.tick(now)

    def _continue(self, turn: Turn, now: float) -> list[Command]:
        q = self.question
        assert q is not None
        q.texts.append(turn.text)
        q.last_end, q.kept_open = turn.end, False
        out = self._cancel() if q.requested else []
        q.requested = False
        return out + self.tick(now)

    def _cancel(self) -> list[Command]:
        q = self.question
        if q is None or not q.requested:
            return []
        return [CancelGeneration(q.generation)]

    def _request(self, q: Question) -> RequestDirectAnswer:
        self.generation += 1
        q.generation, q.requested = self.generation, True
        return RequestDirectAnswer(q.text, q.speaker, q.generation)

    @property
    def active_generation(self) -> int:
        q = self.question
        return q.generation if q is not None and q.requested else 0


@dataclass
class StreamedAnswer:
    """A direct answer being said while the backbone still checks the rest of it."""

    generation: int
    pieces: dict[int, AnswerDelta] = field(default_factory=dict)  # by sequence number
    final: Intervention | None = None  # the whole checked answer, once it came
    said: int = 0  # sentences of the answer handed to the player so far
    waiting: bool = False  # all of it so far was heard; more is being checked
    heard: PlaybackReceipt | None = None  # the receipt of the last piece heard in full

    def add(self, delta: AnswerDelta) -> None:
        self.pieces.setdefault(delta.seq, delta)  # a repeated sequence number is a duplicate

    def checked_text(self) -> str:
        """The checked sentences in sequence order, up to the first one still missing;
        anything unchecked is never part of it."""
        out: list[str] = []
        seq = 0
        while seq in self.pieces:
            piece = self.pieces[seq]
            if piece.checked and piece.text.strip():
                out.append(piece.text.strip())
            seq += 1
        return " ".join(out)

    def intervention(self) -> Intervention:
        """The answer as far as it is known: the final one, or the checked sentences."""
        if self.final is not None:
            return self.final
        cites: dict[int, Citation] = {}
        for seq in sorted(self.pieces):
            piece = self.pieces[seq]
            if piece.checked:
                for c in piece.citations:
                    cites.setdefault(c.sid, c)
        return Intervention(f"direct-{self.generation}", InterventionKind.DIRECT,
                            self.checked_text(), intent="answer",
                            citations=tuple(cites.values()), generation=self.generation)

    def sentences(self) -> list[str]:
        return sentences(self.intervention().text)

    def unsaid(self) -> bool:
        return len(self.sentences()) > self.said

    def continues(self, final: Intervention) -> bool:
        """The final answer begins with what was already handed to the player."""
        said = sentences(self.intervention().text)[: self.said]
        return sentences(final.text)[: self.said] == said
