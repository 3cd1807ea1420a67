"""PDF pages to units: the running text flow, its asides, and table rows."""

from __future__ import annotations

import re

import pymupdf

from app.document.assemble import Assembly, Row, Unit
from app.document.furniture import strip_furniture
from app.document.layout import Block, body_size, figure_regions, point_in, read_page
from app.document.model import Rect
from app.document.segment import Word
from app.document.tables import FoundTable, find_tables

_CAPTION = re.compile(
    r"^(?:Figure|Fig\.|Table|Tab\.|Algorithm|Listing|Scheme|Chart)\s*[A-Z]?\d+[a-z]?\s*[:.|—–-]"
)
_SIZE_TOLERANCE = 0.6  # pt: 10.8 and 11.0 are the same body size
_HEADING_MAX_WORDS = 10
_LABEL_REACH = 30.0  # pt around a figure where short unpunctuated text is its labels


def _pad(r: Rect, by: float) -> Rect:
    return (r[0] - by, r[1] - by, r[2] + by, r[3] + by)


def _label_like(block: Block) -> bool:
    """Axis labels, legend entries, diagram boxes: short and unpunctuated."""
    words = block.words
    if len(words) <= 4 and words[-1].text[-1:] not in ".!?":
        return True
    return len(block.lines) >= 3 and len(words) / len(block.lines) < 2.5


def _prose_like(block: Block) -> bool:
    """Whole sentences (a note set inside a figure) rather than labels or a legend."""
    words = block.words
    return len(words) >= 8 and words[-1].text.rstrip("\"'”’)]")[-1:] in ".!?"


def _runin_heading(block: Block) -> bool:
    """A bold first line without final punctuation ("Ablation Study" before the paragraph)."""
    first = block.lines[0]
    return first.bold and len(first.words) <= _HEADING_MAX_WORDS and first.text[-1:] not in ".!?:;,"


def classify(block: Block, body: float, figures: list[Rect]) -> str:
    """One of: caption, drop, heading, aside, flow."""
    if _CAPTION.match(block.lines[0].text):
        return "caption"
    size = block.size
    if any(point_in(r, block.center) for r in figures):
        return "aside" if _prose_like(block) else "drop"
    near = any(point_in(_pad(r, _LABEL_REACH), block.center) for r in figures)
    if near and _label_like(block):
        return "drop"  # axis titles and tick labels sit just outside the plot
    if block.math_share >= 0.3:
        return "drop"  # a displayed equation
    if size > body + _SIZE_TOLERANCE:
        return "heading"
    if size < body - _SIZE_TOLERANCE:
        return "aside"  # footnotes, small-type abstract, affiliations
    return "flow"


class _Builder:
    def __init__(self) -> None:
        self.out = Assembly()
        self.flow: list[Word] = []
        self.flow_order = 0.0
        self.seq = 0.0

    def flush(self) -> None:
        if self.flow:
            self.out.units.append(Unit(self.flow, self.flow_order))
        self.flow = []

    def add_flow(self, words: list[Word]) -> None:
        if not self.flow:
            self.flow_order = self.seq
        self.flow.extend(words)

    def add_rows(self, table: FoundTable, page: int) -> None:
        for i, row in enumerate(table.rows):
            self.out.rows.append(Row(row.text, page, row.rect, self.seq + i / 1000))

    def page(self, page: pymupdf.Page, blocks: list[Block], body: float) -> None:
        tables = find_tables(page)
        figures = figure_regions(page)
        placed: set[int] = set()
        for block in blocks:
            self.seq += 1
            self.out.block_order[(block.page, block.number)] = self.seq
            hit = next((i for i, t in enumerate(tables) if point_in(t.region, block.center)), None)
            if hit is not None:
                if hit not in placed:
                    placed.add(hit)
                    self.add_rows(tables[hit], block.page)
                continue
            self.block(block, classify(block, body, figures))
        for i, table in enumerate(tables):
            if i not in placed:
                self.add_rows(table, page.number + 1)

    def block(self, block: Block, kind: str) -> None:
        if kind == "drop":
            return
        if kind in ("caption", "aside"):
            self.out.units.append(Unit(block.words, self.seq))
            return
        if kind == "heading":
            self.flush()
            self.out.units.append(Unit(block.words, self.seq))
            return
        if _runin_heading(block):
            self.flush()
            self.out.units.append(Unit(block.lines[0].words, self.seq))
            rest = [w for line in block.lines[1:] for w in line.words]
            if rest:
                self.add_flow(rest)
            return
        self.add_flow(block.words)


def pages_of(doc: pymupdf.Document) -> list[pymupdf.Page]:
    return [doc[i] for i in range(doc.page_count)]


def pdf_assembly(doc: pymupdf.Document, min_running_share: float) -> Assembly:
    pdf_pages = pages_of(doc)
    pages = [read_page(page) for page in pdf_pages]
    heights = [page.rect.height for page in pdf_pages]
    pages = strip_furniture(pages, heights, min_running_share)
    body = body_size(pages)
    builder = _Builder()
    for page, blocks in zip(pdf_pages, pages, strict=True):
        builder.page(page, blocks, body)
    builder.flush()
    return builder.out


def has_images(doc: pymupdf.Document) -> bool:
    return any(bool(page.get_images()) for page in pages_of(doc))


def title_of(doc: pymupdf.Document, fallback: str) -> str:
    """Metadata title when it looks real, else the largest line on page 1."""
    meta = (doc.metadata or {}).get("title", "") or ""
    if len(meta.split()) >= 2 and not re.search(r"\.(docx?|tex|pdf)$|^Microsoft", meta, re.I):
        return meta.strip()
    if doc.page_count:
        best = max(
            read_page(doc[0]),
            key=lambda b: (b.size, -b.bbox[1]),
            default=None,
        )
        if best is not None and len(best.text) >= 4:
            return best.text[:200]
    return fallback
