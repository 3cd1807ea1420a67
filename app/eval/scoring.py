"""Replay scoring (BENCHMARK.md "Scoring"): pure functions over events and decisions.

The only model-dependent piece, the claim similarity used for attribution, is injected;
the product uses MiniLM cosine (``app.embedding``), and ``lexical_similarity`` serves
where no model should load.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.backbone.utterance import page_text
from app.backbone.verdict import NON_ACTIONABLE
from app.backbone.veto import CONTRADICTING, StatedValueVeto
from app.eval.dataset import BenchmarkSet, Conversation, DocumentCase, Event
from app.eval.defects import Defect, check_utterance
from app.eval.records import DecisionRecord
from app.language.numbers import canonical_tokens
from app.language.sentences import sentences
from app.language.talk import is_abstention
from app.language.values import contains_any
from app.settings import BACKCHANNEL_WORDS, FloorSettings, LedgerSettings

Similarity = Callable[[str, str], float]
DocumentLoader = Callable[[Path], Any]  # document file -> indexed document

SPEECH_DUE = ("gap", "wrong", "misattribution")
SILENCE_DUE = ("self_correction", "resolved_question")
TYPE_ORDER = ("gap", "wrong", "misattribution", "self_correction", "resolved_question",
              "unanswerable")  # fmt: skip


@dataclass(frozen=True)
class ScoringSettings:
    """Evaluator parameters (the window is BENCHMARK.md's; the threshold is ours)."""

    window_turns: int = 5
    # MiniLM cosine; on the dev set every gold answer scores >= 0.35 against its own claim.
    attribution_threshold: float = 0.35
    backchannel_max_words: int = FloorSettings().backchannel_max_words
    # Share of a name's tokens a document sentence must hold (the backbone's guard share,
    # which its correction veto uses too).
    value_min_share: float = LedgerSettings().guard_min_token_share


@dataclass(frozen=True)
class EventOutcome:
    event_id: str
    document: str
    conversation: str
    type: str
    covered: bool  # the replay reached the end of the event's window
    spoke_turns: tuple[int, ...] = ()  # attributed interventions, window and before
    addressed: bool = False
    correct: bool | None = None  # of the first intervention inside the window
    interrupted: bool | None = None  # self_correction only
    fabricated: bool | None = None  # unanswerable only
    good: bool = False
    turns_from_onset: int | None = None


@dataclass(frozen=True)
class TypeSummary:
    type: str
    events: int
    addressed_pct: float | None
    correct_when_spoken_pct: float | None
    good_pct: float | None
    interrupted_pct: float | None
    fabricated_pct: float | None
    within_2_turns_pct: float | None


@dataclass(frozen=True)
class LatencySummary:
    p50_ms: float | None
    p95_ms: float | None
    mean_ms: float | None
    stages: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimMatching:
    """Claim identity across turns: of the repeated reports on one event (a later turn in
    its window whose verdict counted on some claim), how many landed on the same claim as
    the report before (a new claim restarts the persistence count)."""

    repeats: int
    same_claim: int

    @property
    def rate(self) -> float | None:
        return share_pct(self.same_claim, self.repeats)


@dataclass(frozen=True)
class FalseCorrection:
    """A spoken correction or "the document doesn't report that" whose trigger turns'
    values and names a document sentence about the same matter all states."""

    document: str
    conversation: str
    turn: int
    text: str
    trigger_turns: tuple[int, ...]
    reason: str  # the correction veto's reason: each value with the sentence stating it


@dataclass(frozen=True)
class SpokenDefects:
    """One spoken intervention and the defects the utterance checks found in it."""

    document: str
    conversation: str
    turn: int
    text: str
    defects: tuple[Defect, ...]


@dataclass(frozen=True)
class UtteranceDefects:
    """Defects over every spoken intervention (app/eval/defects.py): ``spoken`` texts
    checked, ``lines`` each one with its defects (none for a clean one)."""

    spoken: int
    lines: tuple[SpokenDefects, ...]
    samples_max: int = 10

    @property
    def count(self) -> int:
        return sum(len(line.defects) for line in self.lines)

    @property
    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(d.kind.value for line in self.lines
                                   for d in line.defects).items()))

    def samples(self) -> list[SpokenDefects]:
        """What was said: the defective texts first, then clean ones, up to the cap."""
        ordered = sorted(self.lines, key=lambda line: not line.defects)
        return ordered[: self.samples_max]

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count, "of_spoken": self.spoken,
            "with_defects": sum(bool(line.defects) for line in self.lines),
            "by_kind": self.by_kind,
            "samples": [{"document": s.document, "conversation": s.conversation,
                         "turn": s.turn, "text": s.text,
                         "defects": [{"kind": d.kind.value, "sentence": d.sentence,
                                      "detail": d.detail} for d in s.defects]}
                        for s in self.samples()],
        }  # fmt: skip


@dataclass(frozen=True)
class ReplayReport:
    types: tuple[TypeSummary, ...]
    outcomes: tuple[EventOutcome, ...]
    histogram: dict[str, dict[int, int]]
    ordinary_turns: int
    unprompted: int
    unprompted_per_100: float | None
    interventions: int
    latency: LatencySummary
    claim_matching: ClaimMatching = field(default_factory=lambda: ClaimMatching(0, 0))
    false_corrections: tuple[FalseCorrection, ...] = ()
    corrections: int = 0  # spoken corrections and not-in-document replies checked
    # Off-document conversations (the manifest's flag): interventions there all count against.
    off_document_interventions: int = 0
    off_document_turns: int = 0
    utterance_defects: UtteranceDefects = field(default_factory=lambda: UtteranceDefects(0, ()))

    def to_json(self) -> dict[str, Any]:
        return {
            "types": [vars(t) for t in self.types],
            "turns_from_onset": {
                k: {str(o): n for o, n in v.items()} for k, v in self.histogram.items()
            },
            "ordinary_turns": self.ordinary_turns,
            "interventions": self.interventions,
            "unprompted": self.unprompted,
            "unprompted_per_100_turns": self.unprompted_per_100,
            "latency_ms": vars(self.latency),
            "claim_matching": vars(self.claim_matching) | {"rate": self.claim_matching.rate},
            "off_document_interventions": self.off_document_interventions,
            "off_document_turns": self.off_document_turns,
            "utterance_defects": self.utterance_defects.to_json(),
            "false_corrections": {
                "count": len(self.false_corrections), "of_corrections": self.corrections,
                "lines": [vars(f) | {"trigger_turns": list(f.trigger_turns)}
                          for f in self.false_corrections],
            },  # fmt: skip
            "events": [vars(o) | {"spoke_turns": list(o.spoke_turns)} for o in self.outcomes],
        }


# --- helpers ------------------------------------------------------------------------------


def lexical_similarity(a: str, b: str) -> float:
    """Model-free claim similarity: share of the shorter side's content words in the other."""
    sa, sb = _content_words(a), _content_words(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


_FUNCTION_WORDS = frozenset(
    "of to in on for and or by with from at as is are was were be this that it its they their "
    "about paper document what which how many much does do did".split()
)


def _content_words(text: str) -> set[str]:
    return {t for t in canonical_tokens(text) if t not in _FUNCTION_WORDS}


def is_backchannel(text: str, max_words: int = FloorSettings().backchannel_max_words) -> bool:
    """A short turn made only of acknowledgement words ("Mm-hm.", "Yeah, right."), digits
    aside. The scorer's own count of ordinary turns, and the broad set's generator picks
    its talk with it: it differs from the product's ``app.language.talk.is_backchannel``
    only on turns with digits ("Wow 12"), and stays so that scores and the shipped sample
    stay comparable."""
    words = re.findall(r"[a-z]+", text.lower().replace("\u2019", "'"))
    if not words or len(words) > max_words:
        return False
    return all(
        w in BACKCHANNEL_WORDS or re.sub(r"(.)\1+", r"\1", w) in BACKCHANNEL_WORDS for w in words
    )


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), ``q`` in 0..100."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def share_pct(numerator: int, denominator: int) -> float | None:
    """``numerator`` as a percentage of ``denominator``, one decimal; None of nothing."""
    return round(100 * numerator / denominator, 1) if denominator else None


def _window_end(event: Event, settings: ScoringSettings) -> int:
    return event.window_start + settings.window_turns


# --- attribution --------------------------------------------------------------------------


def attribute(
    spoken: Iterable[DecisionRecord],
    events: Sequence[Event],
    similarity: Similarity,
    settings: ScoringSettings,
) -> tuple[dict[str, list[DecisionRecord]], list[DecisionRecord]]:
    """Assign each intervention to the most similar event whose range holds its turn."""
    by_event: dict[str, list[DecisionRecord]] = {e.id: [] for e in events}
    unprompted: list[DecisionRecord] = []
    for decision in spoken:
        best: tuple[float, Event] | None = None
        for event in events:
            if not event.onset_turn <= decision.turn <= _window_end(event, settings):
                continue
            score = max(
                similarity(decision.text, event.claim),
                similarity(decision.claim, event.claim) if decision.claim else 0.0,
            )
            if score >= settings.attribution_threshold and (best is None or score > best[0]):
                best = (score, event)
        if best is None:
            unprompted.append(decision)
        else:
            by_event[best[1].id].append(decision)
    return by_event, unprompted


def _speech_correct(event: Event, text: str) -> bool:
    if event.gold_values:
        return contains_any(text, event.gold_values)
    return is_abstention(text)  # misattribution / unanswerable: "the document doesn't say"


def score_event(
    event: Event, document: str, attributed: Sequence[DecisionRecord], covered: bool
) -> EventOutcome:
    before = [d for d in attributed if d.turn < event.window_start]
    inside = [d for d in attributed if d.turn >= event.window_start]
    first = inside[0] if inside else None
    correct = _speech_correct(event, first.text) if first else None
    interrupted = bool(before) if event.type == "self_correction" else None
    fabricated = (
        any(not is_abstention(d.text) for d in attributed) if event.type == "unanswerable" else None
    )
    if event.type in SPEECH_DUE:
        good = bool(correct)
    elif event.type in SILENCE_DUE:
        good = not attributed
    else:
        good = not fabricated
    return EventOutcome(
        event_id=event.id, document=document, conversation=event.conversation,
        type=event.type, covered=covered, spoke_turns=tuple(d.turn for d in attributed),
        addressed=first is not None, correct=correct, interrupted=interrupted,
        fabricated=fabricated, good=good,
        turns_from_onset=first.turn - event.onset_turn if first else None,
    )  # fmt: skip


# --- aggregation --------------------------------------------------------------------------


def summarise_type(kind: str, outcomes: Sequence[EventOutcome]) -> TypeSummary:
    addressed = [o for o in outcomes if o.addressed]
    quick = [o for o in addressed if o.turns_from_onset is not None and o.turns_from_onset <= 2]
    return TypeSummary(
        type=kind,
        events=len(outcomes),
        addressed_pct=share_pct(len(addressed), len(outcomes)),
        correct_when_spoken_pct=share_pct(sum(bool(o.correct) for o in addressed), len(addressed)),
        good_pct=share_pct(sum(o.good for o in outcomes), len(outcomes)),
        interrupted_pct=(
            share_pct(sum(bool(o.interrupted) for o in outcomes), len(outcomes))
            if kind == "self_correction"
            else None
        ),
        fabricated_pct=(
            share_pct(sum(bool(o.fabricated) for o in outcomes), len(outcomes))
            if kind == "unanswerable"
            else None
        ),
        within_2_turns_pct=share_pct(len(quick), len(addressed)),
    )


def summarise_latency(decisions: Sequence[DecisionRecord]) -> LatencySummary:
    totals = [d.total_latency_ms for d in decisions if d.latency_ms]
    stages: dict[str, list[float]] = {}
    for d in decisions:
        for stage, ms in d.latency_ms.items():
            stages.setdefault(stage, []).append(ms)
    grand = sum(totals) or 1.0
    return LatencySummary(
        p50_ms=_round(percentile(totals, 50)),
        p95_ms=_round(percentile(totals, 95)),
        mean_ms=_round(sum(totals) / len(totals)) if totals else None,
        stages={
            name: {
                "calls": len(values),
                "p50_ms": _round(percentile(values, 50)) or 0.0,
                "p95_ms": _round(percentile(values, 95)) or 0.0,
                "share_pct": round(100 * sum(values) / grand, 1),
            }
            for name, values in sorted(stages.items())
        },
    )


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _conversation_reach(decisions: Sequence[DecisionRecord]) -> int:
    return max((d.turn for d in decisions), default=-1)


def score_replay(
    benchmark: BenchmarkSet,
    decisions: Sequence[DecisionRecord],
    similarity: Similarity,
    settings: ScoringSettings | None = None,
    documents: DocumentLoader | None = None,
) -> ReplayReport:
    """Score ``decisions`` against every event of ``benchmark`` the replay reached.
    ``documents`` opens a set's document (the product's loader unless given); it is
    called only for documents with a correction to check."""
    settings = settings or ScoringSettings()
    load = documents or _open_document
    # A run of more documents rescored on a subset: count only the subset's turns.
    names = {case.name for case in benchmark.documents}
    decisions = [d for d in decisions if d.document in names]
    outcomes: list[EventOutcome] = []
    unprompted: list[DecisionRecord] = []
    ordinary = 0
    matching = ClaimMatching(0, 0)
    corrections, false = 0, list[FalseCorrection]()
    for case in benchmark.documents:
        veto = functools.cache(functools.partial(_veto, load, case, settings))
        for conversation in case.conversations:
            mine = sorted(
                (
                    d
                    for d in decisions
                    if d.document == case.name and d.conversation == conversation.name
                ),
                key=lambda d: d.turn,
            )
            ordinary += _ordinary_turns(conversation, {d.turn for d in mine}, settings)
            events = [e for e in case.events if e.conversation == conversation.name]
            spoken = [d for d in mine if d.spoke and d.kind != "direct"]
            by_event, loose = attribute(spoken, events, similarity, settings)
            unprompted.extend(loose)
            checked, found = false_corrections(case.name, conversation, mine, veto)
            corrections, false = corrections + checked, false + found
            for event in events:
                matching = _claim_matching(event, mine, settings, matching)
            reach = _conversation_reach(mine)
            last = conversation.turns[-1].turn if conversation.turns else -1
            for event in events:
                covered = reach >= min(_window_end(event, settings), last)
                outcomes.append(score_event(event, case.name, by_event[event.id], covered))
    scored = [o for o in outcomes if o.covered]
    kinds = [k for k in TYPE_ORDER if any(o.type == k for o in scored)]
    histogram = {
        k: dict(
            sorted(
                Counter(
                    o.turns_from_onset
                    for o in scored
                    if o.type == k and o.turns_from_onset is not None
                ).items()
            )
        )
        for k in kinds
    }
    return ReplayReport(
        types=tuple(summarise_type(k, [o for o in scored if o.type == k]) for k in kinds),
        outcomes=tuple(outcomes),
        histogram=histogram,
        ordinary_turns=ordinary,
        unprompted=len(unprompted),
        unprompted_per_100=share_pct(len(unprompted), ordinary),
        interventions=sum(d.spoke for d in decisions),
        latency=summarise_latency(decisions),
        claim_matching=matching,
        false_corrections=tuple(false),
        corrections=corrections,
        off_document_interventions=_off_document(benchmark, decisions, spoken=True),
        off_document_turns=_off_document(benchmark, decisions, spoken=False),
        utterance_defects=utterance_defects(benchmark, decisions, load),
    )


def _claim_matching(event: Event, mine: Sequence[DecisionRecord], settings: ScoringSettings,
                    total: ClaimMatching) -> ClaimMatching:
    window = range(event.onset_turn, _window_end(event, settings) + 1)
    cids = [d.claim_id for d in mine if d.turn in window and d.claim_id is not None]
    same = sum(a == b for a, b in zip(cids, cids[1:], strict=False))
    return ClaimMatching(total.repeats + max(0, len(cids) - 1), total.same_claim + same)


def _ordinary_turns(conversation: Conversation, decided: set[int], s: ScoringSettings) -> int:
    return sum(
        1
        for t in conversation.turns
        if t.turn in decided and not is_backchannel(t.text, s.backchannel_max_words)
    )


# --- false corrections --------------------------------------------------------------------


def is_correction(decision: DecisionRecord) -> bool:
    """A spoken proactive correction or not-in-document reply. A line without an intent
    (a run made before decisions carried one) may be either, so it is checked too."""
    return decision.spoke and decision.kind != "direct" and (
        decision.intent in CONTRADICTING or not decision.intent)


def trigger_turns(spoken: DecisionRecord, mine: Sequence[DecisionRecord]) -> tuple[int, ...]:
    """The turns that raised the spoken claim, as the backbone's ledger counts them: the
    turns whose verdict counted on the same claim since it was last spoken, less the
    non-actionable reports on it. A run without claim ids: the spoken turn alone."""
    if spoken.claim_id is None:
        return (spoken.turn,)
    turns: list[int] = []
    for d in sorted(mine, key=lambda d: d.turn, reverse=True):
        if d.turn > spoken.turn or d.claim_id != spoken.claim_id:
            continue
        if d.turn < spoken.turn and d.spoke:
            break
        if not _non_actionable(d.reason):
            turns.append(d.turn)
    return tuple(sorted(turns))


def _non_actionable(reason: str) -> bool:
    head = reason.split(";")[0]
    return head.startswith("monitor: ") and head.removeprefix("monitor: ") in NON_ACTIONABLE


def false_corrections(
    document: str, conversation: Conversation, mine: Sequence[DecisionRecord],
    veto: Callable[[], StatedValueVeto],
) -> tuple[int, list[FalseCorrection]]:
    """How many corrections the conversation's decisions hold, and those the backbone's
    correction veto finds the document agrees with the speakers on."""
    texts = {t.turn: t.text for t in conversation.turns}
    checked = [d for d in mine if is_correction(d)]
    found = []
    for d in checked:
        turns = trigger_turns(d, mine)
        said = [texts[t] for t in turns if t in texts]
        reason = veto().check(d.intent or "correct", said)
        if reason is not None:
            found.append(FalseCorrection(document, conversation.name, d.turn, d.text,
                                         turns, reason))
    return len(checked), found


def _veto(load: DocumentLoader, case: DocumentCase, settings: ScoringSettings
          ) -> StatedValueVeto:
    return StatedValueVeto(load(case.document), settings.value_min_share)


def _open_document(path: Path) -> Any:
    from app.document import open_document

    return open_document(path)


def _off_document(benchmark: BenchmarkSet, decisions: Sequence[DecisionRecord],
                  spoken: bool) -> int:  # fmt: skip
    """Interventions made (or turns replayed) in the off-document conversations."""
    mine = [d for d in decisions if benchmark.is_off_document(d.document, d.conversation)]
    return sum(d.spoke and d.kind != "direct" for d in mine) if spoken else len(mine)


# --- utterance defects --------------------------------------------------------------------


def utterance_defects(benchmark: BenchmarkSet, decisions: Sequence[DecisionRecord],
                      load: DocumentLoader) -> UtteranceDefects:
    """The utterance checks on every spoken text (direct answers too); the search phrase is
    looked up on the page of the first cited sentence, the document opened once."""
    cases = {case.name: case for case in benchmark.documents}
    opened: dict[str, Any] = {}
    lines = []
    spoken = [d for d in decisions if d.spoke and d.text.strip()]
    for d in spoken:
        page = None
        if d.quote_sids and d.document in cases and "search for '" in d.text:
            if d.document not in opened:
                opened[d.document] = load(cases[d.document].document)
            page = page_text(opened[d.document], d.quote_sids[0])
        found = check_utterance(d.text, sentences(d.quote) if d.quote else [], page)
        lines.append(SpokenDefects(d.document, d.conversation, d.turn, d.text, tuple(found)))
    return UtteranceDefects(len(spoken), tuple(lines))
