"""Events the pipeline adds to those of ``app.events`` (display and health only)."""

from __future__ import annotations

from dataclasses import dataclass

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
class PipelineStopped:
    reason: str = ""


@dataclass(frozen=True)
class PlayEarcon:
    name: str = "wake"
