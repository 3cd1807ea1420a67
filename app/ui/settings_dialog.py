"""The settings dialog: devices, wake sensitivity, voice, models, utterance style, patience."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)

from app.settings import Patience, UtteranceStyle
from app.ui.settings_store import Preferences

DEFAULT_DEVICE = "System default"


def _devices(kind: str) -> list[str]:
    try:
        from app.speech.audio import list_devices

        return [d["name"] for d in list_devices(kind)]
    except Exception:  # no PortAudio or no speech package: default only
        return []


class SettingsDialog(QDialog):
    def __init__(self, prefs: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Jarvis settings")
        self._prefs = prefs
        form = QFormLayout(self)
        self.input = self._device_combo("input", prefs.input_device)
        self.output = self._device_combo("output", prefs.output_device)
        self.wake = QDoubleSpinBox()
        self.wake.setRange(0.05, 0.95)
        self.wake.setSingleStep(0.05)
        self.wake.setValue(prefs.wake_sensitivity)
        self.voice = QLineEdit(prefs.voice)
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
        for label, widget in (
            ("Microphone", self.input),
            ("Loudspeaker", self.output),
            ("Wake word sensitivity", self.wake),
            ("Voice", self.voice),
            ("Language model", self.llm),
            ("Speech recognition", self.asr),
            ("Citation in speech", self.utterance_style),
            ("Patience", self.patience),
        ):
            form.addRow(label, widget)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _device_combo(self, kind: str, current: str) -> QComboBox:
        combo = QComboBox()
        combo.addItem(DEFAULT_DEVICE)
        combo.addItems(_devices(kind))
        if current:
            if combo.findText(current) < 0:
                combo.addItem(current)
            combo.setCurrentText(current)
        return combo

    def preferences(self) -> Preferences:
        def device(combo: QComboBox) -> str:
            return "" if combo.currentText() == DEFAULT_DEVICE else combo.currentText()

        return replace(
            self._prefs,
            input_device=device(self.input),
            output_device=device(self.output),
            wake_sensitivity=self.wake.value(),
            voice=self.voice.text().strip() or self._prefs.voice,
            llm_model=self.llm.text().strip(),
            asr_model=self.asr.currentText(),
            utterance_style=self.utterance_style.currentText(),
            patience=self.patience.currentText(),
        )
