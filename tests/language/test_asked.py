"""What a question asks for, and whether a sentence gives it: generic questions."""

from __future__ import annotations

import pytest

from app.language.asked import Asked, asked_for, gives, states_date


@pytest.mark.parametrize(("question", "kind"), [
    ("When was the virus first identified?", Asked.DATE),
    ("Hey Jarvis, when did the trial start?", Asked.DATE),
    ("So, when did they publish it?", Asked.DATE),
    ("Where and when was it first seen?", Asked.DATE),
    ("In what year did the survey take place?", Asked.DATE),
    ("Which month were the samples taken?", Asked.DATE),
    ("How many patients were enrolled?", Asked.QUANTITY),
    ("Jarvis, how much did the building cost?", Asked.QUANTITY),
    ("How long did the follow-up last?", Asked.QUANTITY),
    ("What percentage of the staff were vaccinated?", Asked.SHARE),
    ("What was the proportion of severe cases?", Asked.SHARE),
    ("What is the number of beds in the ward?", Asked.QUANTITY),
    ("What happens when the cell divides?", Asked.ANY),
    ("Is the drug effective when taken orally?", Asked.ANY),
    ("Who funded the study?", Asked.ANY),
    ("Which antivirals did they test?", Asked.ANY),
    ("Why did they stop the trial?", Asked.ANY),
    ("We met last week. When did the second phase begin?", Asked.DATE),
    ("When does the next phase begin?", Asked.ANY),
    ("So when was it reported? Do they give the date?", Asked.DATE),
    ("It was reported, right? Do they give the date?", Asked.DATE),
    ("When is viral shedding highest?", Asked.ANY),
    ("When we met, you said it was fine. Who wrote it?", Asked.ANY),
])
def test_the_opening_of_the_question_says_what_it_asks_for(question, kind):
    assert asked_for(question) is kind


@pytest.mark.parametrize("sentence", [
    "It was first identified in 2002.",
    "The samples were taken in March.",
    "Cases rise every winter.",
    "It appeared in the 1960s.",
    "The strains diverged between 100 and 840 years ago.",
    "The trial ended two weeks later.",
    "It was reported on 3 May.",
])
def test_dates_and_times(sentence):
    assert states_date(sentence)


@pytest.mark.parametrize("sentence", [
    "The virus may spread through droplets.",
    "The 21st century saw two new coronaviruses emerge.",
    "The samples were sequenced and compared.",
])
def test_sentences_without_a_date(sentence):
    assert not states_date(sentence)


@pytest.mark.parametrize(("sentence", "kind", "expected"), [
    ("The trial enrolled 1,200 patients.", Asked.QUANTITY, True),
    ("About half of the staff were vaccinated.", Asked.QUANTITY, True),
    ("The experiment was repeated twice.", Asked.QUANTITY, True),
    ("Each assay was performed in triplicate.", Asked.QUANTITY, True),
    ("Follow-up lasted 14 days.", Asked.QUANTITY, True),
    ("The survey took place in 2019.", Asked.QUANTITY, False),
    ("Many patients were enrolled across the region.", Asked.QUANTITY, False),
    ("Symptoms began on day 14.", Asked.DATE, True),
    ("About 10% of those infected died.", Asked.SHARE, True),
    ("One third of the world's population is infected.", Asked.SHARE, True),
    ("Pneumonia causes 900,000 of the 6.3 million child deaths.", Asked.SHARE, True),
    ("One in 5 patients needed oxygen.", Asked.SHARE, True),
    ("Two new viruses emerged with high mortality.", Asked.SHARE, False),
    ("The trial enrolled 1,200 patients.", Asked.SHARE, False),
    ("The building was designed by a local firm.", Asked.DATE, False),
    ("The building was designed by a local firm.", Asked.ANY, True),
])
def test_a_sentence_gives_the_kind_of_value_asked_for(sentence, kind, expected):
    assert gives(sentence, kind) is expected
