"""Documents as PDFs: text documents rendered with PyMuPDF ``Story``; page text read back.

Rendering is deterministic (fixed metadata, no new file id), so one seed writes the same
bytes every time. Page text is normalised as BENCHMARK.md's evidence strings are: NFKC,
line-break hyphenation removed between lowercase letters, other line-end hyphens kept,
whitespace runs made one space.
"""

from __future__ import annotations

import html
import io
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from app.document.segment import sentence_text, split_sentences, words_from_text
from benchmarks.sets.sources import Block, BlockKind, SourceDocument

PAGE = pymupdf.paper_rect("letter")
MARGIN = 72.0  # points: one inch
FOOTER_BASELINE = 36.0  # points above the page's bottom edge
FIXED_DATE = "D:20200101000000Z"
CSS = """
body { font-family: serif; font-size: 11pt; text-align: justify; }
h1 { font-size: 16pt; text-align: left; margin: 0 0 8pt 0; }
h2 { font-size: 12pt; text-align: left; margin: 10pt 0 4pt 0; }
p { margin: 0 0 6pt 0; }
p.meta { font-size: 9pt; text-align: left; margin: 0 0 1pt 0; }
p.item { margin: 0 0 2pt 12pt; text-align: left; }
"""
_TAG = {BlockKind.TITLE: ("h1", ""), BlockKind.HEADING: ("h2", ""),
        BlockKind.META: ("p", ' class="meta"'), BlockKind.PARAGRAPH: ("p", ""),
        BlockKind.ITEM: ("p", ' class="item"')}  # fmt: skip


@dataclass(frozen=True)
class DocumentSentence:
    text: str  # normalised, verbatim in its page's normalised text
    page: int  # 1-based


@dataclass(frozen=True)
class RenderedDocument:
    pdf: bytes
    pages: tuple[str, ...]  # normalised text per page
    sentences: tuple[DocumentSentence, ...]

    @property
    def text(self) -> str:
        return " ".join(self.pages)


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(?<=[a-z])-[ \t]*\n[ \t]*(?=[a-z])", "", text)
    text = re.sub(r"-[ \t]*\n[ \t]*", "-", text)
    return re.sub(r"\s+", " ", text).strip()


def _html(blocks: Sequence[Block]) -> str:
    parts = []
    for block in blocks:
        tag, attributes = _TAG[block.kind]
        parts.append(f"<{tag}{attributes}>{html.escape(block.text)}</{tag}>")
    return "<body>" + "".join(parts) + "</body>"


def render(blocks: Sequence[Block], title: str) -> bytes:
    """A multi-page US Letter PDF of the blocks, page numbers in the footer."""
    story = pymupdf.Story(html=_html(blocks), user_css=CSS)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    where = pymupdf.Rect(MARGIN, MARGIN, PAGE.width - MARGIN, PAGE.height - MARGIN)
    more = True
    while more:
        device = writer.begin_page(PAGE)
        more, _ = story.place(where)
        story.draw(device)
        writer.end_page()
    writer.close()
    doc = pymupdf.open("pdf", buffer.getvalue())
    for page in doc.pages():
        label = str(page.number + 1)
        width = pymupdf.get_text_length(label, fontname="times-roman", fontsize=9)
        point = pymupdf.Point((PAGE.width - width) / 2, PAGE.height - FOOTER_BASELINE)
        page.insert_text(point, label, fontname="times-roman", fontsize=9)
    doc.set_metadata({"title": title, "creator": "benchmarks/make_set.py", "producer": "PyMuPDF",
                      "creationDate": FIXED_DATE, "modDate": FIXED_DATE})  # fmt: skip
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return bytes(data)


def page_texts(pdf: bytes) -> tuple[str, ...]:
    with pymupdf.open("pdf", pdf) as doc:
        return tuple(normalise(page.get_text()) for page in doc)


def page_sentences(pages: Sequence[str]) -> tuple[DocumentSentence, ...]:
    """Sentences of each page (a sentence running over a page break is cut there)."""
    out = []
    for number, text in enumerate(pages, start=1):
        for words in split_sentences(words_from_text(text, number)):
            sentence = sentence_text(words)
            if sentence in text:
                out.append(DocumentSentence(sentence, number))
    return tuple(out)


def prepare(document: SourceDocument) -> RenderedDocument:
    """The document's PDF bytes, page texts and sentences."""
    if document.pdf is not None:
        data = Path(document.pdf).read_bytes()
    else:
        data = render(document.blocks, document.title)
    pages = page_texts(data)
    return RenderedDocument(data, pages, page_sentences(pages))
