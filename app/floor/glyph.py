"""The agent-state glyph: shown changes are throttled so the UI never flickers.

A change is shown at once when the last one is at least ``debounce`` old; otherwise it
waits for the end of that interval and is shown only if it still holds then.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.events import AgentState
from app.floor.timing import reached


@dataclass
class Glyph:
    debounce: float
    shown: AgentState = AgentState.IDLE
    last_change: float = float("-inf")

    def update(self, desired: AgentState, now: float) -> AgentState | None:
        if desired == self.shown or not reached(now, self.last_change, self.debounce):
            return None
        self.shown, self.last_change = desired, now
        return desired

    def due(self) -> float:
        """When a held-back change may be shown."""
        return self.last_change + self.debounce
