from __future__ import annotations

import threading
import uuid

from PySide6.QtCore import QSettings

from app.settings import FloorMode, Patience, Settings, UtteranceStyle
from app.ui.settings_dialog import SettingsDialog
from app.ui.settings_store import Preferences, load_preferences, save_preferences


def test_preferences_round_trip_and_apply(qapp, tmp_path):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    app_name = f"test-{uuid.uuid4().hex[:8]}"
    prefs = Preferences(
        wake_sensitivity=0.7,
        voice="jf_alpha",
        patience="deferent",
        mode="hand_raise",
        utterance_style="page_only",
        llm_model="llm-0.5b",
    )
    prefs.add_recent("/a.pdf")
    prefs.add_recent("/b.pdf")
    prefs.add_recent("/a.pdf")
    save_preferences(prefs, "jarvis-room-tests", app_name)
    loaded = load_preferences("jarvis-room-tests", app_name)
    assert loaded == prefs
    assert loaded.recent_files == ["/a.pdf", "/b.pdf"]
    settings = loaded.apply(Settings())
    assert settings.ledger.patience is Patience.DEFERENT and settings.ledger.tau == 3
    assert settings.floor.mode is FloorMode.HAND_RAISE
    assert settings.utterance.style is UtteranceStyle.PAGE_ONLY
    assert settings.voice.voice == "jf_alpha"
    assert abs(settings.speech.wake_threshold - 0.3) < 1e-9


def test_a_corrupt_stored_value_falls_back(qapp, tmp_path):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    app_name = f"test-{uuid.uuid4().hex[:8]}"
    store = QSettings("jarvis-room-tests", app_name)
    store.setValue("patience", "impatient")
    store.setValue("wake_sensitivity", "loud")
    store.sync()
    loaded = load_preferences("jarvis-room-tests", app_name)
    assert loaded.patience == "default" and loaded.wake_sensitivity == 0.5


def test_settings_dialog_returns_the_edits(qtbot):
    dialog = SettingsDialog(Preferences())
    qtbot.addWidget(dialog)
    dialog.patience.setCurrentText("enthusiastic")
    dialog.wake.setValue(0.8)
    dialog.llm.setText("http://localhost:8080/v1")
    out = dialog.preferences()
    assert out.patience == "enthusiastic" and out.wake_sensitivity == 0.8
    assert out.llm_model == "http://localhost:8080/v1"
    assert out.input_device == ""  # system default


def test_closing_the_window_stops_every_worker(window, assets, qtbot):
    pipeline = window.pipeline
    assert pipeline.open_document(assets.pdf)
    pipeline.tick_floor = True
    pipeline._start_floor()
    names = {t.name for t in threading.enumerate()}
    assert "floor-tick" in names
    window.close()
    qtbot.waitUntil(
        lambda: "floor-tick" not in {t.name for t in threading.enumerate()}, timeout=3000
    )
    assert pipeline._stopped.is_set()
