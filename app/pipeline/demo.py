"""The demo meeting: the bundled PDF and a recorded three-person discussion played
through the live path (``app.pipeline.live``) as a microphone would deliver it, with the
agent in hand-raise mode.

``DemoMeeting`` is Qt-free: the window drives it with a bridge, ``--headless`` drives it
from a plain loop. It reports success when the record holds a delivered intervention
citing the page of the planted wrong fact.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.events import AgentState
from app.paths import resources_dir
from app.pipeline.live import AudioInput, LiveMeeting
from app.pipeline.scripted import ScriptedTurns, load_turns
from app.session.record import SessionRecord, read_record
from app.settings import FloorMode, Settings

log = logging.getLogger(__name__)

DEMO_DIR = resources_dir() / "demo"


@dataclass(frozen=True)
class DemoAssets:
    pdf: Path
    audio: Path
    transcript: Path

    @property
    def planted(self) -> dict[str, Any]:
        return dict(json.loads(self.transcript.read_text(encoding="utf-8"))["planted_fact"])

    @classmethod
    def bundled(cls, folder: Path = DEMO_DIR) -> DemoAssets:
        return cls(
            folder / "green_roofs.pdf", folder / "meeting.wav", folder / "meeting_transcript.json"
        )


def delivered_interventions(record_path: Path) -> list[dict[str, Any]]:
    return [e for e in read_record(record_path) if e.get("kind") == "intervention_delivered"]


def cites_page(entry: dict[str, Any], page: int) -> bool:
    return any(c.get("page") == page for c in entry.get("citations") or [])


class DemoMeeting(LiveMeeting):
    def __init__(
        self,
        settings: Settings | None = None,
        record: SessionRecord | None = None,
        assets: DemoAssets | None = None,
        fast: bool = False,
        auto_grant_after: float | None = 3.0,
        llm_spec: str | None = None,
        voice_sink: str = "device",
    ) -> None:
        base = settings or Settings()
        self.assets = assets or DemoAssets.bundled()
        super().__init__(
            replace(base, floor=replace(base.floor, mode=FloorMode.HAND_RAISE)),
            AudioInput(file=self.assets.audio, fast=fast),
            record or SessionRecord.create(label="demo"),
            voice_sink=voice_sink,
        )
        self.fast = fast
        self.auto_grant_after = auto_grant_after
        self.llm_spec = llm_spec
        self.source_kind = "none"
        self._scripted: ScriptedTurns | None = None
        self._grant_timer: threading.Timer | None = None
        self.pipeline.hub.subscribe(self._on_event)

    def prepare(self) -> bool:  # type: ignore[override]
        """Index the document and load the agent (slow; off the GUI thread)."""
        self.record.append("session_started", document=str(self.assets.pdf), demo=True)
        return super().prepare(self.assets.pdf, self.llm_spec)

    def start_audio(self) -> str | None:
        """Play the meeting through the speech worker (or the transcript without one)."""
        why = super().start_audio()
        if why is None:
            self.source_kind = "speech"
            return None
        self.pipeline.set_status("speech", False, f"{why}; replaying the written transcript")
        self.source_kind = "transcript"
        self._scripted = ScriptedTurns(
            load_turns(self.assets.transcript), self.pipeline.feed, self.clock
        )
        self._scripted.start()
        return why

    def settled(self) -> bool:
        scripted = self._scripted
        return super().settled() and (scripted is None or scripted.done.is_set())

    def _on_event(self, event: Any) -> None:
        if event == AgentState.HAND_RAISED and self.auto_grant_after is not None:
            if self._grant_timer is not None:
                self._grant_timer.cancel()
            self._grant_timer = threading.Timer(self.auto_grant_after, self.pipeline.grant_floor)
            self._grant_timer.daemon = True
            self._grant_timer.start()

    def succeeded(self) -> bool:
        page = int(self.assets.planted["page"])
        return any(cites_page(e, page) for e in delivered_interventions(self.record.path))

    def wait(self, timeout: float, poll: float = 0.5) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.succeeded():
                return True
            time.sleep(poll)
        return self.succeeded()

    def stop(self) -> None:
        if self._grant_timer is not None:
            self._grant_timer.cancel()
        if self._scripted is not None:
            self._scripted.stop()
        super().stop()
