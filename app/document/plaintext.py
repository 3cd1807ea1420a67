"""Plain-text and Markdown documents: pages split by form feed, paragraphs by blank lines."""

from __future__ import annotations

import re

from app.document.assemble import Assembly, Unit
from app.document.segment import words_from_text

_MD_MARK = re.compile(r"^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|>\s?)")
_PARAGRAPH = re.compile(r"\n\s*\n")


def text_pages(text: str) -> list[str]:
    pages = text.split("\f")
    if len(pages) > 1 and not pages[-1].strip():
        pages.pop()  # a trailing form feed does not start a page
    return pages


def _paragraphs(page: str) -> list[str]:
    """Paragraphs; a Markdown heading or list item is a paragraph of its own."""
    out: list[str] = []
    for para in _PARAGRAPH.split(page):
        current: list[str] = []
        for line in para.splitlines():
            if _MD_MARK.match(line):
                if current:
                    out.append("\n".join(current))
                current = [_MD_MARK.sub("", line)]
            else:
                current.append(line)
        if current:
            out.append("\n".join(current))
    return [p for p in out if p.strip()]


def text_assembly(text: str) -> Assembly:
    out = Assembly()
    order = 0.0
    for number, page in enumerate(text_pages(text), start=1):
        for para in _paragraphs(page):
            order += 1
            out.units.append(Unit(words_from_text(para, number), order))
    return out


def text_title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = _MD_MARK.sub("", line).strip()
        if line:
            return line[:200]
    return fallback
