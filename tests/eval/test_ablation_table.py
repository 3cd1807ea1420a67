"""benchmarks/ablation.py: the rows and the table it makes of replay reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import ablation  # noqa: E402


def _report(without: list[str], gap_good: float, wrong_good: float) -> dict:
    return {
        "meta": {"without": without},
        "types": [
            {"type": "gap", "events": 10, "addressed_pct": 90.0, "good_pct": gap_good},
            {"type": "wrong", "events": 4, "addressed_pct": 50.0, "good_pct": wrong_good},
        ],
        "unprompted_per_100_turns": 0.5,
        "false_corrections": {"count": 1},
        "utterance_defects": {"count": 2, "of_spoken": 9},
        "latency_ms": {"stages": {"monitor": {"calls": 40}}},
    }


def test_each_run_is_a_row_with_its_change_in_events_handled_well(tmp_path: Path) -> None:
    runs = []
    for name, report in [("whole", _report([], 90.0, 50.0)),
                         ("no-name", _report(["detector-name"], 80.0, 25.0))]:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "report.json").write_text(json.dumps(report))
        runs.append(str(folder))
    out = tmp_path / "rows.json"
    assert ablation.main([*runs, "--out", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["without"] for r in rows] == [[], ["detector-name"]]
    text = ablation.table(rows).splitlines()
    assert text[2].startswith("| whole pipeline | 90 / 90 (10) | 50 / 50 (4) | – |")
    assert text[2].endswith("| 0.5 | 1 | 2 of 9 | 40 | +0 |")
    # 1 gap and 1 wrong event fewer handled well without the detector
    assert text[3].startswith("| without detector-name | 90 / 80 (10) | 50 / 25 (4) |")
    assert text[3].endswith("| -2 |")
