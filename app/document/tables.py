"""Tables found by PyMuPDF become citable rows: "Header1: v1; Header2: v2"."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

import pymupdf
import pymupdf.layout  # noqa: F401  the finder's table model: the only use of the layout analyzer

from app.document.model import Rect
from app.document.segment import normalize

_NUMERIC = re.compile(r"^[-−+±~≈<>]?\(?\d[\d.,]*\)?%?[*†‡]*$")
_MAX_HEADER_ROWS = 5
# Borderless tables: cells of at most this many words, set this many word heights apart,
# over at least this many lines (a header and two rows), most rows filling every column.
_MAX_CELL_WORDS = 4
_COLUMN_GAP = 1.0
_MIN_TABLE_LINES = 3
_FULL_ROW_SHARE = 0.8


@dataclass(frozen=True)
class TableRow:
    text: str
    rect: Rect


@dataclass(frozen=True)
class FoundTable:
    region: Rect  # table plus its header, in page coordinates
    rows: tuple[TableRow, ...]


def find_tables(page: pymupdf.Page) -> list[FoundTable]:
    """Tables of a page with their rows: ruled ones, else borderless ones set in columns."""
    words = [
        (x0, y0, x1, y1, normalize(t))
        for x0, y0, x1, y1, t, *_ in page.get_text("words", flags=pymupdf.TEXTFLAGS_WORDS)
    ]
    found = _ruled_tables(page, words) if page.get_drawings() else []
    if found:
        return found
    for clip in column_runs(words):  # cheap screen: PyMuPDF's text finder is slow per page
        found.extend(_borderless_tables(page, words, clip))
    return found


def _ruled_tables(page: pymupdf.Page, words: list[tuple]) -> list[FoundTable]:
    found = []
    for table in page.find_tables().tables:
        region = pymupdf.Rect(table.bbox)
        if table.header is not None and table.header.external:
            region |= pymupdf.Rect(table.header.bbox)
        inside = [w for w in words if w[4] and _center_in(w, region)]
        rows = table_rows(inside)
        if rows:
            found.append(FoundTable(tuple(region), tuple(rows)))  # type: ignore[arg-type]
    return found


def _borderless_tables(page: pymupdf.Page, words: list[tuple], clip: Rect) -> list[FoundTable]:
    """Tables PyMuPDF finds from text alignment alone, kept only when they are data."""
    found = []
    for table in page.find_tables(clip=pymupdf.Rect(clip), strategy="text").tables:
        region = pymupdf.Rect(table.bbox)
        inside = [w for w in words if w[4] and _center_in(w, region)]
        if not looks_like_table(inside):
            continue
        rows = table_rows(inside)
        if rows:
            found.append(FoundTable(tuple(region), tuple(rows)))  # type: ignore[arg-type]
    return found


def _cells(line: list[tuple], gap: float) -> list[list[tuple]]:
    """A visual line cut where the space between two words is wider than ``gap``."""
    cells: list[list[tuple]] = []
    for w in line:
        if cells and w[0] - cells[-1][-1][2] <= gap:
            cells[-1].append(w)
        else:
            cells.append([w])
    return cells


def _short_cells(line: list[tuple], gap: float) -> bool:
    """A line of two or more short cells: a row of data, not a line of prose."""
    cells = _cells(line, gap)
    return len(cells) >= 2 and all(len(c) <= _MAX_CELL_WORDS for c in cells)


def column_runs(words: list[tuple[float, float, float, float, str]]) -> list[Rect]:
    """Regions where three or more lines in a row are set as short cells in columns."""
    if not words:
        return []
    height = statistics.median(w[3] - w[1] for w in words)
    runs: list[list[list[tuple]]] = []
    previous = False
    for line in _visual_lines([w for w in words if w[4]]):
        tabular = _short_cells(line, _COLUMN_GAP * height)
        near = bool(runs) and min(w[1] for w in line) - max(w[3] for w in runs[-1][-1]) < height
        if tabular and previous and near:
            runs[-1].append(line)
        elif tabular:
            runs.append([line])
        previous = tabular
    regions = []
    for run in runs:
        if len(run) >= _MIN_TABLE_LINES:
            ws = [w for line in run for w in line]
            regions.append(
                (
                    min(w[0] for w in ws) - 1,
                    min(w[1] for w in ws) - 1,
                    max(w[2] for w in ws) + 1,
                    max(w[3] for w in ws) + 1,
                )
            )
    return regions


def looks_like_table(words: list[tuple[float, float, float, float, str]]) -> bool:
    """Two or more columns, two or more rows under the header, the same columns filled on
    (nearly) every row, and short cells: what a borderless table has and prose has not."""
    lines = _visual_lines(words)
    body = lines[_header_rows(lines) :]
    if len(body) < 2:
        return False
    height = statistics.median(w[3] - w[1] for w in words)
    columns = _columns([w for line in body for w in line], gap=0.5 * height)
    if len(columns) < 2:
        return False
    filled = [sum(any(_overlaps(w, col) for w in line) for col in columns) for line in body]
    full = sum(1 for n in filled if n == len(columns))
    if min(filled) < 2 or full < _FULL_ROW_SHARE * len(body):
        return False
    return all(_short_cells(line, _COLUMN_GAP * height) for line in body)


def _center_in(w: tuple, r: pymupdf.Rect) -> bool:
    cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
    return bool(r.x0 <= cx <= r.x1 and r.y0 <= cy <= r.y1)


def table_rows(words: list[tuple[float, float, float, float, str]]) -> list[TableRow]:
    """Rows from the words inside a table: visual lines, columns from the gaps between words."""
    lines = _visual_lines(words)
    header_n = _header_rows(lines)
    body = lines[header_n:]
    if len(body) < 1 or len(lines) < 2:
        return []
    height = statistics.median(w[3] - w[1] for w in words)
    columns = _columns([w for line in body for w in line], gap=0.5 * height)
    if len(columns) < 2 or _prose_like(body, columns):
        return []
    headers = [
        " ".join(w[4] for line in lines[:header_n] for w in line if _overlaps(w, col))
        for col in columns
    ]
    rows = []
    for line in body:
        cells = [" ".join(w[4] for w in line if _overlaps(w, col)) for col in columns]
        parts = [f"{h}: {v}" if h else v for h, v in zip(headers, cells, strict=True) if v]
        if len(parts) >= 2:
            rect = (
                min(w[0] for w in line),
                min(w[1] for w in line),
                max(w[2] for w in line),
                max(w[3] for w in line),
            )
            rows.append(TableRow("; ".join(parts), rect))
    return rows


def _visual_lines(words: list[tuple]) -> list[list[tuple]]:
    lines: list[list[tuple]] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        cy, h = (w[1] + w[3]) / 2, w[3] - w[1]
        if lines:
            last = lines[-1]
            ly = statistics.fmean((v[1] + v[3]) / 2 for v in last)
            if abs(cy - ly) <= 0.4 * h:
                last.append(w)
                continue
        lines.append([w])
    return [sorted(line, key=lambda w: w[0]) for line in lines]


def _header_rows(lines: list[list[tuple]]) -> int:
    """Leading lines without numbers (at most five) when the body has numbers; else one."""
    if not any(_NUMERIC.match(w[4]) for line in lines for w in line):
        return 1
    n = 0
    while n < min(_MAX_HEADER_ROWS, len(lines) - 1):
        if any(_NUMERIC.match(w[4]) for w in lines[n]):
            break
        n += 1
    return max(n, 1)


def _columns(words: list[tuple], gap: float) -> list[tuple[float, float]]:
    spans: list[list[float]] = []
    for x0, _, x1, *_ in sorted(words, key=lambda w: w[0]):
        if spans and x0 <= spans[-1][1] + gap:
            spans[-1][1] = max(spans[-1][1], x1)
        else:
            spans.append([x0, x1])
    return [(a, b) for a, b in spans]


def _overlaps(w: tuple, col: tuple[float, float]) -> bool:
    return min(w[2], col[1]) - max(w[0], col[0]) > 0


def _prose_like(body: list[list[tuple]], columns: list[tuple[float, float]]) -> bool:
    """A "table" whose cells hold running sentences is a boxed paragraph, not data."""
    wide = sum(1 for line in body for col in columns if sum(_overlaps(w, col) for w in line) >= 8)
    return wide > len(body) / 2
