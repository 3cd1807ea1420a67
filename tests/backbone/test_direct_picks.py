"""A direct answer the model picks and the document words: the real Backbone and
``picked_answer`` over the school report, scripted picks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.backbone.direct import DirectAnswer, picked_answer
from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex, Sentence
from app.eval.commands import WITHOUT
from app.events import AnswerDelta, Intervention, Turn
from app.settings import ContextMode, LedgerSettings, LLMSettings, Settings, UtteranceSettings
from tests.backbone.school import ABSTAIN, PUPILS, TEXTS, school
from tests.backbone.scripted import CutOff, ScriptedLLM, WordOverlap

TITLE = "Northfield School: the year in review"
LEAD = "The document says: "
PICKS = UtteranceSettings()  # the defaults: the quote path, then the model's picks


def picks(sids: list[int], action: str = "answer") -> dict[str, object]:
    return {"quote_sids": sids, "action": action}


def report() -> DocumentIndex:
    """The school report with its title as the first line."""
    texts = [TITLE + ".", *TEXTS]
    sentences = [Sentence(i, t, page=1, rects=((10.0, 20.0 * i, 300.0, 20.0 * i + 12),))
                 for i, t in enumerate(texts)]
    return DocumentIndex(Path("report.pdf"), "0" * 64, TITLE, 1, sentences)


def ask(*replies: object, question: str = "Jarvis, who works at the school?",
        utterance: UtteranceSettings = PICKS
        ) -> tuple[ScriptedLLM, list[AnswerDelta], Intervention]:
    """Asked of a backbone whose quote path never answers (coverage 1 is out of reach for
    these questions), so the model's picks decide."""
    llm = ScriptedLLM(list(replies))
    settings = Settings(llm=LLMSettings(context_mode=ContextMode.FOCUSED),
                        utterance=dataclasses.replace(utterance, quote_direct_coverage=1.01,
                                                      quote_any_coverage=1.01),
                        ledger=LedgerSettings(screen_turns=False))
    document = school()
    backbone = Backbone(document, llm, settings, WordOverlap(),
                        search=lexical_search(document))
    deltas: list[AnswerDelta] = []
    iv = backbone.answer_direct(Turn("A", question, 1.0, 3.0, direct=True, index=0),
                                deltas.append)
    return llm, deltas, iv


def test_the_picked_sentence_is_said_in_the_documents_words_at_once_with_its_citation():
    llm, deltas, iv = ask(picks([0]))
    assert [(d.text, d.checked, d.final) for d in deltas] == [
        (LEAD + TEXTS[0], True, False), ("", False, True)]
    assert [c.sid for c in deltas[0].citations] == [0]
    assert iv.intent == "answer" and iv.text.startswith(LEAD + TEXTS[0] + " You'll find")
    assert llm.stages() == ["direct"]


def test_the_model_is_asked_for_sentences_only():
    llm, _, _ = ask(picks([0]))
    schema = llm.requests[0].schema
    assert schema is not None and set(schema["properties"]) == {"quote_sids", "action"}
    assert schema["properties"]["quote_sids"]["maxItems"] == PICKS.max_sentences_picked
    assert "text" not in schema["required"]
    assert "List in quote_sids the sentences (at most 2)" in llm.requests[0].user


def test_no_more_than_the_limit_is_said_in_the_models_order():
    question = "Jarvis, what about the school library, the fire alarm and lunch?"
    _, deltas, iv = ask(picks([3, 0, 1]), question=question)
    assert deltas[0].text == LEAD + TEXTS[3] + " " + TEXTS[0]
    assert [c.sid for c in iv.citations] == [3, 0]


def test_a_sentence_retrieval_did_not_show_is_not_said():
    _, _, iv = ask(picks([3]), question="Jarvis, what is in the school library?")
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)  # lunch was not shown for it


def test_an_abstention_says_the_abstain_text_and_nothing_is_streamed():
    _, deltas, iv = ask(picks([], "abstain"))
    assert [d.text for d in deltas] == [""]
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_an_answer_with_no_sentence_is_an_abstention():
    _, _, iv = ask(picks([]))
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_a_value_question_is_answered_from_the_first_pick_that_gives_a_value():
    _, deltas, iv = ask(picks([3, 0]), question=PUPILS)
    assert deltas[0].text == LEAD + TEXTS[0]  # lunch at noon gives no number of pupils
    _, _, none = ask(picks([3]), question=PUPILS)
    assert (none.intent, none.text) == ("abstain", ABSTAIN)


def test_with_the_setting_off_the_model_writes_the_answer():
    written = {"quote_sids": [0], "text": "It has 1,260 pupils.", "action": "answer"}
    llm, deltas, iv = ask(written, utterance=WITHOUT["quote-picks"](Settings()).utterance)
    assert deltas[0].text == "It has 1,260 pupils."
    assert "text" in llm.requests[0].schema["properties"]


def test_a_reply_that_broke_off_says_nothing():
    _, deltas, iv = ask(CutOff('{"quote_sids": [0], "act'))
    assert [d.text for d in deltas] == [""]
    assert (iv.intent, iv.text) == ("skip", "")


@pytest.mark.parametrize(("data", "shown", "expected"), [
    # a sentence the prompt did not show is not said, even when it exists
    (picks([2]), {0, 1}, DirectAnswer("abstain", ABSTAIN, ())),
    (picks([2, 1]), {0, 1}, DirectAnswer("answer", LEAD + TEXTS[0], (1,))),
    (picks([2]), None, DirectAnswer("answer", LEAD + TEXTS[1], (2,))),
    # the title answers nothing; the next pick does
    (picks([0, 1]), None, DirectAnswer("answer", LEAD + TEXTS[0], (1,))),
    (picks([0]), None, DirectAnswer("abstain", ABSTAIN, ())),
    # IDs that are no sentence, or no number at all, are dropped
    (picks([99, True, "1", 1]), None, DirectAnswer("answer", LEAD + TEXTS[0], (1,))),
    ({"quote_sids": "1", "action": "answer"}, None, DirectAnswer("abstain", ABSTAIN, ())),
    (picks([1], "skip"), None, DirectAnswer("skip", "", ())),
    (None, None, DirectAnswer("skip", "", ())),
])
def test_picked_answer(data, shown, expected):
    question = "Jarvis, what does the report say?"
    assert picked_answer(report(), data, question, shown, PICKS) == expected


def test_the_value_check_can_be_left_out():
    loose = dataclasses.replace(PICKS, direct_value_check=False)
    answer = picked_answer(report(), picks([4]), PUPILS, None, loose)
    assert answer == DirectAnswer("answer", LEAD + TEXTS[3], (4,))
    assert picked_answer(report(), picks([4]), PUPILS, None, PICKS).action == "abstain"


def test_a_second_pick_is_said_only_while_the_answer_stays_short():
    both = len(TEXTS[0].split()) + len(TEXTS[1].split())  # 8 + 10 words
    roomy = dataclasses.replace(PICKS, max_words_picked=both)
    tight = dataclasses.replace(PICKS, max_words_picked=both - 1)
    question = "Jarvis, what does the report say?"
    assert picked_answer(report(), picks([1, 2]), question, None, roomy).sids == (1, 2)
    assert picked_answer(report(), picks([1, 2]), question, None, tight).sids == (1,)
    long_first = dataclasses.replace(PICKS, max_words_picked=3)  # the first is said whole
    assert picked_answer(report(), picks([1, 2]), question, None, long_first).text == (
        LEAD + TEXTS[0])
