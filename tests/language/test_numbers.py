"""Quantities said and written: a value said with fewer decimals rounds to the written one."""

from __future__ import annotations

import pytest

from app.language.numbers import joined_decimals, quantities


@pytest.mark.parametrize(
    ("said", "written", "rounds"),
    [
        ("about two degrees", "2.1 degrees", True),  # a whole number for a decimal
        ("3% of cases", "3.4% of cases", True),
        ("2.5 hours", "2.46 hours", True),
        ("2 degrees", "2.6 degrees", False),  # 2.6 rounds to 3
        ("40 sites", "41 sites", False),  # same precision: a different value
        ("2.1 degrees", "2 degrees", False),  # more decimals than written is no rounding
        ("27 million papers", "26.7M papers", False),  # a scale applies: not compared
    ],
)
def test_a_value_said_with_fewer_decimals_rounds_to_the_written_one(
        said: str, written: str, rounds: bool) -> None:
    assert quantities(said)[0].rounds_to(quantities(written)[0]) is rounds


@pytest.mark.parametrize(("text", "year"), [
    ("The survey ran in 2019.", True), ("It covered 2,019 households.", False),
    ("They counted 1950 birds.", True),  # a plain integer in range reads as a year
    ("About 2,056 clicks were logged.", False), ("It cost 2019%.", False),
])
def test_a_year_is_a_plain_four_digit_integer(text: str, year: bool) -> None:
    [q] = quantities(text)
    assert q.year is year


@pytest.mark.parametrize(
    ("heard", "read"),
    [
        ("They train on 1. 4 million files.", "They train on 1.4 million files."),
        ("One, four million files with metadata.", "1.4 million files with metadata."),
        ("about 2. 5% of them", "about 2.5% of them"),
        ("We had 12. 5 of them", "We had 12. 5 of them"),  # two digits: no decimal split
        ("In 2019, 40 sites joined.", "In 2019, 40 sites joined."),
        ("It ran 1.5. 2 weeks later it ended.", "It ran 1.5. 2 weeks later it ended."),
    ],
)
def test_a_decimal_the_recognizer_split_is_read_as_one_number(heard: str, read: str) -> None:
    assert joined_decimals(heard) == read
