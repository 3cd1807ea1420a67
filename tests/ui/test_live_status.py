"""The window says what the agent does: starting (with progress), listening on which
microphone (with a live level), paused, snoozed; its settings apply to the running agent."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import QSettings

from app.events import InputLevel, Setting, SettingsChanged, Turn
from app.pipeline.events import (
    AgentProgress,
    ComponentStatus,
    InputState,
    InputStatus,
    WarmStage,
)
from app.session import SessionRecord, read_record
from app.settings import Settings
from app.ui.bridge import METER_INTERVAL
from app.ui.settings_dialog import SettingsDialog, device_label, device_names
from app.ui.settings_store import (
    Preferences,
    live_changes,
    load_preferences,
    save_preferences,
    start_changes,
)
from app.ui.window import meter_percent


def test_warming_shows_what_the_agent_does_not_a_missing_part(window, qtbot):
    hub = window.pipeline.hub
    hub.publish(AgentProgress(WarmStage.INDEXING))
    qtbot.waitUntil(lambda: window.warm_label.isVisible(), timeout=2000)
    assert window.warm_label.text() == "Indexing the document\u2026"
    assert window.warm_bar.maximum() == 0  # busy, no fraction yet
    hub.publish(AgentProgress(WarmStage.LOADING_MODEL))
    qtbot.waitUntil(lambda: "language model" in window.warm_label.text(), timeout=2000)
    hub.publish(AgentProgress(WarmStage.READING, 0.4))
    qtbot.waitUntil(lambda: window.warm_bar.value() == 40, timeout=2000)
    assert window.warm_label.text() == "Reading the document\u2026 40%"
    assert not window.banner.isVisible()  # nothing is missing while it starts
    hub.publish(ComponentStatus("backbone", True))
    qtbot.waitUntil(lambda: not window.warm_label.isVisible(), timeout=2000)
    assert not window.warm_bar.isVisible() and not window.banner.isVisible()


def test_a_failed_start_hides_the_progress_and_says_why(window, qtbot):
    window.pipeline.hub.publish(AgentProgress(WarmStage.READING, 0.9))
    qtbot.waitUntil(lambda: window.warm_label.isVisible(), timeout=2000)
    window.pipeline.hub.publish(ComponentStatus("backbone", False, "the model file is damaged"))
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=2000)
    assert not window.warm_label.isVisible()
    assert window.banner.text() == "Agent (language model) not available: the model file is damaged"


def test_opening_a_document_reports_indexing_not_a_missing_agent(window, assets, qtbot):
    seen: list = []
    window.pipeline.hub.subscribe(seen.append)
    assert window.pipeline.open_document(assets.pdf)
    assert seen[0] == AgentProgress(WarmStage.INDEXING)
    assert not [e for e in seen if isinstance(e, ComponentStatus)]


def test_listening_names_the_microphone_and_the_meter_moves(window, qtbot):
    hub = window.pipeline.hub
    hub.publish(InputStatus(InputState.LISTENING, "USB conference microphone"))
    qtbot.waitUntil(lambda: "USB conference" in window.input_label.text(), timeout=2000)
    assert window.input_label.text() == "Listening: USB conference microphone"
    for i in range(5):  # 32 ms frames: the meter moves on the loudest of each 0.1 s
        hub.publish(InputLevel(1.0 + 0.032 * i, 0.1 if i == 2 else 0.001, i == 2))
    qtbot.waitUntil(lambda: window.meter.value() == meter_percent(0.1), timeout=2000)
    assert meter_percent(0.1) == 67 and meter_percent(0.001) == 0 and meter_percent(1.0) == 100
    hub.publish(InputLevel(2.0, 0.001, False))
    qtbot.waitUntil(lambda: window.meter.value() == 0, timeout=2000)
    hub.publish(InputStatus(InputState.LISTENING, ""))  # the default microphone
    qtbot.waitUntil(lambda: "USB" not in window.input_label.text(), timeout=2000)
    assert window.input_label.text() == f"Listening: {device_label('', 'input')}"
    assert device_label("", "input").startswith("System default")


def test_the_meter_is_throttled_to_the_loudest_level_per_interval(window):
    bridge = window.bridge
    got = [bridge._meter(InputLevel(t * 0.032, rms, False))
           for t, rms in enumerate([0.01, 0.05, 0.02, 0.03, 0.2, 0.01])]
    moved = [(round(g.time, 3), g.rms) for g in got if g is not None]
    assert METER_INTERVAL == 0.1
    assert moved == [(0.0, 0.01), (0.128, 0.2)]


@pytest.mark.parametrize(
    ("state", "text"),
    [
        (InputState.SWITCHING, "Switching to Desk mic\u2026"),
        (InputState.LOST, "Microphone lost, retrying: Desk mic"),
        (InputState.STOPPED, "Stopped listening: Desk mic"),
    ],
)
def test_the_input_row_follows_the_device(window, qtbot, state, text):
    window.pipeline.hub.publish(InputStatus(state, "Desk mic"))
    qtbot.waitUntil(lambda: window.input_label.text() == text, timeout=2000)


def test_paused_says_jarvis_ignores_the_room(window, qtbot):
    window.pipeline.hub.publish(InputStatus(InputState.LISTENING, "Desk mic"))
    qtbot.waitUntil(lambda: "Desk mic" in window.input_label.text(), timeout=2000)
    window.pause.click()
    assert window.input_label.text() == "Paused \u2014 Jarvis ignores the room: Desk mic"
    window.pause.click()
    assert window.input_label.text() == "Listening: Desk mic"


def _snooze_note(window) -> str:
    return window.glyph.note.text() if window.glyph.note.isVisible() else ""


def test_snooze_from_the_window_shows_until_when(window, qtbot):
    pipeline = window.pipeline
    pipeline._start_floor()
    before = datetime.now()
    window.snooze_menu.actions()[1].trigger()  # 15 minutes
    qtbot.waitUntil(lambda: bool(_snooze_note(window)), timeout=2000)
    shown = re.fullmatch(r"Snoozed until (\d\d):(\d\d)", _snooze_note(window))
    assert shown is not None
    expected = {f"{t:%H:%M}" for t in (before + timedelta(minutes=15),
                                       datetime.now() + timedelta(minutes=15))}
    assert f"{shown.group(1)}:{shown.group(2)}" in expected
    assert pipeline._floor.fsm.snoozed_until == pytest.approx(pipeline.clock.now() + 900)
    assert "questions are still answered" in window.transcript.toPlainText()
    assert window.unsnooze_action.isEnabled()
    window.unsnooze_action.trigger()
    qtbot.waitUntil(lambda: not _snooze_note(window), timeout=2000)
    assert pipeline._floor.fsm.snoozed_until is None
    pipeline.stop()


def test_snooze_by_voice_shows_in_the_window(window, qtbot):
    pipeline = window.pipeline
    pipeline._start_floor()
    pipeline.feed(Turn("S1", "Jarvis, quiet for ten minutes.", -2.0, -1.0))
    qtbot.waitUntil(lambda: bool(_snooze_note(window)), timeout=2000)
    assert _snooze_note(window).startswith("Snoozed until ")
    assert "asked by voice" in window.transcript.toPlainText()
    assert pipeline._floor.fsm.snoozed_until == pytest.approx(pipeline.clock.now() + 600)
    pipeline.stop()


# --- settings: pickers, remembered, applied live -------------------------------------------


def test_device_pickers_list_the_devices_and_keep_an_unplugged_choice(qtbot):
    dialog = SettingsDialog(Preferences(output_device="Old USB speaker"))
    qtbot.addWidget(dialog)
    inputs = [dialog.input.itemData(i) for i in range(dialog.input.count())]
    assert inputs == ["", *device_names("input")]
    assert dialog.output.currentData() == "Old USB speaker"
    assert "not connected" in dialog.output.currentText()
    assert dialog.preferences().output_device == "Old USB speaker"
    if device_names("output"):
        dialog.output.setCurrentIndex(1)
        assert dialog.preferences().output_device == device_names("output")[0]
    dialog.output.setCurrentIndex(0)
    assert dialog.preferences().output_device == ""


def test_new_preferences_are_remembered(qapp, tmp_path):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    app_name = f"test-{uuid.uuid4().hex[:8]}"
    prefs = Preferences(input_device="Desk mic", output_device="USB speaker",
                        voice_engine="piper", speed=1.3, proactive_gap_minutes=10.0)
    save_preferences(prefs, "jarvis-room-tests", app_name)
    loaded = load_preferences("jarvis-room-tests", app_name)
    assert loaded == prefs
    settings = loaded.apply(Settings())
    assert settings.voice.engine == "piper" and settings.voice.speed == 1.3
    assert settings.floor.proactive_gap == 600.0


def test_live_and_start_changes_are_told_apart():
    old = Preferences()
    new = Preferences(patience="deferent", speed=1.5, proactive_gap_minutes=5.0,
                      output_device="USB speaker", llm_model="llm-0.5b")
    assert live_changes(old, new) == [
        (Setting.PATIENCE, "deferent"),
        (Setting.PROACTIVE_GAP, 300.0),
        (Setting.SPEED, 1.5),
        (Setting.OUTPUT_DEVICE, "USB speaker"),
    ]
    assert start_changes(old, new) == ["llm_model"]


def test_settings_from_the_dialog_change_the_running_agent_and_are_recorded(
    window, tmp_path, qtbot
):
    pipeline = window.pipeline
    pipeline.record = SessionRecord(tmp_path / "s.jsonl")
    from app.pipeline.session_hooks import SessionHooks

    pipeline._hooks = SessionHooks(pipeline.record)
    pipeline._start_floor()
    seen: list = []
    pipeline.hub.subscribe(seen.append)
    new = Preferences(mode="hand_raise", patience="enthusiastic", proactive_gap_minutes=5.0,
                      output_device="USB speaker", asr_model="base")
    window.apply_preferences(new)
    assert pipeline.settings.ledger.tau == 1
    assert pipeline._floor.fsm.settings.proactive_gap == 300.0
    assert pipeline.voice_device == "USB speaker" and window.earcons.device == "USB speaker"
    assert window.patience.currentData() == "enthusiastic"
    assert window.status_label.text() == "Settings applied. asr model: from the next start."
    changes = [e for e in seen if isinstance(e, SettingsChanged)]
    assert [(c.setting, c.old, c.new) for c in changes] == [
        (Setting.PATIENCE, "default", "enthusiastic"),
        (Setting.PROACTIVE_GAP, 0.0, 300.0),
        (Setting.OUTPUT_DEVICE, "", "USB speaker"),
    ]
    pipeline.stop()
    recorded = [(e["setting"], e["old"], e["new"]) for e in read_record(tmp_path / "s.jsonl")
                if e["kind"] == "settings_changed"]
    assert recorded == [("patience", "default", "enthusiastic"), ("proactive_gap", 0.0, 300.0),
                        ("output_device", "", "USB speaker")]


def test_a_mode_change_elsewhere_moves_the_window_control(window, qtbot):
    window.pipeline.change_setting(Setting.MODE, "speak")
    qtbot.waitUntil(lambda: window.mode.currentData() == "speak", timeout=2000)
    window.pipeline.change_setting(Setting.PATIENCE, "deferent")
    qtbot.waitUntil(lambda: window.patience.currentData() == "deferent", timeout=2000)
