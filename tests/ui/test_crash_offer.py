"""After a crash the window offers, without blocking, to export the cut-off meeting."""

from __future__ import annotations

import pytest

from app.session import SessionRecord

pytestmark = pytest.mark.qt


def _crashed(folder):
    record = SessionRecord(folder / "20250101-100000-meeting.jsonl")
    record.append("session_started", document="green_roofs.pdf")
    record.append("turn", {"speaker": "S1", "text": "only twelve buildings", "start": 19.5})
    record.append("intervention_pending", {"id": "iv-1", "kind": "proactive",
                                           "text": "It was 48 buildings, not twelve."})  # fmt: skip
    with record.path.open("ab") as f:  # the process died mid-write
        f.write('{"kind": "turn", "text": "Gr\u00fc'.encode()[:-1])
    return record.path


def test_the_banner_exports_the_last_session(window, tmp_path, qtbot, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    path = _crashed(tmp_path)
    window.offer_last_session(path)
    bar = window.recovery
    qtbot.waitUntil(bar.isVisible, timeout=2000)
    assert bar.label.text() == "The last meeting ended unexpectedly."
    assert bar.button.text().startswith("Export its record")
    assert window.centralWidget().layout().itemAt(0).widget() is bar  # above the document
    out = tmp_path / "last.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    bar.button.click()
    text = out.read_text()
    assert "S1: only twelve buildings" in text
    assert "Jarvis (not delivered): It was 48 buildings, not twelve." in text
    assert "The session ended unexpectedly" in text and "torn last line" in text
    assert str(out) in bar.label.text() and not bar.button.isVisible()
    assert window.isEnabled()  # nothing modal came up


def test_a_failed_export_says_why_in_the_banner(window, tmp_path):
    window.offer_last_session(_crashed(tmp_path))
    assert window.recovery.export_to(tmp_path / "last.docx") is None
    assert "choose a .md or .html" in window.recovery.label.text()


def test_no_offer_without_an_unfinished_session(window):
    window.offer_last_session(None)
    assert not hasattr(window, "recovery")
