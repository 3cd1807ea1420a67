"""A two-document meeting offscreen: the second PDF joins mid-meeting, the real backbone
(scripted replies) corrects the room from it, and the viewer moves to that document and
page; the record and its export name the document."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from app.clock import SimulatedClock
from app.document.library import Library
from app.events import AgentState, Citation, Turn
from app.pipeline.events import HighlightCitation
from app.pipeline.pipeline import Pipeline
from app.session.record import SessionRecord
from app.settings import FloorMode, Settings
from app.ui.settings_store import Preferences
from tests.backbone.school import backbone
from tests.backbone.scripted import ScriptedLLM
from tests.document.samples import blank, text_pdf

BUDGET = [
    ["The city budget for the coming year is 84 million euros in total.",
     "Road repairs receive 12 million euros of the budget this year."],
    ["Parks and green spaces receive 3 million euros for new trees."],
]
ROOFS = [
    ["The survey counted planted roofs on buildings across the city."],
    ["Planted roofs were installed on 48 residential buildings last year.",
     "Each planted roof lowered the indoor summer temperature by two degrees."],
]
QUIET = {"status": "on_progress", "claim": ""}


def titled_pdf(path: Path, pages: list[list[str]], title: str) -> Path:
    text_pdf(path, pages)
    with pymupdf.open(path) as doc:
        doc.set_metadata({"title": title})
        doc.saveIncr()
    return path


@pytest.fixture
def meeting(qtbot, tmp_path):
    from app.ui.window import MainWindow

    settings = replace(Settings(), floor=replace(Settings().floor, mode=FloorMode.HAND_RAISE))
    record = SessionRecord(tmp_path / "meeting.jsonl")
    pipeline = Pipeline(settings, record=record, clock=SimulatedClock(0.0))
    pipeline.tick_floor = False
    win = MainWindow(pipeline, Preferences(mode="hand_raise"), save_prefs=False)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    yield win
    pipeline.stop()


def wait(qtbot, predicate, timeout=5000) -> None:
    qtbot.waitUntil(predicate, timeout=timeout)


def advance(pipeline: Pipeline, seconds: float) -> None:
    for _ in range(int(seconds / 0.1)):
        pipeline.clock.advance(0.1)
        pipeline._floor.tick()


def say(qtbot, pipeline: Pipeline, llm: ScriptedLLM, index: int, text: str) -> None:
    """One turn of the room, answered by the backbone before the next one."""
    asked = len(llm.requests)
    now = pipeline.clock.now()
    pipeline.feed(Turn("S1", text, now, now + 2.0, index=index))
    wait(qtbot, lambda: len(llm.requests) > asked and pipeline.backbone_pending == 0)
    time.sleep(0.05)  # the worker hands the decision on after the call returns


def test_a_citation_from_the_second_document_moves_the_viewer(meeting, qtbot, tmp_path):
    window, pipeline = meeting, meeting.pipeline
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    roofs = titled_pdf(tmp_path / "roofs.pdf", ROOFS, "Roof survey")
    assert window.open_pdf(budget, start_agent=False)
    assert pipeline.open_document(budget)
    assert not window.documents.isVisible()  # one document: the viewer has the width
    llm = ScriptedLLM([QUIET])
    pipeline.backbone_factory = lambda document, model, _settings: (backbone(model, document),
                                                                    None)
    pipeline._start_floor()
    pipeline.attach_backbone(backbone(llm, pipeline.document))
    say(qtbot, pipeline, llm, 0, "The whole budget is 84 million euros this year.")

    # The second document joins: listed, shown, and read by a new backbone on the model.
    assert window.add_pdf(roofs)
    assert window.documents.paths() == [budget, roofs] and window.pdf.path == roofs
    assert window.documents.isVisible()
    wait(qtbot, lambda: isinstance(pipeline._core.document, Library))
    wait(qtbot, lambda: window.documents.name_of(roofs) == "Roof survey")
    core = pipeline._core
    assert core.llm is llm and len(core.transcript.recent(5)) == 1  # the meeting so far
    planted = next(s.sid for s in core.document.sentences if "48 residential" in s.text)
    assert planted >= len(pipeline.documents[0].sentences)

    wrong = {"status": "incorrect_info", "claim": "how many residential buildings got "
             "planted roofs", "answer_sids": [planted], "predicted_answer": "48",
             "evidence": "twelve"}
    speak = {"action": "speak", "text": f"Planted roofs were installed on 48 residential "
             f"buildings [S{planted}].", "topic": "planted roofs", "source": "",
             "quote_sids": [planted]}
    llm.queue(wrong, speak)
    say(qtbot, pipeline, llm, 1, "Only twelve residential buildings got planted roofs.")
    say(qtbot, pipeline, llm, 2, "Right, twelve buildings with planted roofs last year.")
    assert llm.stages()[-2:] == ["monitor", "generate"]  # the second turn restated it

    window.show_document(budget)  # the room looks at the first document meanwhile
    assert window.pdf.path == budget
    advance(pipeline, 1.0)
    assert pipeline.state == AgentState.HAND_RAISED
    shown: list[HighlightCitation] = []
    pipeline.hub.subscribe(lambda e: shown.append(e) if isinstance(e, HighlightCitation) else None)
    pipeline.grant_floor()
    advance(pipeline, 1.0)
    assert pipeline.state == AgentState.SPEAKING
    cite = next(e.citation for e in shown if e.active)
    assert (cite.sid, cite.page, cite.document) == (planted, 2, str(roofs))

    wait(qtbot, lambda: window.pdf.path == roofs and bool(window.pdf.highlight_items))
    assert window.pdf.current_page() == 2
    assert window.documents.shown() == roofs
    origin = window.pdf.page_origin(2)
    sentence = core.document.get(planted)
    assert window.pdf.highlight_items[0].rect().top() == pytest.approx(
        origin.y() + sentence.rects[0][1])

    # Clicking an older citation without a document goes back to the first one.
    window.jump_to(Citation(0, 1, "The city budget ...", ()))
    assert window.pdf.path == budget

    advance(pipeline, 8.0)  # the text-only voice finishes
    pipeline.stop()
    out = window.export(tmp_path / "meeting.md")
    assert out is not None
    text = out.read_text(encoding="utf-8")
    assert f"Roof survey, page 2, [S{planted}]" in text
    assert "page 2 of Roof survey" in text
    assert "Document added: Roof survey (roofs.pdf)" in text
    assert "Document added: City budget" not in text  # the meeting's first document


def test_removing_a_document_reads_the_rest_again(meeting, qtbot, tmp_path):
    window, pipeline = meeting, meeting.pipeline
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    roofs = titled_pdf(tmp_path / "roofs.pdf", ROOFS, "Roof survey")
    window.open_pdf(budget, start_agent=False)
    pipeline.open_document(budget)
    llm = ScriptedLLM()
    pipeline.backbone_factory = lambda document, model, _settings: (backbone(model, document),
                                                                    None)
    pipeline.attach_backbone(backbone(llm, pipeline.document))
    window.add_pdf(roofs)
    wait(qtbot, lambda: isinstance(pipeline._core.document, Library))
    window.documents.mark_shown(roofs)
    window.documents.remove.click()
    assert window.documents.paths() == [budget] and window.pdf.path == budget
    wait(qtbot, lambda: pipeline._core.document is pipeline.documents[0])
    assert [d.path for d in pipeline.documents] == [budget]
    assert not window.documents.remove.isEnabled()  # the last one stays
    assert not window.documents.isVisible()


def test_a_document_the_agent_cannot_read_leaves_the_list(meeting, qtbot, tmp_path):
    window, pipeline = meeting, meeting.pipeline
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    window.open_pdf(budget, start_agent=False)
    pipeline.open_document(budget)
    empty = blank(tmp_path / "empty.pdf")  # the viewer shows it; it has no text to index
    assert window.add_pdf(empty)
    wait(qtbot, lambda: window.documents.paths() == [budget])
    assert window.pdf.path == budget
    assert window.messages.isVisible() and "empty.pdf" in window.messages.label.text()
    assert pipeline.documents[0].path == budget and pipeline.document is pipeline.documents[0]
