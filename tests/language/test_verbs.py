"""The light verb check that the utterance and the defect count share."""

from __future__ import annotations

import pytest

from app.language.verbs import looks_verbless


@pytest.mark.parametrize(("sentence", "verbless"), [
    ("The trial lasted a year.", False),  # an -ed form
    ("Patients were treated early.", False),  # an auxiliary
    ("They're in the spring cohort.", False),  # a contracted verb
    ("About the diet, the volunteers in the spring.", True),
    ("In a large-scale trial of a vector-based vaccine.", True),  # -ed in a compound
    ("A well-being score for the volunteers.", True),
    ("The red spring bed.", True),  # -ed / -ing endings without a verb stem
    ("In this work we propose a curriculum for annotators.", False),  # after a pronoun
    ("A protein which activates the inflammasome early.", False),  # after a relative
    ("A way to quickly train annotators.", False),  # an infinitive
    ("A trip to the lake with them.", True),  # "to" before a function word
    ("Two words.", False),  # too short to judge
    ("Всё это было давно и неправда.", False),  # not Latin script: not judged
])
def test_looks_verbless(sentence: str, verbless: bool) -> None:
    assert looks_verbless(sentence) is verbless
