"""Claim ledger and gate driven by scripted verdict sequences, decision by decision.

Similarity here is a deterministic word-overlap function (the logic under test is the
ledger's, not the embedder's); test_identity.py runs the same rules on real MiniLM.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from app.backbone.identity import claim_key, key_overlap
from app.backbone.ledger import ClaimLedger, Delivery
from app.backbone.verdict import Verdict
from app.settings import LedgerSettings, Patience


def overlap(a: str, b: str) -> float:
    return key_overlap(claim_key(a), claim_key(b))


def wrong(claim: str = "the library used to parse PDF pages", sids=(43,)) -> Verdict:
    return Verdict("incorrect_info", claim, predicted_answer="PDFBox", sids=tuple(sids))


def gap(claim: str = "the number of unique paper nodes", sids=(22,)) -> Verdict:
    return Verdict("missing_info", claim, predicted_answer="37M", sids=tuple(sids))


def quiet(status: str = "on_progress", claim: str = "") -> Verdict:
    return Verdict(status, claim)


Step = tuple[Verdict | None, Sequence[int]]  # (monitor verdict, cids the self-repair closes)


def run(script: Sequence[Step], settings: LedgerSettings | None = None,
        ledger: ClaimLedger | None = None) -> list[str]:
    """The harness's order per turn: forget, observe, close, gate; speak = fired."""
    ledger = ledger or ClaimLedger(settings or LedgerSettings(), overlap)
    out = []
    for turn, (verdict, closes) in enumerate(script):
        ledger.forget(turn)
        observed = ledger.observe(turn, verdict) if verdict else None
        for cid in closes:
            ledger.close(cid, turn, "S1")
        claim = observed.claim if observed else None
        if verdict is None or not verdict.actionable or claim is None:
            out.append("silent")
            continue
        result = ledger.gate(claim, turn)
        if result.fire:
            ledger.fired(claim, turn)
            out.append("speak")
        else:
            out.append(result.reason)
    return out


def test_wrong_claim_adopted_for_two_turns_fires_on_the_second():
    assert run([(wrong(), ()), (wrong(), ())]) == ["gate: waiting 1/2", "speak"]


def test_self_correction_two_turns_later_stays_silent():
    script = [(wrong(), ()), (None, ()), (wrong(), [1]), (quiet(), ()), (quiet(), ())]
    assert run(script) == [
        "gate: waiting 1/2", "silent", "self-repair closed C1", "silent", "silent",
    ]


def test_resolved_question_stays_silent():
    script = [(gap(), ()), (quiet("on_progress", "the number of unique paper nodes"), [1]),
              (gap(), ())]
    out = run(script)
    assert out[:2] == ["gate: waiting 1/2", "silent"]
    # Asked again right after the answer: reopened at 1, and the resolution's cooldown holds.
    assert out[2] == "gate: waiting 1/2"


def test_reworded_claim_above_threshold_keeps_its_count():
    first = "the number of unique paper nodes after deduplication"
    reworded = "how many unique paper nodes remain after deduplication"
    assert overlap(first, reworded) >= 0.6
    assert run([(gap(first, ()), ()), (gap(reworded, ()), ())]) == ["gate: waiting 1/2", "speak"]


def test_reworded_claim_below_threshold_starts_a_new_claim():
    script = [(gap("the number of unique paper nodes", ()), ()),
              (gap("which GPU trained the model", ()), ())]
    assert run(script) == ["gate: waiting 1/2", "gate: waiting 1/2"]


def test_same_evidence_sentence_matches_whatever_the_wording():
    script = [(wrong("the PDF parser", (43,)), ()),
              (wrong("what converts pages to tokens", (43,)), ())]
    assert run(script) == ["gate: waiting 1/2", "speak"]


def test_non_actionable_report_on_the_claim_resets_the_count():
    script = [(wrong(), ()), (quiet("on_progress", "the library used to parse PDF pages"), ()),
              (wrong(), ()), (wrong(), ())]
    assert run(script) == ["gate: waiting 1/2", "silent", "gate: waiting 1/2", "speak"]


def test_unrelated_turn_leaves_the_count():
    script = [(wrong(), ()), (quiet("off_document"), ()),
              (quiet("on_progress", "room booking"), ()), (wrong(), ())]
    assert run(script) == ["gate: waiting 1/2", "silent", "silent", "speak"]


@pytest.mark.parametrize("patience,expected", [
    (Patience.ENTHUSIASTIC, ["speak"]),
    (Patience.DEFAULT, ["gate: waiting 1/2", "speak"]),
    (Patience.DEFERENT, ["gate: waiting 1/3", "gate: waiting 2/3", "speak"]),
])
def test_patience_presets(patience, expected):
    settings = LedgerSettings(patience=patience)
    assert run([(wrong(), ())] * len(expected), settings) == expected


def test_cooldown_after_an_intervention_blocks_every_claim_for_six_turns():
    other = "the share of documents labelled"
    script = [(wrong(), ()), (wrong(), ())] + [(wrong(other, (50,)), ())] * 7
    out = run(script)
    assert out[1] == "speak"
    assert out[2] == "gate: waiting 1/2"
    assert out[3:8] == ["cooldown"] * 5  # turns 2..7 are the six turns after turn 1
    assert out[8] == "speak"


def test_repeated_wrong_assertion_is_corrected_again_after_cooldown():
    out = run([(wrong(), ())] * 10)
    assert out[1] == "speak"
    assert out[2:8] == ["gate: waiting 1/2"] + ["cooldown"] * 5
    assert out[8] == "speak"


def test_question_already_answered_is_not_answered_again():
    out = run([(gap(), ())] * 10)
    assert out[1] == "speak"
    assert set(out[2:]) == {"already spoken on turn 1"}


def test_rollbacks_keep_the_claim_open_then_count_as_spoken():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    claim = ledger.observe(0, wrong()).claim
    ledger.observe(1, wrong())
    assert ledger.gate(claim, 1).fire
    assert ledger.rollback(claim, 1) == "rollback 1/2"
    ledger.observe(2, wrong())
    assert ledger.gate(claim, 2).fire  # fires again on the next detection, no cooldown
    assert ledger.rollback(claim, 2) == "rollback 2/2: counts as spoken"
    ledger.observe(3, wrong())
    assert not ledger.gate(claim, 3).fire
    assert "rollbacks" in ledger.gate(claim, 3).reason


def test_closed_claim_is_forgotten_after_three_turns_and_then_starts_fresh():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.observe(0, wrong())
    ledger.close(1, 0, "S2")
    for turn in (1, 2, 3):
        ledger.forget(turn)
        assert 1 in ledger.claims
    ledger.forget(4)
    assert ledger.claims == {}


def test_closed_claim_asserted_again_reopens_at_one():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.observe(0, wrong())
    ledger.close(1, 1, "S2")
    again = ledger.observe(2, wrong())
    assert again.change == "reopen" and again.claim.persistence == 1 and again.claim.open
    assert again.claim.opened_turn == 2  # the fix before it cannot close it again


def test_open_claim_is_forgotten_after_ten_silent_turns():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.observe(0, gap())
    ledger.forget(10)
    assert 1 in ledger.claims
    ledger.forget(11)
    assert ledger.claims == {}


def test_mention_keeps_an_open_claim_alive():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.observe(0, gap())
    ledger.observe(8, quiet("stale", "the number of unique paper nodes"))
    ledger.forget(15)
    assert 1 in ledger.claims


def test_near_duplicate_on_the_same_claim_within_the_window():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.record_delivery(Delivery(5, 1, "correct", "They used PDFBox, not Tika.", (43,)))
    assert ledger.near_duplicate(1, "They used PDFBox and not Tika.", 12) is not None
    assert ledger.near_duplicate(1, "They used PDFBox and not Tika.", 16) is None  # > 10 turns
    assert ledger.near_duplicate(2, "Labelling works on 76% of documents.", 12) is None


def test_fact_already_delivered_is_not_repeated_when_the_subtopic_returns():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    ledger.record_delivery(Delivery(11, 1, "missing", "37M unique paper nodes.", (22,)))
    assert ledger.already_delivered("missing", (22,)).turn == 11
    assert ledger.already_delivered("missing", (22, 30)) is None
    assert ledger.already_delivered("correct", (22,)) is None  # corrections repeat


def test_every_parameter_comes_from_settings():
    settings = dataclasses.replace(LedgerSettings(), cooldown_turns=2, max_rollbacks=1)
    out = run([(wrong(), ())] * 5, settings)
    assert out == ["gate: waiting 1/2", "speak", "gate: waiting 1/2", "cooldown", "speak"]


def test_a_claim_keeps_the_words_that_raised_it_as_its_evidence():
    ledger = ClaimLedger(LedgerSettings(), overlap)
    first = dataclasses.replace(wrong(), evidence="they parse pages with Apache Tika")
    later = dataclasses.replace(wrong(), evidence="yeah, Tika, and then the fonts")
    ledger.observe(0, first)
    ledger.observe(1, later)
    (claim,) = ledger.open_claims()
    assert claim.evidence == "they parse pages with Apache Tika" and claim.persistence == 2


def test_a_turn_that_lets_a_claim_stand_counts_like_a_mention() -> None:
    ledger = ClaimLedger(LedgerSettings(), overlap)
    claim = ledger.observe(3, wrong()).claim
    assert claim is not None and ledger.gate(claim, 3).reason == "gate: waiting 1/2"
    ledger.stood(claim, 4)
    assert (claim.persistence, claim.last_mention, claim.last_counted) == (2, 4, 4)
    # The turn counts, but its words are not the speakers' words on the claim.
    assert (claim.raised_turns, claim.stood_turns) == ([3], [4])
    assert ledger.gate(claim, 4).fire
    ledger.forget(14)  # forgetting counts from the turn that let it stand
    assert claim.cid in ledger.claims
    ledger.forget(15)
    assert claim.cid not in ledger.claims


def test_a_turn_of_the_same_batch_that_raised_the_claim_counts_once_in_order() -> None:
    ledger = ClaimLedger(LedgerSettings(), overlap)
    claim = ledger.observe(7, wrong()).claim
    assert claim is not None
    ledger.raised_by(claim, 6)
    ledger.raised_by(claim, 6)  # the same turn again: no second count
    assert (claim.raised_turns, claim.persistence, claim.last_counted) == ([6, 7], 2, 7)
    assert claim.opened_turn == 6
    assert ledger.gate(claim, 7).fire
    ledger.close(claim.cid, 8, "S2")
    ledger.raised_by(claim, 5)  # a closed claim is not counted
    assert (claim.raised_turns, claim.persistence) == ([6, 7], 0)
