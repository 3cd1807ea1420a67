"""From a claim the gate passed to what the room hears: typed stages over a frozen draft.

already said -> veto -> plan -> quote or generate -> answer checks -> utterance ->
near-duplicate.
Each stage returns the next ``Draft`` or a ``Silence``: the reason, and what not speaking
does to the claim (``Effect``). The stages read the ledger but never change it; the
harness applies the outcome, so a claim changes in one place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Protocol

from app.backbone import generate as generate_stage
from app.backbone import prompts, schemas
from app.backbone.citations import citations, holds_value
from app.backbone.detectors import (
    DocumentFacts,
    Proposal,
    asked_words,
    coverage,
    covers,
    finding_terms,
    question_point,
    same_matter,
    unclear_names,
)
from app.backbone.direct import Checked, DirectAnswer, quote_answer, quoted
from app.backbone.generate import Generated
from app.backbone.grounding import grounded_sids
from app.backbone.ledger import Claim, ClaimLedger
from app.backbone.stage import StageReply
from app.backbone.transcript import Line, Transcript
from app.backbone.utterance import (
    assemble,
    clean_text,
    quote_lead,
    reported_form,
    the_documents,
)
from app.backbone.verdict import INTENT_OF_STATUS, Status
from app.backbone.veto import Veto
from app.events import Citation, Intent, Intervention, InterventionKind
from app.language.numbers import joined_decimals, quantities, repeats
from app.language.talk import (
    asking_sentences,
    asks_about_document,
    counted_in_question,
    set_aside,
)
from app.language.values import value_present
from app.language.verbs import looks_verbless
from app.language.words import content_tokens, is_number_token
from app.settings import AnswerCheck, Settings, UtteranceSettings

GENERATION_SENTENCES = 3  # sentences the generation is given


class Effect(StrEnum):
    """What staying silent does to the claim."""

    RESET = "reset"  # persistence back to 0, as a non-actionable report on it would
    SAID_BEFORE = "said_before"  # counts as spoken on the turn it was said
    ROLLBACK = "rollback"  # the claim stays open with one rollback used (SPEC §4)


@dataclasses.dataclass(frozen=True)
class Silence:
    reason: str
    effect: Effect
    said_turn: int = -1  # SAID_BEFORE: the turn it was said on


@dataclasses.dataclass(frozen=True)
class Draft:
    """One intervention in the making; each stage fills in its part."""

    index: int  # the turn being decided
    claim: Claim
    intent: Intent
    head: str  # the conversation block every stage's prompt starts with
    sids: tuple[int, ...] = ()  # the sentences the generation is given
    ranked: tuple[int, ...] = ()  # the claim's sentences, value holders and this turn's first
    asked: Proposal | None = None  # the open question behind a gap, with its answer first
    checked: bool = False  # the claim's value sits verbatim in a given sentence
    made: Generated | None = None  # the parsed, checked generation
    raised: tuple[str, ...] = ()  # the turns that raised the claim (their values may be named)
    unsure: tuple[str, ...] = ()  # the words of those turns the recognizer was unsure of
    text: str = ""  # the utterance as said
    cites: tuple[Citation, ...] = ()

    @property
    def hint(self) -> str:
        """The value handed to the generation: the model's own guess for a question is
        not (unchecked, it came from a neighbouring sentence as often as not)."""
        claim = self.claim
        if claim.sids and (self.checked or self.asked is None):
            return claim.predicted_answer
        return ""


Outcome = Draft | Silence


class Checker(Protocol):
    """One answer check: the draft passes on, or a reason not to say it."""

    name: AnswerCheck

    def check(self, draft: Draft) -> Outcome: ...


@dataclasses.dataclass
class Intervener:
    """The stages, with what they read: the document, the ledger, the transcript."""

    document: Any
    settings: Settings
    ledger: ClaimLedger
    veto: Veto
    transcript: Transcript
    call: Callable[..., StageReply]  # the harness's model call
    system: str
    sentence_block: Callable[[Sequence[int]], str]
    turn_sids: dict[int, list[int]]  # each turn's retrieved sentences, in rank order
    asked: dict[str, Proposal]  # open questions with an answer sentence, by claim key
    facts: DocumentFacts  # the document's quantities, for quoted answers
    lower: str = ""  # the document's text in lower case, for search phrases

    def __post_init__(self) -> None:
        enabled = set(self.settings.utterance.answer_checks)
        self.checks: list[Checker] = [c for c in (ForcedAnswer(self), Grounded(self),
                                                  ValueSaid(self), Covers(self))
                                      if c.name in enabled]

    def run(self, index: int, claim: Claim, head: str, latency: dict[str, float]) -> Outcome:
        draft: Outcome = Draft(index, claim, INTENT_OF_STATUS[claim.status], head)
        steps: list[Callable[[Draft], Outcome]] = [
            self.not_said_yet, self.not_vetoed, self.planned, self.answerable, self.quoted,
            lambda d: self.generated(d, latency), *(c.check for c in self.checks),
            self.not_said_yet, self.utterance, self.not_repeated,
        ]
        for step in steps:
            if isinstance(draft, Silence):
                return draft
            draft = step(draft)
        return draft

    # --- stages -----------------------------------------------------------------------

    def not_said_yet(self, draft: Draft) -> Outcome:
        """A missing fact whose every sentence the agent has already spoken."""
        sids = draft.made.sids if draft.made is not None else tuple(sorted(draft.claim.sids))
        said = self.ledger.already_delivered(draft.intent, sids)
        if said is None:
            return draft
        return Silence(f"already said on turn {said.turn}", Effect.SAID_BEFORE, said.turn)

    def not_vetoed(self, draft: Draft) -> Outcome:
        """A correction of speakers who said what the document says: judged on every turn
        that raised the claim since it was last spoken, not only the latest."""
        claim = draft.claim
        since = -1 if claim.spoken_turn is None else claim.spoken_turn
        turns = {t for t in claim.raised_turns if t > since} or set(claim.raised_turns)
        raising = self.transcript.by_index(turns)
        vetoed = self.veto.check(draft.intent, [line.text for line in raising])
        if vetoed is None and draft.intent == Intent.NOT_IN_DOCUMENT:
            vetoed = self._misheard(raising)
        if vetoed is None and draft.intent == Intent.CORRECT:
            vetoed = self._misheard_value(claim.predicted_answer, raising)
        return draft if vetoed is None else Silence(vetoed, Effect.RESET)

    @staticmethod
    def _misheard_value(answer: str, raising: Sequence[Line]) -> str | None:
        """A correction of a turn that states the document's value once a decimal the
        recognizer split is joined ("2. 5%" for 2.5%): the speaker may well have said it."""
        given = quantities(answer)
        for line in raising:
            joined, heard = quantities(joined_decimals(line.text)), quantities(line.text)
            if any(repeats(g, joined) and not repeats(g, heard) for g in given):
                return "veto: the speaker's value may be the document's, its decimal point split"
        return None

    def _misheard(self, raising: Sequence[Line]) -> str | None:
        """A misattribution whose only names the document lacks are names the recognizer
        was unsure of: what the speaker said may well be the document's own term."""
        if any(finding_terms(line.text, self.facts, line.unsure) for line in raising):
            return None
        unclear = list(dict.fromkeys(t for line in raising
                                     for t in unclear_names(line.text, self.facts, line.unsure)))
        if not unclear:
            return None
        return f"veto: the names the document lacks may be misheard ({', '.join(unclear[:2])})"

    def planned(self, draft: Draft) -> Outcome:
        """The sentences to generate from, and the open-question proposal behind a gap:
        one the detector found an answer sentence for and the monitor confirmed, whose
        answer then goes first and must be given (the 1.5B abstained on dates and lists)."""
        claim, index = draft.claim, draft.index
        lines = self.transcript.by_index({*claim.raised_turns, index})
        raised = [ln.text for ln in lines]
        ranked = self._ranked(claim, index)
        if draft.intent == Intent.NOT_IN_DOCUMENT:
            return dataclasses.replace(draft, raised=tuple(raised), ranked=tuple(ranked))
        draft = dataclasses.replace(draft, unsure=tuple(w for ln in lines for w in ln.unsure))
        n = GENERATION_SENTENCES
        sids = ranked[:n] or self.turn_sids.get(index, [])[:n]
        asked = self.asked.get(claim.key) if draft.intent == Intent.MISSING else None
        if asked is not None:
            sids = list(dict.fromkeys([*asked.sids, *sids]))[:n]
        # For an open question, the value counts only where the answer sentence holds it
        # (the 1.5B copies a value from a neighbouring sentence about the topic).
        checked = self._value_checked(claim, sids[:1] if asked is not None else sids)
        return dataclasses.replace(draft, sids=tuple(sids), asked=asked, checked=checked,
                                   raised=tuple(raised), ranked=tuple(ranked))

    def answerable(self, draft: Draft) -> Outcome:
        """A missing fact none of the given sentences covers (the coverage check's test)
        would fail that check whatever the model wrote: no generation call is made."""
        covering = next((c for c in self.checks if isinstance(c, Covers)), None)
        if covering is None:
            return draft
        return covering.covered(draft, draft.sids)

    def quoted(self, draft: Draft) -> Outcome:
        """Without the model: a missing fact as the words of a document sentence that
        plainly answers it (``_value_quote``, ``_question_quote``, ``_covering_quote``), a
        correction as the sentence that holds its checked value (``_correction_quote``), a
        misattribution as the names the document never uses (``_denial``). Otherwise the
        model writes it, and text it cannot ground is not said."""
        if draft.intent == Intent.NOT_IN_DOCUMENT:
            denial = self._denial(draft)
            return draft if denial is None else dataclasses.replace(
                draft, made=Generated(True, denial))
        if draft.intent == Intent.CORRECT:
            correction = self._correction_quote(draft)
            return draft if correction is None else dataclasses.replace(
                draft, made=Generated(True, correction.text, "", correction.sids))
        if draft.intent != Intent.MISSING:
            return draft
        quote = (self._value_quote(draft) or self._question_quote(draft)
                 or self._covering_quote(draft))
        if quote is None:
            return draft
        return dataclasses.replace(draft, made=Generated(True, quote.text, "", quote.sids))

    def _correction_quote(self, draft: Draft) -> Checked | None:
        """A correction whose value was checked in a given sentence, said as a person would
        report it (``utterance.reported_form``): the sentence itself where it fits the
        correction's word limit, else the clause of it that holds the value, else the value
        set against the participants' own ("says STEP, not LAB."). A bare value that none
        of these fits is left to the model."""
        if not (self.settings.utterance.quote_corrections and draft.checked):
            return None
        value = draft.claim.predicted_answer
        sid = next((s for s in draft.sids if holds_value(self.document, s, value)), None)
        if sid is None:
            return None
        bare = f"Actually, the document says {value}."
        said = reported_form(bare, [clean_text(self.document.get(sid).text)],
                             self.settings.utterance.max_words_correction, draft.raised)
        return None if said == bare else Checked(said, (sid,))

    def _denial(self, draft: Draft) -> str | None:
        """"The document doesn't mention X." for the names the document never uses of the
        raising turns that state a finding (``detectors.finding_terms``; at most two, as
        said first)."""
        if not self.settings.utterance.quote_denials:
            return None
        raising = self.transcript.by_index({*draft.claim.raised_turns, draft.index})
        terms = list(dict.fromkeys(t for line in raising
                                   for t in finding_terms(line.text, self.facts, line.unsure)))[:2]
        if not terms:
            return None
        where = the_documents(self.document)
        verb = "don't" if where.endswith("documents") else "doesn't"
        return f"{where[0].upper()}{where[1:]} {verb} mention {' or '.join(terms)}."

    def _value_quote(self, draft: Draft) -> Checked | None:
        """The sentence that holds the checked value, where it is about what was asked
        (``same_matter``)."""
        if not (self.settings.utterance.quote_checked_values and draft.checked):
            return None
        value = draft.claim.predicted_answer
        pool = draft.sids[:1] if draft.asked is not None else draft.sids
        sid = next((s for s in pool if holds_value(self.document, s, value)), None)
        if sid is None or not same_matter(draft.claim.text, self.document.get(sid).text):
            return None
        return quoted(self.document, [sid])

    def _question_quote(self, draft: Draft) -> DirectAnswer | None:
        """An open question the room left, answered as a direct question would be: by the
        words of the detector's answer sentence, where that sentence covers the question
        (``direct.quote_answer``'s thresholds)."""
        asked, utterance = draft.asked, self.settings.utterance
        if asked is None or not utterance.quote_open_questions:
            return None
        return quoted_open_question(self.document, asked, self.facts, utterance)

    def _covering_quote(self, draft: Draft) -> Checked | None:
        """The detector's answer sentence, where it covers the open question as the
        coverage check asks (``covers``): a forced answer may say only that sentence's
        facts (``ForcedAnswer``), so the model would say it or less, seconds later. A line
        without a verb (a table row, "Rating: 100%") is no sentence to say as it stands:
        the model puts it into one."""
        if draft.asked is None or not self.settings.utterance.quote_covering_answers:
            return None
        question, sentence = _question(draft), self.document.get(draft.sids[0])
        if not question or looks_verbless(clean_text(sentence.text)) or not covers(
                question, sentence, self.facts, self.settings.utterance.gap_min_coverage,
                draft.unsure):
            return None
        return quoted(self.document, [sentence.sid])

    def generated(self, draft: Draft, latency: dict[str, float]) -> Outcome:
        if draft.made is not None:
            return draft  # quoted
        claim, sids, asked = draft.claim, draft.sids, draft.asked
        user = draft.head + self.sentence_block(sids)
        user += prompts.generate_task(draft.intent, claim.text, claim.evidence, sids,
                                      draft.hint, sids[0] if asked is not None else None)
        must_speak = draft.checked or asked is not None
        reply = self.call("generate", self.system, user,
                          schemas.generate_schema(allow_abstain=not must_speak),
                          self.settings.llm.generate)
        latency["generate"] = reply.ms
        if reply.data is None:
            return Silence(reply.error, Effect.ROLLBACK)
        made = generate_stage.parse(reply.data, draft.intent, draft.ranked, self.document,
                                    self.settings.utterance,
                                    claim.predicted_answer if draft.checked else "", claim.text)
        if not made.speak:
            return Silence(made.reason, Effect.ROLLBACK)
        return dataclasses.replace(draft, made=made)

    def utterance(self, draft: Draft) -> Outcome:
        assert draft.made is not None
        cites = citations(self.document, draft.made.sids, self.lower)
        text = assemble(draft.made.topic, draft.made.text, cites[0] if cites else None,
                        self.settings.utterance.style)
        return dataclasses.replace(draft, text=text, cites=cites)

    def not_repeated(self, draft: Draft) -> Outcome:
        """A correction on the same claim that says nearly what was said within the window."""
        if not self.settings.ledger.deference:
            return draft
        twin = self.ledger.near_duplicate(draft.claim.cid, draft.text, draft.index)
        if twin is None:
            return draft
        return Silence(f"near-duplicate of turn {twin.turn}", Effect.RESET)

    # --- what the stages share --------------------------------------------------------

    def _ranked(self, claim: Claim, index: int) -> list[int]:
        """The claim's sentences, those holding its value first, then by this turn's
        retrieval rank."""
        rank = {sid: n for n, sid in enumerate(self.turn_sids.get(index, []))}
        value = claim.predicted_answer
        return sorted(claim.sids, key=lambda s: (not holds_value(self.document, s, value),
                                                  rank.get(s, len(rank)), s))

    def _value_checked(self, claim: Claim, sids: Sequence[int]) -> bool:
        """The claim's value sits verbatim in a sentence the generation is given."""
        if claim.status not in (Status.INCORRECT, Status.MISSING):
            return False
        return any(holds_value(self.document, s, claim.predicted_answer) for s in sids)


def quoted_open_question(document: Any, asked: Proposal, facts: DocumentFacts,
                         utterance: UtteranceSettings) -> DirectAnswer | None:
    """The quote that answers an open question the detector found a sentence for, as a
    direct question would be answered; None where the model writes the answer."""
    if not asked.question or not asked.sids:
        return None
    return quote_answer(document, asked.question, [document.get(asked.sids[0])], facts,
                        utterance.quote_direct_coverage, utterance.quote_any_coverage)


def intervention(draft: Draft, ident: str) -> Intervention:
    """The intervention a draft that passed every stage becomes."""
    assert draft.made is not None
    # What it tells the room: a value the raising turns said too is no news, and the room
    # saying it again does not make the intervention stale ("in 10 days" of a quote that
    # corrects "1,200 beds", then "not in 10 years").
    values = tuple(v for v in spoken_values(set_aside(draft.made.text, draft.raised), draft.hint)
                   if not any(value_present(v, said, 1.0) for said in draft.raised))
    return Intervention(
        id=ident, kind=InterventionKind.PROACTIVE, text=draft.text, claim=draft.claim.text,
        intent=draft.intent, topic=draft.made.topic, citations=draft.cites,
        decided_turn=draft.index, values=values,
    )


def spoken_values(*texts: str) -> tuple[str, ...]:
    """The values said, each once, in order (what the floor's freshness check compares)."""
    found: list[str] = []
    for text in texts:
        for q in quantities(text):
            if q.raw not in found:
                found.append(q.raw)
    return tuple(found)


# --- answer checks ----------------------------------------------------------------------


@dataclasses.dataclass
class ForcedAnswer:
    """A forced answer to an open question must say more than the question and be carried
    by the answer sentence. One that names the sentence's facts but adds its own (the 1.5B
    guesses around the value) is replaced by the sentence itself; anything else is not
    said."""

    stages: Intervener
    name: AnswerCheck = AnswerCheck.FORCED_ANSWER

    def check(self, draft: Draft) -> Outcome:
        made, asked = draft.made, draft.asked
        if made is None or asked is None:
            return draft
        document, question, answer_sid = self.stages.document, draft.claim.text, draft.sids[0]
        sentence = document.get(answer_sid)
        adds = set(content_tokens(made.text)) - set(content_tokens(question))
        if adds and not _misses_count(made.text, question, sentence.text) and grounded_sids(
                document, made.text, [answer_sid], [answer_sid], question=question):
            return dataclasses.replace(draft, made=dataclasses.replace(made, sids=(answer_sid,)))
        shared = adds & set(content_tokens(sentence.text))
        if any(is_number_token(t) for t in shared) or len(shared) >= 2:
            quote = quote_lead(document, [answer_sid]) + clean_text(sentence.text)
            made = dataclasses.replace(made, text=quote, sids=(answer_sid,))
            return dataclasses.replace(draft, made=made)
        return Silence(f"generate: the answer is not in the answer sentence "
                       f"({made.text[:80]!r})", Effect.ROLLBACK)


@dataclasses.dataclass
class Grounded:
    """Every sentence is checked as a direct answer's is; the participants' own values may
    be named only to be set aside ("not 5,000")."""

    stages: Intervener
    name: AnswerCheck = AnswerCheck.GROUNDED

    def check(self, draft: Draft) -> Outcome:
        assert draft.made is not None
        s = self.stages
        made = generate_stage.check(
            draft.made, draft.intent, s.document, s.settings.utterance,
            [*draft.sids, *draft.ranked], draft.claim.text,
            list(draft.raised))
        if not made.speak:
            return Silence(made.reason, Effect.ROLLBACK)
        return dataclasses.replace(draft, made=made)


@dataclasses.dataclass
class ValueSaid:
    """A value checked in the sentences beforehand must be in what is said."""

    stages: Intervener
    name: AnswerCheck = AnswerCheck.VALUE

    def check(self, draft: Draft) -> Outcome:
        assert draft.made is not None
        share = self.stages.settings.ledger.guard_min_token_share
        if draft.checked and not value_present(draft.claim.predicted_answer, draft.made.text,
                                               share):
            return Silence("generate: the document's value is missing from the text",
                           Effect.ROLLBACK)
        return draft


@dataclasses.dataclass
class Covers:
    """A missing fact is said only from sentences about what was asked: one of the cited
    sentences covers the question (``detectors.covers``: ``gap_min_coverage`` of its
    content words, or a quantity of what it counts). A sentence that shares a word or two
    with the question tells of its topic; where the document does not answer the
    question, such a sentence is what would be said."""

    stages: Intervener
    name: AnswerCheck = AnswerCheck.COVERAGE

    def check(self, draft: Draft) -> Outcome:
        assert draft.made is not None
        return self.covered(draft, draft.made.sids, "cited")

    def covered(self, draft: Draft, sids: Sequence[int], which: str = "given") -> Outcome:
        """The draft, or the reason none of ``sids`` covers its question."""
        question = _question(draft)
        if draft.intent != Intent.MISSING or not question:
            return draft
        stages, need = self.stages, self.stages.settings.utterance.gap_min_coverage
        found = [stages.document.get(s) for s in sids]
        if any(covers(question, s, stages.facts, need, draft.unsure) for s in found):
            return draft
        best = max((coverage(question, s.text, draft.unsure, stages.facts.roots)
                    for s in found), default=0.0)
        return Silence(f"answer check: the {which} sentences hold {best:.0%} of the "
                       f"question's words", Effect.ROLLBACK)


def _question(draft: Draft) -> str:
    """The question behind a missing fact, its asking sentences only ("Most Disney movies
    are good. What was the rating?" asks about the rating), or the whole question where
    they name nothing ("There was one system that struggled. Which one was that?"): the
    open question's, else the latest raising turn that asks about the document."""
    if draft.asked is not None and draft.asked.question:
        asked = draft.asked.question
    else:
        asking = [t for t in draft.raised if asks_about_document(t)]
        asked = question_point(asking[-1]) if asking else ""
    asking_only = " ".join(asking_sentences(asked))
    return asking_only if asked_words(asking_only) else asked


def _misses_count(text: str, question: str, sentence: str) -> bool:
    """A "how many X" answer without the sentence's number of X (another value of the
    sentence, a rate where a count was asked, is no answer)."""
    counted = counted_in_question(question)
    wanted = [q for q in quantities(sentence) if q.nouns & counted]
    said = quantities(text)
    return bool(wanted) and not any(w.same_value(q) for w in wanted for q in said)
