"""Page layout: text blocks with their words, fonts and the page furniture around them."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pymupdf

from app.document.model import Rect
from app.document.segment import Word, normalize

# Math fonts (TeX, MathTime, STIX/Cambria math): blocks mostly set in them are equations.
_MATH_FONT = re.compile(
    r"CMMI|CMSY|CMEX|MSBM|MSAM|MT2M|MT2S|Math|Symbol|rtxm|txsy|txex|esint", re.I
)
_BOLD_FONT = re.compile(r"Bold|Medi|Semibold|Black|Heavy|\.B$", re.I)
_TEXT_FLAGS = pymupdf.TEXTFLAGS_WORDS


@dataclass
class Line:
    key: tuple[int, int, int]  # (page, block, line)
    bbox: Rect
    words: list[Word]
    size: float  # dominant font size, rounded to 0.5 pt
    bold: bool
    math_chars: int
    chars: int

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Block:
    page: int  # 1-based
    number: int
    bbox: Rect
    lines: list[Line]

    @property
    def words(self) -> list[Word]:
        return [w for line in self.lines for w in line.words]

    @property
    def text(self) -> str:
        return " ".join(line.text for line in self.lines)

    @property
    def size(self) -> float:
        weights: Counter[float] = Counter()
        for line in self.lines:
            weights[line.size] += line.chars
        return weights.most_common(1)[0][0] if weights else 0.0

    @property
    def math_share(self) -> float:
        chars = sum(line.chars for line in self.lines)
        return sum(line.math_chars for line in self.lines) / chars if chars else 0.0

    @property
    def center(self) -> tuple[float, float]:
        return ((self.bbox[0] + self.bbox[2]) / 2, (self.bbox[1] + self.bbox[3]) / 2)


def read_page(page: pymupdf.Page) -> list[Block]:
    """Text blocks of one page in content-stream order, words keyed by their line."""
    pno = page.number + 1
    textpage = page.get_textpage(flags=_TEXT_FLAGS)
    layout = textpage.extractDICT()
    by_line: dict[tuple[int, int], list[Word]] = {}
    for x0, y0, x1, y1, raw, b, ln, _ in textpage.extractWORDS():
        text = normalize(raw)
        if text:
            key = (pno, b, ln)
            by_line.setdefault((b, ln), []).append(Word(text, pno, ((key, (x0, y0, x1, y1)),)))
    blocks: list[Block] = []
    for b, block in enumerate(layout["blocks"]):
        lines = []
        for ln, line in enumerate(block.get("lines", ())):
            words = by_line.get((b, ln))
            if words:
                words[-1] = Word(words[-1].text, pno, words[-1].boxes, True)
                lines.append(_line((pno, b, ln), line, words))
        if lines:
            blocks.append(Block(pno, b, tuple(block["bbox"]), lines))
    return blocks


def _line(key: tuple[int, int, int], line: dict, words: list[Word]) -> Line:
    sizes: Counter[float] = Counter()
    bold = True
    math = chars = 0
    for span in line["spans"]:
        n = len(span["text"].strip())
        if not n:
            continue
        chars += n
        sizes[round(span["size"] * 2) / 2] += n
        bold = bold and bool(span["flags"] & 16 or _BOLD_FONT.search(span["font"]))
        if _MATH_FONT.search(span["font"]):
            math += n
    size = sizes.most_common(1)[0][0] if sizes else 0.0
    return Line(key, tuple(line["bbox"]), words, size, bold and chars > 0, math, chars)


def body_size(pages: list[list[Block]]) -> float:
    """The font size most characters are set in: the running text."""
    weights: Counter[float] = Counter()
    for blocks in pages:
        for block in blocks:
            for line in block.lines:
                weights[line.size] += line.chars
    return weights.most_common(1)[0][0] if weights else 0.0


def figure_regions(page: pymupdf.Page) -> list[Rect]:
    """Areas holding pictures or dense vector graphics (plots, diagrams)."""
    area = page.rect.width * page.rect.height
    regions: list[Rect] = [
        tuple(info["bbox"]) for info in page.get_image_info() if _area(info["bbox"]) >= 0.01 * area
    ]
    drawings = page.get_drawings()
    if len(drawings) >= 8:
        for cluster in page.cluster_drawings(drawings=drawings):
            c = tuple(cluster)
            inside = sum(1 for d in drawings if _contains(c, d["rect"]))
            if inside >= 8 and _area(c) >= 0.02 * area:
                regions.append(c)
    return regions


def _area(r: tuple[float, ...] | pymupdf.Rect) -> float:
    return max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1])


def _contains(outer: Rect, inner: tuple[float, ...] | pymupdf.Rect, pad: float = 1.0) -> bool:
    return (
        inner[0] >= outer[0] - pad
        and inner[1] >= outer[1] - pad
        and inner[2] <= outer[2] + pad
        and inner[3] <= outer[3] + pad
    )


def point_in(rect: Rect, point: tuple[float, float]) -> bool:
    return rect[0] <= point[0] <= rect[2] and rect[1] <= point[1] <= rect[3]
