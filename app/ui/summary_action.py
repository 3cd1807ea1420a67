"""File › Meeting summary: once the meeting has stopped, the session record is summarised
on a worker thread while a progress bar in the status bar follows it; the window stays
responsive, and closing it stops the summary."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QMainWindow, QProgressBar

log = logging.getLogger(__name__)

LABEL = "Meeting &summary"
WAITING = "The summary can be written once the meeting has stopped."


class SummaryAction(QObject):
    """The action, its progress bar and the worker thread behind them.

    ``llm_factory``: the backend to summarise with (None: the preferred model is opened
    on the worker thread and closed after). ``open_result``: show the written file in the
    system's viewer."""

    progressed = Signal(int, int, str)
    finished = Signal(object)  # app.summary.run.SummaryRun
    failed = Signal(str)
    _audio_ended = Signal()

    def __init__(self, window: QMainWindow, llm_factory: Callable[[], Any] | None = None,
                 open_result: bool = True) -> None:
        super().__init__(window)
        self.window = window
        self.llm_factory, self.open_result = llm_factory, open_result
        self.action = QAction(LABEL, window)
        self.action.setToolTip(WAITING)
        self.action.setEnabled(False)
        self.action.triggered.connect(self.start)
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(360)
        self.bar.hide()
        window.statusBar().addPermanentWidget(self.bar)
        self.out: Path | None = None  # the last summary written
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.progressed.connect(self._on_progress)
        self.finished.connect(self._on_finished)
        self.failed.connect(self._on_failed)
        self._audio_ended.connect(self.meeting_stopped)
        bridge = getattr(window, "bridge", None)
        if bridge is not None:
            bridge.stopped.connect(lambda _event: self.meeting_stopped())
        pipeline = getattr(window, "pipeline", None)
        self._unsubscribe: Callable[[], None] | None = (
            pipeline.hub.subscribe(self._watch) if pipeline is not None else None)
        on_close = getattr(window, "on_close", None)
        if isinstance(on_close, list):
            on_close.append(self.stop)

    def _watch(self, event: Any) -> None:
        """Any thread: a recording played to its end stops the meeting too."""
        if type(event).__name__ == "DeviceStatus" and getattr(event, "state", "") == "stopped":
            self._audio_ended.emit()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @Slot()
    def meeting_stopped(self) -> None:
        if self._record() is not None and not self.running:
            self.action.setEnabled(True)
            self.action.setToolTip("Write a cited summary of this meeting")

    def _record(self) -> Path | None:
        record = getattr(getattr(self.window, "pipeline", None), "record", None)
        return Path(record.path) if record is not None else None

    def _llm_spec(self) -> str | None:
        prefs = getattr(self.window, "prefs", None)
        return (getattr(prefs, "llm_model", "") or None) if prefs is not None else None

    @Slot()
    def start(self) -> None:
        record = self._record()
        if record is None or self.running:
            return
        self.action.setEnabled(False)
        self.bar.setRange(0, 0)  # busy until the first step is known
        self.bar.setFormat("Summary: opening the model\u2026")
        self.bar.show()
        self._cancel.clear()
        self._thread = threading.Thread(target=self._work, args=(record, self._llm_spec()),
                                        daemon=True, name="meeting-summary")
        self._thread.start()

    def _work(self, record: Path, llm_spec: str | None) -> None:
        """Worker thread: only signals reach the window from here."""
        from app.summary.run import summarize_record

        try:
            llm = self.llm_factory() if self.llm_factory is not None else None
            run = summarize_record(record, llm=llm, llm_spec=llm_spec,
                                   progress=self.progressed.emit, cancel=self._cancel)
        except Exception as exc:  # noqa: BLE001 - shown in the window, the app lives on
            log.exception("the meeting summary failed")
            self.failed.emit(getattr(exc, "user_message", "") or str(exc))
            return
        self.finished.emit(run)

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, what: str) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.bar.setFormat(f"Summary: {what} (%p%)")

    @Slot(object)
    def _on_finished(self, run: Any) -> None:
        self._done()
        self.out = run.out
        status = getattr(self.window, "status_label", None)
        if status is not None:
            status.setText(f"Meeting summary written to {run.out}")
        if self.open_result:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(run.out)))

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._done()
        if self._cancel.is_set():
            return
        show = getattr(self.window, "show_error", None)
        if callable(show):
            show(f"Could not write the meeting summary: {message}")

    def _done(self) -> None:
        self.bar.hide()
        self.action.setEnabled(True)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop a summary in progress (the window is closing)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)
