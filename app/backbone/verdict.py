"""What one turn's monitor (confirmed detector proposals included) says about one point."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.events import Intent


class Status(StrEnum):
    """The monitor's verdict on a point (the values are the monitor schema's)."""

    INCORRECT = "incorrect_info"  # the room stated something the document contradicts
    MISSING = "missing_info"  # the room asked for or lacks a fact the document gives
    NOT_IN_DOCUMENT = "not_in_paper"  # the room relies on the document for what it lacks
    ON_PROGRESS = "on_progress"  # talk about the document that needs nothing
    OFF_DOCUMENT = "off_document"  # talk about something else
    STALE = "stale"  # a point the room has already settled


ACTIONABLE = frozenset({Status.INCORRECT, Status.MISSING, Status.NOT_IN_DOCUMENT})
NON_ACTIONABLE = frozenset({Status.ON_PROGRESS, Status.OFF_DOCUMENT, Status.STALE})
STATUSES = tuple(sorted(ACTIONABLE | NON_ACTIONABLE))

INTENT_OF_STATUS = {
    Status.INCORRECT: Intent.CORRECT,
    Status.MISSING: Intent.MISSING,
    Status.NOT_IN_DOCUMENT: Intent.NOT_IN_DOCUMENT,
}


@dataclass(frozen=True)
class Verdict:
    """A status on one point; ``sids`` are already validated against the document."""

    status: Status
    claim: str = ""
    evidence: str = ""
    predicted_answer: str = ""
    sids: tuple[int, ...] = ()
    key: str = ""  # normalised key of the question/quantity (claim identity)
    source: str = "monitor"  # "monitor", or "monitor+<detector>" when it confirmed one

    @property
    def actionable(self) -> bool:
        return self.status in ACTIONABLE

    @property
    def confirmed(self) -> bool:
        """A deterministic detector proposed what the monitor reports."""
        return self.source != "monitor"
