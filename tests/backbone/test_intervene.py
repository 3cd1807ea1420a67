"""The intervention stages (app/backbone/intervene.py) through the harness, on scripted
replies: what each silence does to the claim, and each answer check switched off."""

from __future__ import annotations

import dataclasses

import pytest

from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex
from app.settings import AnswerCheck, ContextMode, LedgerSettings, LLMSettings, Settings
from tests.backbone.scripted import ScriptedLLM, WordOverlap
from tests.backbone.test_harness_flow import SPEAK, WRONG, paper, turn

SAY = ("Apache Tika parses the pages.", "Tika, yes.")


@pytest.fixture
def document() -> DocumentIndex:
    return paper()


def make(document, llm, checks=tuple(AnswerCheck)) -> Backbone:
    settings = Settings(
        llm=LLMSettings(context_mode=ContextMode.FOCUSED),
        ledger=dataclasses.replace(LedgerSettings(), screen_turns=False),
    )
    settings = dataclasses.replace(
        settings, utterance=dataclasses.replace(settings.utterance, answer_checks=checks,
                                                quote_corrections=False,
                                                quote_covering_answers=False))
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def two_turns(bb: Backbone):
    bb.on_turn(turn(0, SAY[0]))
    return bb.on_turn(turn(1, SAY[1]))


WITHOUT_VALUE = dict(SPEAK, text="They feed each page to a library to get tokens.")


def test_a_failed_check_rolls_the_claim_back(document):
    llm = ScriptedLLM([WRONG, WRONG, WITHOUT_VALUE])
    bb = make(document, llm)
    decision = two_turns(bb)
    assert decision.action == "silent"
    assert decision.reason == ("generate: the document's value is missing from the text "
                               "(rollback 1/2)")
    claim = bb.ledger.claims[1]
    assert (claim.rollbacks, claim.spoken_turn, claim.open) == (1, None, True)
    assert bb.ledger.deliveries == []


def test_without_the_value_check_a_grounded_reply_missing_the_value_is_said(document):
    llm = ScriptedLLM([WRONG, WRONG, WITHOUT_VALUE])
    bb = make(document, llm, checks=(AnswerCheck.FORCED_ANSWER, AnswerCheck.GROUNDED))
    decision = two_turns(bb)
    assert decision.action == "speak" and decision.intervention is not None
    assert "a library to get tokens" in decision.intervention.text
    assert [d.turn for d in bb.ledger.deliveries] == [1]
    assert bb.ledger.claims[1].spoken_turn == 1 and bb.ledger.claims[1].persistence == 0


UNGROUNDED = dict(SPEAK, text="They parse the pages with PDFBox on a GPU cluster of 64 nodes.")


@pytest.mark.parametrize(("checks", "spoken"), [
    (tuple(AnswerCheck), False),
    ((AnswerCheck.FORCED_ANSWER, AnswerCheck.VALUE), True),
])
def test_the_grounding_check_alone_stops_a_value_no_sentence_gives(document, checks, spoken):
    llm = ScriptedLLM([WRONG, WRONG, UNGROUNDED])
    decision = two_turns(make(document, llm, checks))
    assert (decision.action == "speak") is spoken
    if not spoken:
        assert decision.reason.startswith("generate: not in the document")


def test_a_repeated_correction_is_silent_and_resets_the_count(document):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK, WRONG, WRONG, SPEAK])
    bb = make(document, llm)
    first = two_turns(bb)
    assert first.action == "speak"
    bb.ledger.cooldown_until = -1  # the repeat comes after the cooldown
    bb.ledger.claims[1].cooldown_until = -1
    bb.on_turn(turn(2, "Apache Tika parses the pages, I'm sure."))
    again = bb.on_turn(turn(3, "Tika, definitely."))
    assert again.action == "silent" and again.reason == "near-duplicate of turn 1"
    assert bb.ledger.claims[1].persistence == 0
    assert [d.turn for d in bb.ledger.deliveries] == [1]



UNASKED = {"status": "missing_info", "claim": "the training schedule", "answer_sids": [3],
           "predicted_answer": ""}
OFF_TOPIC = dict(SPEAK, text="The model is a two-layer bidirectional LSTM.", quote_sids=[3],
                 topic="the model")
SCHEDULE = ("What optimiser and learning rate schedule did they train it with?",
            "No idea, honestly.")


@pytest.mark.parametrize(("checks", "spoken"), [
    (tuple(AnswerCheck), False),
    (tuple(c for c in AnswerCheck if c != AnswerCheck.COVERAGE), True),
])
def test_a_missing_fact_is_not_said_from_a_sentence_about_its_topic_only(document, checks,
                                                                         spoken):
    llm = ScriptedLLM([UNASKED, UNASKED, OFF_TOPIC])
    bb = make(document, llm, checks)
    bb.on_turn(turn(0, SCHEDULE[0]))
    decision = bb.on_turn(turn(1, SCHEDULE[1], "S2"))
    assert (decision.action == "speak") is spoken
    if not spoken:  # known before the model is asked: no sentence it is given covers it
        assert decision.reason == ("answer check: the given sentences hold 0% of the "
                                   "question's words (rollback 1/2)")
        assert llm.stages() == ["monitor", "monitor"]


@pytest.mark.parametrize(("unsure", "spoken"),
                         [((), False), (("capestem", "plorp", "drun"), True)])
def test_words_misheard_in_a_question_do_not_count_against_the_answer(document, unsure,
                                                                     spoken):
    """Live, the recognizer garbles words of a question; the ones it was unsure of are
    not what the coverage check asks the document's sentence to hold."""
    llm = ScriptedLLM([LAYERS, LAYERS, OFF_TOPIC])
    bb = make(document, llm, checks=(AnswerCheck.COVERAGE,))
    heard = "What field is on top of the capestem plorp drun?"
    bb.on_turn(dataclasses.replace(turn(0, heard), unsure=unsure))
    decision = bb.on_turn(turn(1, "No idea, honestly.", "S2"))
    assert (decision.action == "speak") is spoken, decision.reason


WHICH_ONE = ("There was a library that splits the pages. Which one was that?", "No idea.")
NAMED = {"status": "missing_info", "claim": "the library", "answer_sids": [0],
         "predicted_answer": ""}
SAYS_LIBRARY = dict(SPEAK, text="They feed each page to Apache's PDFBox library.",
                    quote_sids=[0], topic="the library")


def test_a_question_that_names_nothing_is_read_with_the_sentence_before_it(document):
    """"Which one was that?" holds no content word: the check reads the sentence it
    points back to, which the document's sentence covers."""
    llm = ScriptedLLM([NAMED, NAMED, SAYS_LIBRARY])
    bb = make(document, llm, checks=(AnswerCheck.COVERAGE,))
    bb.on_turn(turn(0, WHICH_ONE[0]))
    decision = bb.on_turn(turn(1, WHICH_ONE[1], "S2"))
    assert decision.action == "speak", decision.reason
    assert "PDFBox" in decision.intervention.text


LAYERS = {"status": "missing_info", "claim": "the layers of the model", "answer_sids": [3, 1],
          "predicted_answer": ""}
CITES_LABELS = dict(SPEAK, text="The labeling process succeeds for 76% of the documents.",
                    quote_sids=[1], topic="the labels")


def test_an_answer_citing_a_sentence_off_the_question_is_not_said(document):
    """A given sentence covers the question, so the model is asked; its reply cites
    another one."""
    llm = ScriptedLLM([LAYERS, LAYERS, CITES_LABELS])
    bb = make(document, llm, checks=(AnswerCheck.GROUNDED, AnswerCheck.COVERAGE))
    bb.on_turn(turn(0, "What kind of bidirectional LSTM model do they train?"))
    decision = bb.on_turn(turn(1, "No idea, honestly.", "S2"))
    assert llm.stages() == ["monitor", "monitor", "generate"]
    assert decision.reason.startswith("answer check: the cited sentences hold")


@pytest.mark.parametrize(("text", "unsure", "vetoed"), [
    ("They train on 1. 4 million files.", (), True),  # the document's value, split
    ("They train on one, four million files.", (), True),
    ("They train on 1.4 million files.", (), False),  # said as written: nothing to veto here
    ("They train on 4 million files.", (), False),
    ("They train on 4 million files.", ("4",), False),  # unsure, but no split decimal
])
def test_a_value_that_may_be_the_documents_misheard_is_not_corrected(text, unsure, vetoed):
    from app.backbone.intervene import Intervener
    from app.backbone.transcript import Line

    reason = Intervener._misheard_value("1.4M files", [Line(3, "S1", text, unsure=unsure)])
    assert (reason is not None) is vetoed, reason
