"""live_meeting.py --replay-from: an earlier replay scored on exactly this run's turns."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.eval.dataset import read_set
from app.eval.scoring import lexical_similarity, score_replay
from tests.eval import tiny_set

REPO = Path(__file__).resolve().parents[2]


def _earlier(tmp_path: Path, limit: int | None) -> tuple[object, object]:
    sys.path[:0] = [str(REPO / "benchmarks")]
    from live_meeting import earlier_replay

    root = tiny_set.write_set(tmp_path / "tiny")
    benchmark = read_set(root)
    decisions = tiny_set.planned_decisions()
    folder = tmp_path / "replay"
    folder.mkdir()
    rows = [d.to_json() for d in decisions]
    rows.append({**rows[0], "document": "elsewhere"})  # another set's line is left out
    (folder / "decisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = argparse.Namespace(replay_from=folder, limit=limit)
    kept = [d for d in decisions if limit is None or d.turn < limit]
    return (earlier_replay(args, benchmark, lexical_similarity),
            score_replay(benchmark, kept, lexical_similarity))  # fmt: skip


def test_the_whole_earlier_replay_scores_as_the_replay_did(tmp_path: Path) -> None:
    got, want = _earlier(tmp_path, None)
    assert got == want


def test_a_limit_keeps_only_the_turns_this_run_played(tmp_path: Path) -> None:
    got, want = _earlier(tmp_path, 10)
    assert got == want
    whole, _ = _earlier(tmp_path / "whole", None)
    assert got != whole


def test_no_earlier_replay_is_none() -> None:
    sys.path[:0] = [str(REPO / "benchmarks")]
    from live_meeting import earlier_replay

    args = argparse.Namespace(replay_from=None, limit=None)
    assert earlier_replay(args, None, lexical_similarity) is None  # type: ignore[arg-type]
