"""The correction veto: a speaker who says what the document says is never contradicted.

A small made-up document; the real Backbone with scripted model replies that report the
speaker wrong, as a small model does on documents it was not tuned on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.backbone.veto import NoVeto, StatedValueVeto, correction_veto
from app.document import DocumentIndex, Sentence
from app.events import Turn
from app.settings import ContextMode, LedgerSettings, LLMSettings, Settings, UtteranceSettings
from tests.backbone.scripted import ScriptedLLM, StagedLLM, WordOverlap

TEXTS = [
    "The green roof survey recruited 120 households across the northern district.",
    "Each household was visited by a trained surveyor using the RoofScan tablet software.",
    "Indoor temperatures fell by 12% during the summer months after installation.",
    "The city council funded 40% of the installation costs through a grant.",
]
SHARE = LedgerSettings().guard_min_token_share


@pytest.fixture
def document() -> DocumentIndex:
    sentences = [Sentence(i, t, page=1 + i, rects=()) for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("survey.txt"), "0" * 64, "Survey", 4, sentences)


@pytest.fixture
def veto(document) -> StatedValueVeto:
    return StatedValueVeto(document, SHARE)


# --- the check itself ---------------------------------------------------------------------


def test_the_documents_own_value_vetoes_a_correction(veto):
    said = ["So the survey recruited one hundred twenty households in the district."]
    assert veto.check("correct", said) == (
        "veto: the document states the speaker's value '120' [S0]")


def test_a_swapped_value_is_no_reason_to_stay_silent(veto):
    said = ["So the survey recruited 150 households in the district."]
    assert veto.check("correct", said) is None


def test_a_value_the_document_states_about_something_else_does_not_veto(veto):
    # 40% is in the document, but about the council's funding, not the temperatures.
    said = ["Indoor temperatures fell by 40% over the summer."]
    assert veto.stated(said) == []
    assert veto.check("correct", said) is None


def test_every_value_of_the_turn_must_be_stated(veto):
    # The household count is right, the funding share is not: the correction stands.
    said = ["They recruited 120 households and the council funded 60% of the costs."]
    assert veto.check("correct", said) is None


def test_a_named_term_the_document_states_vetoes(veto):
    said = ["Every household was visited by a surveyor with the RoofScan app."]
    assert veto.check("not_in_paper", said) == (
        "veto: the document states the speaker's value 'RoofScan' [S1]")
    wrong = ["Every household was visited by a surveyor with the RoofCheck app."]
    assert veto.check("correct", wrong) is None


def test_names_around_a_term_the_document_never_uses_do_not_veto(veto):
    # The names are right, the surveyors' tool is a word of the speaker's own.
    said = ["The surveyors flew RoofScan helicopters over every household in the district."]
    assert veto.check("correct", said) is None
    assert veto.check("correct", ["The surveyors used RoofScan for every household."]) == (
        "veto: the document states the speaker's value 'RoofScan' [S1]")


def test_a_short_turn_is_about_what_the_turns_before_it_are_about(veto):
    said = ["So the survey recruited 120 households across the district.", "Yes, 120."]
    assert veto.check("correct", said) == (
        "veto: the document states the speaker's value '120' [S0]")
    assert veto.check("correct", said[1:]) is None  # alone it shares nothing with S0


def test_a_value_named_only_to_reject_it_is_not_the_speakers(veto):
    said = ["It wasn't 150, the survey recruited 120 households across the district."]
    assert veto.check("correct", said) is not None


def test_a_missing_fact_contradicts_nobody(veto):
    said = ["The survey recruited 120 households across the district."]
    assert veto.check("missing", said) is None


def test_a_turn_without_values_has_nothing_to_veto_on(veto):
    assert veto.check("correct", ["The survey went door to door in the district."]) is None


def test_the_setting_switches_the_veto_off(document):
    assert isinstance(correction_veto(document, False, SHARE), NoVeto)
    assert isinstance(correction_veto(document, True, SHARE), StatedValueVeto)


# --- through the real backbone ------------------------------------------------------------


def make(document, llm, **ledger) -> Backbone:
    ledger.setdefault("screen_turns", False)
    settings = Settings(llm=LLMSettings(context_mode=ContextMode.FOCUSED),
                        ledger=dataclasses.replace(LedgerSettings(), **ledger),
                        utterance=UtteranceSettings(quote_corrections=False))
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def turn(i: int, text: str, speaker: str = "S1") -> Turn:
    return Turn(speaker, text, float(i), float(i) + 1, False, i)


WRONG = {"status": "incorrect_info", "claim": "the number of households the survey recruited",
         "answer_sids": [0], "predicted_answer": "120", "evidence": ""}
SPEAK = {"action": "speak", "text": "The survey recruited 120 households [S0].",
         "topic": "the households", "source": "", "quote_sids": [0]}
RIGHT = "So the survey recruited 120 households across the district."
AGREE = "Yes, and that is a lot of households for one district."


def test_a_speaker_who_states_the_documents_value_is_not_corrected(document):
    llm = ScriptedLLM([WRONG, WRONG])
    bb = make(document, llm)
    first = bb.on_turn(turn(0, RIGHT))
    second = bb.on_turn(turn(1, AGREE, "S2"))
    assert first.reason == "gate: waiting 1/2"
    assert (second.action, second.intervention) == ("silent", None)
    # The value came on the first raising turn: the latest one states none.
    assert second.reason == "veto: the document states the speaker's value '120' [S0]"
    assert llm.stages() == ["monitor", "monitor"]  # only the raising turn holds the value


def test_without_the_veto_the_same_turns_are_corrected(document):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK])
    bb = make(document, llm, correction_veto=False)
    bb.on_turn(turn(0, RIGHT))
    second = bb.on_turn(turn(1, AGREE, "S2"))
    assert second.action == "speak" and second.intervention.intent == "correct"
    assert llm.stages()[-1] == "generate"


def test_a_vetoed_claim_restarts_its_count(document):
    llm = ScriptedLLM([WRONG, WRONG, WRONG])
    bb = make(document, llm)
    bb.on_turn(turn(0, RIGHT))
    bb.on_turn(turn(1, AGREE, "S2"))
    third = bb.on_turn(turn(2, "Right, households across the northern district.", "S1"))
    assert third.reason.startswith("gate: waiting 1/2")


def test_a_swapped_value_is_still_corrected(document):
    wrong = "So the survey recruited 150 households across the district."
    llm = ScriptedLLM([WRONG, SPEAK])
    bb = make(document, llm)
    bb.on_turn(turn(0, wrong))
    second = bb.on_turn(turn(1, "Yes, 150 households, a lot for one district.", "S2"))
    assert second.action == "speak"
    assert second.reason == "gate fired: persistence 2 (turn 1 restated C1)"
    assert "120" in second.intervention.text


def test_a_value_in_an_unrelated_sentence_does_not_veto(document):
    claim = {"status": "incorrect_info", "claim": "the drop in indoor temperatures",
             "answer_sids": [2], "predicted_answer": "12%", "evidence": ""}
    speak = {"action": "speak", "text": "Indoor temperatures fell by 12% [S2].",
             "topic": "the temperatures", "source": "", "quote_sids": [2]}
    llm = StagedLLM([claim, claim, speak])
    bb = make(document, llm)
    bb.on_turn(turn(0, "Indoor temperatures fell by 40% over the summer."))
    second = bb.on_turn(turn(1, "Yeah, a 40% drop in summer temperatures indoors.", "S2"))
    assert second.action == "speak" and "12%" in second.intervention.text


# --- a restatement with one term swapped ------------------------------------------------

CAST = [
    "Tim Allen voices Buzz Lightyear, a space ranger action figure who becomes Woody's friend.",
    "Tom Hanks voices Woody, a pull-string cowboy doll who leads the toys.",
]
SWAPPED = ("Tom Hanks voices Buzz Lightyear, a space ranger action figure who becomes "
           "Woody's friend.")


def cast(*texts: str) -> StatedValueVeto:
    sentences = [Sentence(i, t, page=1, rects=()) for i, t in enumerate(texts)]
    return StatedValueVeto(DocumentIndex(Path("cast.txt"), "0" * 64, "Cast", 1, sentences),
                           SHARE)


def test_a_name_stated_elsewhere_does_not_veto_a_swap_in_a_restated_sentence():
    # Tom Hanks is in the document, as Woody: the sentence the turn restates says Tim Allen.
    assert cast(*CAST).check("correct", [SWAPPED]) is None


def test_the_restatement_as_the_document_says_it_still_vetoes():
    said = "Tim Allen voices Buzz Lightyear, a space ranger action figure, right."
    assert cast(*CAST).check("correct", [said]) == (
        "veto: the document states the speaker's values 'Allen' [S0], 'Buzz' [S0], "
        "'Lightyear' [S0]")


def test_a_sentence_that_restates_the_turn_as_said_keeps_the_veto():
    sequel = "In the sequel Tom Hanks voices Buzz Lightyear, a space ranger action figure."
    assert cast(*CAST, sequel).check("correct", [SWAPPED]) is not None
