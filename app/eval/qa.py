"""Direct-QA run and scoring (BENCHMARK.md "Direct QA").

Each item's question goes to ``Backbone.answer_direct`` as a wake-word turn on a fresh
backbone. Accuracy is gold containment (numbers as numbers) and token F1; the citation is
scored against the evidence sentence; TTFT is the first streamed delta with text. Every
answer given should cite a sentence, and its text passes the utterance defect checks.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.eval.dataset import QAItem
from app.eval.defects import check_utterance
from app.eval.replay import BackboneFactory, intervention_fields
from app.eval.scoring import percentile, share_pct
from app.eval.text import overlap_coefficient, token_f1
from app.events import AnswerDelta, Intervention, Turn
from app.language.sentences import sentences
from app.language.talk import is_abstention
from app.language.values import contains_value

log = logging.getLogger(__name__)

CITATION_HIT_OVERLAP = 0.8  # a cited sentence sharing this share of tokens is the evidence


@dataclass(frozen=True)
class QARecord:
    id: str
    document: str
    question: str
    gold: str
    answerable: bool
    action: str  # answer / abstain / skip / error
    text: str
    page: int | None
    quote_sids: tuple[int, ...]
    quote: str
    correct: bool
    f1: float
    citation_overlap: float | None  # None when nothing was cited or there is no evidence
    citation_hit: bool
    ttft_ms: float | None
    total_ms: float

    def to_json(self) -> dict[str, Any]:
        return vars(self) | {"quote_sids": list(self.quote_sids)}


def citation_scores(quotes: Sequence[str], evidence: str) -> tuple[float | None, bool]:
    """Best overlap of a cited sentence with the evidence, and whether one is the evidence."""
    if not quotes or not evidence.strip():
        return None, False
    best = max(overlap_coefficient(q, evidence) for q in quotes)
    hit = best >= CITATION_HIT_OVERLAP
    return round(best, 3), hit


def classify_answer(text: str, abstain_text: str) -> str:
    if not text.strip():
        return "skip"
    if text.strip() == abstain_text.strip() or is_abstention(text):
        return "abstain"
    return "answer"


def score_item(
    item: QAItem,
    answer: Intervention | None,
    ttft_ms: float | None,
    total_ms: float,
    abstain_text: str,
    error: str = "",
) -> QARecord:
    fields = intervention_fields(answer)
    text = str(fields.get("text", ""))
    action = "error" if error else classify_answer(text, abstain_text)
    quotes = [c.text for c in answer.citations] if answer else []
    overlap, hit = citation_scores(quotes, item.evidence)
    answered = action == "answer"
    return QARecord(
        id=item.id, document=str(item.document), question=item.question, gold=item.gold,
        answerable=item.answerable, action=action, text=text or error,
        page=fields.get("page"),  # type: ignore[arg-type]
        quote_sids=tuple(fields.get("quote_sids", ())),  # type: ignore[arg-type]
        quote=str(fields.get("quote", "")),
        correct=(answered and contains_value(text, item.gold)) if item.answerable
        else action in ("abstain", "skip"),
        f1=round(token_f1(text, item.gold), 3) if answered and item.answerable else 0.0,
        citation_overlap=overlap, citation_hit=hit,
        ttft_ms=None if ttft_ms is None else round(ttft_ms, 1), total_ms=round(total_ms, 1),
    )  # fmt: skip


def ask(backbone: Any, item: QAItem) -> tuple[Intervention, float | None, float]:
    """Ask one question; returns the answer, TTFT and total time in ms."""
    first: list[float] = []
    started = time.perf_counter()

    def on_delta(delta: AnswerDelta) -> None:
        if not first and delta.text.strip():
            first.append(time.perf_counter())

    question = Turn("S1", item.question, 0.0, 0.0, direct=True, index=0)
    answer = backbone.answer_direct(question, on_delta)
    ended = time.perf_counter()
    ttft = (first[0] - started) * 1000 if first else None
    return answer, ttft, (ended - started) * 1000


def run_qa(
    items: Sequence[QAItem],
    out_dir: Path,
    factory: BackboneFactory,
    abstain_text: str,
    progress: bool = True,
) -> list[QARecord]:
    from tqdm import tqdm

    out_dir.mkdir(parents=True, exist_ok=True)
    records = []
    with (out_dir / "qa.jsonl").open("w", encoding="utf-8") as sink:
        for item in tqdm(items, unit="question", disable=not progress, dynamic_ncols=True):
            record = _run_item(item, factory, abstain_text)
            sink.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            sink.flush()
            records.append(record)
    return records


def _run_item(item: QAItem, factory: BackboneFactory, abstain_text: str) -> QARecord:
    started = time.perf_counter()
    try:
        answer, ttft, total = ask(factory(item.document), item)
    except Exception as exc:  # noqa: BLE001 - one bad item must not end the run
        log.warning("QA item %s failed: %s", item.id, exc)
        elapsed = (time.perf_counter() - started) * 1000
        return score_item(
            item, None, None, elapsed, abstain_text, error=f"error: {type(exc).__name__}: {exc}"
        )
    return score_item(item, answer, ttft, total, abstain_text)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _ms(values: Sequence[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 1)


def summarise_qa(records: Sequence[QARecord]) -> dict[str, Any]:
    answerable = [r for r in records if r.answerable]
    unanswerable = [r for r in records if not r.answerable]
    cited = [r for r in answerable if r.citation_overlap is not None]
    answered = [r for r in records if r.action == "answer"]
    ttft = [r.ttft_ms for r in records if r.ttft_ms is not None]
    total = [r.total_ms for r in records if r.action != "error"]
    return {
        "items": len(records),
        "answerable": len(answerable),
        "accuracy_pct": share_pct(sum(r.correct for r in answerable), len(answerable)),
        "token_f1": _mean([r.f1 for r in answerable]),
        "citation_overlap": _mean([r.citation_overlap or 0.0 for r in cited]),
        "citation_hit_pct": share_pct(sum(r.citation_hit for r in cited), len(cited)),
        "cited_pct": share_pct(len(cited), len(answerable)),
        "abstention_pct": share_pct(sum(r.action == "abstain" for r in answerable),
                                    len(answerable)),
        "answers_cited_pct": share_pct(sum(bool(r.quote_sids) for r in answered),
                                       len(answered)),
        "answer_defects": answer_defects(answered),
        "unanswerable": len(unanswerable),
        "abstained_when_unanswerable_pct": share_pct(
            sum(r.correct for r in unanswerable), len(unanswerable)
        ),
        "errors": sum(r.action == "error" for r in records),
        "ttft_ms": {"p50": _ms(ttft, 50), "p95": _ms(ttft, 95)},
        "total_ms": {"p50": _ms(total, 50), "p95": _ms(total, 95)},
    }


def answer_defects(answered: Sequence[QARecord]) -> dict[str, Any]:
    """The utterance checks on the answers given (a clipped start, prompt text ...)."""
    found = [(r, check_utterance(r.text, sentences(r.quote) if r.quote else []))
             for r in answered]
    kinds = Counter(d.kind.value for _, defects in found for d in defects)
    return {"count": sum(kinds.values()), "of_answers": len(answered),
            "by_kind": dict(sorted(kinds.items())),
            "samples": [{"id": r.id, "text": r.text, "defects": [d.detail for d in defects]}
                        for r, defects in found if defects][:10]}  # fmt: skip


def read_qa_records(path: Path) -> list[QARecord]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            data["quote_sids"] = tuple(data.get("quote_sids") or ())
            records.append(QARecord(**{k: data.get(k) for k in QARecord.__dataclass_fields__}))
    return records
