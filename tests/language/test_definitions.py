"""Questions asking what a term is, and sentences defining a term: generic lines."""

from __future__ import annotations

import pytest

from app.language.definitions import defined_term, defines, first_defining


@pytest.mark.parametrize(("question", "term"), [
    ("What is ELISA?", "ELISA"),
    ("What are the biofilms?", "biofilms"),
    ("Okay, so what are gap junctions?", "gap junctions"),
    ("Could you tell me what is active learning?", "active learning"),
    ("We read the methods. What's a knockout mouse?", "knockout mouse"),
    ("What does BMI stand for?", "BMI"),
    ("What does attrition mean here?", "attrition"),
    ("What does attrition mean?", "attrition"),
    ("What was the result in 2019?", None),  # a number: not a term
    ("What are they based on?", None),  # function words
    ("What is the main cause of death in calves?", None),  # a question, not a term
    ("How many patients were enrolled?", None),
    ("Which vaccine did they use?", None),
    ("Is it a virus?", None),
])
def test_the_term_a_question_asks_to_define(question: str, term: str | None) -> None:
    assert defined_term(question) == term


@pytest.mark.parametrize(("term", "sentence", "expected"), [
    ("BMI", "Weight was adjusted for body mass index (BMI) at entry.", True),
    ("BMI", "Patients with a high BMI were excluded.", False),
    ("biofilms", "Biofilms are the layers bacteria build on a surface.", True),
    ("biofilm", "A biofilm is a layer of cells stuck to a surface.", True),
    ("biofilm", "Biofilms grew faster at higher temperatures.", False),
    ("biofilms", "Biofilms are hard to remove.", False),
    ("gap junctions", "They studied gap junctions, channels linking neighbouring cells, in mice.",
     True),
    ("gap junctions", "Tight junctions, gap junctions, desmosomes, and others were stained.",
     False),  # an item of a list is not being defined
    ("attrition", "Attrition refers to participants leaving a study early.", True),
    ("attrition", "This loss, known as attrition, biases the results.", True),
    ("ELISA", "ELISA, an assay detecting antibodies, was run twice.", True),
    ("ELISA", "ELISA (enzyme-linked immunosorbent assay) is a plate-based test.", True),
    ("spillover", "The team described 'spillover' where a virus jumps to a new host.", True),
    ("spillover", "Spillover was rare in the cohort.", False),
    ("cytokine", "Interleukin 6 acts as a cytokine in the early response.", False),
    ("IL-6", "IL-6 as one of the earliest cytokines starts the response.", True),
])
def test_a_sentence_defines_a_term(term: str, sentence: str, expected: bool) -> None:
    assert defines(term, sentence) is expected


def test_the_first_defining_sentence_is_chosen() -> None:
    lines = [
        (1, "Biofilms grew faster at higher temperatures."),
        (2, "A biofilm is a layer of cells stuck to a surface."),
        (3, "Biofilms are hard to remove."),
    ]
    assert first_defining("biofilm", lines) == 2
    assert first_defining("plankton", lines) is None
