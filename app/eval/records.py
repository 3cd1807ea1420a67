"""One line of ``decisions.jsonl``: the backbone's verdict on one replayed turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.eval.dataset import BenchmarkFormatError
from app.session.record import read_json_lines

FIELDS = (
    "document", "conversation", "turn", "action", "kind", "text", "page", "quote_sids",
    "quote", "claim", "reason", "latency_ms", "claim_id", "intent",
)  # fmt: skip


@dataclass(frozen=True)
class DecisionRecord:
    document: str
    conversation: str
    turn: int
    action: str  # "speak" or "silent"
    kind: str = ""  # "proactive" / "direct"; "" when silent
    text: str = ""
    page: int | None = None
    quote_sids: tuple[int, ...] = ()
    quote: str = ""
    claim: str = ""
    reason: str = ""
    latency_ms: dict[str, float] = field(default_factory=dict)
    claim_id: int | None = None  # the backbone's claim the verdict counted on, if any
    intent: str = ""  # of what was said: correct / missing / not_in_paper / answer / abstain

    @property
    def spoke(self) -> bool:
        return self.action == "speak"

    @property
    def total_latency_ms(self) -> float:
        return float(sum(self.latency_ms.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "conversation": self.conversation,
            "turn": self.turn,
            "action": self.action,
            "kind": self.kind,
            "text": self.text,
            "page": self.page,
            "quote_sids": list(self.quote_sids),
            "quote": self.quote,
            "claim": self.claim,
            "reason": self.reason,
            "latency_ms": {k: round(float(v), 1) for k, v in self.latency_ms.items()},
            "claim_id": self.claim_id,
            "intent": self.intent,
        }

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> DecisionRecord:
        page = record.get("page")
        latency = record.get("latency_ms") or {}
        return cls(
            document=str(record["document"]),
            conversation=str(record["conversation"]),
            turn=int(record["turn"]),
            action=str(record.get("action") or "silent"),
            kind=str(record.get("kind") or ""),
            text=str(record.get("text") or ""),
            page=page if isinstance(page, int) else None,
            quote_sids=tuple(int(s) for s in record.get("quote_sids") or ()),
            quote=str(record.get("quote") or ""),
            claim=str(record.get("claim") or ""),
            reason=str(record.get("reason") or ""),
            latency_ms={str(k): float(v) for k, v in latency.items()},
            claim_id=cid if isinstance(cid := record.get("claim_id"), int) else None,
            intent=str(record.get("intent") or ""),
        )


def read_decisions(path: Path) -> list[DecisionRecord]:
    """The verdicts of a run; a torn last line (the run was killed mid-write) is skipped
    with a warning, so ``--resume`` can go on. Damage anywhere else is a format error."""
    lines = read_json_lines(path)
    for line in lines.skipped:
        if not line.torn:
            raise BenchmarkFormatError(f"{path}:{line.number}: bad decision line ({line.why})")
    records = []
    for number, entry in lines.objects:
        try:
            records.append(DecisionRecord.from_json(entry))
        except (ValueError, KeyError, TypeError) as exc:
            raise BenchmarkFormatError(f"{path}:{number}: bad decision line ({exc})") from exc
    return records
