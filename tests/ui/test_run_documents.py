"""`jarvis run a.pdf b.pdf`: every PDF named is one of the meeting's documents; the window
lists them all, shows the first, and the pipeline indexes them all before the agent starts
(offscreen, with a model path that does not load so no model is read)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.cli import build_parser
from app.clock import SimulatedClock
from app.document.library import Library
from app.pipeline.events import DocumentLoaded
from app.pipeline.pipeline import Pipeline
from app.settings import FloorMode, Settings
from app.ui import commands
from app.ui.settings_store import Preferences
from tests.document.samples import blank
from tests.ui.test_two_documents import BUDGET, ROOFS, titled_pdf

NO_MODEL = "/nonexistent/model.gguf"  # the agent cannot start: nothing slow is loaded


def test_run_takes_several_documents():
    args = build_parser().parse_args(["run", "a.pdf", "b.pdf", "--audio", "m.wav"])
    assert args.pdfs == [Path("a.pdf"), Path("b.pdf")] and args.audio == Path("m.wav")
    assert build_parser().parse_args(["run"]).pdfs == []


def test_run_hands_every_document_to_the_app(monkeypatch, tmp_path):
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    roofs = titled_pdf(tmp_path / "roofs.pdf", ROOFS, "Roof survey")
    seen: dict[str, object] = {}

    def run_app(pdfs, llm_spec=None, audio=None) -> int:  # the window needs a real screen
        seen.update(pdfs=pdfs, llm=llm_spec)
        return 0

    import app.ui.app

    monkeypatch.setattr(app.ui.app, "run_app", run_app)
    monkeypatch.setattr(commands, "_has_display", lambda: True)
    args = build_parser().parse_args(["run", str(budget), str(roofs), str(budget)])
    assert args.handler(args) == 0
    assert seen["pdfs"] == [budget, roofs]  # named twice, opened once


def test_run_refuses_a_document_that_is_not_there(tmp_path, capsys):
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    args = build_parser().parse_args(["run", str(budget), str(tmp_path / "gone.pdf")])
    assert args.handler(args) == 2
    assert "no such document" in capsys.readouterr().err


@pytest.fixture
def window(qtbot):
    from app.ui.window import MainWindow

    settings = replace(Settings(), floor=replace(Settings().floor, mode=FloorMode.HAND_RAISE))
    pipeline = Pipeline(settings, clock=SimulatedClock(0.0))
    pipeline.tick_floor = False
    win = MainWindow(pipeline, Preferences(mode="hand_raise", llm_model=NO_MODEL),
                     save_prefs=False)  # fmt: skip
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    yield win
    pipeline.stop()


def test_the_window_and_the_pipeline_get_every_document(window, qtbot, tmp_path):
    pipeline = window.pipeline
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    roofs = titled_pdf(tmp_path / "roofs.pdf", ROOFS, "Roof survey")
    loaded: list[str] = []
    pipeline.hub.subscribe(
        lambda e: loaded.append(e.path) if isinstance(e, DocumentLoaded) else None
    )
    assert window.open_pdfs([budget, roofs])
    assert window.documents.paths() == [budget, roofs] and window.documents.isVisible()
    assert window.pdf.path == budget and window.documents.shown() == budget
    qtbot.waitUntil(lambda: "backbone" in pipeline.status, timeout=20000)
    assert loaded == [str(budget), str(roofs)]  # in order, each once
    document = pipeline.document
    assert isinstance(document, Library)
    assert [p.name for p in document.parts] == ["City budget", "Roof survey"]
    assert not pipeline.status["backbone"].available  # it was asked for: the model is absent
    assert "model.gguf" in pipeline.status["backbone"].reason


def test_a_document_of_the_run_the_agent_cannot_read_leaves_the_list(window, qtbot, tmp_path):
    pipeline = window.pipeline
    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    empty = blank(tmp_path / "empty.pdf")
    assert window.open_pdfs([budget, empty])
    qtbot.waitUntil(lambda: window.documents.paths() == [budget], timeout=20000)
    assert [d.path for d in pipeline.documents] == [budget]
    assert "empty.pdf" in window.messages.label.text()


def test_a_headless_meeting_indexes_every_document_before_the_agent(tmp_path):
    from app.pipeline.live import LiveMeeting
    from app.session.record import SessionRecord

    budget = titled_pdf(tmp_path / "budget.pdf", BUDGET, "City budget")
    roofs = titled_pdf(tmp_path / "roofs.pdf", ROOFS, "Roof survey")
    empty = blank(tmp_path / "empty.pdf")
    meeting = LiveMeeting(record=SessionRecord(tmp_path / "s.jsonl"), voice_sink="none")
    events: list = []
    meeting.pipeline.hub.subscribe(events.append)
    try:
        assert not meeting.prepare(budget, NO_MODEL, more=[empty, roofs])
        assert [d.path for d in meeting.pipeline.documents] == [budget, roofs]
        loaded = [e.path for e in events if isinstance(e, DocumentLoaded)]
        assert loaded == [str(budget), str(roofs)]
        # the agent was asked for once, after every document: its failure is the model's
        assert meeting.agent_problem is not None and "model.gguf" in meeting.agent_problem
    finally:
        meeting.stop()
