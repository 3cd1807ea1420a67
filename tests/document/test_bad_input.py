"""Every kind of unusable file raises its own typed error with a dialog-ready message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from app.document import (
    CorruptPdfError,
    DocumentError,
    EmptyDocumentError,
    EncryptedPdfError,
    NotAPdfError,
    ScannedPdfError,
    TooLargeError,
    open_document,
)
from app.document.damage import MIN_PAGE_CHARS, page_ranges
from app.settings import DocumentSettings
from tests.conftest import shared_path
from tests.document import samples

PROSE = ["The room has four microphones on the long table.", "Each one records at 16 kHz."]


def _good(tmp_path: Path) -> Path:
    return samples.text_pdf(tmp_path / "good.pdf", [PROSE])


def _encrypted(tmp_path: Path) -> Path:
    return samples.text_pdf(
        tmp_path / "locked.pdf",
        [PROSE],
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="room",
        owner_pw="owner",
    )


def _truncated(tmp_path: Path) -> Path:
    data = _good(tmp_path).read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: len(data) // 3])
    return path


def _garbage_after_header(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 16)
    return path


def _renamed_png(tmp_path: Path) -> Path:
    path = tmp_path / "picture.pdf"
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    path.write_bytes(pix.tobytes("png"))
    return path


def _word_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK\x03\x04 not a pdf")
    return path


CASES = [
    (_encrypted, EncryptedPdfError, "password"),
    (_truncated, CorruptPdfError, "damaged"),
    (_garbage_after_header, CorruptPdfError, "damaged"),
    (_renamed_png, NotAPdfError, "not a PDF"),
    (_word_file, NotAPdfError, "not a PDF"),
    (lambda p: samples.image_only(p / "scan.pdf"), ScannedPdfError, "OCR"),
    (lambda p: samples.zero_pages(p / "zero.pdf"), EmptyDocumentError, "no pages"),
    (lambda p: samples.blank(p / "blank.pdf"), EmptyDocumentError, "no pages"),
]


@pytest.mark.parametrize(("make", "error", "words"), CASES)
def test_bad_file_raises_typed_error(tmp_path: Path, make, error, words: str) -> None:
    path = make(tmp_path)
    with pytest.raises(error) as caught:
        open_document(path)
    assert isinstance(caught.value, DocumentError)
    assert path.name in caught.value.user_message
    assert words in caught.value.user_message


def test_the_good_sample_opens(tmp_path: Path) -> None:
    """The control for the cases above: the same prose, unbroken, indexes fine."""
    index = open_document(_good(tmp_path))
    assert [s.text for s in index.sentences] == PROSE
    with pymupdf.open(_encrypted(tmp_path)) as locked:  # locked, not broken
        assert locked.needs_pass and locked.authenticate("room")
        assert PROSE[0] in locked[0].get_text()


def test_too_many_pages(tmp_path: Path) -> None:
    pages = [[f"Page {n} of the notes describes the room in some detail."] for n in "ABC"]
    path = samples.text_pdf(tmp_path / "long.pdf", pages)
    with pytest.raises(TooLargeError, match="3 pages"):
        open_document(path, DocumentSettings(max_pages=2))
    assert open_document(path, DocumentSettings(max_pages=3)).page_count == 3


def test_file_too_large(tmp_path: Path) -> None:
    path = _good(tmp_path)
    with pytest.raises(TooLargeError) as caught:
        open_document(path, DocumentSettings(max_file_mb=0))
    assert "too large" in caught.value.user_message


def test_missing_file_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as caught:
        open_document(tmp_path / "nowhere.pdf")
    assert "cannot be opened" in caught.value.user_message


def test_text_file_in_another_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("Caf\xe9 notes about the room and its many chairs.".encode("latin-1"))
    with pytest.raises(NotAPdfError):
        open_document(path)


def test_cli_prints_the_message_and_exits_2(tmp_path: Path) -> None:
    path = _encrypted(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "index", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "password" in done.stderr and "locked.pdf" in done.stderr
    assert done.stdout == ""


def _empty_pages(path: Path) -> tuple[int, ...]:
    """Pages MuPDF itself extracts no text from, read independently of the index."""
    with pymupdf.open(path) as doc:
        assert doc.is_repaired
        return tuple(
            i + 1 for i in range(doc.page_count) if len(doc[i].get_text().strip()) < MIN_PAGE_CHARS
        )


def test_a_pdf_cut_to_30_percent_warns_naming_its_empty_pages(tmp_path: Path) -> None:
    whole = samples.long_prose(tmp_path / "whole.pdf", pages=10)
    cut = samples.truncated(whole, tmp_path / "cut.pdf", 0.3)
    empty = _empty_pages(cut)
    assert empty and empty[-1] == 10 and 1 not in empty  # repaired: some pages came back
    index = open_document(cut)
    assert index.page_count == 10
    assert [w.pages for w in index.warnings] == [empty]
    what = index.warnings[0].what
    assert "cut.pdf" in what and "damaged" in what and page_ranges(empty) in what
    assert "pages" in what and "\u2013" in page_ranges(empty)  # a run: "pages 5–10"
    assert not open_document(whole).warnings  # the intact file: no word


def test_a_real_paper_cut_to_30_percent_names_its_first_seven_pages(tmp_path: Path) -> None:
    paper = shared_path("data/papers_pdf/2020.acl-main.207.pdf")
    cut = samples.truncated(paper, tmp_path / "paper.pdf", 0.3)
    index = open_document(cut)
    assert [w.pages for w in index.warnings] == [(1, 2, 3, 4, 5, 6, 7)]
    assert "pages 1\u20137 came out empty" in index.warnings[0].what
    assert all(s.page > 7 for s in index.sentences)
    assert not open_document(paper).warnings


def test_a_repaired_pdf_with_no_text_left_is_damaged_not_empty(tmp_path: Path) -> None:
    whole = samples.long_prose(tmp_path / "whole.pdf", pages=2, lines=30)
    data = whole.read_bytes()
    # keep the page tree at the end of the file but lose every content stream
    cut = tmp_path / "hollow.pdf"
    start = data.index(b"stream")
    end = data.rindex(b"endstream") + len(b"endstream")
    cut.write_bytes(data[:start] + data[end:])
    with pymupdf.open(cut) as doc:
        assert doc.is_repaired and doc.page_count >= 1
        assert not doc[0].get_text().strip()
    with pytest.raises(CorruptPdfError) as caught:
        open_document(cut)
    assert "damaged" in caught.value.user_message


def test_an_intact_pdf_names_a_page_without_text_layer(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for lines in (PROSE, PROSE[::-1]):
        page = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines):
            page.insert_text((72, 100 + 16 * i), line, fontsize=samples.BODY)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    pix.clear_with(200)
    doc.new_page(width=595, height=842).insert_image(pymupdf.Rect(50, 50, 545, 792), pixmap=pix)
    doc.new_page(width=595, height=842)  # a blank page: deliberate, nothing to read
    path = samples.write(doc, tmp_path / "mixed.pdf")
    index = open_document(path)
    assert [w.pages for w in index.warnings] == [(3,)]
    assert "Page 3 of" in index.warnings[0].what and "OCR" in index.warnings[0].what


def test_cli_prints_the_warning_and_exits_0(tmp_path: Path) -> None:
    whole = samples.long_prose(tmp_path / "whole.pdf", pages=10)
    cut = samples.truncated(whole, tmp_path / "cut.pdf", 0.3)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "index", "--json", str(cut)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and page_ranges(_empty_pages(cut)) in warned[0]
    summary = json.loads(done.stdout)
    assert summary["warnings"][0]["pages"] == list(_empty_pages(cut))


def test_page_ranges_wording() -> None:
    assert page_ranges([3]) == "page 3"
    assert page_ranges([1, 2, 3]) == "pages 1\u20133"
    assert page_ranges([9, 1, 2, 5]) == "pages 1\u20132, 5 and 9"
