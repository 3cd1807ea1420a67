"""Retrieval recall on the dev set: does the evidence sentence rank in the top k?

For every gap / wrong / self_correction event, query with the trigger turn plus the turn
before it (``Retriever.search_many``) and find the rank of the sentence that holds the
event's evidence. Prints recall@1/@5/@8 per event type and overall; writes JSON.

    python benchmarks/retrieval_recall.py [--dev ../shared/benchmark/dev] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.document import DocumentIndex, open_document  # noqa: E402
from app.document.retrieval import Retriever  # noqa: E402
from app.embedding import get_embedder  # noqa: E402

TYPES = ("gap", "wrong", "self_correction")
KS = (1, 5, 8)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def evidence_sids(index: DocumentIndex, evidence: str) -> set[int]:
    """Sentences that contain the evidence (or that the evidence contains)."""
    want = _norm(evidence)
    return {
        s.sid
        for s in index.sentences
        if want in _norm(s.text) or (len(s.text) > 40 and _norm(s.text) in want)
    }


def _document(folder: Path) -> Path:
    for name in ("document.pdf", "document.txt", "document.md"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"no document in {folder}")


def _turns(folder: Path, conversation: str) -> dict[int, str]:
    lines = (folder / f"{conversation}.jsonl").read_text().splitlines()
    return {t["turn"]: t["text"] for t in map(json.loads, lines) if t}


def evaluate(dev: Path) -> list[dict]:
    embedder = get_embedder()
    manifest = json.loads((dev / "manifest.json").read_text())
    rows = []
    for name in manifest["documents"]:
        folder = dev / name
        index = open_document(_document(folder))
        retriever = Retriever(index, embedder)
        for line in (folder / "events.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event["type"] not in TYPES:
                continue
            turns = _turns(folder, event["conversation"])
            onset = event["onset_turn"]
            trigger = turns.get(onset, event["trigger"])
            previous = turns.get(onset - 1, "")
            gold = evidence_sids(index, event["evidence"])
            ranked = [sid for sid, _ in retriever.search_many([trigger, previous], k=max(KS))]
            rank = next((i + 1 for i, sid in enumerate(ranked) if sid in gold), None)
            rows.append(
                {"id": event["id"], "type": event["type"], "rank": rank, "found": bool(gold)}
            )
    return rows


def evaluate_qa(qa: Path, shared: Path) -> list[dict]:
    """Direct questions (not used for tuning): query with the question alone."""
    embedder = get_embedder()
    retrievers: dict[str, tuple[DocumentIndex, Retriever]] = {}
    rows = []
    for line in qa.read_text().splitlines():
        item = json.loads(line)
        if item["document"] not in retrievers:
            index = open_document(shared / item["document"])
            retrievers[item["document"]] = (index, Retriever(index, embedder))
        index, retriever = retrievers[item["document"]]
        gold = evidence_sids(index, item["evidence"])
        ranked = [sid for sid, _ in retriever.search(item["question"], k=max(KS))]
        rank = next((i + 1 for i, sid in enumerate(ranked) if sid in gold), None)
        rows.append({"id": item["id"], "type": "qa", "rank": rank, "found": bool(gold)})
    return rows


def summarise(rows: list[dict]) -> dict[str, dict]:
    groups = {t: [r for r in rows if r["type"] == t] for t in TYPES}
    groups["gap+wrong"] = [r for r in rows if r["type"] in ("gap", "wrong")]
    groups["overall"] = [r for r in rows if r["type"] in TYPES]
    groups["qa (held out)"] = [r for r in rows if r["type"] == "qa"]
    table = {}
    for group, members in groups.items():
        n = len(members)
        table[group] = {"n": n} | {
            f"recall@{k}": (
                sum(1 for r in members if r["rank"] and r["rank"] <= k) / n if n else 0.0
            )
            for k in KS
        }
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=REPO.parent / "shared" / "benchmark" / "dev")
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks" / "results" / "retrieval_recall.json"
    )
    parser.add_argument("--qa", type=Path, help="qa-dev.jsonl (default: beside --dev)")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = evaluate(args.dev)
    qa = args.qa or args.dev.parent / "qa-dev.jsonl"
    if qa.exists():
        rows += evaluate_qa(qa, args.dev.parent.parent)
    table = summarise(rows)
    print(f"{'type':<16}{'n':>4}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    for group, stats in table.items():
        cells = "".join(f"{stats[f'recall@{k}']:>8.2f}" for k in KS)
        print(f"{group:<16}{stats['n']:>4}{cells}")
    for row in rows:
        if row["type"] in TYPES and (not row["rank"] or row["rank"] > 5):
            print(f"  outside top 5: {row['id']} ({row['type']}) rank={row['rank']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"dev": str(args.dev), "summary": table, "events": rows}
    report["seconds"] = round(time.perf_counter() - started, 1)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out} ({report['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
