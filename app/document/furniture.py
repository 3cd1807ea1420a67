"""Running headers, footers and page numbers: lines that belong to the page, not the text."""

from __future__ import annotations

import math
import re
from collections import Counter

from app.document.layout import Block, Line

# Share of the page height, from the top and from the bottom, where furniture lives.
MARGIN_SHARE = 0.12
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—\s]*(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?[-–—\s]*$", re.I
)
_DIGITS = re.compile(r"\d+")


def _in_margin(line: Line, height: float, share: float = MARGIN_SHARE) -> bool:
    return line.bbox[3] <= share * height or line.bbox[1] >= (1 - share) * height


def _key(line: Line) -> tuple[str, int]:
    """Text with numbers masked (page numbers change) and the line's vertical place."""
    text = _DIGITS.sub("#", line.text.lower())
    return text, round(line.bbox[1] / 3)


def running_lines(pages: list[list[Block]], heights: list[float], min_share: float) -> set[tuple]:
    """Keys of margin lines repeated at the same place on at least ``min_share`` of pages."""
    seen: Counter[tuple[str, int]] = Counter()
    for blocks, height in zip(pages, heights, strict=True):
        keys = {
            _key(line)
            for block in blocks
            for line in block.lines
            if _in_margin(line, height, 1.5 * MARGIN_SHARE)
        }
        seen.update(keys)
    need = max(2, math.floor(min_share * len(pages)))
    return {key for key, n in seen.items() if n >= need}


def is_furniture(line: Line, height: float, running: set[tuple]) -> bool:
    if _in_margin(line, height) and _PAGE_NUMBER.match(line.text):
        return True
    return _in_margin(line, height, 1.5 * MARGIN_SHARE) and _key(line) in running


def strip_furniture(
    pages: list[list[Block]], heights: list[float], min_share: float
) -> list[list[Block]]:
    """The pages with running heads/feet and page numbers removed (empty blocks dropped)."""
    running = running_lines(pages, heights, min_share)
    out: list[list[Block]] = []
    for blocks, height in zip(pages, heights, strict=True):
        kept = []
        for block in blocks:
            lines = [ln for ln in block.lines if not is_furniture(ln, height, running)]
            if lines:
                kept.append(Block(block.page, block.number, block.bbox, lines))
        out.append(kept)
    return out
