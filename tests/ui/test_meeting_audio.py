"""Keeping the meeting audio: a remembered opt-in in the settings, handed to the speech
settings from the next start, and a window that shows while the audio is recorded."""

from __future__ import annotations

import uuid

from PySide6.QtCore import QSettings

from app.events import MeetingAudio, RecordingState
from app.settings import Settings
from app.ui.settings_dialog import SettingsDialog
from app.ui.settings_store import Preferences, load_preferences, save_preferences, start_changes


def test_the_opt_in_is_remembered_and_reaches_the_speech_settings(qapp, tmp_path):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    app_name = f"test-{uuid.uuid4().hex[:8]}"
    assert not Preferences().apply(Settings()).speech.keep_meeting_audio  # off by default
    save_preferences(Preferences(keep_meeting_audio=True), "jarvis-room-tests", app_name)
    loaded = load_preferences("jarvis-room-tests", app_name)
    assert loaded.keep_meeting_audio is True
    assert loaded.apply(Settings()).speech.keep_meeting_audio
    save_preferences(Preferences(keep_meeting_audio=False), "jarvis-room-tests", app_name)
    assert load_preferences("jarvis-room-tests", app_name).keep_meeting_audio is False
    # the running speech worker keeps what it started with
    assert start_changes(Preferences(), loaded) == ["keep_meeting_audio"]


def test_the_dialog_offers_the_opt_in(qtbot):
    dialog = SettingsDialog(Preferences())
    qtbot.addWidget(dialog)
    assert not dialog.keep_audio.isChecked()
    dialog.keep_audio.setChecked(True)
    assert dialog.preferences().keep_meeting_audio is True


def test_the_window_shows_while_the_meeting_audio_is_recorded(window, qtbot):
    hub = window.pipeline.hub
    assert not window.recording.isVisible()
    hub.publish(MeetingAudio("/data/recordings/m.wav", RecordingState.RECORDING))
    qtbot.waitUntil(window.recording.isVisible, timeout=2000)
    assert window.recording.toolTip() == "/data/recordings/m.wav"
    hub.publish(MeetingAudio("/data/recordings/m.wav", RecordingState.STOPPED, 60.0))
    qtbot.waitUntil(lambda: not window.recording.isVisible(), timeout=2000)


def test_a_recording_that_fails_says_so_and_what_it_kept(window, qtbot):
    hub = window.pipeline.hub
    hub.publish(MeetingAudio("/data/recordings/m.wav", RecordingState.RECORDING))
    qtbot.waitUntil(window.recording.isVisible, timeout=2000)
    hub.publish(MeetingAudio("/data/recordings/m.wav", RecordingState.FAILED, 12.0,
                             "No space left on device"))  # fmt: skip
    qtbot.waitUntil(lambda: not window.recording.isVisible(), timeout=2000)
    text = window.messages.label.text()
    assert "No space left on device" in text and "m.wav" in text
