"""What one turn's monitor (confirmed detector proposals included) says about one point."""

from __future__ import annotations

from dataclasses import dataclass

ACTIONABLE = frozenset({"incorrect_info", "missing_info", "not_in_paper"})
NON_ACTIONABLE = frozenset({"on_progress", "off_document", "stale"})
STATUSES = tuple(sorted(ACTIONABLE | NON_ACTIONABLE))

INTENT_OF_STATUS = {
    "incorrect_info": "correct",
    "missing_info": "missing",
    "not_in_paper": "not_in_paper",
}


@dataclass(frozen=True)
class Verdict:
    """A status on one point; ``sids`` are already validated against the document."""

    status: str
    claim: str = ""
    evidence: str = ""
    predicted_answer: str = ""
    sids: tuple[int, ...] = ()
    key: str = ""  # normalised key of the question/quantity (claim identity)
    source: str = "monitor"  # "monitor", or "monitor+<detector>" when it confirmed one

    @property
    def actionable(self) -> bool:
        return self.status in ACTIONABLE
