"""The ablation table: replays of one set with and without a mechanism, side by side.

    python benchmarks/ablation.py BASE_DIR OTHER_DIR... [--out ablation.json]

Each folder holds a ``jarvis replay`` report (``report.json``); the first is the whole
pipeline, each other one names what it left out in its meta (``--without``). Prints one row
per run: per event type the share addressed and the share handled well, then unprompted
interventions per 100 ordinary turns, false corrections, utterance defects and the
monitor calls made; the last column is the change in good handling, summed over the event
types, against the whole pipeline (negative: the mechanism pays).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

TYPES = ("gap", "wrong", "misattribution", "self_correction", "resolved_question",
         "unanswerable")  # fmt: skip
SHORT = {"gap": "gap", "wrong": "wrong", "misattribution": "misattr",
         "self_correction": "self-corr", "resolved_question": "resolved",
         "unanswerable": "unanswerable"}  # fmt: skip


def row(report: dict[str, Any]) -> dict[str, Any]:
    """The figures of one report the table shows."""
    by_type = {t["type"]: t for t in report.get("types", [])}
    stages = report.get("latency_ms", {}).get("stages", {})
    return {
        "without": report.get("meta", {}).get("without") or [],
        "types": {name: {"events": t["events"], "addressed_pct": t["addressed_pct"],
                         "good_pct": t["good_pct"]}
                  for name, t in by_type.items()},  # fmt: skip
        "unprompted_per_100_turns": report.get("unprompted_per_100_turns"),
        "false_corrections": report.get("false_corrections", {}).get("count"),
        "utterance_defects": report.get("utterance_defects", {}).get("count"),
        "spoken": report.get("utterance_defects", {}).get("of_spoken"),
        "monitor_calls": stages.get("monitor", {}).get("calls"),
    }


def good_events(r: dict[str, Any]) -> float:
    """Events handled well, counted over the types (good share times events)."""
    return sum((t["good_pct"] or 0.0) * t["events"] / 100.0 for t in r["types"].values())


def table(rows: list[dict[str, Any]]) -> str:
    head = ["run", *(SHORT[t] for t in TYPES), "unprompted/100", "false corr.", "defects",
            "monitor calls", "Δ good events"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    base = good_events(rows[0]) if rows else 0.0
    for r in rows:
        cells = ["whole pipeline" if not r["without"] else "without " + ", ".join(r["without"])]
        for name in TYPES:
            t = r["types"].get(name)
            cells.append("–" if t is None else
                         f"{_pct(t['addressed_pct'])} / {_pct(t['good_pct'])} ({t['events']})")
        cells += [_n(r["unprompted_per_100_turns"]), _n(r["false_corrections"]),
                  f"{_n(r['utterance_defects'])} of {_n(r['spoken'])}", _n(r["monitor_calls"]),
                  f"{good_events(r) - base:+.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _n(value: Any) -> str:
    return "–" if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="replay output folders, whole first")
    parser.add_argument("--out", type=Path, help="JSON file for the rows")
    args = parser.parse_args(argv)
    rows = [row(json.loads((d / "report.json").read_text(encoding="utf-8"))) for d in args.runs]
    print("cells: addressed % / good % (events)")
    print(table(rows))
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
