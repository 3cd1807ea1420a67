"""Starting the application: the QApplication, the window, the workers, clean shutdown."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from app.events import AgentState, Decision, Turn
from app.pipeline.events import ComponentStatus, HighlightCitation, PipelineError

log = logging.getLogger(__name__)


def _application(headless: bool) -> Any:
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Jarvis")
    app.setOrganizationName("jarvis-room")
    return app


def run_app(pdf: Path | None, llm_spec: str | None = None) -> int:
    """The app on the live microphone."""
    from app.pipeline import live
    from app.pipeline.clocks import AudioFollowingClock
    from app.pipeline.pipeline import Pipeline
    from app.session.record import SessionRecord
    from app.settings import Settings
    from app.ui.earcon import Earcons
    from app.ui.settings_store import load_preferences
    from app.ui.window import MainWindow

    app = _application(headless=False)
    prefs = load_preferences()
    if llm_spec:
        prefs.llm_model = llm_spec
    settings = prefs.apply(Settings())
    record = SessionRecord.create(label="meeting")
    clock = AudioFollowingClock()
    pipeline = Pipeline(settings, record=record, clock=clock)
    pipeline.hub.subscribe(clock.observe)
    pipeline.voice_sink, pipeline.voice_device = "device", prefs.output_device or None
    reference = _self_voice_reference()
    pipeline.voice_tap = reference
    window = MainWindow(pipeline, prefs, Earcons(device=prefs.output_device or None))
    window.on_close.append(record.close)
    window.offer_last_session(record.unfinished_before)  # the last meeting crashed
    window.show()
    record.append("session_started", document=str(pdf) if pdf else None)

    def start_speech() -> None:
        source, why = live.mic_source(prefs.input_device or None)
        worker = None
        if source is not None:
            worker, why = live.speech_worker(source, settings, pipeline.clock, reference=reference)
        if worker is None:
            clock.end_audio()  # no audio to follow: the floor runs on wall-clock time
            pipeline.set_status("speech", False, why or "unknown reason")
            return
        pipeline.attach_speech(worker)
        worker.start()

    threading.Thread(target=start_speech, daemon=True, name="speech-loader").start()
    if pdf is not None:
        window.open_pdf(Path(pdf))
    else:
        pipeline.set_status("backbone", False, "open a PDF to start the agent")
    return int(app.exec())


def _printer(event: Any) -> None:
    if isinstance(event, Turn):
        print(f"[{event.end:6.1f}s] {event.speaker}: {event.text}", flush=True)
    elif isinstance(event, Decision) and (event.action == "speak" or event.claim):
        print(
            f"         decision on turn {event.turn}: {event.action} ({event.reason})", flush=True
        )
    elif isinstance(event, AgentState):
        print(f"         Jarvis is {event.value.replace('_', ' ')}", flush=True)
    elif isinstance(event, HighlightCitation) and event.active and event.citation:
        c = event.citation
        print(f"         arrow on page {c.page}: \u201c{c.text}\u201d", flush=True)
    elif isinstance(event, ComponentStatus) and not event.available:
        print(f"  note: {event.component} not available: {event.reason}", flush=True)
    elif isinstance(event, PipelineError):
        print(f"  problem ({event.component}): {event.message}", flush=True)
    elif type(event).__name__ == "Play":
        print(f"  JARVIS: {event.text}", flush=True)


def run_demo(
    headless: bool = False,
    fast: bool = False,
    timeout: float = 900.0,
    llm_spec: str | None = None,
    screenshot: Path | None = None,
    auto_grant: bool = True,
) -> int:
    from app.pipeline.demo import DemoMeeting
    from app.ui.earcon import Earcons
    from app.ui.settings_store import Preferences
    from app.ui.window import MainWindow

    app = _application(headless)
    demo = DemoMeeting(
        fast=fast, llm_spec=llm_spec, auto_grant_after=3.0 if (auto_grant or headless) else None
    )
    demo.pipeline.voice_sink = "null" if headless else "device"
    if headless:
        demo.pipeline.hub.subscribe(_printer)
    window = MainWindow(
        demo.pipeline,
        Preferences(mode="hand_raise"),
        Earcons(enabled=not headless),
        save_prefs=False,
    )
    window.on_close.append(demo.stop)
    window.open_pdf(demo.assets.pdf, start_agent=False)
    window.show()
    if screenshot is not None:
        _screenshot_when_speaking(window, screenshot)

    def prepare_then_play() -> None:
        demo.prepare()
        demo.start_audio()  # even without an agent the transcript shows the pipeline

    threading.Thread(target=prepare_then_play, daemon=True, name="demo-loader").start()
    print(f"Session record: {demo.record.path}", flush=True)
    if not headless:
        return int(app.exec())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not demo.succeeded():
        app.processEvents()
        time.sleep(0.05)
    ok = demo.succeeded()
    window.close()
    app.processEvents()
    print(
        "Demo finished: the agent corrected the planted fact."
        if ok
        else "Demo timed out before the agent spoke; see the messages above.",
        flush=True,
    )
    return 0 if ok else 1


def _screenshot_when_speaking(window: Any, path: Path) -> None:
    """Save a PNG of the window 1.5 s after the arrow first appears."""
    from PySide6.QtCore import QTimer

    def save() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(path))
        print(f"Screenshot: {path}", flush=True)

    def on_citation(event: HighlightCitation) -> None:
        if event.active and not getattr(window, "_demo_shot", False):
            window._demo_shot = True
            QTimer.singleShot(1500, save)

    window.bridge.citation.connect(on_citation)


def _self_voice_reference() -> Any:
    """What the agent plays, for the speech worker to recognise its own voice in the room."""
    try:
        from app.speech.echo import SelfVoiceReference
    except ImportError:
        return None
    return SelfVoiceReference()
