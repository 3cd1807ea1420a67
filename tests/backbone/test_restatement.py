"""A restatement of a document sentence with one name or term swapped, on made-up text."""

from __future__ import annotations

import pytest

from app.backbone.restatement import Swap, swapped_term

SENTENCE = "Maria Lopez led the field survey in Oslo, with help from the ACME lab in 2019."


@pytest.mark.parametrize(
    ("said", "said_term", "document_term"),
    [
        # a person swapped at the start of the turn
        ("John Smith led the field survey in Oslo, with help from the ACME lab.",
         "John Smith", "Maria Lopez"),
        # a place mid-sentence, with a lead-in the document does not have
        ("I think Maria Lopez led the field survey in Bergen, with help from the ACME lab.",
         "Bergen", "Oslo"),
        # an acronym
        ("Maria Lopez led the field survey in Oslo, with help from the NASA lab in 2019.",
         "NASA", "ACME"),
    ],
)
def test_one_swapped_term_is_found(said: str, said_term: str, document_term: str) -> None:
    swap = swapped_term(said, SENTENCE)
    assert swap is not None and (swap.said, swap.document) == (said_term, document_term)


def test_a_word_with_a_capital_inside_is_a_term() -> None:
    swap = swapped_term("The enzymes are a family of anti-TNF proteins found in most plant cells.",
                        "The enzymes are a family of NumPy proteins found in most plant cells.")
    assert swap is not None and (swap.said, swap.document) == ("anti-TNF", "NumPy")


def test_a_code_with_digits_is_a_term() -> None:
    swap = swapped_term("The main results are listed in Table S4 of the appendix for all sites.",
                        "The main results are listed in Table S3 of the appendix for all sites.")
    assert swap == Swap("S4", "S3", 13)  # the 14 words less the swapped one


@pytest.mark.parametrize(
    "said",
    [
        SENTENCE,  # a faithful restatement
        "Maria Lopez led the field survey in Oslo.",  # a faithful piece of it
        # a misheard spelling of the same name
        "Maria Lopes led the field survey in Oslo, with help from the ACME lab.",
        # a different number is the number detector's business
        "Maria Lopez led the field survey in Oslo, with help from the ACME lab in 2018.",
        # two terms changed: a paraphrase about something else, not a restatement
        "John Smith led the field survey in Bergen, with help from the ACME lab.",
        # too little of the turn is the sentence's
        "Oslo is lovely in spring, and Bergen has better food and cheaper rent overall.",
        # the turn's term is one the sentence gives too
        "Maria Lopez led the field survey in ACME, with help from the ACME lab in 2019.",
        # a word that is not a name replaces a name
        "Maria Lopez led the field survey in town, with help from the ACME lab in 2019.",
    ],
)
def test_no_swap_where_the_turn_is_not_a_restatement_with_a_swapped_term(said: str) -> None:
    assert swapped_term(said, SENTENCE) is None
