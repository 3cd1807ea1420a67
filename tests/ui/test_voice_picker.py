"""The voice picker in the settings dialog, offscreen: it lists the voices installed here,
says a test sentence with the real Piper voice into a recording sink off the GUI thread, at
the chosen rate and on the chosen loudspeaker, and a voice or loudspeaker that fails says
so in the dialog and the log."""

from __future__ import annotations

import logging
import threading
import zipfile

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.clock import RealClock
from app.models import resolve_file
from app.ui.settings_dialog import SettingsDialog
from app.ui.settings_store import Preferences
from app.voice import MemorySink, PiperEngine


@pytest.fixture(scope="module")
def piper_voice() -> str:
    return PiperEngine().voice


class Recorder:
    """Sinks by loudspeaker name, each keeping what it was given and on which thread."""

    def __init__(self, paced: bool = False) -> None:
        self.paced = paced
        self.devices: list[str] = []
        self.sinks: list[MemorySink] = []
        self.threads: set[str] = set()

    def __call__(self, device: str) -> MemorySink:
        sink = MemorySink(
            RealClock() if self.paced else None,
            on_write=lambda _s, _b: self.threads.add(threading.current_thread().name),
        )
        self.devices.append(device)
        self.sinks.append(sink)
        return sink


def _dialog(qtbot, prefs: Preferences, sink=None) -> SettingsDialog:
    dialog = SettingsDialog(prefs, sink=sink)
    qtbot.addWidget(dialog)
    return dialog


def _say(qtbot, dialog: SettingsDialog, timeout: int = 30000) -> str:
    picker = dialog.voice
    qtbot.mouseClick(picker.say_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: picker.say_button.isEnabled(), timeout=timeout)
    return picker.status.text()


def test_the_picker_lists_the_installed_voices(qtbot, piper_voice):
    picker = _dialog(qtbot, Preferences(voice_engine="piper", voice=piper_voice)).voice
    listed = picker.choices
    assert len(listed) == picker.combo.count()
    labels = [picker.combo.itemText(i) for i in range(picker.combo.count())]
    assert ("piper", piper_voice) in listed
    assert picker.choice() == ("piper", piper_voice)
    assert f"Piper {piper_voice} \u2014 English (US)" in labels
    with zipfile.ZipFile(resolve_file("kokoro", "voices")) as pack:
        kokoro = sorted(n.removesuffix(".npy") for n in pack.namelist())
    assert sorted(v for e, v in listed if e == "kokoro") == kokoro
    english = [v.english for v in picker.voices]
    assert english == sorted(english, reverse=True)  # English voices first
    for voice in picker.voices:
        assert ("(not an English voice)" in voice.label) is (not voice.english)
    assert len(listed) == len(picker.voices)  # the chosen voice is installed: nothing added


def test_a_voice_of_another_language_is_labelled_as_such(qtbot):
    picker = _dialog(qtbot, Preferences()).voice
    other = next((v for v in picker.voices if not v.english), None)
    if other is None:
        pytest.skip("every installed voice is English")
    picker.choose(other.engine, other.voice)
    assert picker.status.text() == (
        f"{other.voice} is a {other.language} voice: Jarvis will read English with it."
    )
    english = next(v for v in picker.voices if v.english)
    picker.choose(english.engine, english.voice)
    assert picker.status.text() == ""


def test_a_voice_chosen_before_but_not_installed_stays_listed(qtbot):
    dialog = _dialog(qtbot, Preferences(voice_engine="kokoro", voice="zz_missing"))
    assert dialog.voice.combo.currentText() == "Kokoro zz_missing (not installed)"
    assert "jarvis models pull kokoro" in dialog.voice.status.text()
    assert dialog.preferences().voice == "zz_missing"  # never changed behind the user's back


def test_the_test_sentence_plays_the_chosen_voice_on_the_chosen_loudspeaker(
    qtbot, piper_voice
):
    recorder = Recorder(paced=True)
    prefs = Preferences(voice_engine="piper", voice=piper_voice, output_device="Desk speaker")
    dialog = _dialog(qtbot, prefs, recorder)
    picker = dialog.voice
    qtbot.mouseClick(picker.say_button, Qt.MouseButton.LeftButton)
    # the click returned at once: the sentence is said by a worker, the window is free
    assert not picker.say_button.isEnabled() and picker.worker is not None
    assert picker.worker.is_alive()
    assert picker.status.text() == "Saying the test sentence\u2026"
    qtbot.waitUntil(lambda: picker.say_button.isEnabled(), timeout=30000)
    sink = recorder.sinks[-1]
    assert recorder.devices == ["Desk speaker"]
    assert threading.main_thread().name not in recorder.threads
    assert sink.sample_rate == 22050 and sink.seconds > 1.5
    assert float(np.sqrt(np.mean(sink.audio() ** 2))) > 0.01  # speech, not silence
    assert picker.status.text() == f"Said by Piper {piper_voice} ({sink.seconds:.1f} s)."


def test_the_test_sentence_follows_the_speaking_rate(qtbot, piper_voice):
    recorder = Recorder()
    dialog = _dialog(qtbot, Preferences(voice_engine="piper", voice=piper_voice), recorder)
    lengths = []
    for rate in (1.0, 2.0):
        dialog.speed.setValue(rate)
        assert _say(qtbot, dialog).startswith("Said by Piper")
        lengths.append(recorder.sinks[-1].seconds)
    assert lengths[1] < 0.7 * lengths[0]


def test_a_voice_that_cannot_load_says_so_in_the_dialog_and_the_log(qtbot, caplog):
    recorder = Recorder()
    dialog = _dialog(qtbot, Preferences(voice_engine="espeak", voice="en"), recorder)
    assert dialog.voice.combo.currentText() == "Espeak en (not installed)"
    with caplog.at_level(logging.WARNING, logger="app.ui.voice_picker"):
        text = _say(qtbot, dialog)
    assert text.startswith("Unknown voice engine 'espeak'")
    assert any("Unknown voice engine 'espeak'" in r.getMessage() for r in caplog.records)
    assert all(s.seconds == 0 for s in recorder.sinks)  # nothing was played


def test_a_loudspeaker_that_is_not_there_says_so(qtbot, piper_voice, caplog):
    prefs = Preferences(voice_engine="piper", voice=piper_voice, output_device="No such speaker")
    dialog = _dialog(qtbot, prefs)  # the real sound card stream
    with caplog.at_level(logging.WARNING, logger="app.ui.voice_picker"):
        text = _say(qtbot, dialog)
    assert text.startswith("The speaker could not be opened")
    assert "No such speaker" in text
    assert any("could not be opened" in r.getMessage() for r in caplog.records)
