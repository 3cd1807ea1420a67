"""An answer is spoken as the document's only when a sentence it can cite carries it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.backbone.grounding import grounded_sids
from app.document import DocumentIndex, Sentence

DOC = DocumentIndex(
    Path("paper.pdf"), "0" * 64, "Paper", 1,
    [Sentence(0, "Wuhan saw clusters of unusual pneumonia in December.", 1, ()),
     Sentence(1, "Authorities are building a 1000 bed hospital in Wuhan in 10 days.", 1, ())],
)
QUESTION = "How big was the temporary hospital built in Wuhan City for treating patients?"


@pytest.mark.parametrize(("text", "cited", "question", "expected"), [
    # most words echo the question; what it claims (1000 beds) is in sentence 1
    ("The temporary hospital built in Wuhan City for treating patients has 1000 beds.",
     [1], QUESTION, (1,)),
    # without the question the echoed words drown the claim
    ("The temporary hospital built in Wuhan City for treating patients has 1000 beds.",
     [1], "", ()),
    # the model cited the wrong sentence: the carrying candidate is cited instead
    ("It has 1000 beds.", [0], QUESTION, (1,)),
    # a number no sentence gives is never spoken
    ("The temporary hospital has 1200 beds.", [1], QUESTION, ()),
    # a yes/no answer only echoes the question: then all its words count
    ("Yes, the hospital is being built in Wuhan.", [1], "Is the hospital built in Wuhan?",
     (1,)),
    ("Yes, the hospital is being built in Beijing.", [1], "Is the hospital built in Beijing?",
     ()),
])
def test_answer_words_echoed_from_the_question_do_not_count(text, cited, question, expected):
    assert grounded_sids(DOC, text, cited, [0, 1], question=question) == expected
