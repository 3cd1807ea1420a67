"""Planting events: which facts become which event, and the turns each event is made of.

An event is a short run of turns from its onset: the cue (a real question, a claim made
of a real statement with one value swapped, a finding of another document) and the
reactions around it, all drawn from the talk pools. Shapes (the speakers are relative:
A opens the event, B and C are others):
- gap: A asks, B fails to recall; the talk moves on.
- unanswerable: the same, with a question of another document this one cannot answer.
- wrong: A states the swapped value, B (and sometimes C) agrees.
- misattribution: A states another document's finding as this one's, B agrees.
- self_correction: A states the swapped value and the group repairs it within two turns:
  A after B's backchannel, B at once, or C after B's backchannel.
- resolved_question: A asks, B answers with the real answer, A acknowledges.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from benchmarks.sets.facts import DocumentText, Fact
from benchmarks.sets.talk import Lead, Register, Role, Run, TalkPools, lead_into
from benchmarks.sets.values import (
    STOPWORDS,
    Swap,
    Value,
    ValueKind,
    claim_from_finding,
    claim_from_statement,
    distinctive,
    find_verbatim,
    names_in,
    numbers_in,
    parse_number,
    spoken_statement,
    states,
    swap_value,
)

MAIN, RESOLVED = "main", "resolved"
# Up to this many events of each type per document.
MIX = {"gap": 3, "wrong": 2, "self_correction": 2, "unanswerable": 1, "misattribution": 1,
       "resolved_question": 2}  # fmt: skip
QUESTION_LEAD_SHARE = 0.3  # questions opened with a discourse opener
CLAIM_LEAD_SHARE = 0.5  # claims opened with one
ANSWERABLE_OVERLAP = 0.5  # a sentence sharing this much of the answer's content answers it
ASKED_TOGETHER = 0.5  # a sentence holding this much of a question's words may answer it
ON_TOPIC = 0.5  # an unanswerable question shares this much of its words with the document
RARE_SHARE = 0.25  # a term in at most this share of a family's documents is specific


class EventType(StrEnum):
    GAP = "gap"
    WRONG = "wrong"
    MISATTRIBUTION = "misattribution"
    SELF_CORRECTION = "self_correction"
    RESOLVED_QUESTION = "resolved_question"
    UNANSWERABLE = "unanswerable"


class Part(StrEnum):
    A = "A"  # opens the event
    B = "B"  # another participant
    C = "C"  # a third participant (B again where there are two)


@dataclass(frozen=True)
class ShapeTurn:
    part: Part
    text: str
    states_gold: bool = False  # the repair or the answer: the only turns that may


@dataclass(frozen=True)
class PlannedEvent:
    type: EventType
    conversation: str
    shape: tuple[ShapeTurn, ...]
    claim: str
    gold_answer: str
    gold_values: tuple[str, ...] = ()
    evidence: str = ""
    page: int | None = None
    planted: tuple[str, ...] = ()
    repair_offset: int | None = None
    source_document: str | None = None
    fact: Fact | None = None  # the fact of this document the event is about

    @property
    def trigger(self) -> str:
        return self.shape[0].text


@dataclass
class Decks:
    """Shuffled pools drawn in turn, so one set repeats a reaction as rarely as it can."""

    talk: TalkPools
    rng: random.Random
    _order: dict[str, list[Any]] = field(default_factory=dict)

    def draw(self, key: str, items: Sequence[Any]) -> Any:
        queue = self._order.setdefault(key, [])
        if not queue:
            queue.extend(items)
            self.rng.shuffle(queue)
        return queue.pop()


@dataclass(frozen=True)
class Voice:
    """The talk one document's conversations draw on."""

    decks: Decks
    register: Register
    lowercase: frozenset[str] = frozenset()  # words the document writes in lower case

    def role(self, role: Role) -> str:
        # Failed recalls are few in each corpus: both registers share them.
        registers = list(Register) if role is Role.FAILED_RECALL else [self.register]
        items = [u.text for r in registers for u in self.decks.talk.roles[(r, role)]]
        key = "all" if role is Role.FAILED_RECALL else self.register
        return str(self.decks.draw(f"{key}:{role}", items))

    def run(self) -> Run:
        run: Run = self.decks.draw(f"{self.register}:runs", self.decks.talk.runs[self.register])
        return run

    def lead(self, lead: Lead) -> str:
        return str(self.decks.draw(lead.value, self.decks.talk.leads[lead]))

    def led(self, lead: Lead, statement: str) -> str:
        return lead_into(self.lead(lead), statement, self.lowercase)


@dataclass(frozen=True)
class Neighbours:
    """Facts of other documents: questions to ask here unanswerably, findings to
    misattribute (only findings of documents in the set, so the source can be named)."""

    questions: tuple[Fact, ...]
    findings: tuple[Fact, ...]
    titles: dict[str, str]
    spread: dict[str, float] = field(default_factory=dict)  # word -> share of family documents


# --- helpers ------------------------------------------------------------------------------


def family_spread(docs: Sequence[DocumentText]) -> dict[str, float]:
    """Share of the documents that use each content word."""
    counts: Counter[str] = Counter()
    for doc in docs:
        counts.update(_content(doc.text))
    return {w: n / len(docs) for w, n in counts.items()} if docs else {}


def _content(text: str) -> set[str]:
    """Content words, lightly stemmed ("viruses" = "virus")."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {re.sub(r"(?<=[a-z]{3})(?:es|s)$", "", w) for w in words if w not in STOPWORDS}


def absent_from(doc: DocumentText, value: str) -> bool:
    """The document does not state ``value`` (numbers by value)."""
    parsed = parse_number(value)
    if parsed is not None:
        return parsed[0] not in doc.values.number_set
    return find_verbatim(doc.text, value) is None


def _maybe_lead(text: str, voice: Voice, rng: random.Random, share: float) -> str:
    if rng.random() >= share:
        return text
    if text.endswith("?"):
        return voice.led(Lead.QUESTION_OPENER, text)
    return voice.led(Lead.OPENER, text)


def _spoken_evidence(fact: Fact) -> str:
    spoken = spoken_statement(fact.evidence)
    return spoken if all(states(spoken, g) for g in fact.gold) else fact.statement


# --- shapes -------------------------------------------------------------------------------


def gap(fact: Fact, voice: Voice, rng: random.Random) -> PlannedEvent:
    question = _maybe_lead(fact.question, voice, rng, QUESTION_LEAD_SHARE)
    shape = (ShapeTurn(Part.A, question), ShapeTurn(Part.B, voice.role(Role.FAILED_RECALL)))
    return PlannedEvent(EventType.GAP, MAIN, shape, fact.claim, _spoken_evidence(fact),
                        fact.gold, fact.evidence, fact.page, fact=fact)  # fmt: skip


def resolved(fact: Fact, voice: Voice, rng: random.Random) -> PlannedEvent:
    question = _maybe_lead(fact.question, voice, rng, QUESTION_LEAD_SHARE)
    shape = (ShapeTurn(Part.A, question), ShapeTurn(Part.B, fact.answer, states_gold=True),
             ShapeTurn(Part.A, voice.role(Role.ACKNOWLEDGEMENT)))  # fmt: skip
    return PlannedEvent(EventType.RESOLVED_QUESTION, RESOLVED, shape, fact.claim,
                        _spoken_evidence(fact), fact.gold, fact.evidence, fact.page,
                        fact=fact)  # fmt: skip


def _wrong_answer(fact: Fact, swap: Swap) -> str:
    return f"The document gives {swap.gold}, not {swap.planted}: {_spoken_evidence(fact)}"


def wrong(fact: Fact, swap: Swap, voice: Voice, rng: random.Random) -> PlannedEvent:
    claim_turn = _maybe_lead(swap.statement, voice, rng, CLAIM_LEAD_SHARE)
    shape = [ShapeTurn(Part.A, claim_turn), ShapeTurn(Part.B, voice.role(Role.AGREEMENT))]
    if rng.random() < 0.3:
        shape.append(ShapeTurn(Part.C, voice.role(Role.AGREEMENT)))
    return PlannedEvent(EventType.WRONG, MAIN, tuple(shape), _claim(fact, swap),
                        _wrong_answer(fact, swap), (swap.gold,), fact.evidence, fact.page,
                        (swap.planted,), fact=fact)  # fmt: skip


def self_correction(fact: Fact, swap: Swap, voice: Voice, rng: random.Random) -> PlannedEvent:
    claim_turn = _maybe_lead(swap.statement, voice, rng, CLAIM_LEAD_SHARE)
    variant = rng.random()
    rest: tuple[ShapeTurn, ...]
    if variant < 0.5:  # the claimant repairs after a backchannel
        repair = voice.led(Lead.SELF_REPAIR, fact.statement)
        rest = (ShapeTurn(Part.B, voice.role(Role.BACKCHANNEL)),
                ShapeTurn(Part.A, repair, states_gold=True))  # fmt: skip
    elif variant < 0.75:  # another participant corrects at once
        repair = voice.led(Lead.CORRECTION, fact.statement)
        rest = (ShapeTurn(Part.B, repair, states_gold=True),)
    else:  # a third participant corrects after a backchannel
        repair = voice.led(Lead.CORRECTION, fact.statement)
        rest = (ShapeTurn(Part.B, voice.role(Role.BACKCHANNEL)),
                ShapeTurn(Part.C, repair, states_gold=True))  # fmt: skip
    shape = (ShapeTurn(Part.A, claim_turn), *rest)
    return PlannedEvent(EventType.SELF_CORRECTION, MAIN, shape, _claim(fact, swap),
                        _wrong_answer(fact, swap), (swap.gold,), fact.evidence, fact.page,
                        (swap.planted,), repair_offset=len(shape) - 1, fact=fact)  # fmt: skip


def _claim(fact: Fact, swap: Swap) -> str:
    """What the claim is about: the question's phrase when the swap is the answer's own
    value, else what the statement reports with that value."""
    if fact.claim and swap.gold in fact.gold:
        return fact.claim
    return claim_from_statement(fact.statement, swap.gold) or fact.claim


def unanswerable(doc: DocumentText, neighbours: Neighbours, voice: Voice,
                 rng: random.Random) -> PlannedEvent | None:
    """A real question of another document, drawn at random among those on this
    document's topic (half its words or more found here, one of them a term few
    documents use) whose answer values are absent here, with no sentence here holding
    half the answer's content words or half the question's words (such a sentence may
    well answer it)."""
    vocabulary = _content(doc.text)
    sentence_words = [(_content(s.text), s) for s in doc.sentences]
    scored = []
    for fact in neighbours.questions:
        if fact.document == doc.id or not fact.question:
            continue
        asked = _content(fact.question)
        if len(asked) < 3:
            continue  # too general to be surely unanswerable ("what is this about?")
        topic = len(asked & vocabulary) / len(asked)
        # a term few documents use, found here too: the question is about this topic,
        # not one any document of the kind answers ("who directed it?")
        specific = {w for w in asked if neighbours.spread.get(w, 0.0) <= RARE_SHARE}
        if topic >= ON_TOPIC and specific & vocabulary:
            scored.append((rng.random(), fact))
    scored.sort(key=lambda t: t[0])
    for _, fact in scored[:300]:
        if not all(absent_from(doc, g) for g in fact.gold):
            continue
        answer_words = _content(fact.evidence) - _content(" ".join(fact.gold))
        if answer_words and any(len(answer_words & words) / len(answer_words)
                                >= ANSWERABLE_OVERLAP for words, _ in sentence_words):  # fmt: skip
            continue
        asked = _content(fact.question)
        related = max(sentence_words, key=lambda p: len(asked & p[0]), default=None)
        if related is None or not asked & related[0]:
            continue
        if len(asked & related[0]) / len(asked) >= ASKED_TOGETHER:
            continue  # one sentence holds most of what is asked: it may well answer it
        question = _maybe_lead(fact.question, voice, rng, QUESTION_LEAD_SHARE)
        shape = (ShapeTurn(Part.A, question), ShapeTurn(Part.B, voice.role(Role.FAILED_RECALL)))
        sentence = related[1]
        return PlannedEvent(EventType.UNANSWERABLE, MAIN, shape, fact.claim,
                            f"The document does not state {fact.claim}.", (), sentence.text,
                            sentence.page, fact=None)  # fmt: skip
    return None


def misattribution(doc: DocumentText, neighbours: Neighbours, voice: Voice,
                   rng: random.Random) -> PlannedEvent | None:
    """A finding of another document of the set, said as this document's."""
    candidates = [f for f in neighbours.findings if f.document != doc.id and f.statement]
    rng.shuffle(candidates)
    # A finding with a number or a name first: it is plainly another document's.
    candidates.sort(key=lambda f: f.values[0].kind is ValueKind.PHRASE)
    for fact in candidates:
        if not fact.claim or not all(absent_from(doc, g) for g in fact.gold):
            continue
        statement = _maybe_lead(fact.statement, voice, rng, CLAIM_LEAD_SHARE)
        if not all(states(statement, g) for g in fact.gold):
            continue
        shape = (ShapeTurn(Part.A, statement), ShapeTurn(Part.B, voice.role(Role.AGREEMENT)))
        title = neighbours.titles.get(fact.document, "another document")
        answer = f"This document does not report this; it comes from another document ({title})."
        return PlannedEvent(EventType.MISATTRIBUTION, MAIN, shape,
                            claim_from_finding(fact.statement), answer, (), "",
                            None, fact.gold, source_document=fact.document)  # fmt: skip
    return None


# --- one document's events ----------------------------------------------------------------


def _swap_values(fact: Fact, doc: DocumentText) -> list[Value]:
    """Values a wrong claim can swap: the answer's own number or name, else a number or
    name the statement shares with the settling sentence (not asked, used at most twice)."""
    own = [v for v in fact.values if v.kind is not ValueKind.PHRASE]
    if own:
        return own
    out = []
    for number in numbers_in(fact.statement):
        found = find_verbatim(fact.evidence, number)
        if found and not states(fact.question, found) and distinctive(found, doc.values):
            out.append(Value(found, ValueKind.NUMBER))
    for name in names_in(fact.statement, doc.values.lowercase_words):
        found = find_verbatim(fact.evidence, name)
        if found and not find_verbatim(fact.question, name) and doc.values.name_uses(found) <= 3:
            out.append(Value(found, ValueKind.NAME))
    return out


def _swaps(facts: Sequence[Fact], doc: DocumentText, rng: random.Random) -> list[tuple[Fact, Swap]]:
    out = []
    for fact in facts:
        if not fact.statement:
            continue
        for value in _swap_values(fact, doc):
            swap = swap_value(value, fact.statement, fact.evidence, fact.question,
                              doc.values, rng)  # fmt: skip
            if swap is not None:
                out.append((fact, swap))
                break
    # Alternate name and number swaps, so both kinds are planted where the data allows.
    names = [p for p in out if p[1].kind is ValueKind.NAME]
    numbers = [p for p in out if p[1].kind is ValueKind.NUMBER]
    mixed: list[tuple[Fact, Swap]] = []
    while names or numbers:
        for group in (names, numbers):
            if group:
                mixed.append(group.pop(0))
    return mixed


def plan_document(doc: DocumentText, facts: Sequence[Fact], neighbours: Neighbours,
                  voice: Voice, rng: random.Random) -> list[PlannedEvent]:
    """The events of one document, in the order they will be placed."""
    pool = list(facts)
    rng.shuffle(pool)
    events: list[PlannedEvent] = []
    taken: set[int] = set()
    swappable = _swaps(pool, doc, rng)
    # wrong, self-correction, wrong, self-correction: both types get swaps where few exist
    builders = [wrong, self_correction] * max(MIX["wrong"], MIX["self_correction"])
    counts = Counter[str]()
    for (fact, swap), build in zip(swappable, builders, strict=False):
        kind = "wrong" if build is wrong else "self_correction"
        if counts[kind] < MIX[kind]:
            counts[kind] += 1
            taken.add(id(fact))
            events.append(build(fact, swap, voice, rng))
    asked = [f for f in pool if f.question and f.answer and id(f) not in taken]
    gaps = asked[: MIX["gap"]]
    events += [gap(f, voice, rng) for f in gaps]
    rest = asked[MIX["gap"] :] or gaps
    events += [resolved(f, voice, rng) for f in rest[: MIX["resolved_question"]]]
    for make in (unanswerable, misattribution):
        event = make(doc, neighbours, voice, rng)
        if event is not None:
            events.append(event)
    events = without_leaks(events)
    main = [e for e in events if e.conversation == MAIN]
    rng.shuffle(main)
    return main + [e for e in events if e.conversation == RESOLVED]


def without_leaks(events: Sequence[PlannedEvent]) -> list[PlannedEvent]:
    """Drop events whose turns state another event's gold value (or their own outside the
    repair and answer turns); earlier events win."""
    kept: list[PlannedEvent] = []
    for event in events:
        if _clashes(event, kept):
            continue
        kept.append(event)
    return kept


def _states_foreign(turn: ShapeTurn, owner: PlannedEvent, values: Sequence[str]) -> bool:
    """The turn states one of ``values`` that it is not there to state."""
    allowed = {v.lower() for v in owner.gold_values} if turn.states_gold else set()
    return any(states(turn.text, v) for v in values if v.lower() not in allowed)


def _clashes(event: PlannedEvent, kept: Sequence[PlannedEvent]) -> bool:
    for other in kept:
        if (other.fact is not None and event.fact is not None
                and other.fact.evidence == event.fact.evidence
                and other.conversation == event.conversation):  # fmt: skip
            return True
        for a, b in ((event, other), (other, event)):
            foreign = [*b.gold_values, *b.planted]
            if any(_states_foreign(t, a, foreign) for t in a.shape):
                return True
    return any(_states_foreign(t, event, event.gold_values) for t in event.shape)


def forbidden_values(events: Sequence[PlannedEvent]) -> list[str]:
    """Values no other turn of the document may state: golds and planted values."""
    out: list[str] = []
    for event in events:
        out += list(event.gold_values) + list(event.planted)
    return out
