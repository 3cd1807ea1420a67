"""Remembered voices in the settings dialog: the list, forgetting one, and a short
enrolment ("say a sentence") that records a few seconds from the microphone."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.speech.voiceprints import (
    ENROL_SECONDS,
    Embedder,
    EnrolmentError,
    Voiceprint,
    VoiceprintStore,
    capture,
    enrol,
)

log = logging.getLogger(__name__)

SourceFactory = Callable[[], Any]  # a new, unstarted audio source
EmbedderFactory = Callable[[], Embedder]


def _microphone(device: str) -> SourceFactory:
    def open_source() -> Any:
        from app.speech.audio import MicrophoneSource

        return MicrophoneSource(device=device) if device else MicrophoneSource()

    return open_source


def _campplus() -> Embedder:
    from app.speech.diarization import CamppEmbedder

    return CamppEmbedder()


def describe(print_: Voiceprint) -> str:
    when = datetime.fromtimestamp(print_.updated).strftime("%Y-%m-%d")
    return f"{print_.name} \u2014 {print_.seconds:.0f} s of speech, {when}"


class _Done(QObject):
    finished = Signal(object)  # the Voiceprint kept, or the message of what went wrong


class VoicesSection(QWidget):
    """The store's voices with Forget and Record buttons; changes are saved at once."""

    changed = Signal()  # a voice was remembered or forgotten

    def __init__(
        self,
        store: VoiceprintStore,
        device: str = "",
        source: SourceFactory | None = None,
        embedder: EmbedderFactory | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._source = source or _microphone(device)
        self._embedder = embedder or _campplus
        self._done = _Done()
        self._done.finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)
        self.worker: threading.Thread | None = None  # the enrolment in progress
        self.list = QListWidget()
        self.list.setMaximumHeight(110)
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Delete the selected voice from this computer")
        self.forget_button.clicked.connect(self._forget_selected)
        self.record_button = QPushButton("Record a voice\u2026")
        self.record_button.setToolTip(
            f"Say a sentence ({ENROL_SECONDS:.0f} s) so Jarvis names you in meetings"
        )
        self.record_button.clicked.connect(self._ask_record)
        self.status = QLabel(
            "<small>Speakers you name are remembered by voice, on this computer only.</small>"
        )
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.record_button)
        buttons.addWidget(self.forget_button)
        buttons.addStretch(1)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(self.list)
        col.addLayout(buttons)
        col.addWidget(self.status)
        self.refresh()

    def names(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def refresh(self) -> None:
        self.list.clear()
        for print_ in self.store.voices():
            item = QListWidgetItem(describe(print_))
            item.setData(Qt.ItemDataRole.UserRole, print_.name)
            self.list.addItem(item)
        self.forget_button.setEnabled(self.list.count() > 0)

    def forget(self, name: str) -> None:
        if self.store.delete(name):
            self.status.setText(f"{name}'s voice is forgotten.")
            self.refresh()
            self.changed.emit()

    def _forget_selected(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.forget(str(item.data(Qt.ItemDataRole.UserRole)))

    def _ask_record(self) -> None:
        name, ok = QInputDialog.getText(self, "Record a voice", "Whose voice is it?")
        if ok and name.strip():
            self.record(name.strip())

    def record(self, name: str) -> None:
        """Record ``ENROL_SECONDS`` from the source and remember the voice, off the GUI
        thread; the list updates when it is done."""
        self.record_button.setEnabled(False)
        self.status.setText(f"Recording {name}: say a sentence now\u2026")
        self.worker = threading.Thread(
            target=self._enrol, args=(name,), name="voice-enrolment", daemon=True
        )
        self.worker.start()

    def _enrol(self, name: str) -> None:
        try:
            audio = capture(self._source(), ENROL_SECONDS)
            result: object = self.store.remember(
                enrol(name, audio, self._embedder(), time.time())
            )
        except EnrolmentError as exc:
            result = exc.user_message
        except Exception as exc:  # no microphone, no model: said in the dialog
            log.exception("voice enrolment failed")
            result = getattr(exc, "user_message", None) or f"The voice could not be recorded: {exc}"
        self._done.finished.emit(result)

    def _finished(self, result: object) -> None:
        self.record_button.setEnabled(True)
        if isinstance(result, Voiceprint):
            self.status.setText(f"{result.name}'s voice is remembered.")
            self.refresh()
            self.changed.emit()
        else:
            self.status.setText(str(result))
