"""Starting the application: the QApplication, the window, the workers, clean shutdown."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.pipeline.events import HighlightCitation

log = logging.getLogger(__name__)


def _application(headless: bool) -> Any:
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Jarvis")
    app.setOrganizationName("jarvis-room")
    return app


def _close_on_ctrl_c(app: Any) -> None:
    """Ctrl-C in the terminal closes the windows as Ctrl+Q does: the meeting stops and its
    record closes. Qt runs no Python while it waits, and a KeyboardInterrupt raised inside
    a slot goes no further, so a timer wakes the interpreter and the handler only asks Qt
    to close the windows once it is back in its event loop."""
    from PySide6.QtCore import QTimer

    signal.signal(signal.SIGINT, lambda _signum, _frame: QTimer.singleShot(
        0, app.closeAllWindows))
    waker = QTimer(app)
    waker.timeout.connect(lambda: None)
    waker.start(200)  # ms


def run_app(
    pdfs: Sequence[Path] = (), llm_spec: str | None = None, audio: Path | None = None
) -> int:
    """The app on the live microphone, or on a recording played as a microphone would,
    with ``pdfs`` as the meeting's documents."""
    from app.pipeline.live import AudioInput, LiveMeeting
    from app.settings import Settings
    from app.speech.voiceprints import VoiceprintStore
    from app.ui.earcon import Earcons
    from app.ui.settings_store import load_preferences
    from app.ui.window import MainWindow

    app = _application(headless=False)
    prefs = load_preferences()
    if llm_spec:
        prefs.llm_model = llm_spec
    meeting = LiveMeeting(
        prefs.apply(Settings()),
        AudioInput(file=audio, device=prefs.input_device or None),
        voice_device=prefs.output_device or None,
        voiceprints=VoiceprintStore.default(),
    )
    window = MainWindow(meeting.pipeline, prefs, Earcons(device=prefs.output_device or None))
    window.on_close.append(meeting.stop)
    window.offer_last_session(meeting.record.unfinished_before)  # the last meeting crashed
    window.show()
    meeting.record.append("session_started", document=str(pdfs[0]) if pdfs else None)
    threading.Thread(target=meeting.start_audio, daemon=True, name="speech-loader").start()
    if pdfs:
        window.open_pdfs([Path(p) for p in pdfs])
    else:
        meeting.pipeline.set_status("backbone", False, "open a PDF to start the agent")
    _close_on_ctrl_c(app)
    return int(app.exec())


def run_demo(
    headless: bool = False,
    fast: bool = False,
    timeout: float = 900.0,
    llm_spec: str | None = None,
    screenshot: Path | None = None,
    auto_grant: bool = True,
) -> int:
    from app.pipeline.demo import DemoMeeting
    from app.pipeline.live import Outcome, print_event, run_headless
    from app.ui.earcon import Earcons
    from app.ui.settings_store import Preferences
    from app.ui.window import MainWindow

    app = _application(headless)
    demo = DemoMeeting(
        fast=fast,
        llm_spec=llm_spec,
        auto_grant_after=3.0 if (auto_grant or headless) else None,
        voice_sink="null" if headless else "device",
    )
    if headless:
        demo.pipeline.hub.subscribe(print_event)
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
    print(f"Session record: {demo.record.path}", flush=True)
    if not headless:

        def prepare_then_play() -> None:
            demo.prepare()
            demo.start_audio()  # even without an agent the transcript shows the pipeline

        threading.Thread(target=prepare_then_play, daemon=True, name="demo-loader").start()
        _close_on_ctrl_c(app)
        return int(app.exec())
    try:
        outcome = run_headless(
            demo, demo.prepare, demo.start_audio, demo.succeeded, timeout, settle=10.0,
            pump=app.processEvents,
        )  # fmt: skip
    finally:
        window.close()
        app.processEvents()
    ok = outcome is Outcome.DONE or demo.succeeded()
    if ok:
        print("Demo finished: the agent corrected the planted fact.", flush=True)
    elif outcome is Outcome.AGENT_FAILED:
        print(f"Demo stopped: the agent could not start ({demo.agent_problem}).", flush=True)
    elif outcome is Outcome.TIMED_OUT:
        print("Demo timed out before the agent spoke; see the messages above.", flush=True)
    else:
        print("Demo ended before the agent spoke; see the messages above.", flush=True)
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
