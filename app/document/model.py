"""The indexed document: numbered sentences that resolve to text, page and rectangles."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

Rect = tuple[float, float, float, float]

# Rough characters per LLM token for English prose (Qwen / Llama tokenisers land near 4).
_CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Sentence:
    sid: int
    text: str
    page: int  # 1-based
    rects: tuple[Rect, ...]  # PDF points, page coordinates (x0, y0, x1, y1); empty for text files
    kind: str = "text"  # or "table_row"


@dataclass(frozen=True)
class DocumentWarning:
    """Something the person opening the document must know; it was indexed all the same."""

    what: str  # one or two sentences fit to show in the window or print on the console
    pages: tuple[int, ...] = ()  # the 1-based pages it concerns, ascending


@dataclass
class DocumentIndex:
    path: Path
    sha256: str
    title: str
    page_count: int
    sentences: list[Sentence] = field(default_factory=list)
    warnings: tuple[DocumentWarning, ...] = ()

    def get(self, sid: int) -> Sentence | None:
        if 0 <= sid < len(self.sentences):
            return self.sentences[sid]
        return None

    @cached_property
    def _block(self) -> str:
        return "\n".join(f"[S{s.sid}] {s.text}" for s in self.sentences)

    def numbered_block(self) -> str:
        """The ``[S#] text`` lines, built once: the identical prefix of every LLM call."""
        return self._block

    def token_estimate(self) -> int:
        """LLM tokens of the numbered block; CJK text runs near one token per character."""
        from app.document.segment import cjk_letters  # segment imports this module

        cjk = cjk_letters(self._block)
        return round(cjk + (len(self._block) - cjk) / _CHARS_PER_TOKEN)

    @property
    def table_rows(self) -> int:
        return sum(1 for s in self.sentences if s.kind == "table_row")
