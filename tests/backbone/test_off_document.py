"""Talk about something else is its own outcome: the screening keeps it from the monitor
(silent, "off_document"), and the monitor's own off_document status never speaks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.backbone.harness import Backbone, Screened
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex, Sentence
from app.events import Turn
from app.settings import ContextMode, LedgerSettings, LLMSettings, Settings
from tests.backbone.scripted import ScriptedLLM, WordOverlap

TEXTS = [
    "The trial recruited 120 volunteers from three clinics in the spring.",
    "Fever fell within two days in the group given the lowest dose.",
    "Side effects were mild and resolved without treatment.",
]

# A model that would call anything a wrong claim about the document.
WRONG = {"status": "incorrect_info", "claim": "the battery power source",
         "answer_sids": [0], "predicted_answer": "120 volunteers", "evidence": "solar cells"}
OFF = {"status": "off_document", "claim": "the battery power source"}


@pytest.fixture
def document() -> DocumentIndex:
    sentences = [Sentence(i, t, page=1 + i, rects=()) for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("trial.pdf"), "0" * 64, "Trial", 3, sentences)


def make(document: DocumentIndex, llm: ScriptedLLM, **ledger: object) -> Backbone:
    ledger.setdefault("screen_turns", True)
    settings = Settings(llm=LLMSettings(context_mode=ContextMode.FOCUSED),
                        ledger=dataclasses.replace(LedgerSettings(), **ledger))
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def turn(i: int, text: str, speaker: str = "S1") -> Turn:
    return Turn(speaker, text, float(i), float(i) + 1, False, i)


OFF_TOPIC = [
    "So the remote control should run on solar cells instead of batteries.",
    "What colour should the buttons on the casing be?",  # a question, about something else
]


@pytest.mark.parametrize("text", OFF_TOPIC)
def test_off_document_turn_stays_silent_without_the_model(document, text) -> None:
    llm = ScriptedLLM([WRONG, WRONG])
    decision = make(document, llm).on_turn(turn(12, text))
    assert (decision.action, decision.reason) == ("silent", Screened.OFF_DOCUMENT)
    assert decision.reason.startswith("off_document")
    assert llm.requests == []


def test_a_turn_about_the_document_still_reaches_the_monitor(document) -> None:
    llm = ScriptedLLM([WRONG])
    # "recruit" meets the document's "recruited" by its first letters.
    decision = make(document, llm).on_turn(turn(12, "How many people did they recruit?"))
    assert decision.reason != Screened.OFF_DOCUMENT
    assert llm.stages() == ["monitor"]


def test_the_setting_turns_the_check_off(document) -> None:
    llm = ScriptedLLM([WRONG])
    decision = make(document, llm, off_document_min_shared=0).on_turn(turn(12, OFF_TOPIC[1]))
    assert decision.reason != Screened.OFF_DOCUMENT
    assert llm.stages() == ["monitor"]


def test_the_monitors_off_document_status_never_speaks(document) -> None:
    llm = ScriptedLLM([OFF, OFF, OFF])
    bb = make(document, llm, screen_turns=False)
    said = ["The remote should run on solar cells.", "Yes, solar cells, not batteries.",
            "Right, solar cells then."]
    decisions = [bb.on_turn(turn(i, t, f"S{1 + i % 2}")) for i, t in enumerate(said, 10)]
    assert [d.action for d in decisions] == ["silent"] * 3
    assert all(d.reason.startswith("monitor: off_document") for d in decisions)
    assert llm.stages() == ["monitor"] * 3
