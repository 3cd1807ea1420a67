"""The settings dialog: devices, wake sensitivity, voice (with a test sentence), models,
utterance style, patience and proactivity. Devices, voice, patience and proactivity apply
to the running agent."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)

from app.settings import Patience, UtteranceStyle
from app.speech.voiceprints import VoiceprintStore
from app.ui.settings_store import Preferences
from app.ui.voice_picker import SinkFactory, VoicePicker
from app.ui.voices import VoicesSection

DEFAULT_DEVICE = "System default"


def device_names(kind: str) -> list[str]:
    """Names of the devices with ``kind`` ("input" or "output") channels, as PortAudio
    lists them (``sounddevice.query_devices``)."""
    try:
        from app.speech.audio import list_devices

        return [str(d["name"]) for d in list_devices(kind)]
    except Exception:  # no PortAudio or no speech package: default only
        return []


def default_device_name(kind: str) -> str:
    """The system's default ``kind`` device, or "" when there is none to ask."""
    try:
        import sounddevice as sd

        return str(sd.query_devices(kind=kind)["name"])
    except Exception:
        return ""


def device_label(name: str, kind: str) -> str:
    """How the window names a device: its name, or the default with the default's name."""
    if name:
        return name
    default = default_device_name(kind)
    if not default or default.lower() == "default":  # ALSA names its default "default"
        return DEFAULT_DEVICE
    return f"{DEFAULT_DEVICE} ({default})"


class SettingsDialog(QDialog):
    def __init__(
        self,
        prefs: Preferences,
        parent: QWidget | None = None,
        voiceprints: VoiceprintStore | None = None,
        sink: SinkFactory | None = None,
    ) -> None:
        """``sink``: where the test sentence plays, by loudspeaker name (the sound card's
        stream by default)."""
        super().__init__(parent)
        self.setWindowTitle("Jarvis settings")
        self.setMinimumWidth(480)
        self._prefs = prefs
        form = QFormLayout(self)
        self.input = self._device_combo("input", prefs.input_device)
        self.output = self._device_combo("output", prefs.output_device)
        self.output.setToolTip("Jarvis speaks here; echo cancellation follows this device.")
        self.wake = QDoubleSpinBox()
        self.wake.setRange(0.05, 0.95)
        self.wake.setSingleStep(0.05)
        self.wake.setValue(prefs.wake_sensitivity)
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.5, 2.0)
        self.speed.setSingleStep(0.1)
        self.speed.setSuffix(" \u00d7")
        self.speed.setValue(prefs.speed)
        self.voice = VoicePicker(
            prefs.voice_engine,
            prefs.voice,
            output=lambda: str(self.output.currentData() or ""),
            speed=self.speed.value,
            sink=sink,
        )
        self.llm = QLineEdit(prefs.llm_model)
        self.llm.setPlaceholderText(
            "embedded default (llm-1.5b), a .gguf path or http://host:port/v1"
        )
        self.asr = QComboBox()
        self.asr.addItems(["tiny.en", "base"])
        self.asr.setCurrentText(prefs.asr_model)
        self.utterance_style = QComboBox()
        self.utterance_style.addItems([s.value for s in UtteranceStyle])
        self.utterance_style.setCurrentText(prefs.utterance_style)
        self.patience = QComboBox()
        self.patience.addItems([p.value for p in Patience])
        self.patience.setCurrentText(prefs.patience)
        self.gap = QDoubleSpinBox()
        self.gap.setRange(0.0, 120.0)
        self.gap.setDecimals(0)
        self.gap.setSuffix(" min")
        self.gap.setSpecialValueText("No limit")
        self.gap.setValue(prefs.proactive_gap_minutes)
        self.keep_audio = QCheckBox("Keep the meeting audio on this computer")
        self.keep_audio.setChecked(prefs.keep_meeting_audio)
        self.keep_audio.setToolTip(
            "The microphone audio is saved in Jarvis's data folder (recordings), so "
            "`jarvis retranscribe` can redo the transcript after the meeting. "
            "The window shows when it is recording."
        )
        for label, widget in (
            ("Microphone", self.input),
            ("Loudspeaker", self.output),
            ("Wake word sensitivity", self.wake),
            ("Voice", self.voice),
            ("Speaking rate", self.speed),
            ("Language model", self.llm),
            ("Speech recognition", self.asr),
            ("Citation in speech", self.utterance_style),
            ("Patience", self.patience),
            ("At most one remark every", self.gap),
            ("Meeting audio", self.keep_audio),
        ):
            form.addRow(label, widget)
        self.voices: VoicesSection | None = None  # the remembered voices, when kept
        if voiceprints is not None:
            self.voices = VoicesSection(voiceprints, prefs.input_device)
            form.addRow("Remembered voices", self.voices)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _device_combo(self, kind: str, current: str) -> QComboBox:
        """The default first (its data ""), then every device by name; a remembered device
        that is not plugged in stays listed, so choosing again is never forced."""
        combo = QComboBox()
        combo.addItem(device_label("", kind), "")
        for name in device_names(kind):
            combo.addItem(name, name)
        if current:
            if combo.findData(current) < 0:
                combo.addItem(f"{current} (not connected)", current)
            combo.setCurrentIndex(combo.findData(current))
        return combo

    def preferences(self) -> Preferences:
        engine, voice = self.voice.choice()
        return replace(
            self._prefs,
            input_device=str(self.input.currentData() or ""),
            output_device=str(self.output.currentData() or ""),
            wake_sensitivity=self.wake.value(),
            voice_engine=engine,
            voice=voice,
            speed=round(self.speed.value(), 2),
            llm_model=self.llm.text().strip(),
            asr_model=self.asr.currentText(),
            utterance_style=self.utterance_style.currentText(),
            patience=self.patience.currentText(),
            proactive_gap_minutes=self.gap.value(),
            keep_meeting_audio=self.keep_audio.isChecked(),
        )
