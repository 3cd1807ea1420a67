from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from app.events import (
    AgentState,
    Citation,
    Intervention,
    InterventionKind,
    PartialTranscript,
    Turn,
)
from app.pipeline.events import ComponentStatus, HighlightCitation, PipelineError
from app.ui.screenshots import planted_correction


def _drop(window, path):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(50, 50),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def _index(window, assets):
    assert window.pipeline.open_document(assets.pdf)
    return window.pipeline.document


def test_dropping_a_pdf_renders_its_pages(window, assets, qtbot):
    window.open_pdf = _no_agent(window.open_pdf)
    _drop(window, assets.pdf)
    assert window.pdf.isVisible() and not window.drop_hint.isVisible()
    assert window.pdf.page_count == 2
    assert 1 in window.pdf.rendered_pages
    item = window.pdf._pages[0]
    assert item is not None and item.pixmap().width() > 1000  # rendered at 2x of 595 pt
    # a rendered page is not blank: it carries dark text pixels
    image = item.pixmap().toImage()
    dark = sum(
        1
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
        if image.pixelColor(x, y).lightness() < 100
    )
    assert dark > 100
    assert str(assets.pdf) in window.prefs.recent_files


def _no_agent(open_pdf):
    return lambda path, start_agent=True: open_pdf(path, start_agent=False)


@pytest.mark.parametrize(
    "content,expected",
    [
        (b"hello, not a pdf", "could not be opened"),
        (b"%PDF-1.7\n garbage", "could not be opened"),
    ],
)
def test_bad_files_show_a_message_and_the_app_keeps_running(
    window, tmp_path, content, expected, assets
):
    bad = tmp_path / "notes.pdf"
    bad.write_bytes(content)
    _drop(window, bad)
    assert window.messages.isVisible()
    assert expected in window.messages.label.text()
    assert window.pdf.page_count == 0
    assert window.open_pdf(assets.pdf, start_agent=False)  # still usable


def test_bad_document_index_error_is_shown(window, tmp_path, qtbot):
    bad = tmp_path / "x.pdf"
    bad.write_bytes(b"plain text")
    window.pipeline.open_document(bad)
    qtbot.waitUntil(lambda: window.messages.isVisible(), timeout=2000)
    assert "x.pdf" in window.messages.label.text()


def test_citation_moves_to_page_and_marks_the_sentence(window, assets, qtbot):
    document = _index(window, assets)
    window.open_pdf(assets.pdf, start_agent=False)
    sentence = next(s for s in document.sentences if s.page == 2 and len(s.rects) >= 2)
    citation = Citation(sentence.sid, sentence.page, sentence.text, sentence.rects)
    window.pipeline.hub.publish(HighlightCitation("iv", citation, True))
    qtbot.waitUntil(lambda: bool(window.pdf.highlight_items), timeout=2000)
    assert window.pdf.current_page() == 2
    origin = window.pdf.page_origin(2)
    got = [item.rect() for item in window.pdf.highlight_items]
    assert len(got) == len(sentence.rects)
    for rect, (x0, y0, x1, y1) in zip(got, sentence.rects, strict=True):
        assert rect.left() == pytest.approx(origin.x() + x0)
        assert rect.top() == pytest.approx(origin.y() + y0)
        assert rect.right() == pytest.approx(origin.x() + x1)
        assert rect.bottom() == pytest.approx(origin.y() + y1)
    tip = window.pdf.arrow_tip
    assert tip.y() == pytest.approx(got[0].center().y())
    assert tip.x() <= got[0].left()  # points at the passage from its left
    # the cited passage is on screen
    visible = window.pdf.mapToScene(window.pdf.viewport().rect()).boundingRect()
    assert visible.contains(got[0].center())
    # fade after speaking
    window.pipeline.hub.publish(HighlightCitation("iv", None, False))
    qtbot.waitUntil(lambda: window.pdf.overlay is None, timeout=4000)
    assert window.pdf.arrow_item is None


def test_citation_outside_the_document_is_an_error(window, assets, qtbot):
    window.open_pdf(assets.pdf, start_agent=False)
    window.jump_to(Citation(1, 9, "x", ((0, 0, 1, 1),)))
    assert "page 9" in window.messages.label.text()


def test_state_signals_change_the_glyph(window, qtbot):
    for state in (
        AgentState.LISTENING,
        AgentState.THINKING,
        AgentState.HAND_RAISED,
        AgentState.SPEAKING,
        AgentState.PAUSED,
    ):
        window.pipeline.hub.publish(state)
        qtbot.waitUntil(lambda s=state: window.glyph.state == s, timeout=2000)
        assert window.glyph.state_label.text().lower().replace(" ", "_") == state.value
    assert window.hand.isEnabled() is False  # paused: nothing to grant


def test_hand_button_grants_the_floor_fsm(window, assets, qtbot):
    pipeline = window.pipeline
    _index(window, assets)
    pipeline._start_floor()
    fsm = pipeline._floor.fsm
    iv = planted_correction(pipeline.document, assets)
    pipeline._on_intervention(iv, None)
    qtbot.waitUntil(lambda: window.glyph.state == AgentState.HAND_RAISED, timeout=2000)
    qtbot.waitUntil(lambda: window.glyph.pending.isVisible(), timeout=2000)
    assert "48 buildings" in window.glyph.pending.text()
    assert window.hand.isEnabled()
    assert fsm.permission_at is None
    qtbot.mouseClick(window.hand, Qt.MouseButton.LeftButton)
    assert fsm.permission_at is not None  # the FSM received the grant
    pipeline.clock.advance(0.5)
    pipeline._floor.tick()
    qtbot.waitUntil(lambda: window.glyph.state == AgentState.SPEAKING, timeout=2000)
    qtbot.waitUntil(
        lambda: bool(window.pdf.highlight_items) or window.pdf.page_count == 0, timeout=2000
    )
    # second action stops it
    qtbot.mouseClick(window.hand, Qt.MouseButton.LeftButton)
    pipeline.stop()


def test_transcript_turns_partials_rename_and_citation_click(window, assets, qtbot):
    hub = window.pipeline.hub
    hub.publish(PartialTranscript("S1", "they only put planted", 19.5, 21.0))
    qtbot.waitUntil(lambda: window.transcript.partial is not None, timeout=2000)
    assert "they only put planted" in window.transcript.toPlainText()
    hub.publish(Turn("S1", "they only put planted roofs on twelve buildings", 19.5, 27.0))
    qtbot.waitUntil(lambda: len(window.transcript.rows) == 1, timeout=2000)
    assert window.transcript.partial is None
    window.transcript.renameRequested.emit("S1", "Ken")
    qtbot.waitUntil(lambda: "Ken:" in window.transcript.toPlainText(), timeout=2000)
    hub.publish(Turn("S1", "twelve buildings is small", 28.0, 33.0))
    qtbot.waitUntil(lambda: len(window.transcript.rows) == 2, timeout=2000)
    assert window.transcript.rows[1].speaker == "S1"  # the raw id maps to the new name
    assert window.transcript.toPlainText().count("Ken:") == 2
    document = _index(window, assets)
    window.open_pdf(assets.pdf, start_agent=False)
    iv = planted_correction(document, assets)
    window.transcript.add_intervention(iv)
    assert "Jarvis" in window.transcript.toPlainText()
    with qtbot.waitSignal(window.transcript.citationClicked) as blocker:
        window.transcript._on_anchor(QUrl("cite:0"))
    assert blocker.args[0] == iv.citations[0]
    assert window.pdf.current_page() == iv.citations[0].page
    assert window.pdf.highlight_items


def test_missing_components_show_in_the_banner(window, qtbot):
    window.pipeline.hub.publish(ComponentStatus("speech", False, "no microphone"))
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=2000)
    assert "Speech pipeline not available: no microphone" in window.banner.text()
    window.pipeline.hub.publish(ComponentStatus("speech", True))
    qtbot.waitUntil(lambda: not window.banner.isVisible(), timeout=2000)
    window.pipeline.hub.publish(PipelineError("backbone", "The backbone failed: x", "Retry."))
    qtbot.waitUntil(lambda: window.messages.isVisible(), timeout=2000)
    assert "The backbone failed: x Retry." == window.messages.label.text()


def test_export_writes_markdown(window, tmp_path, qtbot):
    from app.session import SessionRecord

    window.pipeline.record = SessionRecord(tmp_path / "s.jsonl")
    window.pipeline._hooks = None
    window.pipeline.record.append("turn", {"speaker": "S1", "text": "hello there", "start": 1})
    out = window.export(tmp_path / "m.md")
    assert out is not None and "S1: hello there" in out.read_text()
    assert window.export(tmp_path / "m.pdf") is None
    assert "choose a .md or .html" in window.messages.label.text()


def test_intervention_kind_is_proactive_in_screenshots_helper(assets):
    from app.document import open_document

    iv = planted_correction(open_document(assets.pdf), assets)
    assert iv.kind == InterventionKind.PROACTIVE and iv.citations[0].page == 1
    assert isinstance(iv, Intervention)


def test_a_damaged_pdf_opens_with_a_warning_naming_its_empty_pages(window, tmp_path, qtbot):
    from tests.document import samples

    whole = samples.long_prose(tmp_path / "whole.pdf", pages=10)
    cut = samples.truncated(whole, tmp_path / "cut.pdf", 0.3)
    assert window.pipeline.open_document(cut)
    qtbot.waitUntil(lambda: window.messages.isVisible(), timeout=4000)
    words = window.pipeline.document.warnings[0]
    assert window.messages.label.text() == words.what
    assert "cut.pdf" in words.what and f"pages {words.pages[0]}" in words.what


def test_a_clean_pdf_opens_without_a_warning(window, assets, qtbot):
    assert window.pipeline.open_document(assets.pdf)
    qtbot.waitUntil(lambda: "sentences indexed" in window.status_label.text(), timeout=4000)
    assert not window.messages.isVisible() and not window.messages.messages


def test_too_many_pages_are_refused_before_rendering_and_the_gui_keeps_running(
    window, tmp_path, qtbot, assets
):
    import pymupdf
    from PySide6.QtCore import QTimer

    doc = pymupdf.open()
    for n in range(2000):
        doc.new_page(width=595, height=842).insert_text((72, 72), f"Page {n + 1}")
    big = tmp_path / "huge.pdf"
    doc.save(big)
    doc.close()
    ticks: list[bool] = []  # one entry per timer tick: was the open already answered?
    timer = QTimer()
    timer.setInterval(0)
    timer.timeout.connect(lambda: ticks.append(window.messages.isVisible()))
    timer.start()
    try:
        assert not window.open_pdf(big, start_agent=False)
    finally:
        timer.stop()
    assert False in ticks  # the event loop ran while the file was being checked
    assert "2000 pages" in window.messages.label.text()
    assert "limit is 500" in window.messages.label.text()
    assert window.pdf.page_count == 0 and not window.pdf.scene().items()
    assert window.open_pdf(assets.pdf, start_agent=False)  # and the viewer still opens files
    assert window.pdf.page_count == 2
