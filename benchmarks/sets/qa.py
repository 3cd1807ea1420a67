"""Direct questions of a set's documents beside its replay events (BENCHMARK.md "Direct QA").

Answerable items are the data's own question/answer pairs of the document (build.qa_items);
unanswerable ones are the questions its unanswerable events ask: a real question of another
document of the same kind, drawn and checked absent here by events.unanswerable. They carry
no gold, evidence or page, so `jarvis qa` scores them as abstention on unanswerable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.sets.events import EventType


def unanswerable_items(document: str, events: Sequence[dict[str, Any]],
                       with_answerable: bool) -> list[dict[str, Any]]:
    """The document's unanswerable event questions as QA items; none for a document
    without answerable items, so the direct-QA set stays on the same documents."""
    if not with_answerable:
        return []
    return [
        {"id": f"{event['id']}-unanswerable", "document": f"{document}/document.pdf",
         "question": event["trigger"], "gold": "", "other_refs": [], "evidence": "",
         "page": None}
        for event in events if event["type"] == EventType.UNANSWERABLE.value
    ]  # fmt: skip


def counts(items: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many items, and how many of them are answerable."""
    return {"items": len(items), "answerable": sum(bool(i["gold"]) for i in items)}
