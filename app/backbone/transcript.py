"""The running transcript and the append-only window every stage reads.

The window starts at an anchor that moves only every ``slide_every`` turns, so from one
call to the next the rendered text only grows at its end and the LLM's cached prefix
(instructions + window so far) is reused instead of re-read. In focused context the
document sentences a call needs are attached to the newest line when first shown, so they
too stay in the cached text while their line is in the window.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from app.language.words import AGENT_NAME

AGENT = AGENT_NAME


@dataclass(frozen=True)
class Line:
    index: int  # the turn index it arrived on
    speaker: str
    text: str
    agent: bool = False
    evidence: tuple[int, ...] = ()  # document sentences first shown after this line
    unsure: tuple[str, ...] = ()  # words the recognizer was unsure of (``Turn.unsure``)

    def render(self) -> str:
        return f"[Turn {self.index}] {self.speaker}: {self.text}"


def shown_under(lines: Iterable[Line]) -> set[int]:
    """The sentences attached to ``lines``."""
    return {sid for line in lines for sid in line.evidence}


@dataclass
class Transcript:
    window: int = 10
    slide_every: int = 4
    lines: list[Line] = field(default_factory=list)
    _anchor: int = 0

    def append(self, index: int, speaker: str, text: str, agent: bool = False,
               unsure: tuple[str, ...] = ()) -> Line:
        line = Line(index, speaker, text, agent, unsure=unsure)
        self.lines.append(line)
        if len(self.lines) - self._anchor > self.window + self.slide_every - 1:
            self._anchor = len(self.lines) - self.window
        return line

    def attach(self, sids: Iterable[int]) -> list[int]:
        """Show ``sids`` after the newest line, those the window does not show yet; returns
        them in order."""
        shown = self.shown()
        new = [sid for sid in dict.fromkeys(sids) if sid not in shown]
        if new and self.lines:
            last = self.lines[-1]
            self.lines[-1] = replace(last, evidence=(*last.evidence, *new))
        return new

    def shown(self) -> set[int]:
        """Sentences attached to the window's lines."""
        return shown_under(self.recent())

    def clear(self) -> None:
        """Start again from no lines (the stages that hold the transcript keep it)."""
        self.lines.clear()
        self._anchor = 0

    def recent(self, n: int | None = None) -> list[Line]:
        """The append-only window (between ``window`` and ``window+slide_every-1`` lines),
        or exactly the last ``n`` lines when asked."""
        if n is not None:
            return self.lines[-n:] if n > 0 else []
        return self.lines[self._anchor :]

    def previous_texts(self, n: int) -> list[str]:
        """Texts of the ``n`` lines before the newest one."""
        return [line.text for line in self.lines[-n - 1 : -1]]

    def by_index(self, indices: set[int]) -> list[Line]:
        """Participants' lines of those turns (the agent's share their index)."""
        return [line for line in self.lines if line.index in indices and not line.agent]
