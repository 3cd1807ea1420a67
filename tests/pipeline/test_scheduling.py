"""Scheduling that keeps up with the room (SPEC §9 "Keeps up").

The real Backbone and BackboneWorker, with scripted model replies. Monitor calls wait at a
gate the test opens (or until the worker cancels them), so every interleaving below is
fixed by events, not by timing.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex, Sentence
from app.events import AnswerDelta, Decision, Intervention, InterventionKind, Turn
from app.llm import LLMCancelled, LLMRequest, LLMResponse
from app.pipeline.backbone_worker import BackboneWorker
from app.settings import ContextMode, LedgerSettings, LLMSettings, Settings, UtteranceSettings
from tests.backbone.scripted import ScriptedLLM, WordOverlap, malformed

TEXTS = [
    "We split each PDF into pages and feed each page to Apache's PDFBox library to get tokens.",
    "This labeling process succeeds for 76% of the documents in the training corpus.",
    "Deduplication on metadata string similarity results in 37M unique paper nodes.",
    "The model is a two-layer bidirectional LSTM with a conditional random field on top.",
]
WRONG = {"status": "incorrect_info", "claim": "the library used to parse PDF pages",
         "answer_sids": [0], "predicted_answer": "PDFBox", "evidence": "Apache Tika"}
QUIET = {"status": "on_progress", "claim": ""}
SPEAK = {"action": "speak", "text": "They use Apache's PDFBox [S0], not Tika.",
         "topic": "the PDF parser", "source": "", "quote_sids": [0]}
ANSWER = {"action": "answer", "text": "Deduplication leaves 37M unique paper nodes.",
          "quote_sids": [2]}
CHAT = ["The model is a BiLSTM, I think.", "With a CRF on top of it.",
        "And they train it on the labeled pages.", "Which took a while to set up."]
WAIT_S = 10.0  # upper bound for the worker to reach a state; never slept


class GatedLLM(ScriptedLLM):
    """Scripted replies; each monitor call waits at a gate until the test opens it, or
    until its cancel event is set (then it raises LLMCancelled, as the backends do)."""

    def __init__(self, replies: list[Any] | None = None, gated: tuple[str, ...] = ("monitor",)
                 ) -> None:
        super().__init__(replies)
        self.gated = gated
        self.entered: queue.Queue[LLMRequest] = queue.Queue()
        self.cancelled: list[LLMRequest] = []
        self._gate = threading.Semaphore(0)

    def complete(self, request: LLMRequest, on_delta: Any = None) -> LLMResponse:
        if request.stage in self.gated:
            self.entered.put(request)
            while not self._gate.acquire(timeout=0.005):
                if request.cancel is not None and request.cancel.is_set():
                    self.requests.append(request)
                    self.cancelled.append(request)
                    raise LLMCancelled(request.stage)
        return super().complete(request, on_delta)

    def next_call(self) -> LLMRequest:
        """The gated call the worker is now blocked in."""
        return self.entered.get(timeout=WAIT_S)

    def open(self) -> None:
        self._gate.release()


class Room:
    """A started worker and what it produced, in order."""

    def __init__(self, backbone: Any) -> None:
        self.out: list[Any] = []
        self.deltas: list[AnswerDelta] = []
        self._cond = threading.Condition()
        self.worker = BackboneWorker(backbone, self._add, self._offer, on_delta=self.deltas.append)
        self.worker.start()

    def _add(self, event: Any) -> None:
        with self._cond:
            self.out.append(event)
            self._cond.notify_all()

    def _offer(self, intervention: Intervention, _decision: Decision | None) -> None:
        self._add(intervention)

    def decisions(self) -> list[Decision]:
        with self._cond:
            return [e for e in self.out if isinstance(e, Decision)]

    def wait_for(self, predicate: Callable[[], bool]) -> None:
        with self._cond:
            assert self._cond.wait_for(predicate, timeout=WAIT_S), self.out

    def wait_decisions(self, n: int) -> list[Decision]:
        self.wait_for(lambda: sum(isinstance(e, Decision) for e in self.out) >= n)
        return self.decisions()


@pytest.fixture
def document() -> DocumentIndex:
    sentences = [Sentence(i, t, page=2 + i, rects=((10.0, 20.0 * i, 300.0, 20.0 * i + 12),))
                 for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("paper.pdf"), "0" * 64, "Paper", 6, sentences)


def make(document: DocumentIndex, llm: Any, **ledger: Any) -> Backbone:
    ledger.setdefault("screen_turns", False)
    # The model answers every direct question and writes every correction: these tests
    # schedule its calls.
    settings = Settings(llm=LLMSettings(context_mode=ContextMode.FOCUSED),
                        utterance=UtteranceSettings(quote_direct_coverage=0.0,
                                                    quote_any_coverage=0.0,
                                                    quote_corrections=False),
                        ledger=LedgerSettings(**ledger))
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def turn(i: int, text: str, speaker: str = "S1") -> Turn:
    return Turn(speaker, text, 5.0 * i, 5.0 * i + 4.0, False, i)


@pytest.fixture
def rooms() -> Iterator[list[Room]]:
    made: list[Room] = []
    yield made
    for room in made:
        assert room.worker.stop(WAIT_S)


def start(rooms: list[Room], backbone: Backbone) -> Room:
    rooms.append(Room(backbone))
    return rooms[-1]


# --- the worker ---------------------------------------------------------------------------


def test_a_direct_question_mid_call_cuts_it_short_and_is_answered_first(document, rooms):
    llm = GatedLLM([ANSWER, QUIET])
    bb = make(document, llm)
    room = start(rooms, bb)
    room.worker.submit_turn(turn(0, CHAT[0]))
    first = llm.next_call()
    room.worker.submit_turn(turn(1, CHAT[1]))
    room.worker.submit_turn(turn(2, CHAT[2]))
    question = Turn("S2", "How many unique paper nodes are left after deduplication?",
                    15.0, 15.0, direct=True)
    room.worker.request_direct(question, generation=3)

    recheck = llm.next_call()  # blocked: the queued turns are not decided yet
    assert first.cancel is not None and first.cancel.is_set()
    assert llm.cancelled == [first]
    assert llm.stages() == ["monitor", "direct"]
    answer = room.out[-1]
    assert isinstance(answer, Intervention) and answer.kind is InterventionKind.DIRECT
    assert answer.generation == 3 and room.decisions() == []
    assert room.deltas and {d.generation for d in room.deltas} == {3}
    # The question came after the queued turns, so it follows them in the transcript.
    assert [line.index for line in bb.transcript.lines] == [0, 1, 2, 3]
    assert "Newest utterance: Turn 2" in recheck.user
    assert all(f"[Turn {i}]" in recheck.user for i in range(4))

    llm.open()
    decisions = room.wait_decisions(3)
    assert [(d.turn, d.reason) for d in decisions] == [
        (0, "coalesced: checked with turn 2"), (1, "coalesced: checked with turn 2"),
        (2, "monitor: on_progress")]
    room.wait_for(lambda: room.worker.pending == 0)
    assert llm.stages() == ["monitor", "direct", "monitor"]


def test_three_turns_arriving_during_one_call_are_checked_by_the_next_one(document, rooms):
    llm = GatedLLM([QUIET, QUIET])
    bb = make(document, llm)
    room = start(rooms, bb)
    room.worker.submit_turn(turn(0, CHAT[0]))
    llm.next_call()
    for i in (1, 2, 3):
        room.worker.submit_turn(turn(i, CHAT[i]))
    assert room.worker.pending == 4  # the call in progress and the three behind it

    llm.open()
    second = llm.next_call()
    assert room.worker.pending == 3  # the three, in one call
    assert [d.turn for d in room.decisions()] == [0]
    assert "Newest utterance: Turn 3" in second.user
    assert all(f"[Turn {i}] S1: {CHAT[i]}" in second.user for i in (1, 2, 3))
    # Every turn reached the transcript and the detectors, in order, before the call.
    assert [line.index for line in bb.transcript.lines] == [0, 1, 2, 3]
    assert list(bb.proposer.turn_sids) == [0, 1, 2, 3]

    llm.open()
    decisions = room.wait_decisions(4)
    assert [d.turn for d in decisions] == [0, 1, 2, 3]
    assert [d.reason for d in decisions[1:3]] == ["coalesced: checked with turn 3"] * 2
    assert decisions[3].reason == "monitor: on_progress"
    assert llm.stages() == ["monitor", "monitor"]
    room.wait_for(lambda: room.worker.pending == 0)


def test_the_backlog_never_grows_past_the_call_and_the_turns_behind_it(document, rooms):
    llm = GatedLLM([QUIET] * 4)
    room = start(rooms, make(document, llm))
    room.worker.submit_turn(turn(0, CHAT[0]))
    index, in_call = 1, 1
    for _ in range(3):  # a lively room: four turns during every call
        llm.next_call()
        for _ in range(4):
            room.worker.submit_turn(turn(index, CHAT[index % 4]))
            index += 1
        assert room.worker.pending == in_call + 4
        llm.open()
        in_call = 4
    llm.next_call()
    assert room.worker.pending == 4
    llm.open()
    decisions = room.wait_decisions(13)
    assert [d.turn for d in decisions] == list(range(13))
    assert llm.stages() == ["monitor"] * 4  # 13 turns, 4 calls
    room.wait_for(lambda: room.worker.pending == 0)


def test_turns_arriving_during_a_direct_answer_join_the_next_check(document, rooms):
    llm = GatedLLM([ANSWER, QUIET], gated=("monitor", "direct"))
    bb = make(document, llm)
    room = start(rooms, bb)
    room.worker.request_direct(Turn("S2", "How many paper nodes are left?", 1.0, 1.0,
                                    direct=True), generation=1)
    assert llm.next_call().stage == "direct"
    for i in (1, 2):
        room.worker.submit_turn(turn(i, CHAT[i]))
    assert room.worker.pending == 3
    llm.open()
    call = llm.next_call()
    assert call.stage == "monitor" and "[Turn 1]" in call.user and "[Turn 2]" in call.user
    # The reply left the question open: the detector makes that turn the one checked.
    assert "Newest utterance: Turn 1" in call.user
    llm.open()
    decisions = room.wait_decisions(2)
    assert [(d.turn, d.reason) for d in decisions] == [
        (1, "monitor: on_progress"), (2, "coalesced: checked with turn 1")]
    assert llm.stages() == ["direct", "monitor"]


SWAPPED = "We split each PDF into pages and feed each page to Apache's Tika library to get tokens."


def _claim_and_small_talk_in_one_batch(document: DocumentIndex, rooms: list[Room],
                                       replies: list[Any]) -> tuple[GatedLLM, Room]:
    """A claim and a screened turn after it reach one check (they queued behind a call):
    the check on the claim is the gated call the worker is blocked in on return."""
    llm = GatedLLM([QUIET, *replies])
    room = start(rooms, make(document, llm, screen_turns=None))
    room.worker.submit_turn(turn(0, "How was the training corpus labeled?"))
    llm.next_call()
    room.worker.submit_turn(turn(1, SWAPPED))
    room.worker.submit_turn(turn(2, "Let's grab lunch after this.", "S2"))
    llm.open()
    assert "Newest utterance: Turn 1" in llm.next_call().user
    return llm, room


def test_a_turn_screened_in_the_claims_batch_lets_it_stand_when_the_call_ends(document, rooms):
    llm, room = _claim_and_small_talk_in_one_batch(document, rooms, [WRONG, SPEAK])
    llm.open()
    room.wait_for(lambda: any(isinstance(e, Intervention) for e in room.out))
    fired = [d for d in room.decisions() if d.action == "speak"]
    assert [(d.turn, d.reason) for d in fired] == [
        (1, "gate fired: persistence 2 (turn 2 let C1 stand)")]
    assert llm.stages() == ["monitor", "monitor", "generate"]


def test_a_repair_arriving_during_the_call_is_read_before_anything_stands(document, rooms):
    """The speaker's repair came while the model judged the claim: it is admitted (and
    closes the claim) before any turn may let the claim stand."""
    llm, room = _claim_and_small_talk_in_one_batch(document, rooms, [WRONG, QUIET])
    room.worker.submit_turn(turn(3, "Oh wait, no, they feed each page to PDFBox.", "S1"))
    llm.open()
    assert "Newest utterance: Turn 3" in llm.next_call().user
    llm.open()
    decisions = room.wait_decisions(4)
    assert not any(isinstance(e, Intervention) for e in room.out)
    assert [d.reason for d in decisions if d.turn in (1, 3)] == [
        "gate: waiting 1/2", "monitor: on_progress; the room fixed C1"]
    assert llm.stages() == ["monitor", "monitor", "monitor"]


def test_stop_cuts_a_running_call_short(document):
    llm = GatedLLM([])
    room = Room(make(document, llm))
    room.worker.submit_turn(turn(0, CHAT[0]))
    call = llm.next_call()
    assert room.worker.stop(WAIT_S)
    assert call.cancel is not None and call.cancel.is_set()


class PrefillLLM(GatedLLM):
    """A GatedLLM that also takes prefills: each waits at its own gate until the test
    opens it or its cancel event is set, and is recorded with what it read."""

    def __init__(self, replies: list[Any] | None = None) -> None:
        super().__init__(replies, gated=())
        self.prefills: queue.Queue[tuple[str, threading.Event | None]] = queue.Queue()
        self.cut: list[str] = []
        self._prefill_gate = threading.Semaphore(0)

    def prefill(self, system: str, head: str, cancel: threading.Event | None = None) -> int:
        self.prefills.put((head, cancel))
        while not self._prefill_gate.acquire(timeout=0.005):
            if cancel is not None and cancel.is_set():
                self.cut.append(head)
                return 0
        return len(head)

    def next_prefill(self) -> tuple[str, threading.Event | None]:
        return self.prefills.get(timeout=WAIT_S)

    def open_prefill(self) -> None:
        self._prefill_gate.release()


def test_an_idle_worker_reads_the_conversation_into_the_cache_once(document, rooms):
    llm = PrefillLLM([QUIET])
    room = start(rooms, make(document, llm, screen_turns=True))
    room.worker.submit_turn(turn(0, CHAT[0]))
    head, _ = llm.next_prefill()  # after the check, with nothing else to do
    assert head.startswith("CONVERSATION:") and f"[Turn 0] S1: {CHAT[0]}" in head
    llm.open_prefill()
    room.wait_for(lambda: len(room.decisions()) == 1)
    with pytest.raises(queue.Empty):
        llm.prefills.get(timeout=0.2)  # nothing changed since: no second reading
    assert llm.stages() == []  # the turn was screened: no call had read it


def test_a_turn_arriving_during_a_prefill_cuts_it_short(document, rooms):
    llm = PrefillLLM([QUIET, QUIET])
    room = start(rooms, make(document, llm))
    room.worker.submit_turn(turn(0, CHAT[0]))
    first, cancel = llm.next_prefill()
    room.worker.submit_turn(turn(1, CHAT[1]))
    room.wait_for(lambda: len(room.decisions()) == 2)  # checked at once, not behind it
    assert cancel is not None and cancel.is_set() and llm.cut == [first]
    second, _ = llm.next_prefill()  # the new turn is read in the next idle time
    assert f"[Turn 1] S1: {CHAT[1]}" in second
    llm.open_prefill()


def test_a_direct_question_cuts_a_prefill_short(document, rooms):
    llm = PrefillLLM([QUIET, ANSWER])
    room = start(rooms, make(document, llm))
    room.worker.submit_turn(turn(0, CHAT[0]))
    _, cancel = llm.next_prefill()
    room.worker.request_direct(Turn("S2", "How many paper nodes are left?", 6.0, 6.0,
                                    direct=True), generation=1)
    room.wait_for(lambda: any(isinstance(e, Intervention) for e in room.out))
    assert cancel is not None and cancel.is_set()
    assert llm.stages() == ["monitor", "direct"]
    llm.next_prefill()
    llm.open_prefill()


# --- the backbone's batch ------------------------------------------------------------------


def test_a_preempted_check_is_checked_again_with_the_next_batch(document):
    cancel = threading.Event()
    cancel.set()
    llm = ScriptedLLM([LLMCancelled("monitor"), QUIET])
    bb = make(document, llm)
    cut = bb.on_turns([turn(0, CHAT[0]), turn(1, "Mm-hm.")], cancel)
    assert [(d.turn, d.reason) for d in cut] == [(1, "backchannel: not sent to the monitor")]
    assert bb.waiting == 1 and bb.ledger.claims == {}

    later = bb.on_turns([turn(2, CHAT[2])])
    assert [(d.turn, d.reason) for d in later] == [
        (0, "coalesced: checked with turn 2"), (2, "monitor: on_progress")]
    assert bb.waiting == 0
    assert [line.index for line in bb.transcript.lines] == [0, 2]  # admitted once
    assert llm.stages() == ["monitor", "monitor"]


def test_a_failed_check_that_was_not_cancelled_is_not_repeated(document):
    llm = ScriptedLLM([malformed()])
    bb = make(document, llm)
    decisions = bb.on_turns([turn(0, CHAT[0]), turn(1, CHAT[1])], threading.Event())
    assert decisions[0].reason == "coalesced: checked with turn 1"
    assert decisions[1].reason.startswith("monitor: malformed output")
    assert bb.waiting == 0


def test_a_batch_adds_at_most_one_persistence_step_per_claim(document):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK])
    bb = make(document, llm)
    tika = ["They run every page through Apache Tika.", "Yes, Tika gives the tokens.",
            "Right, Tika, and then the font features."]
    batch = bb.on_turns([turn(i, text) for i, text in enumerate(tika)])
    assert [d.turn for d in batch] == [0, 1, 2]
    named = [d for d in batch if not d.reason.startswith("coalesced")]
    assert len(named) == 1 and named[0].reason == "gate: waiting 1/2"
    assert named[0].claim_id == 1 and bb.ledger.claims[1].persistence == 1
    assert named[0].answer == "PDFBox"
    fired = bb.on_turns([turn(3, "So Tika it is.")])
    assert fired[0].action == "speak" and fired[0].reason == "gate fired: persistence 2"
    assert fired[0].intervention is not None and fired[0].intervention.decided_turn == 3
    assert llm.stages() == ["monitor", "monitor", "generate"]


def test_the_verdict_names_the_turn_a_detector_flagged(document):
    llm = ScriptedLLM([{"status": "incorrect_info", "claim": "the number of paper nodes",
                        "answer_sids": [2], "predicted_answer": "37M"}])
    bb = make(document, llm)
    decisions = bb.on_turns([
        turn(0, "Deduplication on string similarity leaves 12M unique paper nodes."),
        turn(1, "Okay so what about the labeling?", "S2")])
    request = llm.requests[0]
    assert "Newest utterance: Turn 0" in request.user and "[Turn 1] S2:" in request.user
    assert 'CHECK: the utterance says "12M"' in request.user
    assert [(d.turn, d.reason) for d in decisions] == [
        (0, "gate: waiting 1/2"), (1, "coalesced: checked with turn 0")]
    assert decisions[0].claim_id == 1 and bb.ledger.claims[1].raised_turns == [0]


def test_screened_turns_keep_their_own_reason_in_a_batch(document):
    llm = ScriptedLLM([QUIET])
    bb = make(document, llm, screen_turns=True)
    decisions = bb.on_turns([turn(0, "Fair enough, the part about pages was clear to me."),
                             turn(1, "How many unique paper nodes are left?")])
    assert decisions[0].reason.startswith("monitor: skipped")
    assert decisions[1].reason == "monitor: on_progress"
    assert llm.stages() == ["monitor"]


def test_each_turn_of_a_batch_a_detector_flagged_with_the_claim_counts(document):
    nodes = {"status": "incorrect_info", "claim": "the number of paper nodes",
             "answer_sids": [2], "predicted_answer": "37M"}
    llm = ScriptedLLM([nodes, {"action": "speak", "topic": "", "quote_sids": [2],
                               "text": "Actually, the document says 37M unique paper nodes."}])
    bb = make(document, llm)
    decisions = bb.on_turns([
        turn(0, "Deduplication on string similarity leaves 12M unique paper nodes."),
        turn(1, "Right, 12M nodes after deduplication.", "S2")])
    assert llm.stages() == ["monitor", "generate"]
    assert [(d.turn, d.action) for d in decisions] == [(0, "silent"), (1, "speak")]
    assert decisions[1].reason == "gate fired: persistence 2"
    assert bb.ledger.claims[1].raised_turns == [0, 1]


NODES = {"status": "incorrect_info", "claim": "the number of paper nodes",
         "answer_sids": [2], "predicted_answer": "37M"}
NODES_WRONG = "Deduplication on string similarity leaves 12M unique paper nodes."
NODES_FIXED = "Actually, no, the paper says 37M unique paper nodes. Not 12M."
AFTER = ["Okay.", "The model is a two-layer LSTM.", "With a random field on top.",
         "And they train it on the labeled pages."]


def test_a_fix_the_batch_holds_closes_a_claim_an_earlier_call_opened(document):
    llm = ScriptedLLM([NODES, QUIET])
    bb = make(document, llm)
    first = bb.on_turns([turn(0, NODES_WRONG)])
    assert first[0].reason == "gate: waiting 1/2"
    later = bb.on_turns([turn(1, NODES_FIXED), *(turn(2 + i, t) for i, t in enumerate(AFTER))])
    assert all(d.action == "silent" for d in later), later
    assert not bb.ledger.claims[1].open and bb.ledger.claims[1].spoken_turn is None
    assert [d.turn for d in later if "the room fixed C1" in d.reason] == [1]
    assert "generate" not in llm.stages()


def test_a_fix_in_the_batch_that_opened_the_claim_closes_it(document):
    llm = ScriptedLLM([NODES, QUIET])
    bb = make(document, llm)
    batch = bb.on_turns([turn(0, NODES_WRONG), turn(1, "Mm."), turn(2, NODES_FIXED),
                         *(turn(3 + i, t) for i, t in enumerate(AFTER[1:]))])
    assert [d.turn for d in batch if "the room fixed C1" in d.reason] == [2]
    assert not bb.ledger.claims[1].open and bb.ledger.claims[1].raised_turns == [0, 2]
    later = bb.on_turns([turn(6, "Which took a while to set up.")])
    assert all(d.action == "silent" for d in batch + later), batch + later
    assert llm.stages() == ["monitor", "monitor"]
