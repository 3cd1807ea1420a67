"""What the agent says of the documents: with one open "the document", with several "the
documents" or the document named (the real Backbone over a real library, scripted
replies)."""

from __future__ import annotations

from pathlib import Path

from app.backbone.utterance import of_the_documents, quote_lead, the_documents
from app.document import DocumentIndex, Sentence
from app.document.library import merge
from app.events import Turn
from tests.backbone.school import ABSTAIN, ALARM, TEXTS, backbone, reply, school
from tests.backbone.scripted import ScriptedLLM

BUDGET = ["The city budget for the coming year is 84 million euros in total."]


def budget() -> DocumentIndex:
    return DocumentIndex(Path("budget.pdf"), "1" * 64, "City budget", 1,
                         [Sentence(0, BUDGET[0], page=1, rects=((10.0, 20.0, 300.0, 32.0),))])


def both() -> DocumentIndex:
    """The budget first, the school report second: the report's IDs run on from 1."""
    return merge([budget(), school()])


def ask(document: DocumentIndex, answer: object, question: str) -> str:
    iv = backbone(ScriptedLLM([answer]), document).answer_direct(
        Turn("A", question, 1.0, 3.0, direct=True, index=0), lambda _delta: None)
    return iv.text


def test_one_document_is_the_document():
    one = school()
    assert the_documents(one) == the_documents(one, [0]) == "the document"
    assert quote_lead(one, [0]) == "The document says: "
    assert of_the_documents(ABSTAIN, one) == ABSTAIN


def test_several_documents_are_the_documents_or_the_one_named():
    library = both()
    assert the_documents(library) == "the documents"
    assert the_documents(library, [0]) == "the document City budget"
    assert the_documents(library, [2, 3]) == "the document School report"
    assert the_documents(library, [0, 2]) == "the documents"
    assert quote_lead(library, [3]) == "The document School report says: "
    assert quote_lead(library, [0, 3]) == "The documents say: "
    assert of_the_documents(ABSTAIN, library) == "That isn't covered in the documents."
    assert of_the_documents("No covered topic.", library) == "No covered topic."


def test_the_abstention_says_the_documents_when_several_are_open():
    unanswered = reply("", [], "abstain")
    question = "Jarvis, when does the swimming pool open?"
    assert ask(school(), unanswered, question) == ABSTAIN
    assert ask(both(), unanswered, question) == "That isn't covered in the documents."


def test_a_quote_names_the_document_it_comes_from():
    library = both()
    alarm = 1 + 2  # the report's third sentence, after the budget's one
    assert library.get(alarm).text == TEXTS[2]
    text = ask(library, reply("Tell everyone to leave the room by the nearest exit.", [alarm]),
               ALARM)
    assert text.startswith(f"The document School report says: {TEXTS[2]} You'll find this on "
                           "page 3 of School report")
