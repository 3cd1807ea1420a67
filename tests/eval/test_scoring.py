"""Replay scoring on the tiny hand-made set, with scores worked out by hand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.eval.dataset import read_set
from app.eval.records import DecisionRecord
from app.eval.scoring import (
    ScoringSettings,
    is_backchannel,
    lexical_similarity,
    percentile,
    score_replay,
)
from tests.eval import tiny_set


@pytest.fixture
def tiny(tmp_path: Path):
    return read_set(tiny_set.write_set(tmp_path / "tiny"))


def _score(tiny, decisions, **settings):
    return score_replay(tiny, decisions, lexical_similarity, ScoringSettings(**settings))


def test_per_type_scores_match_the_hand_count(tiny) -> None:
    report = _score(tiny, tiny_set.planned_decisions())
    got = {
        t.type: (t.events, t.addressed_pct, t.correct_when_spoken_pct, t.good_pct,
                 t.interrupted_pct, t.fabricated_pct, t.within_2_turns_pct)
        for t in report.types
    }  # fmt: skip
    assert got == tiny_set.EXPECTED_TYPES
    assert report.histogram == tiny_set.EXPECTED_HISTOGRAM


def test_per_event_outcomes(tiny) -> None:
    outcomes = {o.event_id: o for o in _score(tiny, tiny_set.planned_decisions()).outcomes}
    assert outcomes["d01-e01"].spoke_turns == (4,)
    assert outcomes["d01-e01"].turns_from_onset == 1
    assert outcomes["d01-e03"].spoke_turns == () and outcomes["d01-e03"].good
    assert outcomes["d01-e06"].spoke_turns == (44,)
    assert outcomes["d01-e06"].interrupted and not outcomes["d01-e06"].addressed
    assert outcomes["d01-e07"].spoke_turns == (5,) and not outcomes["d01-e07"].good
    assert outcomes["d01-e08"].good
    assert all(o.covered for o in outcomes.values())


def test_unprompted_rate_counts_ordinary_turns_only(tiny) -> None:
    report = _score(tiny, tiny_set.planned_decisions())
    assert report.ordinary_turns == tiny_set.EXPECTED_ORDINARY
    assert report.unprompted == tiny_set.EXPECTED_UNPROMPTED
    assert report.unprompted_per_100 == 3.0  # 2 / 66
    assert report.interventions == 8


def test_latency_sums_stages_per_turn(tiny) -> None:
    latency = _score(tiny, tiny_set.planned_decisions()).latency
    # 58 silent ordinary turns at 100 ms, 8 spoken at 500 ms; backchannels carry none.
    assert (latency.p50_ms, latency.p95_ms, latency.mean_ms) == (100.0, 500.0, 148.5)
    assert latency.stages["monitor"] == {"calls": 66, "p50_ms": 100.0, "p95_ms": 100.0,
                                         "share_pct": 67.3}  # fmt: skip
    assert latency.stages["generate"]["calls"] == 8
    assert latency.stages["generate"]["share_pct"] == 32.7


def test_decisions_of_documents_outside_the_set_are_not_counted(tiny) -> None:
    # A run of more documents rescored on a subset (--documents): same figures as before.
    other = [dataclasses.replace(d, document="d99", latency_ms={"monitor": 1.0})
             for d in tiny_set.planned_decisions()]
    report = _score(tiny, tiny_set.planned_decisions() + other)
    assert report.interventions == 8
    assert report.latency.stages["monitor"]["calls"] == 66
    assert report.latency.p50_ms == 100.0


def _silent(decisions: list[DecisionRecord]) -> list[DecisionRecord]:
    return [dataclasses.replace(d, action="silent", kind="", text="", claim="")
            for d in decisions]  # fmt: skip


def test_speech_after_the_window_is_unprompted(tiny) -> None:
    # The gap opens at 3, so its window ends at 8; speaking on it at 9 is too late.
    late = DecisionRecord("d01", "main", 9, "speak", "proactive",
                          "The study recruited 120 participants.",
                          claim="the number of participants recruited")  # fmt: skip
    decisions = [late if (d.conversation, d.turn) == ("main", 9) else d
                 for d in _silent(tiny_set.planned_decisions())]  # fmt: skip
    report = _score(tiny, decisions)
    gap = next(t for t in report.types if t.type == "gap")
    assert gap.addressed_pct == 0.0 and gap.good_pct == 0.0
    assert report.unprompted == 1


def test_silence_everywhere(tiny) -> None:
    report = _score(tiny, _silent(tiny_set.planned_decisions()))
    good = {t.type: t.good_pct for t in report.types}
    assert good == {"gap": 0.0, "wrong": 0.0, "misattribution": 0.0, "self_correction": 100.0,
                    "resolved_question": 100.0, "unanswerable": 100.0}  # fmt: skip
    assert all(t.correct_when_spoken_pct is None for t in report.types)
    assert report.unprompted == 0


def test_attribution_threshold_decides_between_event_and_unprompted(tiny) -> None:
    # "The study ran in Porto, not Madrid." shares half its content words with its claim.
    decisions = [dataclasses.replace(d, claim="") for d in tiny_set.planned_decisions()]
    loose = _score(tiny, decisions, attribution_threshold=0.5)
    strict = _score(tiny, decisions, attribution_threshold=0.51)
    wrong = {r: next(t for t in rep.types if t.type == "wrong")
             for r, rep in (("loose", loose), ("strict", strict))}  # fmt: skip
    assert wrong["loose"].addressed_pct == 100.0
    assert wrong["strict"].addressed_pct == 0.0
    assert strict.unprompted > loose.unprompted


def test_partial_replay_scores_only_reached_events(tiny) -> None:
    decisions = [d for d in tiny_set.planned_decisions() if d.turn <= 15]
    report = _score(tiny, decisions)
    covered = sorted(o.event_id for o in report.outcomes if o.covered)
    # Both reached turn 15: e01 (window to 8), e02 (to 15), e07 (to 8); e08 ends at 16.
    assert covered == ["d01-e01", "d01-e02", "d01-e07"]
    assert {t.type for t in report.types} == {"gap", "wrong", "resolved_question"}


def test_direct_answers_are_not_unprompted(tiny) -> None:
    decisions = tiny_set.planned_decisions()
    decisions = [dataclasses.replace(d, kind="direct") if d.turn == 9 else d for d in decisions]
    assert _score(tiny, decisions).unprompted == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Mm-hm.", True), ("Yeah, right.", True), ("Mmm, okay.", True), ("Uh-huh.", True),
     ("Yeah, I did.", False), ("Right, NAACL 2018.", False), ("", False),
     ("yeah yeah okay right sure", False)],
)  # fmt: skip
def test_backchannels(text: str, expected: bool) -> None:
    assert is_backchannel(text) is expected


def test_percentile_matches_linear_interpolation() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([float(v) for v in range(1, 101)], 95) == pytest.approx(95.05)


def test_lexical_similarity() -> None:
    assert lexical_similarity("the city where the study ran", "The study ran in Lisbon") == 2 / 3
    assert lexical_similarity("the number of participants", "120 participants in number") == 1.0
    assert lexical_similarity("the cost of sensors", "drainage pipes") == 0.0
    assert lexical_similarity("", "anything") == 0.0


def test_record_round_trip() -> None:
    record = dataclasses.replace(tiny_set.planned_decisions()[4], claim_id=3)
    assert DecisionRecord.from_json(record.to_json()) == record
    assert list(record.to_json()) == [
        "document", "conversation", "turn", "action", "kind", "text", "page", "quote_sids",
        "quote", "claim", "reason", "latency_ms", "claim_id",
    ]  # fmt: skip
    older = {k: v for k, v in record.to_json().items() if k != "claim_id"}
    assert DecisionRecord.from_json(older).claim_id is None  # runs before the field


def test_claim_matching_counts_repeated_reports_landing_on_the_same_claim(tiny) -> None:
    def silent(turn: int, cid: int | None) -> DecisionRecord:
        return DecisionRecord("d01", "main", turn, "silent", claim_id=cid)

    # gap d01-e01 (turns 3-8): claim 1, 1, then a new claim 2 (one break in three repeats);
    # wrong d01-e02 (turns 10-15): 4, 4; a claim outside every window does not count
    decisions = [silent(3, 1), silent(4, None), silent(5, 1), silent(6, 2), silent(7, 2),
                 silent(10, 4), silent(12, 4), silent(25, 9)]
    matching = _score(tiny, decisions).claim_matching
    assert (matching.repeats, matching.same_claim) == (4, 3)
    assert matching.rate == 75.0
    assert _score(tiny, tiny_set.planned_decisions()).claim_matching.rate is None
