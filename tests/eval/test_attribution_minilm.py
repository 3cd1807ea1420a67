"""Attribution with the product's MiniLM similarity gives the hand-counted scores too."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.eval.dataset import read_set
from app.eval.scoring import score_replay
from tests.eval import tiny_set

pytestmark = pytest.mark.slow


def test_minilm_attribution_on_the_tiny_set(tmp_path: Path) -> None:
    from app import embedding
    cosine = embedding.get_embedder().cosine
    bench = read_set(tiny_set.write_set(tmp_path / "tiny"))
    report = score_replay(bench, tiny_set.planned_decisions(), cosine)
    got = {
        t.type: (t.events, t.addressed_pct, t.correct_when_spoken_pct, t.good_pct,
                 t.interrupted_pct, t.fabricated_pct, t.within_2_turns_pct)
        for t in report.types
    }  # fmt: skip
    assert got == tiny_set.EXPECTED_TYPES
    assert report.unprompted == tiny_set.EXPECTED_UNPROMPTED
    # Off-topic talk scores far below the threshold; the on-topic claim far above it.
    assert cosine("the room booked for next week",
                  "the share of roofs that were retrofitted") < 0.35  # fmt: skip
    assert cosine("the number of people recruited", "the number of participants recruited") > 0.6
