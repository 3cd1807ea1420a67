"""open_document: a PDF or text file in, a DocumentIndex (or one typed error) out."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pymupdf

from app.document.assemble import Assembly, number_sentences
from app.document.damage import page_chars, page_warnings
from app.document.errors import (
    CorruptPdfError,
    DocumentError,
    EmptyDocumentError,
    EncryptedPdfError,
    NotAPdfError,
    ScannedPdfError,
    TooLargeError,
)
from app.document.model import DocumentIndex, DocumentWarning
from app.document.pdf import has_images, pdf_assembly, title_of
from app.document.plaintext import text_assembly, text_pages, text_title
from app.settings import DocumentSettings

log = logging.getLogger(__name__)

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
_MB = 1024 * 1024
# A page with fewer extracted characters than this has no usable text layer.
_MIN_CHARS_PER_DOC = 20


def open_document(path: Path | str, settings: DocumentSettings | None = None) -> DocumentIndex:
    settings = settings or DocumentSettings()
    path = Path(path)
    data = _read(path, settings)
    if path.suffix.lower() in TEXT_SUFFIXES:
        return _open_text(path, data, settings)
    if b"%PDF-" not in data[:1024]:
        raise NotAPdfError(path, "no %PDF- signature")
    return _open_pdf(path, data, settings)


def _read(path: Path, settings: DocumentSettings) -> bytes:
    try:
        size = path.stat().st_size
        if size > settings.max_file_mb * _MB:
            raise TooLargeError(
                path, f"{size / _MB:.0f} MB; the limit is {settings.max_file_mb} MB"
            )
        return path.read_bytes()
    except IsADirectoryError as exc:
        raise NotAPdfError(path, "a folder") from exc
    except OSError as exc:
        raise DocumentError(path, f"“{path.name}” cannot be opened: {exc.strerror}.") from exc


def _open_text(path: Path, data: bytes, settings: DocumentSettings) -> DocumentIndex:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotAPdfError(path, "text file is not UTF-8") from exc
    pages = len(text_pages(text))
    if pages > settings.max_pages:
        raise TooLargeError(path, f"{pages} pages; the limit is {settings.max_pages}")
    return _index(path, data, text_title(text, path.stem), pages, text_assembly(text), settings)


def _open_pdf(path: Path, data: bytes, settings: DocumentSettings) -> DocumentIndex:
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for unreadable files
        raise CorruptPdfError(path, str(exc)) from exc
    with doc:
        if doc.needs_pass:
            raise EncryptedPdfError(path)
        if doc.page_count == 0:
            if doc.is_repaired:  # a truncated file repairs to nothing
                raise CorruptPdfError(path, "repaired to zero pages")
            raise EmptyDocumentError(path, "zero pages")
        if doc.page_count > settings.max_pages:
            raise TooLargeError(path, f"{doc.page_count} pages; the limit is {settings.max_pages}")
        try:
            chars = page_chars(doc)
            if sum(chars) < _MIN_CHARS_PER_DOC:
                if doc.is_repaired:  # a truncated file whose pages came back empty
                    raise CorruptPdfError(path, "repaired, no text on any page")
                if has_images(doc):
                    raise ScannedPdfError(path)
                raise EmptyDocumentError(path, "no text on any page")
            assembly = pdf_assembly(doc, settings.running_line_min_share)
            title = title_of(doc, path.stem)
            warnings = page_warnings(doc, path, chars)
        except DocumentError:
            raise
        except Exception as exc:  # damaged content streams surface while reading pages
            raise CorruptPdfError(path, str(exc)) from exc
        return _index(path, data, title, doc.page_count, assembly, settings, warnings)


def _index(
    path: Path,
    data: bytes,
    title: str,
    pages: int,
    assembly: Assembly,
    settings: DocumentSettings,
    warnings: list[DocumentWarning] | None = None,
) -> DocumentIndex:
    sentences = number_sentences(assembly, settings.min_sentence_tokens)
    if not sentences:
        raise EmptyDocumentError(path, "no sentences")
    digest = hashlib.sha256(data).hexdigest()
    index = DocumentIndex(path, digest, title, pages, sentences, tuple(warnings or ()))
    log.info("indexed %s: %d pages, %d sentences", path.name, pages, len(sentences))
    return index
