"""Screenshots of the window in its telling states, for the README and the tests.

Drives a real window, pipeline and floor FSM on a simulated clock through the demo
meeting: the agent reads the document (with its progress), the transcript fills while
the microphone's level moves, the agent raises its hand with the correction of the
planted fact, then gets the floor and speaks with the arrow on the cited sentence; then
it is snoozed, paused, a participant introduces themself and the window offers the name,
and the settings dialog shows the device pickers, the voice picker after its test sentence
and the remembered voices. The agent's voice plays as text here, and the window shows it as
available: the normal state, without a banner.

    python -m app.ui.screenshots docs/screenshots
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.clock import SimulatedClock
from app.events import (
    Citation,
    InputLevel,
    Intervention,
    InterventionKind,
    MeetingAudio,
    RecordingState,
    Turn,
)
from app.pipeline.demo import DemoAssets
from app.pipeline.events import AgentProgress, InputState, InputStatus, WarmStage
from app.pipeline.pipeline import Pipeline
from app.pipeline.playback import TextOnlyPlayer
from app.pipeline.scripted import load_turns
from app.settings import FloorMode, Settings

STATES = (
    "warming", "listening", "recording", "hand_raised", "speaking", "snoozed", "paused",
    "name_offer", "settings",
)


def planted_correction(document: Any, assets: DemoAssets) -> Intervention:
    """What the agent says about the planted fact, citing the document's sentence."""
    planted = assets.planted
    sentences = document.sentences
    sentence = next(s for s in sentences if planted["document"] in s.text)
    citation = Citation(sentence.sid, sentence.page, sentence.text, sentence.rects, "48")
    text = (
        "About the number of buildings, the pilot planted roofs on 48 buildings, not "
        f"twelve. You'll find this on page {sentence.page}; search for '48' to confirm."
    )
    return Intervention(
        "demo-1",
        InterventionKind.PROACTIVE,
        text,
        claim="buildings in the pilot",
        intent="correct",
        topic="the number of buildings",
        citations=(citation,),
    )


def _settle(app: object, window: object, clock: SimulatedClock, seconds: float) -> None:
    """Advance the floor's clock and let queued signals and the glyph debounce run."""
    from PySide6.QtCore import QCoreApplication, QThread

    steps = max(1, int(seconds / 0.1))
    for i in range(steps):
        clock.advance(0.1)
        window.pipeline._floor.tick()  # type: ignore[attr-defined]
        rms = 0.02 + 0.015 * (i % 3)  # someone talking, as the meter shows it
        window.pipeline.hub.publish(InputLevel(clock.now(), rms, True))  # type: ignore
        QCoreApplication.processEvents()
    QThread.msleep(300)  # the glyph debounce is wall-clock
    QCoreApplication.processEvents()


def capture(out_dir: Path, assets: DemoAssets | None = None) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.ui.settings_store import Preferences
    from app.ui.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assets = assets or DemoAssets.bundled()
    base = Settings()
    settings = replace(base, floor=replace(base.floor, mode=FloorMode.HAND_RAISE))
    clock = SimulatedClock(0.0)
    pipeline = Pipeline(settings, clock=clock)
    pipeline.tick_floor = False
    pipeline.player = TextOnlyPlayer(clock, pipeline.feed)
    prefs = Preferences(mode="hand_raise")
    window = MainWindow(pipeline, prefs, save_prefs=False)
    window.resize(1280, 800)
    window.show()
    window.open_pdf(assets.pdf, start_agent=False)
    if not pipeline.open_document(assets.pdf):
        raise RuntimeError("the demo document could not be indexed")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    pipeline.hub.publish(AgentProgress(WarmStage.READING, 0.4))
    _settle_gui()
    paths.append(_save(window, out_dir / "warming.png"))
    pipeline._start_floor()
    pipeline.set_status("backbone", True)
    pipeline.hub.publish(InputStatus(InputState.LISTENING, ""))
    turns = load_turns(assets.transcript)
    for turn in turns[:5]:
        clock.advance(max(0.0, turn.end - clock.now()))
        pipeline.feed(turn)
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "listening.png"))
    kept = str(Path.home() / ".local/share/jarvis/recordings/meeting.wav")
    pipeline.hub.publish(MeetingAudio(kept, RecordingState.RECORDING))
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "recording.png"))
    pipeline.hub.publish(MeetingAudio(kept, RecordingState.STOPPED))
    pipeline.feed(turns[5])
    pipeline._on_intervention(planted_correction(pipeline.document, assets), None)
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "hand_raised.png"))
    window.hand.click()
    _settle(app, window, clock, 1.0)
    paths.append(_save(window, out_dir / "speaking.png"))
    pipeline._floor.player.stop()  # type: ignore[union-attr]
    _settle(app, window, clock, 0.5)
    _wait_for(lambda: window.pdf.overlay is None)  # the arrow has faded
    window.snooze(15)
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "snoozed.png"))
    window.snooze(0)
    window.pause.click()
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "paused.png"))
    window.pause.click()
    last = turns[5]
    pipeline.feed(Turn("S4", "Sorry I'm late. Hi, I'm Priya, I ran the survey.",
                       last.end + 1.0, last.end + 4.0, index=last.index + 1))  # fmt: skip
    _settle(app, window, clock, 0.5)
    paths.append(_save(window, out_dir / "name_offer.png"))
    paths.append(_save_settings(prefs, out_dir / "settings.png"))
    window.close()
    return paths


def _wait_for(done: Any, seconds: float = 4.0) -> None:
    from PySide6.QtCore import QCoreApplication, QThread

    for _ in range(int(seconds / 0.05)):
        if done():
            return
        QThread.msleep(50)
        QCoreApplication.processEvents()


def _settle_gui() -> None:
    from PySide6.QtCore import QCoreApplication

    for _ in range(3):
        QCoreApplication.processEvents()


def _save_settings(prefs: Any, path: Path) -> Path:
    import tempfile

    import numpy as np

    from app.speech.voiceprints import VoiceprintStore, voiceprint
    from app.ui.settings_dialog import SettingsDialog
    from app.voice.engines import installed_voices
    from app.voice.sinks import NullSink

    store = VoiceprintStore(Path(tempfile.mkdtemp()) / "voiceprints.json")
    store.remember(voiceprint("Maya", [np.eye(192, dtype=np.float32)[0]], [34.0], 1.7e9))
    english = next((v for v in installed_voices() if v.english), None)
    if english is not None:  # the picker after its test sentence, said into no speaker
        prefs = replace(prefs, voice_engine=english.engine, voice=english.voice)
    dialog = SettingsDialog(prefs, voiceprints=store, sink=lambda _device: NullSink())
    dialog.adjustSize()
    dialog.show()
    if english is not None:
        dialog.voice.say()
        _wait_for(dialog.voice.say_button.isEnabled, seconds=60.0)
    _settle_gui()
    path = _save(dialog, path)
    dialog.close()
    return path


def _save(window: object, path: Path) -> Path:
    window.grab().save(str(path))  # type: ignore[attr-defined]
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")
    for p in capture(target):
        print(p)
