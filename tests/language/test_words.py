from __future__ import annotations

import pytest

from app.language.words import repeated_run


@pytest.mark.parametrize(("text", "run"), [
    ("About 8000 people were infected and died, 8000 people were infected and died.",
     "8000 people were infected and died"),
    ("It has 85 teachers, 85 teachers, 85 teachers, 85 teachers.",
     "85 teachers 85 teachers 85 teachers"),
    ("The number of cases and the number of deaths both rose.", ""),
    ("Two weeks, two weeks.", ""),  # shorter than a run
])
def test_a_stretch_said_twice_in_one_sentence(text: str, run: str) -> None:
    assert repeated_run(text) == run
