"""The per-turn harness: monitor -> ledger -> self-repair + guard -> gate -> grounded
generation -> utterance. One worker thread calls it; every silent turn says why."""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import Any

from app.backbone import direct as direct_stage
from app.backbone import guard, monitor, prompts, schemas, self_repair
from app.backbone.citations import citations
from app.backbone.context import EvidenceFinder, Search, choose_mode, model_size_b
from app.backbone.detectors import DocumentFacts, Proposal, attributes_to_document
from app.backbone.intervene import Effect, Intervener, Silence, intervention, spoken_values
from app.backbone.ledger import Claim, ClaimLedger, Delivery
from app.backbone.proposals import BEFORE_LINES, Proposer
from app.backbone.retrieval import default_search
from app.backbone.stage import StageReply
from app.backbone.stage import call as call_stage
from app.backbone.transcript import AGENT, Line, Transcript, shown_under
from app.backbone.utterance import assemble
from app.backbone.verdict import ACTIONABLE, INTENT_OF_STATUS, Status, Verdict
from app.backbone.veto import CONTRADICTING, correction_veto
from app.events import (
    AnswerDelta,
    Decision,
    Intent,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    ReceiptStatus,
    Turn,
)
from app.language.address import text_wake
from app.language.stems import ROOT_LETTERS
from app.language.talk import (
    Talk,
    asks_about_document,
    contains_question,
    is_backchannel,
    rejected,
    reports_failed_recall,
    says,
    without_address,
)
from app.language.words import content_tokens
from app.settings import ContextMode, Detector, Settings

DELIVERED = frozenset({ReceiptStatus.STARTED, ReceiptStatus.FINISHED, ReceiptStatus.STOPPED})
MONITOR_SENTENCES = 3  # retrieved sentences shown to the monitor (detector hits come first)
MAX_SENTENCE_WORDS = 45  # long table rows and run-ons are cut in focused prompts
MAX_OPEN_QUESTIONS = 8  # remembered open-question proposals (the latest ones)
SCREENED_MEMORY = 12  # turns: longer than a claim stays open without a mention
REPLY_TURNS = 2  # turns after a question read as its reply (endpointing may cut one in two)


class Screened(StrEnum):
    """Why the screening kept a turn from the monitor."""

    NOTHING_TO_CHECK = "monitor: skipped (screened: nothing to check)"
    OFF_DOCUMENT = "off_document: no content word of the turn is the document's"
    ADDRESSED = "addressed to the agent: the direct path answers it"


@dataclasses.dataclass(frozen=True)
class _Waiting:
    """A turn in the transcript, screened, waiting for its monitor call."""

    index: int
    text: str
    candidates: list[int]  # retrieved sentence IDs
    found: list[Proposal]  # detector proposals
    latency: dict[str, float]  # the admission's timings (retrieval)
    standing: Claim | None = None  # a waiting claim the screened-out turn left standing
    restated: Claim | None = None  # a waiting claim the turn says again (``_restated``)


_Fixable = tuple[Claim, list[Line]]  # an open claim and the turns that could resolve it


class _Preempted(Exception):
    """The monitor call was cut short by its cancel event; the turn is checked later."""


class Backbone:
    def __init__(
        self, document: Any, llm: Any, settings: Settings, embedder: Any | None = None,
        *, search: Search | None = None, model_params_b: float | None = None,
    ) -> None:
        self.document, self.llm, self.settings = document, llm, settings
        self._embedder = embedder
        self._cosines: dict[tuple[str, str], float] = {}
        self.mode = choose_mode(settings.llm, document.token_estimate(),
                                model_size_b(llm, model_params_b))
        full = self.mode is ContextMode.FULL
        self.system = prompts.system_prompt(document.numbered_block() if full else None)
        self.ledger = ClaimLedger(settings.ledger, self.similarity)
        self.transcript = Transcript(window=settings.ledger.transcript_window)
        self._lower = " ".join(s.text for s in document.sentences).lower()
        finder = EvidenceFinder(search or default_search(document, embedder),
                                settings.llm.focused_top_k)
        self.proposer = Proposer(document, finder, DocumentFacts(document.sentences),
                                 settings.ledger.detectors, similarity=self.similarity)
        self.veto = correction_veto(document, settings.ledger.correction_veto,
                                    settings.ledger.guard_min_token_share, self.proposer.facts)
        self._observed: Claim | None = None  # the claim this turn's verdict counted on
        # Open questions the detector found an answer sentence for, by claim key.
        self._asked: dict[str, Proposal] = {}
        self._next_index = 0
        self._waiting: list[_Waiting] = []  # admitted turns whose monitor call is to come
        self._guard_read = 0  # transcript lines the guard has read
        # Recent turns the screening kept from the monitor (nothing in them could fix a claim).
        self._screened: collections.deque[int] = collections.deque(maxlen=SCREENED_MEMORY)
        # Those of them that said "I don't know" or moved on (a question left open).
        self._gave_up: collections.deque[int] = collections.deque(maxlen=SCREENED_MEMORY)
        self._ids = itertools.count(1)
        self._generation = 0
        self._delivered: set[str] = set()
        self._claim_of: dict[str, int] = {}  # proactive intervention id -> its claim's cid
        self.calls: list[StageReply] = []  # every model call with its token counts
        self.intervener = Intervener(
            document, settings, self.ledger, self.veto, self.transcript, self._call,
            self.system, self._sentence_block, self.proposer.turn_sids, self._asked,
            self.proposer.facts, self._lower)
        self.warm()

    # --- public interface ---------------------------------------------------------------

    def warm(self) -> None:
        """Precompute the shared prefix once; a backend without the hook is fine."""
        warm = getattr(self.llm, "warm", None)
        if callable(warm):
            warm(self.system)

    def prefill(self, cancel: threading.Event | None = None) -> int:
        """While the model is idle, read the conversation as the next call will show it
        into the cache (turns screened since the last call are not read yet); a backend
        without the hook reads nothing. Returns the tokens read."""
        prefill = getattr(self.llm, "prefill", None)
        if not callable(prefill) or not self.transcript.lines:
            return 0
        return int(prefill(self.system, self._conversation(self.transcript.recent()), cancel))

    def on_turn(self, turn: Turn) -> Decision:
        self._observed = None
        decision = self._decide(turn)
        return self._with_claim(decision)

    def admit_turns(self, turns: Sequence[Turn]) -> list[Decision]:
        """The model-free half of each turn, in order: it joins the transcript and the
        ledger's clock, the detectors and the screening run on it. Returns the turns decided
        without the model (backchannels, screened out); the others wait for ``on_turns``."""
        decided = []
        for turn in turns:
            admitted = self._admit(turn)
            if isinstance(admitted, Decision):
                decided.append(admitted)
            else:
                self._waiting.append(admitted)
        return decided

    def on_turns(self, turns: Sequence[Turn], cancel: threading.Event | None = None,
                 newer: Callable[[], bool] | None = None) -> list[Decision]:
        """Turns that queued up while the model was busy, checked with one monitor call.

        Every turn is admitted in order (``admit_turns``); then the monitor runs once, on
        the newest waiting turn a detector flagged, else the newest, with the others in its
        transcript window. Each turn gets one Decision, in turn order; the ones not
        monitored are silent ("coalesced: checked with turn N"). One verdict per call means
        at most one persistence step per claim for the whole batch.

        ``cancel`` set during the monitor call cuts it short: the batch's checked turns get
        no Decision yet and stay waiting (``waiting``), to be checked with the next call.
        ``newer``: whether turns arrived during the call that are not admitted yet (they
        may fix a claim the call raised, so nothing is let stand before they are read)."""
        decided = self.admit_turns(turns)
        if not self._waiting:
            return decided
        batch, self._waiting = self._waiting, []
        chosen = next((w for w in reversed(batch) if w.found), batch[-1])
        self._observed = None
        try:
            earlier = [w for w in batch if w.index < chosen.index]
            decision = self._check(chosen, cancel, earlier, newer)
        except _Preempted:
            self._waiting = batch + self._waiting
            return decided
        decision = self._with_claim(decision)
        coalesced = [Decision(w.index, "silent", f"coalesced: checked with turn {chosen.index}",
                              latency_ms=w.latency) for w in batch if w is not chosen]
        return sorted([*decided, decision, *coalesced], key=lambda d: d.turn)

    def _with_claim(self, decision: Decision) -> Decision:
        """The decision with the claim its verdict counted on and that claim's answer."""
        claim = self._observed
        if claim is None:
            return decision
        return dataclasses.replace(decision, claim_id=claim.cid, answer=claim.predicted_answer)

    @property
    def waiting(self) -> int:
        """Turns admitted whose monitor check is still to come."""
        return len(self._waiting)

    def _decide(self, turn: Turn) -> Decision:
        admitted = self._admit(turn)
        if isinstance(admitted, Decision):
            return admitted
        return self._check(admitted)

    def _admit(self, turn: Turn) -> _Waiting | Decision:
        """Transcript, ledger clock, retrieval, detectors and screening for one turn: a
        Decision when no monitor call is needed, else what the call will need."""
        index = self._index(turn)
        if is_backchannel(turn.text, max_words=self.settings.floor.backchannel_max_words):
            return Decision(index, "silent", "backchannel: not sent to the monitor")
        latency: dict[str, float] = {}
        self.transcript.append(index, turn.speaker, turn.text, unsure=turn.unsure)
        self.ledger.forget(index)
        if text_wake(turn.text) is not None:
            # Live, every turn reaches the backbone, one that calls Jarvis by name too: the
            # floor sends its question down the direct path, a permission or a request to
            # be quiet is the floor's. Judged as talk, it cost a monitor call after the
            # answer and opened a gap claim on the question just answered.
            return Decision(index, "silent", Screened.ADDRESSED)
        open_before = self.ledger.open_claims()
        started = time.perf_counter()
        extra = [s for c in open_before for s in sorted(c.sids)][:2]
        evidence = self.proposer.for_turn(self.transcript.lines[-1],
                                          self.transcript.lines[-1 - BEFORE_LINES:-1], extra)
        candidates, found = evidence.candidates, evidence.found
        self._remember_open_questions(found)
        latency["retrieve"] = _ms(started)
        skip = self._screened_out(turn.text, found, open_before)
        if skip:
            self._screened.append(index)
            if gives_up(turn.text):
                self._gave_up.append(index)
            standing = self._left_standing() or self._left_unanswered()
            if standing is None:
                return Decision(index, "silent", skip, latency_ms=latency)
            return _Waiting(index, turn.text, candidates, found, latency, standing)
        return _Waiting(index, turn.text, candidates, found, latency,
                        restated=self._restated(turn.text, found))

    def _check(self, waiting: _Waiting, cancel: threading.Event | None = None,
               earlier: Sequence[_Waiting] = (), newer: Callable[[], bool] | None = None
               ) -> Decision:
        """The monitor call on one admitted turn, then ledger, self-repair and gate. Raises
        _Preempted when ``cancel`` cut the monitor call short (nothing was changed).
        ``earlier``: the turns of its batch before it, checked by the same call."""
        index, text, candidates, found = (waiting.index, waiting.text, waiting.candidates,
                                          waiting.found)
        latency = dict(waiting.latency)
        # Claims a later turn of the batch let the ledger forget are not checked again.
        open_before = self.ledger.open_claims()
        head = self._conversation(self.transcript.recent())
        if waiting.standing is not None:
            return self._stood(index, waiting.standing, head, latency)
        if waiting.restated is not None:
            return self._stood(index, waiting.restated, head, latency, restated=True)
        shown = list(dict.fromkeys([*(s for p in found for s in p.sids),
                                    *candidates[:MONITOR_SENTENCES]]))
        full = self.mode is ContextMode.FULL
        reply = self._call("monitor", self.system,
                           head + self._sentence_block(shown)
                           + prompts.monitor_task(index, shown, [p.note for p in found]),
                           schemas.monitor_schema(with_evidence=full),
                           self.settings.llm.monitor, cancel=cancel)
        latency["monitor"] = reply.ms
        head = self._conversation(self.transcript.recent())  # with the sentences just shown
        if reply.data is None:
            if cancel is not None and cancel.is_set():
                raise _Preempted(index)
            return Decision(index, "silent", reply.error, latency_ms=latency)
        verdict = self._still_open(monitor.parse(reply.data, self.document, found, text),
                                   found)
        if not self.settings.ledger.deference:
            return self._without_deference(index, verdict, head, latency)
        observed = self.ledger.observe(index, verdict)
        self._observed = observed.claim
        if observed.claim is not None and verdict.actionable:
            self._raised_in_batch(observed.claim, earlier)
        opened = observed.claim if observed.change in ("new", "reopen") else None
        checkable = self._checkable(open_before, opened)
        self._guard_read = len(self.transcript.lines)
        repaired = self._self_repair(index, checkable, head, latency)
        # A claim whose generation abstained last turn gets one more try even when this
        # turn's verdict is about nothing.
        claim = (observed.claim if verdict.actionable else None) or self._retry_due()
        if claim is None:
            gated = Decision(index, "silent", f"monitor: {verdict.status}" + _also(repaired),
                             claim=verdict.claim, latency_ms=latency)
        else:
            gate = self.ledger.gate(claim, index)
            if gate.fire:
                return self._intervene(index, claim, head, latency, gate.reason)
            gated = Decision(index, "silent", gate.reason + _also(repaired, gate.reason),
                             claim=claim.text, latency_ms=latency)
        passed = self._passed_over(index, observed.claim, checkable)
        if passed is not None:
            return self._stood(index, passed, head, latency)
        meanwhile = None if newer is not None and newer() else self._stood_meanwhile(checkable)
        if meanwhile is None:
            return gated
        latest = max(line.index for line in self.transcript.lines if not line.agent)
        return self._stood(index, meanwhile, head, latency, at=latest)

    def answer_direct(
        self, question: Turn, on_delta: Callable[[AnswerDelta], None] | None = None
    ) -> Intervention:
        index = self._index(question)
        self._generation += 1
        generation, seq = self._generation, itertools.count()
        context = self.transcript.recent(self.settings.ledger.direct_context_turns)
        if context and (context[-1].speaker, context[-1].text) == (question.speaker,
                                                                   question.text):
            context = context[:-1]  # live, the question's own turn was admitted already
        else:
            self.transcript.append(index, question.speaker, question.text)
        previous = context[-1].text if context else ""
        candidates = self.proposer.for_question(index, question.text, previous)
        utterance = self.settings.utterance
        answer = direct_stage.quote_answer(
            self.document, without_address(question.text), self.proposer.sentences(candidates),
            self.proposer.facts, utterance.quote_direct_coverage, utterance.quote_any_coverage)
        streamed = answer is None and not utterance.quote_model_picks
        if answer is None:
            answer = self._answer_by_model(question, context, candidates, generation, seq,
                                           on_delta)
        cites = citations(self.document, answer.sids, self._lower)
        if not streamed and answer.action == "answer" and on_delta is not None:
            # said at once, as the document's checked sentences
            on_delta(AnswerDelta(generation, next(seq), answer.text, checked=True,
                                 citations=cites))
        text = answer.text
        if answer.action == "answer":
            text = assemble("", answer.text, cites[0] if cites else None, utterance.style,
                            preface=False)
        if on_delta is not None:
            on_delta(AnswerDelta(generation, next(seq), "", final=True, citations=cites))
        return Intervention(
            id=f"d{next(self._ids)}", kind=InterventionKind.DIRECT, text=text,
            claim=question.text, intent=answer.action, citations=cites,
            decided_turn=index, generation=generation, values=spoken_values(answer.text),
        )

    def _answer_by_model(
        self, question: Turn, context: Sequence[Line], candidates: Sequence[int],
        generation: int, seq: Iterator[int], on_delta: Callable[[AnswerDelta], None] | None,
    ) -> direct_stage.DirectAnswer:
        """The model's answer, its checked sentences streamed to ``on_delta`` as they come."""
        user = self._conversation(context) + self._direct_sentences(context, candidates)
        complete = contains_question(question.text) and len(question.text.split()) >= 4
        utterance = self.settings.utterance
        if utterance.quote_model_picks:
            return self._answer_by_picks(question, context, candidates, user, complete)
        user += prompts.direct_task(question.text, candidates, utterance.max_sentences_direct)
        # Only sentences the checks passed are streamed to the floor: nothing unchecked is
        # ever said, and the final answer is what was streamed (plus the page hint).
        checked = direct_stage.CheckedAnswer(self.document, self.settings.utterance,
                                             candidates, question.text)

        # Once nothing more can be said the rest of the reply is not generated: the
        # monitor waits for this call.
        done = threading.Event()

        def forward(chunk: str) -> None:
            for sentence in checked.feed(chunk):
                if on_delta is not None:
                    on_delta(AnswerDelta(generation, next(seq), sentence.text, checked=True,
                                         citations=citations(self.document, sentence.sids,
                                                             self._lower)))
            if checked.done:
                done.set()

        reply = self._call("direct", self.system, user,
                           schemas.direct_schema(allow_skip=not complete),
                           self.settings.llm.direct, forward, cancel=done)
        answer = checked.answer(reply.data)
        if answer.action == "abstain":
            answer = self._confirmed(question.text) or answer
        return answer

    def _answer_by_picks(self, question: Turn, context: Sequence[Line],
                         candidates: Sequence[int], user: str, complete: bool
                         ) -> direct_stage.DirectAnswer:
        """The document's words for the sentences the model picks (``quote_model_picks``)."""
        utterance = self.settings.utterance
        limit = utterance.max_sentences_picked
        user += prompts.direct_task(question.text, candidates, limit, picks=True)
        reply = self._call("direct", self.system, user,
                           schemas.direct_pick_schema(not complete, limit),
                           self.settings.llm.direct)
        shown = None if self.mode is ContextMode.FULL else {
            *candidates, *shown_under(context)}
        answer = direct_stage.picked_answer(self.document, reply.data, question.text, shown,
                                            utterance)
        if answer.action == "abstain":
            answer = self._confirmed(question.text) or answer
        return answer

    def _confirmed(self, question: str) -> direct_stage.DirectAnswer | None:
        """A question that states what the document states ("it has 1,260 pupils,
        right?") is not told the document does not cover it: that would contradict a
        correct speaker. The sentences stating it are said as the document's words (the
        veto's check: every value and term of the question, about the same matter)."""
        stated = self.veto.stated([without_address(question)])
        limit = self.settings.utterance.max_sentences_direct
        sids = list(dict.fromkeys(s.sid for s in stated))[:limit]
        if not sids:
            return None
        quote = direct_stage.quoted(self.document, sids)
        return direct_stage.DirectAnswer("answer", quote.text, quote.sids)

    def on_delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        """What the room heard joins the transcript (self-repair sees the agent's own
        correction) and the memory of facts already said."""
        if receipt.status == ReceiptStatus.FINISHED:
            self._heard(intervention)
        if receipt.status not in DELIVERED or intervention.id in self._delivered:
            return
        if not intervention.text:
            return
        self._delivered.add(intervention.id)
        index = max(intervention.decided_turn, self._next_index - 1)
        self.transcript.append(index, AGENT, intervention.text, agent=True)
        if intervention.kind is InterventionKind.DIRECT and intervention.intent == Intent.ANSWER:
            sids = tuple(c.sid for c in intervention.citations)
            delivery = Delivery(index, -1, Intent.MISSING, intervention.text, sids)
            self.ledger.record_delivery(delivery)

    def _heard(self, intervention: Intervention) -> None:
        """The room heard the agent say its claim's checked fact to the end: the claim is
        answered, by the agent (``LedgerSettings.close_heard_claims``). Asking the model
        whether the agent's own words fixed it costs a self-repair call on each of the
        next turns, and a wrong reply only keeps it open."""
        cid = self._claim_of.pop(intervention.id, None)
        if cid is None or not self.settings.ledger.close_heard_claims:
            return
        self.ledger.close(cid, max(intervention.decided_turn, self._next_index - 1), "agent")

    # --- stages -------------------------------------------------------------------------

    def _screened_out(self, text: str, found: Sequence[Proposal],
                      open_before: Sequence[Claim]) -> str:
        """On a CPU the monitor is the cost of a turn: skip it where nothing can be at
        stake (no detector hit, no question, no attribution to the document, no open claim
        the last turns could resolve). A reply that leaves a question open is a detector
        hit. A turn about something else (no content word of the document) is off the
        document even when it asks something: the document cannot answer it. Returns the
        silent reason, or "" to run it."""
        screen = self.settings.ledger.screen_turns
        if screen is None:
            screen = self.mode is ContextMode.FOCUSED
        found = [p for p in found if not self._gives_up_on(p, text)]
        if (not screen or found or attributes_to_document(text)
                or self._checkable(open_before) or self._retry_due()):
            return ""
        if self._off_document(text):
            return Screened.OFF_DOCUMENT
        if asks_about_document(text):
            return ""
        return Screened.NOTHING_TO_CHECK

    def _gives_up_on(self, proposal: Proposal, text: str) -> bool:
        """The open-question detector's hit on a reply that gives up ("no idea") on a
        question the monitor has judged a missing fact, or is still to judge (the question
        waits for its call): that reply counts toward the claim without the model
        (``_left_unanswered``, once the verdict opens it), where a monitor call would only
        delay the gate while the room talks on. A question the monitor judged without
        opening a claim still sends its reply to the model."""
        ledger = self.settings.ledger
        if (proposal.detector != Detector.OPEN_QUESTION or not gives_up(text)
                or not (ledger.deference and ledger.count_unanswered)):
            return False
        claim = self.ledger.find(proposal.verdict())
        if claim is None:
            return any(w.text in proposal.question for w in self._waiting if w.text)
        return claim.open and claim.status is Status.MISSING and claim.spoken_turn is None

    def _off_document(self, text: str) -> bool:
        """Fewer of the turn's content words than the setting asks are the document's
        (each compared by its first letters); a turn without content words is not."""
        need = self.settings.ledger.off_document_min_shared
        said = {w[:ROOT_LETTERS] for w in content_tokens(text)}
        if need <= 0 or not said:
            return False
        return len(said & self._vocabulary_heads) < min(need, len(said))

    @functools.cached_property
    def _vocabulary_heads(self) -> frozenset[str]:
        return frozenset(w[:ROOT_LETTERS] for w in self.proposer.facts.vocabulary)

    def _still_open(self, verdict: Verdict, found: Sequence[Proposal]) -> Verdict:
        """A question the monitor already judged a gap stays one while the replies leave
        it open, whatever the model makes of a reply like "no idea" by itself."""
        if verdict.actionable or verdict.claim:
            return verdict
        open_keys = {c.key for c in self.ledger.open_claims()}
        for p in found:
            if p.detector == Detector.OPEN_QUESTION and p.key in open_keys:
                return Verdict(p.status, p.claim, verdict.evidence, "", p.sids, p.key,
                               source="open_question")
        return verdict

    def _raised_in_batch(self, claim: Claim, earlier: Sequence[_Waiting]) -> None:
        """One call checks a whole batch, but each earlier turn of it that a detector
        flagged with the claim the verdict confirms (the same claim by the ledger's
        identity: sentences, key, wording) raised it as the checked turn did, and counts
        toward persistence as its own verdict would have. The claim must be confirmed by a
        detector: a claim of the monitor's alone still needs a second verdict."""
        if not claim.confirmed:
            return
        for turn in earlier:
            if any(self.ledger.find(p.verdict()) is claim for p in turn.found):
                self.ledger.raised_by(claim, turn.index)

    def _left_standing(self) -> Claim | None:
        """A claim a detector confirmed, still waiting at the gate, that the participant
        turns right after the last one that counted toward it have let stand: the screening
        found that none of them asks anything, flags anything or could close a claim, so
        the room has passed them without fixing it (``_let_stand``). A claim of the
        monitor's alone still needs a second verdict: that is the gate's check on the
        model."""
        spoken = [line for line in self.transcript.recent(SCREENED_MEMORY) if not line.agent]
        for claim in self._may_stand():
            counted = claim.last_counted
            if any(line.index == counted for line in spoken) and self._let_stand(
                    claim, spoken):
                return claim
        return None

    def _let_stand(self, claim: Claim, spoken: Sequence[Line]) -> list[Line]:
        """The screened turns right after the last one that counted toward ``claim``, up to
        the first the monitor must judge, where no turn after them fixes it (the guard);
        empty otherwise. Live, the verdict on a claim often comes after later turns were
        admitted: a turn still waiting for its own check must not hide the screened turns
        before it, which a replay, one turn at a time, would have counted first."""
        since = [line for line in spoken if line.index > claim.last_counted]
        run = list(itertools.takewhile(lambda line: line.index in self._screened, since))
        after = since[len(run):]
        if not run or (after and self._guard_check(claim, after).closes):
            return []
        return run

    def _passed_over(self, index: int, observed: Claim | None,
                     checkable: Sequence[_Fixable]) -> Claim | None:
        """A claim a detector confirmed, still waiting at the gate, that a monitored turn
        has passed over: its verdict was about something else (a verdict on the claim
        counts or resets it), and no recent turn holds what could fix it (the guard's
        precheck), so self-repair had nothing to close. Live, the next monitor call is
        about a newer turn, and a claim that waits for a second report of its own is
        forgotten while the room talks on."""
        fixable = {c.cid for c, _ in checkable}
        return next((c for c in self._may_stand()
                     if c is not observed and c.cid not in fixable
                     and c.last_counted < index), None)

    def _left_unanswered(self) -> Claim | None:
        """A question the monitor judged a missing fact whose reply said "I don't know" or
        moved on, the turns since screened (``_let_stand``): the room has left it open, and
        that counts toward it as a second report would (a detector's confirmation is not
        needed: the reply itself says nobody has the fact). The answer checks still decide
        whether the document answers it. (Live, the reply is often screened before the
        question's verdict comes; the next screened turn then counts it.) The reply is the
        first ``REPLY_TURNS`` turns after the question, less the asker's own asking lines
        right after it: live, endpointing cuts one question ("How many were there?" / "Do
        they say?") or one reply ("I'd have to check, I don't" / "remember") into turns."""
        ledger = self.settings.ledger
        if not (ledger.deference and ledger.count_unanswered):
            return None
        spoken = [line for line in self.transcript.recent(SCREENED_MEMORY) if not line.agent]
        for claim in self.ledger.open_claims():
            if not (claim.status is Status.MISSING and 0 < claim.persistence < ledger.tau
                    and claim.spoken_turn is None and not claim.exhausted):
                continue
            asked = next((line for line in spoken if line.index == claim.last_counted), None)
            if asked is None:
                continue
            reply = _reply(asked.speaker, self._let_stand(claim, spoken))
            if any(line.index in self._gave_up for line in reply):
                return claim
        return None

    def _stood_meanwhile(self, checkable: Sequence[_Fixable]) -> Claim | None:
        """Live, the turns after a claim were often screened while the model judged a turn,
        before the claim could stand: a claim they let stand now (``_left_standing``,
        ``_left_unanswered``) and that no turn the guard read could fix (``checkable``)
        stands now, as it would have at their admission had the verdict come first (a
        replay's order). Counting them only when the next turn comes costs that turn. Turns
        that arrived during the call are read first (``on_turns``'s ``newer``): one of
        them may be the speaker's own repair."""
        claim = self._left_standing() or self._left_unanswered()
        if claim is None or any(c.cid == claim.cid for c, _ in checkable):
            return None
        return claim

    def _may_stand(self) -> list[Claim]:
        """Open claims a turn that lets them stand may count: confirmed by a detector,
        actionable, reported but short of the gate, not spoken."""
        ledger = self.settings.ledger
        if not (ledger.deference and ledger.count_standing_turns):
            return []
        return [c for c in self.ledger.open_claims()
                if c.confirmed and c.status in ACTIONABLE and 0 < c.persistence < ledger.tau
                and c.spoken_turn is None and not c.exhausted]

    def _stood(self, index: int, claim: Claim, head: str, latency: dict[str, float],
               at: int | None = None, restated: bool = False) -> Decision:
        """The ledger counts a turn (``at``, else ``index``) that let ``claim`` stand, or
        that ``restated`` it, as a mention of it, without a monitor call; the gate decides
        as after any verdict, and the decision is ``index``'s. A claim settled meanwhile
        (closed, spoken or forgotten while the turn waited in a batch) is left alone."""
        at = index if at is None else at
        if self.ledger.claims.get(claim.cid) is not claim or not claim.open or (
                claim.spoken_turn is not None):
            return Decision(index, "silent", f"C{claim.cid} settled before turn {at}",
                            latency_ms=latency)
        if restated:
            self.ledger.raised_by(claim, at)
            how = f"turn {at} restated C{claim.cid}"
        else:
            self.ledger.stood(claim, at)
            how = f"turn {at} let C{claim.cid} stand"
        self._observed = claim
        gate = self.ledger.gate(claim, at)
        why = f"{gate.reason} ({how})"
        if not gate.fire:
            return Decision(index, "silent", why, claim=claim.text, latency_ms=latency)
        return self._intervene(index, claim, head, latency, why)

    def _restated(self, text: str, found: Sequence[Proposal]) -> Claim | None:
        """A claim waiting at the gate (``_may_stand``) that this turn's detector proposal
        finds again: the same wrong value or term said once more. The monitor judged the
        claim when it confirmed the detector; a repetition that does not ask about it, set
        the value aside ("not 164K") or hold the fix (the guard) says nothing new, so it
        counts as a mention without another call."""
        if not self.settings.ledger.count_restated or contains_question(text):
            return None
        waiting = self._may_stand()
        if not waiting:
            return None  # nothing to look up (finding a claim may embed its wording)
        line = self.transcript.lines[-1]
        for proposal in found:
            claim = self.ledger.find(proposal.verdict()) if proposal.said else None
            if claim is None or not any(claim is c for c in waiting):
                continue
            if not rejected(text, proposal.said) and not self._guard_check(
                    claim, [line]).closes:
                return claim
        return None

    def _retry_due(self) -> Claim | None:
        """An open claim the gate passed whose generation abstained (rolled back)."""
        tau = self.settings.ledger.tau
        return next((c for c in self.ledger.open_claims()
                     if c.rollbacks and not c.exhausted and c.spoken_turn is None
                     and c.persistence >= tau), None)

    def _checkable(self, open_before: Sequence[Claim], opened: Claim | None = None
                   ) -> list[_Fixable]:
        """Open claims the turns the guard reads could resolve, each with those turns: a
        model call can close a claim only where the guard would accept the fix, so the
        cheap precheck is the guard itself (a turn that carries the value only to ask it,
        or only as the raising turn said it, or a retraction put as a question, fixes
        nothing). ``opened``: the claim this call opened or reopened, which only the turns
        after its opening can fix (live, a batch may hold them; a replay has none)."""
        lines = self._guard_lines()
        pairs = [(c, lines) for c in open_before if c.open]
        if opened is not None and opened.open and opened not in open_before:
            pairs.append((opened, [line for line in lines if line.index > opened.opened_turn]))
        return [(c, window) for c, window in pairs
                if window and self._guard_check(c, window).closes]

    def _guard_lines(self) -> list[Line]:
        """The turns the guard reads now: every turn since the last check read them (live,
        one check covers a whole batch) and the ``guard_window_turns`` - 1 before them, so
        each turn is read with the turns before it, as "the last turns" of its own check."""
        lines = self.transcript.lines
        first = min(self._guard_read, len(lines) - 1)
        return lines[max(0, first - self.settings.ledger.guard_window_turns + 1):]

    def _self_repair(
        self, index: int, checkable: Sequence[_Fixable], head: str, latency: dict[str, float]
    ) -> list[str]:
        """Close the claims the turns the guard read fixed: a correction the guard alone
        confirms (when the setting allows), then those the model says the group fixed and
        the guard agrees with."""
        notes: list[str] = []
        asked: list[_Fixable] = []
        for claim, lines in checkable:
            if self.settings.ledger.guard_closes_corrections and (
                    INTENT_OF_STATUS.get(claim.status) in CONTRADICTING):
                result = self._guard_check(claim, lines)
                if result.shown:
                    notes.append(self._close(claim, index, lines[result.line], "the room fixed"))
                    continue
            asked.append((claim, lines))
        if not asked:
            return notes
        issues = [(c.cid, c.text, c.predicted_answer) for c, _ in asked]
        reply = self._call("self_repair", self.system,
                     head + prompts.self_repair_task(issues), schemas.SELF_REPAIR,
                     self.settings.llm.self_repair)
        latency["self_repair"] = reply.ms
        if reply.data is None:
            return notes
        windows = {c.cid: lines for c, lines in asked}
        for resolution in self_repair.parse(reply.data, set(windows), self.document):
            claim, lines = self.ledger.claims[resolution.cid], windows[resolution.cid]
            result = self._guard_check(claim, lines)
            if not result.closes:
                notes.append(f"C{claim.cid} kept open ({result.reason})")
                continue
            line = lines[result.line] if result.line >= 0 else lines[-1]
            notes.append(self._close(claim, index, line, "self-repair closed"))
        return notes

    def _guard_check(self, claim: Claim, recent: Sequence[Line]) -> guard.GuardResult:
        """The guard on the turns it reads (``recent``). A turn inside them that the
        monitor counted as raising the claim again is judged as a fix, not as a raising
        turn ("Actually, no, it's 2003. Not 2002." names the wrong value only to reject
        it); the turn that opened the claim always raised it. The turns fix the claim if
        they state any answer a verdict gave it, or one value of an answer that holds
        several (the current one's result is the one reported when none does)."""
        texts, raising = [line.text for line in recent], self._raising(claim, recent)
        given = [claim.predicted_answer, *reversed(claim.answers)]
        answers = dict.fromkeys(given + [v for a in given for v in guard.fix_values(a, raising)])
        results = [guard.check(claim.status, answer, texts, raising,
                               self.settings.ledger.guard_min_token_share)
                   for answer in answers]
        return next((r for r in results if r.closes), results[0])

    def _raising(self, claim: Claim, recent: Sequence[Line]) -> list[str]:
        """The turns that raised ``claim``, as the guard reads them beside ``recent``."""
        window = {line.index for line in recent}
        raised = {i for i in claim.raised_turns if i == claim.opened_turn or i not in window}
        return [line.text for line in self.transcript.by_index(raised)]

    def _close(self, claim: Claim, index: int, line: Line, how: str) -> str:
        """Close ``claim`` as fixed by whoever said ``line``."""
        self.ledger.close(claim.cid, index, "agent" if line.agent else line.speaker)
        return f"{how} C{claim.cid}"

    def _intervene(
        self, index: int, claim: Claim, head: str, latency: dict[str, float], why: str
    ) -> Decision:
        outcome = self.intervener.run(index, claim, head, latency)
        if isinstance(outcome, Silence):
            reason = self._silenced(index, claim, outcome)
            return Decision(index, "silent", reason, claim=claim.text, latency_ms=latency)
        self.ledger.fired(claim, index)
        assert outcome.made is not None
        self.ledger.record_delivery(Delivery(index, claim.cid, outcome.intent, outcome.text,
                                             outcome.made.sids))
        spoken = intervention(outcome, f"p{next(self._ids)}")
        self._claim_of[spoken.id] = claim.cid
        return Decision(index, "speak", why, spoken, claim.text, latency)

    def _silenced(self, index: int, claim: Claim, silence: Silence) -> str:
        """What not speaking does to the claim; returns the silent reason."""
        if silence.effect is Effect.SAID_BEFORE:
            claim.spoken_turn, claim.persistence = silence.said_turn, 0
        elif silence.effect is Effect.RESET:
            claim.persistence = 0
        elif silence.effect is Effect.ROLLBACK:
            return f"{silence.reason} ({self.ledger.rollback(claim, index)})"
        return silence.reason

    def _remember_open_questions(self, found: Sequence[Proposal]) -> None:
        for p in found:
            if p.detector == Detector.OPEN_QUESTION:
                self._asked.pop(p.key, None)
                self._asked[p.key] = p
        while len(self._asked) > MAX_OPEN_QUESTIONS:
            del self._asked[next(iter(self._asked))]

    def _without_deference(
        self, index: int, verdict: Verdict, head: str, latency: dict[str, float]
    ) -> Decision:
        """The ablation: no gate, no self-repair; every actionable verdict is answered."""
        observed = self.ledger.observe(index, verdict)
        self._observed = observed.claim
        if not verdict.actionable or observed.claim is None:
            return Decision(index, "silent", f"monitor: {verdict.status}",
                            claim=verdict.claim, latency_ms=latency)
        claim = observed.claim
        claim.spoken_turn, claim.exhausted, claim.rollbacks = None, False, 0
        return self._intervene(index, claim, head, latency,
                               f"no deference: monitor {verdict.status}")

    # --- context rendering --------------------------------------------------------------

    def _conversation(self, lines: Sequence[Line]) -> str:
        return prompts.conversation_block(lines, self._render)

    def _sentence_block(self, sids: Sequence[int]) -> str:
        """Focused mode: the sentences a call on the window needs that it does not show
        yet, attached to its newest line (so the next call finds them in the cached
        text); full mode has them all in the prefix."""
        if self.mode is ContextMode.FULL:
            return ""
        return prompts.sentence_block([self._render(s) for s in self.transcript.attach(sids)])

    def _direct_sentences(self, lines: Sequence[Line], sids: Sequence[int]) -> str:
        """The question's sentences that its few context lines do not show."""
        if self.mode is ContextMode.FULL:
            return ""
        shown = shown_under(lines)
        return prompts.sentence_block([self._render(s) for s in dict.fromkeys(sids)
                                       if s not in shown])

    def _render(self, sid: int) -> str:
        sentence = self.document.get(sid)
        if sentence is None:
            return ""
        words = sentence.text.split()
        cut = len(words) > MAX_SENTENCE_WORDS
        text = " ".join(words[:MAX_SENTENCE_WORDS]) + (" ..." if cut else "")
        return f"[S{sid}] {text}"

    # --- helpers ------------------------------------------------------------------------

    def _call(self, *args: Any, **kwargs: Any) -> StageReply:
        reply = call_stage(self.llm, *args, **kwargs)
        self.calls.append(dataclasses.replace(reply, data=None))
        return reply

    def similarity(self, a: str, b: str) -> float:
        """Embedding cosine of two short texts (claims, utterances), memoised."""
        if a == b:
            return 1.0
        key = (a, b) if a < b else (b, a)
        if key not in self._cosines:
            if self._embedder is None:
                from app.embedding import get_embedder

                self._embedder = get_embedder()
            self._cosines[key] = float(self._embedder.cosine(a, b))
        return self._cosines[key]

    def _index(self, turn: Turn) -> int:
        index = turn.index if turn.index >= 0 else self._next_index
        self._next_index = max(self._next_index, index + 1)
        return index


def _reply(asker: str, since: Sequence[Line]) -> list[Line]:
    """The turns that reply to a question ``asker`` asked: those after it, less the
    asker's own asking lines right after it (one question cut into turns), at most
    ``REPLY_TURNS``."""
    rest = list(since)
    while rest and rest[0].speaker == asker and contains_question(rest[0].text):
        rest.pop(0)
    return rest[:REPLY_TURNS]


def gives_up(text: str) -> bool:
    """The turn says nobody has the answer or moves on ("no idea", "let's move on"), and
    asks nothing back."""
    return (not contains_question(text)
            and (reports_failed_recall(text) or says(Talk.MOVING_ON, text)))


def _also(notes: Sequence[str], already: str = "") -> str:
    extra = [n for n in notes if n != already]
    return ("; " + "; ".join(extra)) if extra else ""


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
