"""The meeting summary against an outside reference: QMSum test meetings (transcripts as
text, no audio, no document) are written as session records, summarised by the same code
as ``jarvis summarize``, and scored against QMSum's general-query answer ("Summarize the
whole meeting") with ROUGE-1/2/L (``rouge-score``, stemmed F1).

Besides ROUGE, per meeting: the share of what the model wrote (points, merged points and
action items) that its cited turns carry (the deterministic overlap check every statement
passes before it is shown; the rest is dropped), the statements and action items kept,
the model calls and the wall time on this machine.

    python benchmarks/summary_qmsum.py [--meetings IS1003a ES2011a] [--llm llm-1.5b]
        [--threads 2] [--data ../shared/data/qmsum/test] [--out FILE]

Prints a table, writes benchmarks/results/summary_qmsum.json and each summary as
benchmarks/results/summary_qmsum/<meeting>.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.eval.replay import SPEECH_WORDS_PER_SECOND  # noqa: E402
from app.session.record import SessionRecord  # noqa: E402
from app.settings import LLMSettings  # noqa: E402
from app.summary.meeting import read_meeting  # noqa: E402
from app.summary.render import to_markdown  # noqa: E402
from app.summary.summarize import MeetingSummary, summarize  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "qmsum" / "test"
RESULTS = REPO / "benchmarks" / "results"
# The smallest test meetings: the CPU is shared, and an hour of talk is many model calls.
MEETINGS = ("IS1003a", "ES2011a", "ES2004a")
GAP_SECONDS = 0.5  # silence between turns on the made-up clock

_MARKER = re.compile(r"\{[a-z]+\}")  # {vocalsound}, {disfmarker}, {gap}, ...
_SPACED = re.compile(r"\s+([.,?!;:])")


def spoken_text(content: str) -> str:
    """A QMSum line as a recogniser would give it: no annotation marks, no space before
    punctuation."""
    text = _SPACED.sub(r"\1", _MARKER.sub(" ", content))
    return " ".join(text.split()).strip(" ,")


def write_record(meeting: dict[str, Any], path: Path) -> Path:
    """The transcript as a session record (turn entries on a clock of speaking time)."""
    record = SessionRecord(path)
    record.append("session_started", document=None, source="qmsum")
    clock, index = 0.0, 0
    for line in meeting["meeting_transcripts"]:
        text = spoken_text(str(line.get("content") or ""))
        if not text:
            continue
        length = max(len(text.split()) / SPEECH_WORDS_PER_SECOND, 0.5)
        record.append("turn", speaker=str(line.get("speaker") or "?"), text=text,
                      start=round(clock, 2), end=round(clock + length, 2), index=index)
        clock += length + GAP_SECONDS
        index += 1
    record.close()
    return path


def reference(meeting: dict[str, Any]) -> str:
    """The answer to the first general query (QMSum's whole-meeting summary)."""
    return str(meeting["general_query_list"][0]["answer"])


def summary_text(summary: MeetingSummary) -> str:
    return " ".join(p.text for p in summary.points)


def score(summary: MeetingSummary, gold: str) -> dict[str, float]:
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    found = scorer.score(gold, summary_text(summary))
    return {name: round(value.fmeasure, 4) for name, value in found.items()}


def run_one(name: str, data: Path, llm: Any, context_tokens: int, folder: Path,
            examples: Path) -> dict[str, Any]:
    meeting_json = json.loads((data / f"{name}.json").read_text(encoding="utf-8"))
    meeting = read_meeting(write_record(meeting_json, folder / f"{name}.jsonl"))
    words = sum(len(t.text.split()) for t in meeting.turns)
    started = time.perf_counter()

    def progress(done: int, total: int, what: str) -> None:
        print(f"  {name} [{done}/{total}] {what} ({time.perf_counter() - started:.0f} s)",
              flush=True)

    summary = summarize(meeting, llm, context_tokens=context_tokens, progress=progress)
    examples.mkdir(parents=True, exist_ok=True)
    (examples / f"{name}.md").write_text(to_markdown(summary), encoding="utf-8")
    calls = summary.calls
    return {
        "meeting": name,
        "turns": len(meeting.turns),
        "words": words,
        **score(summary, reference(meeting_json)),
        "written": summary.written,
        "supported_share": round(summary.supported_share, 4),
        "statements": len(summary.points),
        "decided": sum(p.kind == "decided" for p in summary.points),
        "action_items": len(summary.actions),
        "open_questions": len(summary.questions),
        "model_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "problems": list(summary.problems),
        "seconds": round(summary.seconds, 1),
        "summary": summary_text(summary),
        "reference": reference(meeting_json),
        # What the model wrote, kept or not, so the overlap check can be re-run offline.
        "drafts": [{"kind": d.kind, "text": d.text, "turns": list(d.turns)}
                   for d in summary.drafts],
        "dropped": [{"text": text, "why": why} for text, why in summary.dropped],
        "actions": [{"who": a.who, "what": a.what, "when": a.when, "turn": a.turn}
                    for a in summary.actions],
    }


COLUMNS = ("meeting", "words", "rouge1", "rouge2", "rougeL", "supported_share", "statements",
           "action_items", "model_calls", "seconds")


def table(rows: list[dict[str, Any]]) -> str:
    lines = [" | ".join(COLUMNS), " | ".join("---" for _ in COLUMNS)]
    for row in rows:
        lines.append(" | ".join(f"{row[c]:.3f}" if isinstance(row[c], float) and c != "seconds"
                                else str(row[c]) for c in COLUMNS))
    return "\n".join(lines)


def mean(rows: list[dict[str, Any]], key: str) -> float:
    return round(sum(float(r[key]) for r in rows) / len(rows), 4) if rows else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--meetings", nargs="+", default=list(MEETINGS))
    parser.add_argument("--llm", default="llm-1.5b")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=RESULTS / "summary_qmsum.json")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"QMSum test data not found at {args.data}", file=sys.stderr)
        return 2
    from app.llm import open_backend

    settings = LLMSettings(threads=args.threads)
    started = time.perf_counter()
    llm = open_backend(args.llm, settings)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in args.meetings:
                rows.append(run_one(name, args.data, llm, settings.context_tokens, Path(tmp),
                                    args.out.parent / "summary_qmsum"))
                print(table(rows[-1:]).splitlines()[-1], flush=True)
    finally:
        llm.close()
    total = time.perf_counter() - started
    print()
    print(table(rows))
    means = {k: mean(rows, k) for k in ("rouge1", "rouge2", "rougeL", "supported_share")}
    print(f"mean: {means}; {sum(r['action_items'] for r in rows)} action items; "
          f"{total:.0f} s in all ({args.threads} llama.cpp threads)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"model": args.llm, "threads": args.threads,
                                    "seconds": round(total, 1), "mean": means, "meetings": rows},
                                   indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
