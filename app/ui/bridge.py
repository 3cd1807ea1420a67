"""One QObject that re-emits the pipeline's events as Qt signals on the GUI thread.

The hub calls ``deliver`` on whatever worker thread published; ``_event`` is connected
with a queued connection, so every handler below runs on the GUI thread.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from app.events import (
    AgentState,
    AnswerDelta,
    Decision,
    InputLevel,
    MeetingAudio,
    NameOffered,
    PartialTranscript,
    PlaybackReceipt,
    SettingsChanged,
    SpeakerRenamed,
    Turn,
    VadEvent,
    WakeEvent,
)
from app.floor.outputs import SnoozeChanged
from app.pipeline.events import (
    AgentProgress,
    ComponentStatus,
    DocumentLoaded,
    HighlightCitation,
    InputStatus,
    PendingIntervention,
    PipelineError,
    PipelineStopped,
)
from app.pipeline.hub import EventHub

# The level meter moves at most this often (seconds of audio), showing the loudest frame
# since its last move: the GUI is not hopped to once per 32 ms frame.
METER_INTERVAL = 0.1


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
    nameOffered = Signal(object)  # NameOffered: a speaker introduced themself
    component = Signal(object)
    error = Signal(object)
    document = Signal(object)
    stopped = Signal(object)
    play = Signal(object)  # the floor's Play command: the agent starts speaking
    progress = Signal(object)  # AgentProgress while the agent starts
    inputStatus = Signal(object)
    settingsChanged = Signal(object)
    snooze = Signal(object)  # SnoozeChanged
    meetingAudio = Signal(object)  # MeetingAudio: the kept recording started / ended
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
        (NameOffered, "nameOffered"),
        (ComponentStatus, "component"),
        (PipelineError, "error"),
        (DocumentLoaded, "document"),
        (PipelineStopped, "stopped"),
        (AgentProgress, "progress"),
        (InputStatus, "inputStatus"),
        (SettingsChanged, "settingsChanged"),
        (SnoozeChanged, "snooze"),
        (MeetingAudio, "meetingAudio"),
    )

    def __init__(self, hub: EventHub, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._event.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)
        self._meter_lock = threading.Lock()
        self._peak = 0.0
        self._meter_at = float("-inf")
        self._unsubscribe = hub.subscribe(self.deliver)

    def deliver(self, event: Any) -> None:
        """Called on any thread."""
        if isinstance(event, InputLevel):
            event = self._meter(event)
            if event is None:
                return
        self._event.emit(event)

    def _meter(self, level: InputLevel) -> InputLevel | None:
        """The loudest level since the meter last moved, once per ``METER_INTERVAL``."""
        with self._meter_lock:
            self._peak = max(self._peak, level.rms)
            if level.time < self._meter_at:  # capture restarted: its time starts again
                self._meter_at = float("-inf")
            if level.time - self._meter_at < METER_INTERVAL:
                return None
            peak, self._peak, self._meter_at = self._peak, 0.0, level.time
        return InputLevel(level.time, peak, level.is_speech)

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
