"""Make a broad replay benchmark set (BENCHMARK.md layout) from the public data.

    python benchmarks/make_set.py --out ~/.cache/jarvis/broad --seed 0 [--documents 48]

Documents from COVID-QA, ArgSciChat, CMU DoG and the two ACL papers, events made from
the data's own question/answer pairs, talk from the data's real conversations, an
off-document track of meeting excerpts, a tuning / check split (tune.txt, check.txt)
and a quick subset of the check half (quick.txt). The same seed writes the same bytes.
Prints the set's summary (also written to summary.json).

    jarvis replay DIR --documents-from DIR/check.txt --out runs/check
    jarvis qa DIR/qa-check.jsonl --out runs/qa-check
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.sets.build import SetOptions, make_set  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="set folder (replaced)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--documents", type=int, default=SetOptions.documents)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the public data")
    parser.add_argument("--off-document-turns", type=int, default=SetOptions.off_document_turns)
    parser.add_argument("--quick-events", type=int, default=SetOptions.quick_events)
    parser.add_argument("--name", default="", help="set name (default broad-s<seed>)")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"no data folder at {args.data} (pass --data)")
    options = SetOptions(args.documents, args.seed, args.off_document_turns, args.quick_events,
                         args.name)
    report = make_set(args.data, args.out.expanduser(), options)
    print(json.dumps(report, indent=2))
    if report["problems"]:
        print(f"{len(report['problems'])} problem(s) in the set", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
