"""The offer, after a crash, to export the record of the meeting that was cut off.

A bar above the document, never a dialog: the new meeting can start at once, and the
offer stays until it is used or dismissed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from app.session.export import export_record
from app.session.recovery import CRASH_OFFER

log = logging.getLogger(__name__)


class RecoveryBar(QWidget):
    """The crash offer: what happened, the button that exports the record, a close button."""

    def __init__(self, record_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record_path = Path(record_path)
        self.label = QLabel(CRASH_OFFER.split(" \u2014 ")[0] + ".")
        self.label.setWordWrap(True)
        self.label.setToolTip(str(self.record_path))
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton("Export its record\u2026")
        self.button.clicked.connect(self.ask_export)
        close = QToolButton()
        close.setText("\u2715")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        row.addWidget(close)
        self.setObjectName("RecoveryBar")
        self.setStyleSheet("#RecoveryBar{background:#fff8c5;border:1px solid #d4a72c;}")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)

    def ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export the record of the last meeting",
            str(self.record_path.with_suffix(".md")),
            "Markdown (*.md);;HTML (*.html)",
        )
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> Path | None:
        """Write the export; the bar then says where it is (or why it failed)."""
        try:
            out = export_record(self.record_path, path)
        except (OSError, ValueError) as exc:
            log.warning("could not export %s: %s", self.record_path, exc)
            self.label.setText(f"Could not export the last meeting's record: {exc}")
            return None
        self.label.setText(f"The last meeting's record was written to {out}")
        self.button.hide()
        return out
