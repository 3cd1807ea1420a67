"""The running agent: document, speech, backbone worker, floor and voice, one hub.

``Pipeline`` owns the workers and their lifetimes. Every event a worker produces goes
through ``_route``: it is recorded, published on the hub, and fed to the parts that need
it (turns to the backbone, everything to the floor). User actions are plain methods.
Parts that are not installed yet are reported as ``ComponentStatus(available=False)``
and the rest keeps working.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.clock import Clock, RealClock
from app.events import (
    AgentState,
    Decision,
    Intervention,
    PlaybackReceipt,
    SpeakerRenamed,
    Turn,
)
from app.pipeline import components
from app.pipeline.backbone_worker import BackboneWorker
from app.pipeline.events import (
    ComponentStatus,
    DocumentLoaded,
    PendingIntervention,
    PipelineError,
    PipelineStopped,
)
from app.pipeline.floor_driver import FloorDriver
from app.pipeline.hub import EventHub
from app.pipeline.playback import TextOnlyPlayer, open_voice
from app.pipeline.session_hooks import SessionHooks
from app.session.record import SessionRecord
from app.settings import FloorMode, Patience, Settings

log = logging.getLogger(__name__)


class Pipeline:
    def __init__(
        self,
        settings: Settings | None = None,
        hub: EventHub | None = None,
        record: SessionRecord | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.hub = hub or EventHub()
        self.clock = clock or RealClock()
        self.record = record
        self.document: Any = None
        self.status: dict[str, ComponentStatus] = {}
        self.state = AgentState.IDLE
        self.paused = False
        self._backbone: BackboneWorker | None = None
        self._floor: FloorDriver | None = None
        self._speech: Any = None
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._hooks = SessionHooks(record) if record is not None else None
        self.player: Any = None  # a ready player, else one is built from voice_sink
        self.voice_sink = "none"  # "device" (loudspeaker), "null" (headless), "none" (text)
        self.voice_device: str | None = None
        self.voice_tap: Any = None  # the speech worker's self-voice reference
        self.tick_floor = True
        self.speaker_names: dict[str, str] = {}

    # --- lifecycle ------------------------------------------------------------------

    def set_status(self, component: str, available: bool, reason: str = "") -> None:
        status = ComponentStatus(component, available, reason)
        self.status[component] = status
        self._route(status)

    def open_document(self, path: Path) -> bool:
        document, why = components.load_document(Path(path), self.settings)
        if document is None:
            self._route(
                PipelineError(
                    "document",
                    why or "could not open the document",
                    "Choose a PDF with a text layer (File > Open).",
                )
            )
            return False
        self.document = document
        self._route(
            DocumentLoaded(str(path), document.title, document.page_count, len(document.sentences))
        )
        return True

    def start_agent(self, llm_spec: str | None = None) -> None:
        """Build the backbone and the floor (slow: loads the model); call off the GUI thread.

        Never raises: whatever fails is reported on the hub and the rest keeps running."""
        try:
            self._start_agent(llm_spec)
        except Exception as exc:
            log.exception("starting the agent failed")
            self._route(
                PipelineError(
                    "backbone",
                    f"The agent could not start: {exc}",
                    "Run `jarvis doctor` to see what is missing.",
                )
            )

    def _start_agent(self, llm_spec: str | None) -> None:
        self._start_floor()
        if self.document is None:
            self.set_status("backbone", False, "no document is open")
            return
        backbone, why = components.load_backbone(self.document, self.settings, llm_spec)
        if backbone is None:
            self.set_status("backbone", False, why or "")
            return
        worker = BackboneWorker(backbone, self._route, self._on_intervention, on_delta=self.feed)
        worker.start()
        with self._lock:
            self._backbone = worker
        self.set_status("backbone", True)

    def _start_floor(self) -> None:
        if self._floor is not None:
            return
        fsm, why = components.load_floor(self.settings)
        self.set_status("floor", fsm is not None, why or "")
        if fsm is None:
            return
        player, why = self.player, "voice output is off; the agent's words appear as text"
        if player is None and self.voice_sink != "none":
            player, why = open_voice(
                self.settings,
                self.feed,
                self.clock,
                self.voice_sink,
                self.voice_device,
                self.voice_tap,
            )
        if player is None:
            self.set_status("voice", False, f"{why}; the agent's words appear as text")
            player = TextOnlyPlayer(self.clock, self.feed)
        else:
            self.set_status("voice", True)
        with self._lock:
            self._floor = FloorDriver(
                fsm,
                self.clock,
                self._route,
                player,
                on_direct=self._direct,
                on_delivered=self._delivered,
                tick=self.tick_floor,
            )
        self._floor.set_patience(self.settings.ledger.patience)

    def _direct(self, question: Turn, generation: int) -> None:
        if self._backbone is not None:
            self._backbone.request_direct(question, generation)

    def _delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        if self._backbone is not None:
            self._backbone.delivered(intervention, receipt)

    def attach_speech(self, worker: Any) -> None:
        """A started-or-startable speech worker that calls ``subscribe(callback)``."""
        self._speech = worker
        worker.subscribe(self.feed)
        self.set_status("speech", True)

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        for part in (self._speech, self._floor, self._backbone):
            if part is None:
                continue
            try:
                part.stop()
            except Exception:
                log.exception("stopping %r failed", part)
        self._route(PipelineStopped("closed"))

    @property
    def backbone_pending(self) -> int:
        return self._backbone.pending if self._backbone else 0

    # --- events from workers --------------------------------------------------------

    def feed(self, event: Any) -> None:
        """Entry for speech events (any thread)."""
        if self._stopped.is_set():
            return
        if isinstance(event, Turn) and event.speaker in self.speaker_names:
            event = replace(event, speaker=self.speaker_names[event.speaker])
        self._route(event)
        if isinstance(event, Turn) and self._backbone is not None and not self.paused:
            self._backbone.submit_turn(event)

    def _route(self, event: Any) -> None:
        event = self._translate(event)
        if isinstance(event, AgentState):
            self.state = event
        if self._hooks is not None:
            self._hooks.on_event(event)
        self.hub.publish(event)
        floor = self._floor
        if floor is not None:
            floor.feed(event)

    def _translate(self, event: Any) -> Any:
        """Speech-package health events as the window's status and error events."""
        name = type(event).__name__
        if name == "DeviceStatus" and event.state == "lost":
            return PipelineError(
                "speech",
                f"Microphone lost: {event.message}",
                "Retrying; check the cable or choose another device.",
            )
        if name == "SpeechError":
            return PipelineError("speech", f"Speech {event.stage} failed: {event.message}")
        return event

    def _on_intervention(self, intervention: Intervention, decision: Decision | None) -> None:
        floor = self._floor
        if floor is None:
            self._route(PendingIntervention(intervention))
            self._route(
                PipelineError(
                    "floor",
                    "The agent has something to say but the floor "
                    "control is not available, so it stays silent.",
                )
            )
            return
        floor.offer(intervention)

    # --- user actions ---------------------------------------------------------------

    def grant_floor(self) -> None:
        if self._floor is not None:
            self._floor.grant()

    def lower_hand(self) -> None:
        if self._floor is not None:
            self._floor.dismiss()

    def set_mode(self, mode: FloorMode) -> None:
        self.settings = replace(self.settings, floor=replace(self.settings.floor, mode=mode))
        if self._floor is not None:
            self._floor.set_mode(mode)

    def set_patience(self, patience: Patience) -> None:
        self.settings = replace(
            self.settings, ledger=replace(self.settings.ledger, patience=patience)
        )

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        if self._floor is not None:
            self._floor.set_paused(paused)
        else:
            self._route(AgentState.PAUSED if paused else AgentState.LISTENING)

    def rename_speaker(self, speaker: str, name: str) -> None:
        name = name.strip()
        if not name:
            return
        self.speaker_names[speaker] = name
        rename = getattr(self._speech, "rename", None)
        if callable(rename):
            rename(speaker, name)  # the worker announces SpeakerRenamed itself
        else:
            self._route(SpeakerRenamed(speaker, name))
