"""Direct answers stream only checked sentences: the real Backbone, scripted replies."""

from __future__ import annotations

import json

import pytest

from app.backbone.detectors import DocumentFacts, coverage
from app.backbone.direct import CheckedAnswer, DirectAnswer, instructs_listeners, quote_answer
from app.events import AnswerDelta, Intervention, Turn
from app.settings import UtteranceSettings
from tests.backbone.school import ABSTAIN, ALARM, PUPILS, TEXTS, backbone, reply, school
from tests.backbone.scripted import CutOff, ScriptedLLM

HINT = " You'll find this on page 1; search for '"


def ask(answer: object, question: str = PUPILS) -> tuple[list[AnswerDelta], Intervention]:
    deltas: list[AnswerDelta] = []
    iv = backbone(ScriptedLLM([answer])).answer_direct(
        Turn("A", question, 1.0, 3.0, direct=True, index=0), deltas.append)
    return deltas, iv


def said(deltas: list[AnswerDelta]) -> list[str]:
    """What may be played: the checked sentences, in order."""
    assert deltas and deltas[-1].final
    assert [d.seq for d in deltas] == list(range(len(deltas)))
    return [d.text for d in deltas if d.text and d.checked]


def test_a_grounded_answer_streams_as_checked_sentences_with_their_citation():
    deltas, iv = ask(reply("Northfield School has 1,260 pupils.", [0]))
    assert said(deltas) == ["Northfield School has 1,260 pupils."]
    assert all(d.checked for d in deltas if d.text)
    assert deltas[0].citations[0].sid == 0
    assert iv.intent == "answer" and iv.text.startswith("Northfield School has 1,260 pupils."
                                                        + HINT)


def test_a_value_the_document_does_not_hold_is_never_streamed():
    deltas, iv = ask(reply("Northfield School has 5,000 pupils.", [0]))
    assert said(deltas) == []
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_an_uncited_reply_is_never_streamed():
    deltas, iv = ask(reply("The meeting is cancelled, you can all leave now.", []),
                     "Jarvis, what happens now?")
    assert said(deltas) == []
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_a_reply_cut_off_mid_sentence_streams_nothing_of_the_fragment():
    deltas, iv = ask(CutOff('{"quote_sids": [0], "text": "Northfield School has 1,260 pupils '
                            'and the m'))
    assert said(deltas) == []
    assert iv.text == ""


def test_a_reply_cut_off_after_a_sentence_says_that_sentence_only():
    deltas, iv = ask(CutOff('{"quote_sids": [0], "text": "Northfield School has 1,260 pupils. '
                            'It also has 85 teach'))
    assert said(deltas) == ["Northfield School has 1,260 pupils."]
    assert iv.intent == "answer" and iv.text.startswith("Northfield School has 1,260 pupils."
                                                        + HINT)


@pytest.mark.parametrize(("text", "whole"), [
    # a copy of a sentence shown cut short, as the model writes it, is said whole
    ("Northfield School has 1,260 pupils and...", TEXTS[0]),
    ("The document says: Northfield School has 1,260 pupils…",
     "The document says: " + TEXTS[0]),
])
def test_an_answer_that_trails_off_is_said_as_the_whole_sentence(text, whole):
    deltas, _ = ask(reply(text, [0]))
    assert said(deltas) == [whole]


def test_an_answer_that_trails_off_from_no_sentence_is_not_said():
    deltas, iv = ask(reply("Northfield School has 85 teachers and...", [0]))
    assert said(deltas) == []
    assert iv.intent == "abstain"


def test_the_first_sentence_that_fails_ends_the_answer():
    deltas, iv = ask(reply("Northfield School has 1,260 pupils. Most of them walk to school. "
                           "It has 85 teachers.", [0]))
    assert said(deltas) == ["Northfield School has 1,260 pupils."]
    assert "walk" not in iv.text and "85 teachers" not in iv.text


@pytest.mark.parametrize("looping", [
    "Northfield School has 1,260 pupils and 85 teachers, 1,260 pupils and 85 teachers, "
    "1,260 pupils and 85 teachers.",
    "Northfield School has 1,260 pupils and 85 teachers [1,260 pupils.",
])
def test_a_reply_caught_in_a_loop_or_cut_in_a_marker_is_never_said(looping):
    deltas, iv = ask(reply(looping, [0]))
    assert said(deltas) == []
    assert iv.intent == "abstain"


def test_the_question_said_back_is_left_out_of_its_answer():
    deltas, iv = ask(reply(f"{PUPILS} Northfield School has 1,260 pupils.", [0]))
    assert said(deltas) == ["Northfield School has 1,260 pupils."]
    assert PUPILS not in iv.text and iv.intent == "answer"


def test_an_instruction_copied_from_the_document_is_said_as_its_quote():
    deltas, iv = ask(reply("Tell everyone to leave the room by the nearest exit.", [2]), ALARM)
    quote = f"The document says: {TEXTS[2]}"
    assert said(deltas) == [quote]
    assert iv.intent == "answer" and iv.text.startswith(quote + " You'll find this on page 3")
    assert [c.sid for c in iv.citations] == [2]


@pytest.mark.parametrize("sentence", [
    "Tell everyone to leave the room by the nearest exit.",
    "Please leave the room now.",
    "You should all leave the room by the nearest exit.",
    "Everyone must leave the room.",
    "So, don't use the lifts.",
])
def test_instructions_to_the_room(sentence):
    assert instructs_listeners(sentence)


@pytest.mark.parametrize("sentence", [
    "Northfield School has 1,260 pupils.",
    "The document says to leave by the nearest exit.",
    "They tell everyone to leave the room.",
    "Lunch is served in the main hall.",
    "Follow-up lasted a year.",
    "Stop words were removed.",
])
def test_statements_are_not_instructions(sentence):
    assert not instructs_listeners(sentence)


REPLIES = [
    reply("Northfield School has 1,260 pupils.", [0]),
    reply("Northfield School has 5,000 pupils.", [0]),
    reply("Northfield School has 1,260 pupils. Most of them walk to school.", [0]),
    reply("Tell everyone to leave the room by the nearest exit.", [2]),
    {"text": "Northfield School has 1,260 pupils [S0].", "quote_sids": [0], "action": "answer"},
    {"action": "abstain", "quote_sids": [0], "text": "Northfield School has 1,260 pupils."},
]


@pytest.mark.parametrize("answer", REPLIES)
def test_streamed_and_unstreamed_answers_agree(answer):
    streamed = backbone(ScriptedLLM([answer])).answer_direct(
        Turn("A", PUPILS, 1.0, 3.0, direct=True, index=0), lambda d: None)
    whole = backbone(ScriptedLLM([answer])).answer_direct(
        Turn("A", PUPILS, 1.0, 3.0, direct=True, index=0))
    assert (streamed.intent, streamed.text) == (whole.intent, whole.text)


def test_a_sentence_waits_for_citations_that_come_after_the_text():
    answer = CheckedAnswer(school(), UtteranceSettings(), candidates=[])
    raw = json.dumps({"text": "The new library holds 12,000 books. It opened in 2021.",
                      "quote_sids": [1], "action": "answer"})
    cut = raw.index('"quote_sids"')
    assert answer.feed(raw[:cut]) == []  # no citations yet, no candidates: not judged
    released = answer.feed(raw[cut:])
    assert [c.text for c in released] == ["The new library holds 12,000 books.",
                                          "It opened in 2021."]
    assert answer.answer(json.loads(raw)).sids == (1,)


def test_a_sentence_is_released_once_complete_not_before():
    answer = CheckedAnswer(school(), UtteranceSettings(), candidates=[0])
    head = '{"quote_sids": [0], "text": "Northfield School has 1,260 pupils.'
    assert answer.feed(head) == []  # it may still go on ("1,260 pupils. 5")
    assert [c.text for c in answer.feed(" It has")] == ["Northfield School has 1,260 pupils."]


OPENED = "Jarvis, when did the new library open?"
BOOKS = "Jarvis, how many books does the library hold?"


def test_a_when_question_answered_without_a_date_is_an_abstention():
    deltas, iv = ask(reply("The new library holds a great many books.", [1]), OPENED)
    assert said(deltas) == []
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_a_sentence_before_the_value_asked_for_waits_for_it():
    answer = CheckedAnswer(school(), UtteranceSettings(), candidates=[1], question=OPENED)
    head = '{"quote_sids": [1], "text": "The new library holds 12,000 books. It opened'
    assert answer.feed(head) == []  # complete and grounded, but it gives no date
    released = answer.feed(' in 2021."')
    assert [c.text for c in released] == ["The new library holds 12,000 books.",
                                          "It opened in 2021."]


def test_once_the_value_is_given_later_sentences_need_none():
    deltas, iv = ask(reply("The new library holds 12,000 books. The new library opened.", [1]),
                     BOOKS)
    assert said(deltas) == ["The new library holds 12,000 books.", "The new library opened."]
    assert iv.intent == "answer"


def test_a_year_is_no_answer_to_how_many():
    deltas, iv = ask(reply("The new library opened in 2021.", [1]), BOOKS)
    assert said(deltas) == []
    assert iv.intent == "abstain"


def test_without_the_value_check_any_checked_sentence_answers():
    settings = UtteranceSettings(direct_value_check=False)
    answer = CheckedAnswer(school(), settings, candidates=[1], question=BOOKS)
    released = answer.feed(json.dumps(reply("The new library opened in 2021.", [1])))
    assert [c.text for c in released] == ["The new library opened in 2021."]


def quoted_answer(question: str, llm: ScriptedLLM) -> tuple[list[AnswerDelta], Intervention]:
    deltas: list[AnswerDelta] = []
    iv = backbone(llm, quote_direct=True).answer_direct(
        Turn("A", question, 1.0, 3.0, direct=True, index=0), deltas.append)
    return deltas, iv


def test_a_value_question_is_answered_with_the_documents_sentence_and_no_model_call():
    llm = ScriptedLLM([])  # any model call fails the test
    deltas, iv = quoted_answer(PUPILS, llm)
    quote = f"The document says: {TEXTS[0]}"
    assert llm.requests == []
    assert said(deltas) == [quote] and len(deltas) == 2  # one checked sentence, then final
    assert deltas[0].citations[0].sid == 0 and deltas[-1].citations[0].sid == 0
    assert iv.intent == "answer" and iv.text.startswith(quote + " You'll find this on page 1")


def test_a_when_question_is_quoted_from_the_sentence_with_the_date():
    llm = ScriptedLLM([])
    deltas, iv = quoted_answer("Jarvis, when was the new library opened?", llm)
    assert llm.requests == [] and said(deltas) == [f"The document says: {TEXTS[1]}"]
    assert [c.sid for c in iv.citations] == [1]


def test_any_question_whose_sentence_holds_its_words_is_quoted():
    llm = ScriptedLLM([])
    deltas, iv = quoted_answer(ALARM, llm)
    assert llm.requests == [] and said(deltas) == [f"The document says: {TEXTS[2]}"]
    assert [c.sid for c in iv.citations] == [2]


@pytest.mark.parametrize("question", [
    "Jarvis, how many pupils in the school have a bus pass?",  # the sentence lacks "bus pass"
    "Jarvis, what do pupils do in the main hall after lunch?",  # 3 of its 4 words
])
def test_other_questions_are_answered_by_the_model(question):
    llm = ScriptedLLM([reply("Northfield School has 1,260 pupils.", [0])])
    quoted_answer(question, llm)
    assert [r.stage for r in llm.requests] == ["direct"]


def test_without_the_quote_the_model_answers_a_value_question():
    llm = ScriptedLLM([reply("Northfield School has 1,260 pupils.", [0])])
    backbone(llm, quote_direct=False).answer_direct(
        Turn("A", PUPILS, 1.0, 3.0, direct=True, index=0))
    assert [r.stage for r in llm.requests] == ["direct"]


@pytest.mark.parametrize(("question", "sentence", "share"), [
    ("how many pupils does the school have?", TEXTS[0], 1.0),
    ("how many pupils have a bus pass?", TEXTS[0], 1 / 3),
    ("when was the library opened?", TEXTS[1], 1.0),
    ("when was the library opened?", TEXTS[3], 0.0),
    ("and?", TEXTS[0], 0.0),  # no content words asked
    # the words that frame the asking are not what it asks for
    ("do they give the number of pupils?", TEXTS[0], 1.0),
    ("which books do they list for the library?", TEXTS[1], 1.0),
    ("what type of books does the library use?", TEXTS[1], 1.0),
])
def test_coverage_is_the_share_of_the_questions_content_words(question, sentence, share):
    assert coverage(question, sentence) == pytest.approx(share)


@pytest.mark.parametrize(("question", "share"), [
    ("how many pupils does the school have, I remember a number?", 1.0),  # "remember"
    ("how many pupils and teachers are on its roll?", 1.0),  # "roll"
    ("how many pupils in the school have a bus pass?", 0.0),  # half the words are not its
    ("how many buses take pupils to the gym?", 0.0),  # most are not
])
def test_only_the_question_words_the_document_uses_count(question, share):
    document = DocumentFacts(school().sentences).roots
    assert coverage(question, TEXTS[0], document=document) == pytest.approx(share)


def among(doc, *sids):
    """The retrieved sentences ``sids`` of ``doc``."""
    return [doc.get(sid) for sid in sids]


def test_the_quote_needs_a_sentence_that_gives_the_value_asked_for():
    doc = school()
    facts = DocumentFacts(doc.sentences)
    pupils = "how many pupils does the school have?"
    assert quote_answer(doc, pupils, among(doc, 0, 1), facts, 0.67, 0.8) == DirectAnswer(
        "answer", f"The document says: {TEXTS[0]}", (0,))
    # the lunch sentence counts no pupils; with a coverage of 0 the model answers
    assert quote_answer(doc, pupils, among(doc, 3), facts, 0.67, 0.8) is None
    assert quote_answer(doc, pupils, among(doc, 0), facts, 0.0, 0.8) is None


def test_any_other_question_has_its_own_threshold():
    doc = school()
    facts = DocumentFacts(doc.sentences)
    hall = "what is served in the main hall to the teachers?"  # 3 of its 4 words
    assert coverage(hall, TEXTS[3]) == pytest.approx(0.75)
    assert quote_answer(doc, hall, among(doc, 3), facts, 0.67, 0.8) is None
    assert quote_answer(doc, hall, among(doc, 3), facts, 0.67, 0.75) == DirectAnswer(
        "answer", f"The document says: {TEXTS[3]}", (3,))
    assert quote_answer(doc, hall, among(doc, 3), facts, 0.67, 0.0) is None  # the model


def test_a_sentence_with_two_thirds_of_the_questions_words_is_quoted():
    question = "how many pupils does the school have on its register?"
    assert coverage(question, TEXTS[0]) == pytest.approx(2 / 3)
    llm = ScriptedLLM([])
    deltas, iv = quoted_answer(f"Jarvis, {question}", llm)
    assert llm.requests == [] and said(deltas) == [f"The document says: {TEXTS[0]}"]
