"""Replay scoring on the tiny hand-made set, with scores worked out by hand."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from app.eval.dataset import read_set
from app.eval.records import DecisionRecord
from app.eval.report import replay_markdown
from app.eval.scoring import (
    ScoringSettings,
    is_backchannel,
    lexical_similarity,
    percentile,
    score_replay,
    trigger_turns,
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
        "quote", "claim", "reason", "latency_ms", "claim_id", "intent",
    ]  # fmt: skip
    older = {k: v for k, v in record.to_json().items() if k not in ("claim_id", "intent")}
    assert DecisionRecord.from_json(older).claim_id is None  # runs before the field
    assert DecisionRecord.from_json(older).intent == ""


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


# --- false corrections --------------------------------------------------------------------

SURVEY = (
    "The green roof survey recruited 120 households across the northern district.",
    "Each household was visited by a trained surveyor using the RoofScan tablet software.",
    "Indoor temperatures fell by 12% during the summer months after installation.",
    "The city council funded 40% of the installation costs through a grant.",
)
SURVEY_TURNS = (
    "So the survey recruited 120 households across the district.",
    "Yes, and that is a lot of households for one district.",
    "Indoor temperatures fell by 40% over the summer.",
    "Yeah, a 40% drop in summer temperatures indoors.",
    "How did they visit every household, with some app?",
    "They say the council funded 40% of the installation costs.",
)


@pytest.fixture
def survey(tmp_path: Path):
    root = tmp_path / "survey"
    (root / "p01").mkdir(parents=True)
    (root / "manifest.json").write_text('{"name": "survey", "documents": ["p01"]}')
    (root / "p01" / "document.txt").write_text(" ".join(SURVEY), encoding="utf-8")
    lines = [json.dumps({"turn": i, "speaker": "S1", "text": t})
             for i, t in enumerate(SURVEY_TURNS)]
    (root / "p01" / "main.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_set(root)


def _said(turn: int, intent: str, cid: int, text: str = "About that, ...") -> DecisionRecord:
    return DecisionRecord("p01", "main", turn, "speak", "proactive", text, claim_id=cid,
                          reason="gate fired: persistence 2", intent=intent)


def _waiting(turn: int, cid: int | None, reason: str = "gate: waiting 1/2") -> DecisionRecord:
    return DecisionRecord("p01", "main", turn, "silent", reason=reason, claim_id=cid)


SURVEY_DECISIONS = [
    _waiting(0, 1), _said(1, "correct", 1),  # the speaker was right on turn 0
    _waiting(2, 2), _said(3, "correct", 2),  # 40% is the funding share, not the drop
    _said(4, "missing", 3),  # a gap contradicts nobody
    _said(5, "not_in_paper", 4),  # the document does state the council's 40%
]


def test_false_corrections_are_counted_from_the_trigger_turns(survey) -> None:
    report = score_replay(survey, SURVEY_DECISIONS, lexical_similarity)
    assert report.corrections == 3
    assert [(f.turn, f.trigger_turns) for f in report.false_corrections] == [
        (1, (0, 1)), (5, (5,))]
    first, last = report.false_corrections
    assert first.reason == "veto: the document states the speaker's value '120' [S0]"
    assert last.reason == "veto: the document states the speaker's value '40%' [S3]"
    data = report.to_json()["false_corrections"]
    assert (data["count"], data["of_corrections"]) == (2, 3)
    assert data["lines"][0]["trigger_turns"] == [0, 1]
    markdown = replay_markdown(report, {})
    assert "False corrections (the speakers said what a document sentence about it says): " \
           "2 of 3 spoken corrections" in markdown
    assert "| p01 | main | 1 | 0, 1 | the document states the speaker's value '120' [S0] |" \
           in markdown


def test_a_correction_of_a_wrong_value_is_not_false(survey) -> None:
    right = [_waiting(2, 2), _said(3, "correct", 2)]
    assert score_replay(survey, right, lexical_similarity).false_corrections == ()


def test_trigger_turns_skip_resets_and_stop_at_the_last_intervention() -> None:
    decisions = [_waiting(0, 1), _said(1, "correct", 1), _waiting(2, 1),
                 _waiting(3, 1, "monitor: on_progress; self-repair closed C2"),
                 _waiting(4, 7), _said(5, "correct", 1)]
    assert trigger_turns(decisions[-1], decisions) == (2, 5)
    assert trigger_turns(dataclasses.replace(decisions[-1], claim_id=None), decisions) == (5,)


def test_lines_without_an_intent_are_checked_as_corrections(survey, tiny) -> None:
    older = [dataclasses.replace(d, intent="") for d in SURVEY_DECISIONS]
    report = score_replay(survey, older, lexical_similarity)
    # The gap on turn 4 is checked too; its turn states no value.
    assert report.corrections == 4 and len(report.false_corrections) == 2
    tiny_report = _score(tiny, tiny_set.planned_decisions())
    assert (tiny_report.corrections, tiny_report.false_corrections) == (8, ())


def test_documents_are_opened_only_to_check_a_correction(survey) -> None:
    def refuse(path: Path) -> object:
        raise AssertionError(f"opened {path}")

    gaps = [_said(4, "missing", 3)]
    assert score_replay(survey, gaps, lexical_similarity, documents=refuse).corrections == 0
