"""The evaluator over the real backbone, the 0.5B GGUF and MiniLM on the tiny set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import cli
from app.eval.records import read_decisions
from tests.eval import tiny_set

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _needs_the_real_stack() -> None:
    from app.models import resolve

    resolve("llm-0.5b")  # the embedded weights must be installed (installers/setup-embedded.sh)


def test_replay_three_turns_with_the_real_backbone(tmp_path: Path) -> None:
    root = tiny_set.write_set(tmp_path / "tiny")
    out = tmp_path / "run"
    argv = ["replay", str(root), "--out", str(out), "--model", "llm-0.5b", "--limit", "3",
            "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 0
    decisions = read_decisions(out / "decisions.jsonl")
    assert [(d.conversation, d.turn) for d in decisions] == [
        (c, t) for c in ("main", "resolved") for t in range(3)
    ]
    for d in decisions:
        assert d.action in ("speak", "silent") and d.reason
        assert not d.reason.startswith("error"), d.reason
        if d.spoke:
            assert d.text and d.page == 1
    ordinary = [d for d in decisions if (d.conversation, d.turn) not in tiny_set.BACKCHANNELS]
    assert all(d.total_latency_ms > 0 for d in ordinary)  # the monitor ran on each
    report = json.loads((out / "report.json").read_text())
    assert report["ordinary_turns"] == 5
    assert report["latency_ms"]["p50_ms"] > 0
    assert (out / "report.png").stat().st_size > 0


def test_qa_one_question_with_the_real_backbone(tmp_path: Path) -> None:
    root = tiny_set.write_set(tmp_path / "tiny")
    out = tmp_path / "qa"
    argv = ["qa", str(root / "qa.jsonl"), "--out", str(out), "--model", "llm-0.5b",
            "--limit", "1", "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 0
    (item,) = [json.loads(line) for line in (out / "qa.jsonl").read_text().splitlines()]
    assert item["action"] in ("answer", "abstain", "skip"), item["text"]
    assert item["total_ms"] > 0
    if item["action"] == "answer":
        assert item["ttft_ms"] is not None and item["ttft_ms"] <= item["total_ms"]
        assert item["quote_sids"] and item["page"] == 1
