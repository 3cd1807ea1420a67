"""Qt-free wiring of the workers: speech -> backbone -> floor -> voice, plus the record.

The window (or a headless runner) subscribes to one ``EventHub`` and calls the
pipeline's plain methods for user actions; nothing here imports Qt.
"""

from app.pipeline.events import (
    ComponentStatus,
    DocumentLoaded,
    HighlightCitation,
    PendingIntervention,
    PipelineError,
    PipelineStopped,
)
from app.pipeline.hub import EventHub

__all__ = [
    "ComponentStatus",
    "DocumentLoaded",
    "EventHub",
    "HighlightCitation",
    "PendingIntervention",
    "PipelineError",
    "PipelineStopped",
]
