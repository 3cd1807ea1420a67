"""The shared document: numbered sentences with page and rectangles (SPEC §3)."""

from app.document.errors import (
    CorruptPdfError,
    DocumentError,
    EmptyDocumentError,
    EncryptedPdfError,
    NotAPdfError,
    ScannedPdfError,
    TooLargeError,
)
from app.document.loader import open_document
from app.document.model import DocumentIndex, Sentence

__all__ = [
    "CorruptPdfError",
    "DocumentError",
    "DocumentIndex",
    "EmptyDocumentError",
    "EncryptedPdfError",
    "NotAPdfError",
    "ScannedPdfError",
    "Sentence",
    "TooLargeError",
    "open_document",
]
