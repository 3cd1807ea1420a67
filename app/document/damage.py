"""Pages a PDF loses to damage or to missing text layers, worded for the person opening it.

MuPDF repairs a truncated or broken file silently: the pages it could not rebuild come out
empty, and indexing them quietly would let the agent miss whole sections. So empty pages
are named in a warning the command line prints and the window shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.document.model import DocumentWarning

if TYPE_CHECKING:  # the loader owns the import of the PDF library
    import pymupdf

# A page with fewer extracted characters than this (a lone page number) has no text.
MIN_PAGE_CHARS = 20


def page_chars(doc: pymupdf.Document) -> list[int]:
    """Characters of extracted text on each page, in page order."""
    return [len(doc[i].get_text("text").strip()) for i in range(doc.page_count)]


def page_ranges(pages: Sequence[int]) -> str:
    """ "page 3", "pages 1–7", "pages 1–3, 5 and 9" for 1-based page numbers."""
    runs: list[list[int]] = []
    for page in sorted(set(pages)):
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    parts = [str(r[0]) if len(r) == 1 else f"{r[0]}\u2013{r[-1]}" for r in runs]
    label = "page" if len(runs) == 1 and len(runs[0]) == 1 else "pages"
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{label} {text}"


def _has_graphics(page: pymupdf.Page) -> bool:
    return bool(page.get_images()) or bool(page.get_drawings())


def page_warnings(doc: pymupdf.Document, path: Path, chars: Sequence[int]) -> list[DocumentWarning]:
    """Warnings for pages without text in a document whose other pages have text.

    In a repaired file every empty page is suspect. In an intact one a blank page is
    deliberate, so only pages that show something (a scan, a figure) without text count."""
    empty = [i + 1 for i, n in enumerate(chars) if n < MIN_PAGE_CHARS]
    if not empty or len(empty) == len(chars):
        return []  # all empty: the loader refuses the file instead
    name = Path(path).name
    if doc.is_repaired:
        what = (
            f"\u201c{name}\u201d is damaged; it was repaired, but {page_ranges(empty)} came out "
            "empty, so the agent cannot check what they say. Download or export the PDF "
            "again to get every page."
        )
        return [DocumentWarning(what, tuple(empty))]
    unread = [p for p in empty if _has_graphics(doc[p - 1])]
    if not unread:
        return []
    one = len(unread) == 1
    what = (
        f"{page_ranges(unread).capitalize()} of \u201c{name}\u201d "
        f"{'has' if one else 'have'} no text layer (a scan or a picture), so the agent "
        f"cannot check what {'it shows' if one else 'they show'}. "
        f"Run the PDF through OCR to include {'it' if one else 'them'}."
    )
    return [DocumentWarning(what, tuple(unread))]
