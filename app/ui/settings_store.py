"""User preferences remembered between runs (QSettings), mapped onto ``Settings``, and the
ones the running agent takes at once (``live_changes``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QSettings

from app.events import Setting, SettingValue
from app.settings import FloorMode, Patience, Settings, UtteranceStyle

MAX_RECENT = 8


@dataclass
class Preferences:
    input_device: str = ""  # "" = system default
    output_device: str = ""  # "" = system default; the echo reference follows it
    wake_sensitivity: float = 0.5
    voice_engine: str = "kokoro"
    voice: str = "af_heart"
    speed: float = 1.0  # a multiple of the voice's normal rate
    proactive_gap_minutes: float = 0.0  # at most one proactive remark per this; 0 = no limit
    llm_model: str = ""  # "" = the embedded default
    asr_model: str = "tiny.en"
    utterance_style: str = UtteranceStyle.FULL.value
    patience: str = Patience.DEFAULT.value
    mode: str = FloorMode.SPEAK.value
    keep_meeting_audio: bool = False  # keep the microphone audio for `jarvis retranscribe`
    recent_files: list[str] = field(default_factory=list)

    def apply(self, settings: Settings) -> Settings:
        """``settings`` with these preferences laid over it."""
        return replace(
            settings,
            speech=replace(
                settings.speech,
                wake_threshold=1.0 - self.wake_sensitivity,
                asr_model=self.asr_model,
                keep_meeting_audio=self.keep_meeting_audio,
            ),
            voice=replace(
                settings.voice, engine=self.voice_engine, voice=self.voice, speed=self.speed
            ),
            utterance=replace(settings.utterance, style=UtteranceStyle(self.utterance_style)),
            ledger=replace(settings.ledger, patience=Patience(self.patience)),
            floor=replace(
                settings.floor,
                mode=FloorMode(self.mode),
                proactive_gap=self.proactive_gap_minutes * 60.0,
            ),
        )

    def live(self) -> dict[Setting, SettingValue]:
        """What the running agent takes from these preferences without a restart."""
        return {
            Setting.PATIENCE: self.patience,
            Setting.MODE: self.mode,
            Setting.PROACTIVE_GAP: self.proactive_gap_minutes * 60.0,
            Setting.VOICE_ENGINE: self.voice_engine,
            Setting.VOICE: self.voice,
            Setting.SPEED: self.speed,
            Setting.INPUT_DEVICE: self.input_device,
            Setting.OUTPUT_DEVICE: self.output_device,
        }

    def add_recent(self, path: str) -> None:
        self.recent_files = [path] + [p for p in self.recent_files if p != path]
        del self.recent_files[MAX_RECENT:]


# Preferences read when the agent starts: a change waits for the next start.
AT_START = (
    "wake_sensitivity", "llm_model", "asr_model", "utterance_style", "keep_meeting_audio",
)  # fmt: skip


def live_changes(old: Preferences, new: Preferences) -> list[tuple[Setting, SettingValue]]:
    """The settings to change on the running agent, in a fixed order."""
    before, after = old.live(), new.live()
    return [(s, v) for s, v in after.items() if before[s] != v]


def start_changes(old: Preferences, new: Preferences) -> list[str]:
    """The changed preferences that apply only when the agent next starts."""
    return [name for name in AT_START if getattr(old, name) != getattr(new, name)]


def _store(organization: str, application: str) -> QSettings:
    return QSettings(organization, application)


def load_preferences(organization: str = "jarvis-room", application: str = "Jarvis") -> Preferences:
    qs = _store(organization, application)
    prefs = Preferences()
    for name, default in vars(Preferences()).items():
        value: Any = qs.value(name, default)
        if isinstance(default, bool):  # the settings file gives "true" / "false" back
            value = value if isinstance(value, bool) else str(value).lower() in ("true", "1")
        elif isinstance(default, float):
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
