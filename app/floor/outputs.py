"""Commands the floor emits; the app turns them into playback, UI updates and records."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.events import AgentState, Citation, Intervention, PlaybackReceipt
from app.settings import Patience


@dataclass(frozen=True)
class Play:
    """Speak ``text``; it starts at sentence ``resume_sentence`` of the intervention."""

    intervention: Intervention
    text: str
    resume_sentence: int = 0


@dataclass(frozen=True)
class Stop:
    reason: str  # barge_in, superseded, paused


@dataclass(frozen=True)
class StateChanged:
    state: AgentState


@dataclass(frozen=True)
class Earcon:
    name: str = "wake"


@dataclass(frozen=True)
class ShowCitation:
    citation: Citation


@dataclass(frozen=True)
class ClearCitation:
    pass


@dataclass(frozen=True)
class RequestDirectAnswer:
    question: str
    speaker: str
    generation: int


@dataclass(frozen=True)
class CancelGeneration:
    generation: int


@dataclass(frozen=True)
class Dropped:
    """An intervention that will not be (fully) spoken, and why, for the session record."""

    intervention_id: str
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class Delivered:
    """Playback ended: ``complete`` only when it was heard in full."""

    intervention: Intervention
    receipt: PlaybackReceipt
    complete: bool


@dataclass(frozen=True)
class PatienceChanged:
    patience: Patience


class SnoozeSource(str, Enum):
    WINDOW = "window"  # the snooze menu or button
    VOICE = "voice"  # "Jarvis, not now" / "Jarvis, quiet for ten minutes"
    EXPIRED = "expired"  # its time ran out


@dataclass(frozen=True)
class SnoozeChanged:
    """Proactive interventions are held back until ``until`` (session clock, seconds), or
    may be made again (``until`` None). Direct answers are never held back."""

    until: float | None
    seconds: float = 0.0  # how long the snooze was asked for; 0 when it ends
    source: SnoozeSource = SnoozeSource.WINDOW


Command = (
    Play
    | Stop
    | StateChanged
    | Earcon
    | ShowCitation
    | ClearCitation
    | RequestDirectAnswer
    | CancelGeneration
    | Dropped
    | Delivered
    | PatienceChanged
    | SnoozeChanged
)
