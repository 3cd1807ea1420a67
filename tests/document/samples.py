"""Small PDFs written with PyMuPDF for the document tests."""

from __future__ import annotations

from pathlib import Path

import pymupdf

BODY = 11


def write(doc: pymupdf.Document, path: Path, **save: object) -> Path:
    doc.save(path, **save)
    doc.close()
    return path


def text_pdf(path: Path, pages: list[list[str]], **save: object) -> Path:
    """One line of body text per entry, top to bottom, on A4 pages."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines):
            page.insert_text((72, 100 + 16 * i), line, fontsize=BODY)
    return write(doc, path, **save)


HEAD = "Journal of Room Acoustics, Vol. 7"
FOOT = "Preprint under review, do not cite this version"


def with_running_heads(path: Path, pages: list[list[str]]) -> Path:
    """Pages with a running head, a running foot and a page number around the body."""
    doc = pymupdf.open()
    for number, lines in enumerate(pages, start=1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 40), HEAD, fontsize=BODY)
        page.insert_text((72, 805), FOOT, fontsize=BODY)
        page.insert_text((290, 822), str(number), fontsize=BODY)
        for i, line in enumerate(lines):
            page.insert_text((72, 100 + 16 * i), line, fontsize=BODY)
    return write(doc, path)


def image_only(path: Path) -> Path:
    """A page that is a picture and nothing else (a scan without OCR)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 160), False)
    pix.clear_with(180)
    page.insert_image(pymupdf.Rect(50, 50, 545, 792), pixmap=pix)
    return write(doc, path)


def blank(path: Path) -> Path:
    doc = pymupdf.open()
    doc.new_page()
    return write(doc, path)


def zero_pages(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one directly)."""
    doc = pymupdf.open()
    doc.new_page()
    data = doc.tobytes()
    doc.close()
    emptied = data.replace(b"/Count 1/Kids[4 0 R]", b"/Count 0/Kids[     ]")
    assert emptied != data, "page tree layout changed; update the sample"
    path.write_bytes(emptied)
    return path


FIGURE_TEXT = ("Amplitude", "Time in seconds", "Speaker one Speaker two Speaker three Background")


def figure_page(path: Path) -> Path:
    """Prose, a picture with body-size labels on it, a caption, more prose."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    body = {"fontsize": BODY}
    page.insert_text(
        (72, 80), "The microphone array was placed at the centre of the table.", **body
    )
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 100, 100), False)
    pix.clear_with(240)
    page.insert_image(pymupdf.Rect(72, 120, 472, 420), pixmap=pix)
    page.insert_text((90, 150), FIGURE_TEXT[0], **body)
    page.insert_text((200, 400), FIGURE_TEXT[1], **body)
    page.insert_text((100, 300), FIGURE_TEXT[2], **body)
    page.insert_text((72, 440), "Figure 3: Level of the room signal over one meeting.", **body)
    page.insert_text((72, 470), "We recorded twelve meetings in four different rooms.", **body)
    return write(doc, path)


def ruled_table(path: Path) -> Path:
    """A ruled table between two paragraphs, like a typeset results table."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    body = {"fontsize": BODY}
    page.insert_text((72, 80), "Table 1 lists the word error rate of each recogniser.", **body)
    rows = [
        ("System", "WER", "Latency"),
        ("Whisper tiny", "14.2", "0.3 s"),
        ("Whisper base", "10.8", "0.6 s"),
    ]
    xs, y0, h = (80, 260, 380), 110, 22
    for r, row in enumerate(rows):
        for x, cell in zip(xs, row, strict=True):
            page.insert_text((x, y0 + r * h + 15), cell, **body)
    for r in range(len(rows) + 1):
        page.draw_line((72, y0 + r * h), (470, y0 + r * h))
    for x in (72, 250, 370, 470):
        page.draw_line((x, y0), (x, y0 + len(rows) * h))
    after = "The smaller model is faster but makes more errors overall."
    page.insert_text((72, y0 + len(rows) * h + 30), after, **body)
    return write(doc, path)


def long_prose(path: Path, pages: int = 10, lines: int = 40) -> Path:
    """Pages full of body text, each line naming its page (for cutting the file short)."""
    line = "Page {p} line {i} says the roof of the hall was planted with sedum in spring."
    body = [[line.format(p=p, i=i) for i in range(lines)] for p in range(1, pages + 1)]
    return text_pdf(path, body)


def truncated(source: Path, path: Path, share: float) -> Path:
    """The first ``share`` of a file's bytes, as a download cut off part way."""
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * share)])
    return path


def chinese(path: Path, lines: list[str]) -> Path:
    """Simplified Chinese set line by line, sentences running across line ends."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i, line in enumerate(lines):
        page.insert_text((72, 100 + 18 * i), line, fontname="china-s", fontsize=BODY)
    return write(doc, path)


BORDERLESS = [
    ("System", "WER", "Latency", "Memory"),
    ("Whisper tiny", "14.2", "0.3 s", "75 MB"),
    ("Whisper base", "10.8", "0.6 s", "142 MB"),
    ("Whisper small", "7.9", "1.4 s", "466 MB"),
]


def borderless_table(path: Path) -> Path:
    """A table set in aligned columns without any rule, between two paragraphs."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    body = {"fontsize": BODY}
    page.insert_text((72, 80), "Table 2 lists the word error rate of each recogniser.", **body)
    for r, row in enumerate(BORDERLESS):
        for x, cell in zip((80, 240, 330, 430), row, strict=True):
            page.insert_text((x, 120 + r * 18), cell, **body)
    page.insert_text((72, 215), "The smaller model is faster but makes more errors.", **body)
    return write(doc, path)


ROOM_PROSE = (
    "The meeting room has four microphones on the long table and one more near the door. "
    "Each microphone records at 16 kHz, and the recordings are kept for thirty days. "
    "In 2023 the room hosted 412 meetings, 38 of them with remote participants. "
)


def prose_columns(path: Path, columns: int) -> Path:
    """A page of justified prose in one or two columns (two columns leave a wide gutter)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    width = (451 - 20 * (columns - 1)) / columns
    for c in range(columns):
        x0 = 72 + c * (width + 20)
        rect = pymupdf.Rect(x0, 72, x0 + width, 770)
        page.insert_textbox(rect, ROOM_PROSE * 6, fontsize=BODY, align=pymupdf.TEXT_ALIGN_JUSTIFY)
    return write(doc, path)
