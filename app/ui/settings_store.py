"""User preferences remembered between runs (QSettings), mapped onto ``Settings``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QSettings

from app.settings import FloorMode, Patience, Settings, UtteranceStyle

MAX_RECENT = 8


@dataclass
class Preferences:
    input_device: str = ""  # "" = system default
    output_device: str = ""
    wake_sensitivity: float = 0.5
    voice: str = "af_heart"
    llm_model: str = ""  # "" = the embedded default
    asr_model: str = "tiny.en"
    utterance_style: str = UtteranceStyle.FULL.value
    patience: str = Patience.DEFAULT.value
    mode: str = FloorMode.SPEAK.value
    recent_files: list[str] = field(default_factory=list)

    def apply(self, settings: Settings) -> Settings:
        """``settings`` with these preferences laid over it."""
        return replace(
            settings,
            speech=replace(
                settings.speech,
                wake_threshold=1.0 - self.wake_sensitivity,
                asr_model=self.asr_model,
            ),
            voice=replace(settings.voice, voice=self.voice),
            utterance=replace(settings.utterance, style=UtteranceStyle(self.utterance_style)),
            ledger=replace(settings.ledger, patience=Patience(self.patience)),
            floor=replace(settings.floor, mode=FloorMode(self.mode)),
        )

    def add_recent(self, path: str) -> None:
        self.recent_files = [path] + [p for p in self.recent_files if p != path]
        del self.recent_files[MAX_RECENT:]


def _store(organization: str, application: str) -> QSettings:
    return QSettings(organization, application)


def load_preferences(organization: str = "jarvis-room", application: str = "Jarvis") -> Preferences:
    qs = _store(organization, application)
    prefs = Preferences()
    for name, default in vars(Preferences()).items():
        value: Any = qs.value(name, default)
        if isinstance(default, float):
            try:
                value = float(value)
            except (TypeError, ValueError):
                value = default
        elif isinstance(default, list):
            value = (
                [str(v) for v in value]
                if isinstance(value, list)
                else ([str(value)] if value else [])
            )
        else:
            value = str(value)
        setattr(prefs, name, value)
    try:  # a stale or hand-edited value falls back to the default
        prefs.apply(Settings())
    except ValueError:
        return Preferences(recent_files=prefs.recent_files)
    return prefs


def save_preferences(
    prefs: Preferences, organization: str = "jarvis-room", application: str = "Jarvis"
) -> None:
    qs = _store(organization, application)
    for name, value in vars(prefs).items():
        qs.setValue(name, value)
    qs.sync()
