"""Claim identity across reworded turns, with the real MiniLM embedder."""

from __future__ import annotations

import pytest

from app.backbone.identity import Identity, claim_key, match_score
from app.backbone.ledger import ClaimLedger
from app.backbone.verdict import Verdict
from app.settings import LedgerSettings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cosine():
    from app.embedding import get_embedder

    return get_embedder().cosine


def known(text: str, sids=(), key: str = "") -> Identity:
    return Identity(frozenset(sids), key or claim_key(text), (text,))


def test_reworded_claim_above_the_cosine_threshold_is_the_same_point(cosine):
    a = "the number of unique paper nodes after deduplication"
    b = "how many unique paper nodes remain after deduplication"
    assert cosine(a, b) >= 0.6
    same, rule = match_score((), "", b, known(a, key="x"), cosine, 0.6)
    assert same and rule == "cosine"


def test_different_points_stay_apart_even_on_the_same_topic(cosine):
    a = "the number of unique paper nodes after deduplication"
    b = "the GPU used for training"
    assert cosine(a, b) < 0.6
    assert match_score((), claim_key(b), b, known(a), cosine, 0.6) == (False, "")


def test_drifting_wording_with_the_same_evidence_sentence_keeps_identity(cosine):
    a = "the PDF parsing library"
    b = "what tool turns the pages into token sequences"
    assert cosine(a, b) < 0.6  # free text alone would lose the count ...
    assert match_score((60,), claim_key(b), b, known(a, (60,)), cosine, 0.6) == (True, "evidence")


def test_normalised_key_matches_when_evidence_is_missing(cosine):
    a = "share of documents the labelling succeeds on"
    b = "documents labelling succeeds share"
    same, rule = match_score((), claim_key(b), b, known(a), cosine, 0.6)
    assert same and rule in ("key", "cosine")
    assert claim_key(a) == claim_key("the documents share the labelling succeeds on")


def test_ledger_counts_a_drifting_claim_to_the_gate(cosine):
    ledger = ClaimLedger(LedgerSettings(), cosine)
    wordings = ["the library used to convert PDF pages into tokens",
                "which PDF library the input layer uses"]
    first = ledger.observe(19, Verdict("incorrect_info", wordings[0], sids=(60,)))
    second = ledger.observe(20, Verdict("incorrect_info", wordings[1], sids=(60,)))
    assert first.claim is second.claim and second.claim.persistence == 2
    assert ledger.gate(second.claim, 20).fire
