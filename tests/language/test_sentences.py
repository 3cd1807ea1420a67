"""The one sentence splitter: talk, answers and document text end their sentences alike."""

from __future__ import annotations

import pytest

from app.language.sentences import sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("It compares two systems. Then it stops.", ["It compares two systems.", "Then it stops."]),
        ("We saw problems. Next one.", ["We saw problems.", "Next one."]),  # not "ms."
        ("No. It was twelve.", ["No.", "It was twelve."]),  # a spoken "No." ends
        ("See item No. 5 in the list.", ["See item No. 5 in the list."]),
        ("Thanks, Dr. Lee. Go on.", ["Thanks, Dr. Lee.", "Go on."]),
        ("Smith et al. found it. Fine.", ["Smith et al. found it.", "Fine."]),
        ("Use a tool, e.g. a parser. Done.", ["Use a tool, e.g. a parser.", "Done."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("The value is 3.5 here. Next", ["The value is 3.5 here.", "Next"]),
        ("  spaced   out.   again ", ["spaced   out.", "again"]),
        ("", []),
        ("   ", []),
    ],
)
def test_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected
