from __future__ import annotations

import pytest

from app.language.words import content_tokens, repeated_run


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


@pytest.mark.parametrize(("text", "kept", "dropped"), [
    ("It was reported to the WHO on 31 December.", {"who"}, set()),
    ("Who reported it to the WHO?", {"who"}, set()),
    ("Who reported it?", set(), {"who"}),
    ("An OR of 2 for smokers.", {"or"}, set()),
    ("Cases or deaths in the US", {"us"}, {"or"}),
    ("I saw it.", set(), {"i"}),
])
def test_a_stopword_written_in_capitals_is_a_name(text: str, kept: set[str],
                                                  dropped: set[str]) -> None:
    found = set(content_tokens(text))
    assert kept <= found
    assert not dropped & found
