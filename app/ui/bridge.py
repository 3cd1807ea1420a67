"""One QObject that re-emits the pipeline's events as Qt signals on the GUI thread.

The hub calls ``deliver`` on whatever worker thread published; ``_event`` is connected
with a queued connection, so every handler below runs on the GUI thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from app.events import (
    AgentState,
    AnswerDelta,
    Decision,
    InputLevel,
    PartialTranscript,
    PlaybackReceipt,
    SpeakerRenamed,
    Turn,
    VadEvent,
    WakeEvent,
)
from app.pipeline.events import (
    ComponentStatus,
    DocumentLoaded,
    HighlightCitation,
    PendingIntervention,
    PipelineError,
    PipelineStopped,
)
from app.pipeline.hub import EventHub


class Bridge(QObject):
    turn = Signal(object)
    partial = Signal(object)
    vad = Signal(object)
    level = Signal(object)
    wake = Signal(object)
    decision = Signal(object)
    answerDelta = Signal(object)
    agentState = Signal(object)
    pending = Signal(object)
    citation = Signal(object)
    receipt = Signal(object)
    renamed = Signal(object)
    component = Signal(object)
    error = Signal(object)
    document = Signal(object)
    stopped = Signal(object)
    play = Signal(object)  # the floor's Play command: the agent starts speaking
    _event = Signal(object)

    _ROUTES: tuple[tuple[type, str], ...] = (
        (Turn, "turn"),
        (PartialTranscript, "partial"),
        (VadEvent, "vad"),
        (InputLevel, "level"),
        (WakeEvent, "wake"),
        (Decision, "decision"),
        (AnswerDelta, "answerDelta"),
        (AgentState, "agentState"),
        (PendingIntervention, "pending"),
        (HighlightCitation, "citation"),
        (PlaybackReceipt, "receipt"),
        (SpeakerRenamed, "renamed"),
        (ComponentStatus, "component"),
        (PipelineError, "error"),
        (DocumentLoaded, "document"),
        (PipelineStopped, "stopped"),
    )

    def __init__(self, hub: EventHub, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._event.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe = hub.subscribe(self.deliver)

    def deliver(self, event: Any) -> None:
        """Called on any thread."""
        if isinstance(event, InputLevel):
            return  # per-frame levels are for the floor, not worth a GUI hop each
        self._event.emit(event)

    @Slot(object)
    def _dispatch(self, event: Any) -> None:
        if type(event).__name__ == "Play":
            self.play.emit(event)
            return
        for kind, name in self._ROUTES:
            if isinstance(event, kind):
                getattr(self, name).emit(event)
                return

    def detach(self) -> None:
        self._unsubscribe()
