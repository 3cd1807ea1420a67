"""Number normalisation and text matching used by the scorers."""

from __future__ import annotations

import pytest

from app.eval.text import overlap_coefficient, token_f1
from app.language.numbers import canonical_tokens
from app.language.talk import is_abstention
from app.language.values import contains_value

SAME_NUMBER = [
    ("120", "120"),
    ("120", "120.0"),
    ("120", "one hundred twenty"),
    ("120", "one hundred and twenty"),
    ("120", "a hundred and twenty"),
    ("1200", "1,200"),
    ("37M", "37 million"),
    ("37M", "thirty-seven million"),
    ("37M", "thirty seven million"),
    ("37M", "37,000,000"),
    ("37 million", "37m"),
    ("1.5B", "1.5 billion"),
    ("5k", "five thousand"),
    ("76%", "76 percent"),
    ("76%", "76 per cent"),
    ("76%", "seventy-six percent"),
    ("44.6%", "44.6 %"),
    ("15", "fifteen"),
    ("2,300,400", "two million three hundred thousand four hundred"),
    ("0.5", ".5"),
]

DIFFERENT = [
    ("120", "12"),
    ("120", "1200"),
    ("37M", "37"),
    ("37M", "thirty-seven thousand"),
    ("76%", "72 percent"),
    ("15", "fifty"),
    ("21", "twenty"),
    ("1.1", "11"),
]


@pytest.mark.parametrize(("gold", "spoken"), SAME_NUMBER)
def test_numbers_written_differently_are_equal(gold: str, spoken: str) -> None:
    assert canonical_tokens(gold) == canonical_tokens(spoken)
    assert contains_value(f"They say it was {spoken} in the end.", gold)


@pytest.mark.parametrize(("gold", "spoken"), DIFFERENT)
def test_different_numbers_do_not_match(gold: str, spoken: str) -> None:
    assert not contains_value(f"They say it was {spoken} in the end.", gold)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Twenty one and twenty two", ["21", "and", "22"]),
        ("one two three", ["1", "2", "3"]),
        ("nineteen eighty", ["19", "80"]),
        ("The PDFBox library3.", ["pdfbox", "library3"]),
        ("SARS-CoV-2 in 2019", ["sars", "cov", "2", "in", "2019"]),
        ("12GB of memory", ["12gb", "of", "memory"]),
        ("the title and the abstract", ["title", "and", "abstract"]),
        ("ﬁfteen", ["15"]),  # NFKC ligature
    ],
)
def test_canonical_tokens(text: str, tokens: list[str]) -> None:
    assert canonical_tokens(text) == tokens


def test_value_must_appear_as_a_whole_phrase() -> None:
    assert contains_value("Only the title and the abstract are used.", "title and abstract")
    assert not contains_value("Only the abstract and the title are used.", "title and abstract")
    assert contains_value("They used Apache's PDFBox, not Tika.", "PDFBox")
    assert not contains_value("They used PDF boxes.", "PDFBox")
    assert not contains_value("anything", "")


def test_token_f1() -> None:
    assert token_f1("120", "one hundred twenty") == 1.0
    assert token_f1("They recruited 120 participants", "120") == pytest.approx(0.4)
    assert token_f1("it lasted 3 months", "six months") == pytest.approx(1 / 3)
    assert token_f1("nothing shared", "120") == 0.0
    assert token_f1("", "") == 1.0


def test_overlap_coefficient() -> None:
    evidence = "This labeling process succeeds for 76% of the documents."
    assert overlap_coefficient("This labeling process succeeds for 76% of the documents.",
                               evidence) == 1.0
    assert overlap_coefficient("succeeds for 76 percent", evidence) == 1.0
    assert overlap_coefficient("Something else entirely", evidence) == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "That isn't covered in the document.",
        "The paper doesn't report any A/B test.",
        "The document does not say how long it takes.",
        "It is not stated in the paper.",
        "That result comes from a different paper.",
        "There's no mention of a clickthrough rate in this paper.",
        "That's not in the document.",
        "The authors never give a processing time.",
    ],
)
def test_abstentions(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize(
    "text",
    [
        "The study recruited 120 participants.",
        "Actually no the paper says 76%.",
        "They used PDFBox, not Tika.",
        "Only the title and abstract are used, not the full text.",
    ],
)
def test_answers_are_not_abstentions(text: str) -> None:
    assert not is_abstention(text)


@pytest.mark.parametrize(
    "text",
    [
        "This paper does not describe any author disambiguation classifier.",
        "The review says timing mattered but gives no dose.",
    ],
)
def test_more_abstention_forms(text: str) -> None:
    assert is_abstention(text)
