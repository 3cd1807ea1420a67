"""Events the pipeline adds to those of ``app.events`` (display and health only)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.events import Citation, Intervention


@dataclass(frozen=True)
class ComponentStatus:
    """Whether one part of the pipeline (speech, backbone, floor, voice, ...) is running."""

    component: str
    available: bool
    reason: str = ""


@dataclass(frozen=True)
class PipelineError:
    """A failure the user should see; the app keeps running."""

    component: str
    message: str
    hint: str = ""


@dataclass(frozen=True)
class DocumentLoaded:
    path: str
    title: str
    page_count: int
    sentence_count: int


@dataclass(frozen=True)
class HighlightCitation:
    """Point at a cited sentence (``active``) or let the arrow fade (not active)."""

    intervention_id: str
    citation: Citation | None
    active: bool = True


@dataclass(frozen=True)
class PendingIntervention:
    """What the agent would say once it has the floor (shown under a raised hand)."""

    intervention: Intervention | None


@dataclass(frozen=True)
class InterventionOffered:
    """An intervention handed to the floor that no decision carries (a direct answer),
    recorded before the floor acts on it: a record that ends while it waits, or a floor
    that drops it, still says what it was."""

    intervention: Intervention


@dataclass(frozen=True)
class PipelineStopped:
    reason: str = ""


@dataclass(frozen=True)
class PlayEarcon:
    name: str = "wake"


class WarmStage(str, Enum):
    """What the agent is doing before it can follow the meeting."""

    INDEXING = "indexing"  # splitting the document into citable sentences
    LOADING_MODEL = "loading_model"  # loading the language model's weights
    READING = "reading"  # the model reads the document prefix once (its KV cache)


@dataclass(frozen=True)
class AgentProgress:
    """How far the agent has come in starting; ``fraction`` 0..1 where it is known."""

    stage: WarmStage
    fraction: float | None = None

    @property
    def text(self) -> str:
        if self.stage == WarmStage.INDEXING:
            return "Indexing the document\u2026"
        if self.stage == WarmStage.LOADING_MODEL:
            return "Loading the language model\u2026"
        if self.fraction is None:
            return "Reading the document\u2026"
        return f"Reading the document\u2026 {self.fraction:.0%}"


class InputState(str, Enum):
    LISTENING = "listening"  # audio flows from ``source``
    SWITCHING = "switching"  # capture restarts on another device
    LOST = "lost"  # the device failed; capture retries
    STOPPED = "stopped"  # the recording ended or capture was closed


@dataclass(frozen=True)
class InputStatus:
    """Where the room's sound comes from and whether it flows."""

    state: InputState
    source: str = ""  # the microphone's name, or "recording <file name>"
