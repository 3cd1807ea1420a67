"""Questions left open are found the agent's way and looked up in the document through
its direct-answer path (real Backbone, real checks, scripted model replies)."""

from __future__ import annotations

import pytest

from app.backbone.retrieval import lexical_search
from app.document import open_document
from app.settings import Settings, UtteranceSettings
from app.summary.meeting import SpokenTurn, read_meeting
from app.summary.questions import (
    DocumentAnswers,
    answered_in_talk,
    look_up,
    open_questions,
    substantive,
)
from tests.backbone.scripted import ScriptedLLM
from tests.summary.meetings import TURNS, write_document, write_record

WINDOW = 3


@pytest.fixture
def meeting(tmp_path):
    return read_meeting(write_record(tmp_path, write_document(tmp_path)))


@pytest.fixture
def answerer(tmp_path):
    document = open_document(write_document(tmp_path))
    llm = ScriptedLLM()
    return DocumentAnswers(document, llm, search=lexical_search(document)), llm


def test_a_question_the_reply_could_not_answer_stays_open(meeting):
    found = open_questions(meeting, WINDOW)
    assert [(q.turn.index, q.question) for q in found] == [
        (4, "How much did the pilot cost in the end?")]


def test_a_question_someone_answered_is_not_open(tmp_path):
    lines = [*TURNS[:5], ("S3", "It came to about two million euros in the end.")]
    meeting = read_meeting(write_record(tmp_path, lines=lines))
    assert open_questions(meeting, WINDOW) == []


def test_a_question_asked_back_leaves_it_to_the_next_reply():
    question = "How much did the pilot cost in the end?"
    back = SpokenTurn(5, "Ken", "You mean with the maintenance?", 25.0, 27.0)
    unsure = SpokenTurn(6, "Ken", "I don't remember, honestly.", 28.0, 30.0)
    value = SpokenTurn(6, "Ken", "About two million euros.", 28.0, 30.0)
    assert not answered_in_talk(question, [back, unsure])
    assert answered_in_talk(question, [back, value])
    assert not answered_in_talk(question, [])


def test_the_room_is_not_asked_about_anything(tmp_path):
    lines = [("S1", "Should we move on to the next item?"), ("S2", "Sure.")]
    assert open_questions(read_meeting(write_record(tmp_path, lines=lines)), WINDOW) == []


def test_a_question_the_agent_answered_aloud_is_not_open(tmp_path):
    from app.events import Citation, Intervention, InterventionKind

    answer = Intervention("d1", InterventionKind.DIRECT, "The pilot cost 2.1 million euros.",
                          claim="How much did the pilot cost in the end?", intent="answer",
                          citations=(Citation(4, 1, "The pilot cost 2.1 million euros."),),
                          decided_turn=4)
    meeting = read_meeting(write_record(tmp_path, intervention=answer))
    assert open_questions(meeting, WINDOW) == []
    unheard = read_meeting(write_record(tmp_path / "x", intervention=answer, heard=None))
    assert [q.turn.index for q in open_questions(unheard, WINDOW)] == [4]


def test_the_document_answers_with_its_sentence_and_page(meeting, answerer):
    answers, llm = answerer
    llm.queue({"quote_sids": [4], "action": "answer"})
    [q] = look_up(open_questions(meeting, WINDOW), meeting, answers, limit=5)
    assert q.answered_by_document and q.looked_up
    assert q.answer == "The document says: The pilot cost 2.1 million euros over three years."
    assert [(c.sid, c.page) for c in q.citations] == [(4, 1)]
    assert llm.stages() == ["direct"]
    assert "How much did the pilot cost in the end?" in llm.requests[0].user


def test_an_answer_the_model_writes_is_said_as_written(tmp_path, meeting):
    document = open_document(write_document(tmp_path))
    llm = ScriptedLLM([{"quote_sids": [4], "action": "answer",
                        "text": "The pilot cost 2.1 million euros over three years."}])
    written = Settings(utterance=UtteranceSettings(quote_model_picks=False))
    answers = DocumentAnswers(document, llm, written, search=lexical_search(document))
    [q] = look_up(open_questions(meeting, WINDOW), meeting, answers, limit=5)
    assert q.answer == "The pilot cost 2.1 million euros over three years."


def test_the_document_does_not_answer_when_the_model_abstains(meeting, answerer):
    answers, llm = answerer
    llm.queue({"quote_sids": [], "text": "", "action": "abstain"})
    [q] = look_up(open_questions(meeting, WINDOW), meeting, answers, limit=5)
    assert q.looked_up and not q.answered_by_document and q.citations == ()


def test_an_answer_its_citation_does_not_carry_is_no_answer(tmp_path, meeting):
    document = open_document(write_document(tmp_path))
    llm = ScriptedLLM([{"quote_sids": [4], "text": "The pilot cost nine hundred thousand "
                        "dollars in federal grants.", "action": "answer"}])
    written = Settings(utterance=UtteranceSettings(quote_model_picks=False))
    answers = DocumentAnswers(document, llm, written, search=lexical_search(document))
    [q] = look_up(open_questions(meeting, WINDOW), meeting, answers, limit=5)
    assert not q.answered_by_document


def test_questions_past_the_limit_and_without_a_document_are_not_looked_up(meeting, answerer):
    answers, llm = answerer
    [q] = look_up(open_questions(meeting, WINDOW), meeting, answers, limit=0)
    assert not q.looked_up and llm.requests == []
    [q] = look_up(open_questions(meeting, WINDOW), meeting, None, limit=5)
    assert not q.looked_up


@pytest.mark.parametrize(("question", "counts"), [
    ("How many buildings were there?", True), ("Twenty five euros?", True),
    ("A rat?", False), ("So we can start?", False), ("You know your job?", False)])
def test_only_questions_about_something_are_open_questions(question, counts):
    assert substantive(question) is counts
