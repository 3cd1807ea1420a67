"""The window's Summary action: enabled once the meeting has stopped, it summarises the
record on a worker thread behind a progress bar while the window keeps responding."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from app.clock import SimulatedClock
from app.pipeline.events import PipelineStopped
from app.pipeline.pipeline import Pipeline
from app.session.record import SessionRecord
from app.settings import FloorMode, Settings
from tests.backbone.scripted import ScriptedLLM
from tests.summary.meetings import write_record

pytestmark = pytest.mark.qt

POINTS = {"points": [{"kind": "discussed", "text": "Maya said top floor flats were about two "
                      "degrees cooler on the hottest afternoons.", "turns": [1]}]}
ACTIONS = {"actions": []}


class HeldLLM(ScriptedLLM):
    """Scripted replies that wait until the test lets the first one go."""

    def __init__(self, replies):
        super().__init__(replies)
        self.release = threading.Event()
        self.asked = threading.Event()

    def complete(self, request, on_delta=None):
        self.asked.set()
        assert self.release.wait(20), "the test never let the reply go"
        return super().complete(request, on_delta)


@pytest.fixture
def window(qtbot, tmp_path):
    from app.ui.settings_store import Preferences
    from app.ui.window import MainWindow

    path = write_record(tmp_path)  # a meeting without a document: no lookups
    settings = replace(Settings(), floor=replace(Settings().floor, mode=FloorMode.HAND_RAISE))
    pipeline = Pipeline(settings, record=SessionRecord(path), clock=SimulatedClock(0.0))
    pipeline.tick_floor = False
    win = MainWindow(pipeline, Preferences(mode="hand_raise"), save_prefs=False)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.summary.stop()
    pipeline.record.close()


def test_summary_runs_off_the_gui_thread_once_the_meeting_stopped(window, qtbot):
    summary = window.summary
    llm = HeldLLM([POINTS, ACTIONS])
    summary.llm_factory, summary.open_result = (lambda: llm), False
    assert summary.action in window.menuBar().actions()[0].menu().actions()
    assert not summary.action.isEnabled()  # the meeting is still on
    window.pipeline.hub.publish(PipelineStopped("closed"))
    qtbot.waitUntil(summary.action.isEnabled, timeout=2000)
    summary.action.trigger()
    assert llm.asked.wait(10)
    assert summary.bar.isVisible() and not summary.action.isEnabled()
    # The model is busy on the worker thread; the window still handles events.
    ticks = []
    from PySide6.QtCore import QTimer

    QTimer.singleShot(10, lambda: ticks.append(1))
    qtbot.waitUntil(lambda: bool(ticks), timeout=2000)
    llm.release.set()
    qtbot.waitUntil(lambda: summary.out is not None, timeout=20000)
    assert not summary.bar.isVisible() and summary.action.isEnabled()
    assert window.status_label.text() == f"Meeting summary written to {summary.out}"
    text = summary.out.read_text(encoding="utf-8")
    assert "two degrees cooler on the hottest afternoons. (turn 1, 00:05)" in text
    assert summary.bar.maximum() == 2 and summary.bar.value() == 2


def test_a_failed_summary_is_shown_in_the_window(window, qtbot):
    from app.llm import LLMError

    def broken():
        raise LLMError("The language model file x.gguf does not exist.")

    window.summary.llm_factory = broken
    window.summary.meeting_stopped()
    window.summary.start()
    qtbot.waitUntil(lambda: bool(window.messages.messages), timeout=5000)
    assert window.messages.messages[-1] == ("Could not write the meeting summary: The language "
                                            "model file x.gguf does not exist.")
    assert window.summary.action.isEnabled() and window.isEnabled()
