"""Every kind of unusable file raises its own typed error with a dialog-ready message."""

from __future__ import annotations

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
from app.settings import DocumentSettings
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
