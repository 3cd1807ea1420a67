"""Quantities, names and terms used by retrieval's lexical side."""

from __future__ import annotations

import pytest

from app.document.lexical import names, terms
from app.language.numbers import numeric_values as quantities
from app.language.stems import suffix_stem as stem


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("resulting in 37M unique paper nodes", {37e6}),
        ("thirty-seven million of them", {37e6}),
        ("it succeeds for 76% of the documents", {76.0}),
        ("seventy six percent, really", {76.0}),
        ("a dataset of 4,113 clicks", {4113.0}),
        ("an ensemble of fifteen models", {15.0}),
        ("one hundred and twenty participants", {120.0}),
        ("one of them said so", set()),  # bare "one" is a pronoun in talk
        ("about 8000 people [11] .", {8000.0}),  # citation numbers are not quantities
        ("the score went from 3.5 to 4.25", {3.5, 4.25}),
        ("v1.1.2 of the components", set()),
        ("twelve meetings, four rooms", {12.0, 4.0}),
    ],
)
def test_quantities(text: str, expected: set[float]) -> None:
    assert quantities(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("So they run every page through Apache Tika.", {"apache", "tika"}),
        ("PDFBox does the parsing. Then it is labelled.", {"pdfbox"}),
        ("Yeah, and MERS-CoV emerged in Saudi Arabia.", {"mers-cov", "saudi", "arabia"}),
        ("Right. So how many clicks was that?", set()),
        ("They used SPECTER's embeddings with an SVM.", {"specter", "svm"}),
    ],
)
def test_names(text: str, expected: set[str]) -> None:
    assert names(text) == expected


def test_terms_are_stemmed_content_words() -> None:
    assert terms("The papers were labelled; labeling works.") == ["paper", "label", "label", "work"]
    assert stem("studies") == "study"
    assert "the" not in terms("the the the")
