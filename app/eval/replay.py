"""Turn-by-turn replay of benchmark conversations through a backbone.

Each conversation gets a fresh backbone; every turn waits for its verdict before the
next one is fed, and each verdict is written to ``decisions.jsonl`` at once (flushed),
so an interrupted run keeps what it decided. A spoken intervention is reported back as
delivered, as the playback layer would, so the backbone's transcript holds it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Protocol

from app.eval.dataset import BenchmarkSet, ScriptTurn
from app.eval.records import DecisionRecord, read_decisions
from app.events import AnswerDelta, Decision, Intervention, PlaybackReceipt, ReceiptStatus, Turn

log = logging.getLogger(__name__)

SPEECH_WORDS_PER_SECOND = 2.7


class ReplayBackbone(Protocol):
    """The part of ``app.backbone.Backbone`` the evaluator drives."""

    def on_turn(self, turn: Turn) -> Decision: ...

    def answer_direct(
        self, question: Turn, on_delta: Callable[[AnswerDelta], None] | None = None
    ) -> Intervention: ...

    def on_delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None: ...


BackboneFactory = Callable[[Path], ReplayBackbone]  # document path -> fresh backbone


def to_turn(script: ScriptTurn, previous_end: float) -> Turn:
    """The product's Turn for a script line; missing times continue from the last turn."""
    start = script.start if script.start is not None else previous_end
    duration = max(len(script.text.split()) / SPEECH_WORDS_PER_SECOND, 0.5)
    end = script.end if script.end is not None else start + duration
    return Turn(script.speaker, script.text, start, end, script.direct, script.turn)


def intervention_fields(intervention: Intervention | None) -> dict[str, object]:
    """text/kind/page/quote/intent fields of a decision line, from what the agent said."""
    if intervention is None:
        return {}
    cites = intervention.citations
    return {
        "kind": intervention.kind.value,
        "text": intervention.text,
        "page": cites[0].page if cites else None,
        "quote_sids": tuple(c.sid for c in cites),
        "quote": " ".join(c.text for c in cites),
        "intent": intervention.intent,
    }


def record_decision(
    document: str, conversation: str, turn: int, decision: Decision
) -> DecisionRecord:
    """The decisions.jsonl line; ``turn`` is the fed turn (the verdict is on that turn)."""
    intervention = decision.intervention
    claim = decision.claim or (intervention.claim if intervention else "")
    return DecisionRecord(
        document=document, conversation=conversation, turn=turn,
        action=decision.action, claim=claim, reason=decision.reason,
        latency_ms=dict(decision.latency_ms), claim_id=decision.claim_id,
        **intervention_fields(intervention),  # type: ignore[arg-type]
    )  # fmt: skip


def deliver(backbone: ReplayBackbone, intervention: Intervention, turn: Turn) -> None:
    seconds = len(intervention.text.split()) / SPEECH_WORDS_PER_SECOND
    end = turn.end + seconds
    receipt = PlaybackReceipt(intervention.id, ReceiptStatus.FINISHED, seconds, 0, end)
    backbone.on_delivered(intervention, receipt)


def feed_turn(
    backbone: ReplayBackbone, document: str, conversation: str, turn: Turn
) -> DecisionRecord:
    """One turn through the backbone; a failure becomes a silent line with its reason."""
    try:
        if turn.direct:
            started = time.perf_counter()
            answer = backbone.answer_direct(turn)
            elapsed = (time.perf_counter() - started) * 1000
            decision = Decision(
                turn.index,
                "speak" if answer.text else "silent",
                "direct",
                answer,
                answer.claim,
                {"direct": elapsed},
            )
        else:
            decision = backbone.on_turn(turn)
    except Exception as exc:  # noqa: BLE001 - one bad turn must not end a long run
        log.warning("%s/%s turn %d failed: %s", document, conversation, turn.index, exc)
        return DecisionRecord(
            document,
            conversation,
            turn.index,
            "silent",
            reason=f"error: {type(exc).__name__}: {exc}",
        )
    if decision.action == "speak" and decision.intervention is not None:
        deliver(backbone, decision.intervention, turn)
    return record_decision(document, conversation, turn.index, decision)


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[], None]]:
    from tqdm import tqdm

    with tqdm(total=total, unit="turn", disable=not enabled, dynamic_ncols=True) as bar:
        yield lambda: bar.update(1)


def replay(
    benchmark: BenchmarkSet,
    out_dir: Path,
    factory: BackboneFactory,
    limit: int | None = None,
    progress: bool = True,
    resume: bool = False,
) -> list[DecisionRecord]:
    """Replay every conversation; writes and returns the decisions.

    With ``resume``, conversations already complete in ``decisions.jsonl`` are kept and
    skipped; a conversation cut off midway is replayed from its start.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "decisions.jsonl"
    done = completed_conversations(benchmark, path, limit) if resume else {}
    names = {case.name for case in benchmark.documents}
    # Lines of documents outside this run (a --documents subset) stay in the file.
    kept = [r for r in read_decisions(path) if r.document not in names] if done else []
    todo = [(case, conversation) for case in benchmark.documents
            for conversation in case.conversations
            if (case.name, conversation.name) not in done]  # fmt: skip
    records = kept + [r for lines in done.values() for r in lines]
    total = sum(len(c.turns[:limit]) for _, c in todo)
    with path.open("w", encoding="utf-8") as sink, _progress(total, progress) as step:
        for record in records:
            _write(sink, record)
        for case, conversation in todo:
            backbone = factory(case.document)
            previous_end = 0.0
            for script in conversation.turns[:limit]:
                turn = to_turn(script, previous_end)
                previous_end = turn.end
                record = feed_turn(backbone, case.name, conversation.name, turn)
                _write(sink, record)
                records.append(record)
                step()
            _close(backbone)
    return records


def completed_conversations(
    benchmark: BenchmarkSet, path: Path, limit: int | None
) -> dict[tuple[str, str], list[DecisionRecord]]:
    """Decisions of the conversations a previous run finished, by (document, conversation)."""
    if not path.is_file():
        return {}
    by_key: dict[tuple[str, str], list[DecisionRecord]] = {}
    for record in read_decisions(path):
        by_key.setdefault((record.document, record.conversation), []).append(record)
    done = {}
    for case in benchmark.documents:
        for conversation in case.conversations:
            key = (case.name, conversation.name)
            wanted = [t.turn for t in conversation.turns[:limit]]
            if sorted(r.turn for r in by_key.get(key, [])) == wanted:
                done[key] = by_key[key]
    return done


def _write(sink: IO[str], record: DecisionRecord) -> None:
    sink.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
    sink.flush()


def _close(backbone: object) -> None:
    close = getattr(backbone, "close", None)
    if callable(close):
        close()
