"""Typed errors for documents the index cannot use; each carries a dialog-ready message."""

from __future__ import annotations

from pathlib import Path


class DocumentError(Exception):
    """A document that cannot be indexed. ``user_message`` is fit to show in a dialog."""

    def __init__(self, path: Path | str, user_message: str, detail: str = "") -> None:
        super().__init__(f"{path}: {detail or user_message}")
        self.path = Path(path)
        self.user_message = user_message


class NotAPdfError(DocumentError):
    def __init__(self, path: Path | str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” is not a PDF. Choose a PDF file (or a .txt / .md text file).",
            detail,
        )


class CorruptPdfError(DocumentError):
    def __init__(self, path: Path | str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” is damaged and cannot be read. "
            "Try downloading or exporting the PDF again.",
            detail,
        )


class EncryptedPdfError(DocumentError):
    def __init__(self, path: Path | str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” is protected by a password. "
            "Save an unprotected copy of the PDF and open that instead.",
            detail,
        )


class ScannedPdfError(DocumentError):
    def __init__(self, path: Path | str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” has no text layer (it looks like a scan). "
            "Run it through OCR first, then open the OCR'd PDF.",
            detail,
        )


class EmptyDocumentError(DocumentError):
    def __init__(self, path: Path | str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” has no pages or no readable sentences to check the talk against.",
            detail,
        )


class TooLargeError(DocumentError):
    def __init__(self, path: Path | str, limit: str, detail: str = "") -> None:
        super().__init__(
            path,
            f"“{Path(path).name}” is too large ({limit}). "
            "Split it and open the part under discussion.",
            detail,
        )
