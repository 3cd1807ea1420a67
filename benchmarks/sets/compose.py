"""Conversations: events placed in a stream of real talk, with speakers and turn times.

The talk between events is, in order of preference, the document's own real
conversations (ArgSciChat dialogues, CMU DoG chats) in exchanges of two turns, then
other question/answer pairs of the document asked and answered, then document-neutral
remarks and backchannels from the meeting and chat corpora. No filler turn states a
gold or planted value of the document's events, nor repeats a turn an event took.

Placement follows BENCHMARK.md: the first onset at turn 10 or later, onsets at least 8
turns apart, and every event's window (onset or repair turn + 5) inside the conversation.
Turn times are synthetic: about 2.7 words a second and a short pause between turns.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from benchmarks.sets.events import Part, PlannedEvent, Voice
from benchmarks.sets.facts import Fact
from benchmarks.sets.sources import Dialogue
from benchmarks.sets.talk import Role, clean_utterance, word_count
from benchmarks.sets.values import states_any

WORDS_PER_SECOND = 2.7
PAUSE_SECONDS = (0.15, 0.64)
FIRST_ONSET = (10, 13)
ONSET_SPACING = (8, 11)
WINDOW_TURNS = 5
MAX_FILLER_WORDS = 60
_CHAT_OPENING = re.compile(r"(?i)^(?:hi|hello|hey|good (?:morning|evening|afternoon))\b|"
                           r"\b(?:bye|goodbye|talking to you|chatting|have a (?:good|nice|great)"
                           r" (?:day|night|evening))\b")  # fmt: skip

# (speaker, text): the speaker as the source names them (kept across the conversation),
# "@k" for the k-th speaker of this unit only, or None for anyone but the last speaker.
Unit = list[tuple[str | None, str]]


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str
    start: float
    end: float


@dataclass(frozen=True)
class PlacedEvent:
    plan: PlannedEvent
    onset: int
    repair: int | None


@dataclass(frozen=True)
class Conversation:
    name: str
    lines: tuple[Line, ...]
    events: tuple[PlacedEvent, ...] = ()


class Filler:
    """The talk stream of one conversation."""

    def __init__(self, own: Sequence[Unit], asked: Sequence[Unit], voice: Voice,
                 rng: random.Random, own_share: float, forbidden: Sequence[str]) -> None:
        self.own = list(own)
        self.asked = list(asked)
        self.voice = voice
        self.rng = rng
        self.own_share = own_share
        self.forbidden = list(forbidden)

    def next_unit(self) -> Unit:
        """The next piece of talk that states none of the document's event values."""
        while True:
            unit = self._draw()
            if all(not states_any(text, self.forbidden) for _, text in unit):
                return unit

    def _draw(self) -> Unit:
        roll = self.rng.random()
        if self.own and roll < self.own_share:
            return self.own.pop(0)
        if self.asked and roll < self.own_share + 0.12:
            return self.asked.pop(0)
        roll = self.rng.random()
        if roll < 0.15:
            return [(None, self.voice.role(Role.BACKCHANNEL))]
        if roll < 0.55:
            return [(None, self.voice.role(Role.REMARK))]
        return [(f"@{k}", text) for k, text in self.voice.run()]


def own_units(dialogues: Sequence[Dialogue], forbidden: Sequence[str], used: set[str],
              rng: random.Random) -> list[Unit]:  # fmt: skip
    """Exchanges of two turns from the document's real conversations, leak-free."""
    order = list(dialogues)
    rng.shuffle(order)
    units: list[Unit] = []
    for dialogue in order:
        turns = [(speaker, clean_utterance(text)) for speaker, text in dialogue.turns]
        turns = [(s, t) for s, t in turns if t]
        for i in range(0, len(turns) - 1, 2):
            unit: Unit = [(s, t) for s, t in turns[i : i + 2]]
            if all(_usable(t, forbidden, used) for _, t in unit):
                units.append(unit)
    return units


def asked_units(facts: Sequence[Fact], forbidden: Sequence[str], used: set[str]) -> list[Unit]:
    """Other questions of the document, asked and answered at once."""
    units: list[Unit] = []
    for fact in facts:
        if not fact.question or not fact.answer:
            continue
        if all(_usable(t, forbidden, used) for t in (fact.question, fact.answer)):
            units.append([(None, fact.question), (None, fact.answer)])
    return units


def _usable(text: str, forbidden: Sequence[str], used: set[str]) -> bool:
    return (bool(text) and word_count(text) <= MAX_FILLER_WORDS and text.lower() not in used
            and not _CHAT_OPENING.search(text) and not states_any(text, forbidden))  # fmt: skip


class _Builder:
    def __init__(self, participants: Sequence[str], rng: random.Random) -> None:
        self.participants = list(participants)
        self.rng = rng
        self.turns: list[tuple[str, str]] = []
        self.mapping: dict[str, str] = {}

    @property
    def last_speaker(self) -> str | None:
        return self.turns[-1][0] if self.turns else None

    def other(self, *avoid: str | None) -> str:
        choices = [p for p in self.participants if p not in avoid] or self.participants
        return self.rng.choice(choices)

    def add_unit(self, unit: Unit) -> None:
        local: dict[str, str] = {}
        for key, text in unit:
            if key is None:
                speaker = self.other(self.last_speaker)
            elif key.startswith("@"):
                if key not in local:
                    local[key] = self.other(self.last_speaker, *local.values())
                speaker = local[key]
            else:
                if key not in self.mapping:
                    free = [p for p in self.participants if p not in self.mapping.values()]
                    self.mapping[key] = free[0] if free else self.other()
                speaker = self.mapping[key]
            self.turns.append((speaker, text))

    def fill(self, filler: Filler, at_least: int) -> None:
        target = len(self.turns) + at_least
        while len(self.turns) < target:
            self.add_unit(filler.next_unit())

    def add_event(self, event: PlannedEvent) -> PlacedEvent:
        onset = len(self.turns)
        a = self.other(self.last_speaker)
        b = self.other(a)
        c = self.other(a, b) if len(self.participants) > 2 else b
        speakers = {Part.A: a, Part.B: b, Part.C: c}
        for turn in event.shape:
            self.turns.append((speakers[turn.part], turn.text))
        repair = onset + event.repair_offset if event.repair_offset is not None else None
        return PlacedEvent(event, onset, repair)


def compose(name: str, events: Sequence[PlannedEvent], filler: Filler,
            participants: Sequence[str], rng: random.Random) -> Conversation:
    builder = _Builder(participants, rng)
    builder.fill(filler, rng.randint(*FIRST_ONSET))
    placed = []
    for event in events:
        start = len(builder.turns)
        placed.append(builder.add_event(event))
        builder.fill(filler, rng.randint(*ONSET_SPACING) - (len(builder.turns) - start))
    if placed:
        last = placed[-1]
        window_end = (last.repair if last.repair is not None else last.onset) + WINDOW_TURNS
        builder.fill(filler, max(0, window_end + 1 - len(builder.turns)) + rng.randint(1, 4))
    return Conversation(name, tuple(timed(builder.turns, rng)), tuple(placed))


def timed(turns: Sequence[tuple[str, str]], rng: random.Random) -> Iterator[Line]:
    """Turn times: the words at about 2.7 a second, a short pause between turns."""
    clock = round(rng.uniform(0.3, 1.2), 2)
    for speaker, text in turns:
        duration = max(0.6, word_count(text) / WORDS_PER_SECOND * rng.uniform(0.9, 1.1))
        end = round(clock + duration, 2)
        yield Line(speaker, text, clock, end)
        clock = round(end + rng.uniform(*PAUSE_SECONDS), 2)


def meeting_window(meeting: Dialogue, turns: int, rng: random.Random,
                   max_words: int = 80) -> list[tuple[str, str]] | None:  # fmt: skip
    """``turns`` consecutive cleaned turns of a meeting, speakers as S1, S2, ... in order
    of appearance (an overlong speech is left out)."""
    cleaned = [(s, clean_utterance(t)) for s, t in meeting.turns]
    cleaned = [(s, t) for s, t in cleaned if t and word_count(t) <= max_words]
    if len(cleaned) < turns + 20:
        return None
    start = rng.randint(10, len(cleaned) - turns - 10)
    window = cleaned[start : start + turns]
    labels: dict[str, str] = {}
    out = []
    for speaker, text in window:
        labels.setdefault(speaker, f"S{len(labels) + 1}")
        out.append((labels[speaker], text))
    return out
