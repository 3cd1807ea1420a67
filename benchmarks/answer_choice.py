"""Which sentence answers a question: the answer-sentence choice on a set's QA items.

The open-question detector and the direct answer's quote both say the sentence that
``answer_sentence`` picks from those retrieved for the question. For every QA item this
retrieves as the direct path does and asks whether the chosen sentence holds the gold
answer (or is an evidence sentence); an item without a gold answer (asked of a document
that lacks it) is right when nothing is chosen. Rows: the whole choice, the choice
without the definition step (``retrieved_answer``), and retrieval's first sentence; the
same for the questions asking what a term is. No model call: about a minute a half.

    python benchmarks/answer_choice.py ~/.cache/jarvis/broad/qa-check.jsonl [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from retrieval_recall import evidence_sids  # noqa: E402

from app.backbone.context import EvidenceFinder  # noqa: E402
from app.backbone.detectors import (  # noqa: E402
    DocumentFacts,
    answer_sentence,
    retrieved_answer,
)
from app.backbone.proposals import Proposer  # noqa: E402
from app.backbone.retrieval import default_search  # noqa: E402
from app.document import open_document  # noqa: E402
from app.embedding import get_embedder  # noqa: E402
from app.eval.dataset import QAItem, read_qa  # noqa: E402
from app.language.definitions import defined_term  # noqa: E402
from app.language.values import contains_any  # noqa: E402
from app.settings import Settings  # noqa: E402

Choice = Callable[[str, Sequence[Any], DocumentFacts], Any]
CHOICES: dict[str, Choice] = {
    "answer_sentence": answer_sentence,
    "without definitions": retrieved_answer,
    "retrieval's first": lambda asked, pool, facts: pool[0] if pool else None,
}


def outcome(item: QAItem, chosen: Any, evidence: set[int]) -> str:
    """right / none / wrong for one chosen sentence."""
    golds = [g for g in (item.gold, *item.other_refs) if g]
    if chosen is None:
        return "right" if not golds else "none"
    if golds and (chosen.sid in evidence or contains_any(chosen.text, golds)):
        return "right"
    return "wrong"


def evaluate(items: Sequence[QAItem]) -> list[dict[str, Any]]:
    settings, embedder = Settings(), get_embedder()
    rows = []
    for path in dict.fromkeys(item.document for item in items):
        index: Any = open_document(path, settings.document)
        facts = DocumentFacts(index.sentences)
        finder = EvidenceFinder(default_search(index, embedder), settings.llm.focused_top_k)
        proposer = Proposer(index, finder, facts, similarity=embedder.cosine)
        for item in (i for i in items if i.document == path):
            pool = proposer.sentences(proposer.for_question(0, item.question, ""))
            evidence = evidence_sids(index, item.evidence) if item.evidence else set()
            rows.append({
                "id": item.id, "definition": defined_term(item.question) is not None,
                **{name: outcome(item, choose(item.question, pool, facts), evidence)
                   for name, choose in CHOICES.items()},
            })
    return rows


def table(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    groups = {"all": rows, "definition questions": [r for r in rows if r["definition"]]}
    return {group: {name: {k: sum(r[name] == k for r in members)
                           for k in ("right", "none", "wrong")}
                    for name in CHOICES}
            for group, members in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qa", type=Path, nargs="+", help="QA files (JSON lines)")
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / "answer_choice.json")
    args = parser.parse_args()
    items = [item for path in args.qa for item in read_qa(path)]
    rows = evaluate(items)
    result = table(rows)
    for group, by_choice in result.items():
        size = sum(by_choice["answer_sentence"].values())
        print(f"\n{group} ({size} items)")
        print(f"{'choice':22} {'right':>6} {'none':>6} {'wrong':>6}")
        for name, counts in by_choice.items():
            print(f"{name:22} {counts['right']:6} {counts['none']:6} {counts['wrong']:6}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"files": [str(p) for p in args.qa], "table": result,
                                    "items": rows}, indent=1))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
