"""The meeting's documents beside the viewer: which are open, which one is shown.

Shown once the meeting has a second document. Choosing a row shows that document; Add
opens another (as dropping a PDF on the window or File › Add document does); Remove
leaves one out of the meeting, never the last.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

PATH_ROLE = Qt.ItemDataRole.UserRole


class DocumentList(QWidget):
    chosen = Signal(Path)  # the user picked a document to see
    addRequested = Signal()
    removeRequested = Signal(Path)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.itemActivated.connect(self._on_item)
        self.list.itemClicked.connect(self._on_item)
        add = QPushButton("Add\u2026")
        add.setToolTip("Add a PDF to this meeting (or drop one on the window)")
        add.clicked.connect(self.addRequested)
        self.remove = QPushButton("Remove")
        self.remove.setToolTip("Leave the selected document out of this meeting")
        self.remove.clicked.connect(self._on_remove)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(self.remove)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 4, 0)
        col.addWidget(QLabel("<b>Documents</b>"))
        col.addWidget(self.list, 1)
        col.addLayout(buttons)
        self.setMaximumWidth(190)
        self._update_buttons()

    def paths(self) -> list[Path]:
        return [Path(self.list.item(i).data(PATH_ROLE)) for i in range(self.list.count())]

    def add(self, path: Path, name: str = "") -> None:
        """A row for ``path`` (once); ``name`` replaces the file name when it is known."""
        item = self._item(path)
        if item is None:
            item = QListWidgetItem()
            item.setData(PATH_ROLE, str(path))
            self.list.addItem(item)
        item.setText(name or path.name)
        item.setToolTip(str(path))
        self._update_buttons()

    def name_of(self, path: Path) -> str:
        item = self._item(path)
        return item.text() if item is not None else path.name

    def take(self, path: Path) -> None:
        item = self._item(path)
        if item is not None:
            self.list.takeItem(self.list.row(item))
        self._update_buttons()

    def clear(self) -> None:
        self.list.clear()
        self._update_buttons()

    def mark_shown(self, path: Path | None) -> None:
        """Select the row of the document the viewer shows."""
        item = self._item(path) if path is not None else None
        if item is not None:
            self.list.setCurrentItem(item)

    def shown(self) -> Path | None:
        item = self.list.currentItem()
        return Path(item.data(PATH_ROLE)) if item is not None else None

    def _item(self, path: Path) -> QListWidgetItem | None:
        for i in range(self.list.count()):
            if Path(self.list.item(i).data(PATH_ROLE)) == Path(path):
                return self.list.item(i)
        return None

    def _on_item(self, item: QListWidgetItem) -> None:
        self.chosen.emit(Path(item.data(PATH_ROLE)))

    def _on_remove(self) -> None:
        path = self.shown()
        if path is not None and self.list.count() > 1:
            self.removeRequested.emit(path)

    def _update_buttons(self) -> None:
        """A one-document meeting keeps the whole width for its viewer."""
        several = self.list.count() > 1
        self.remove.setEnabled(several)
        self.setVisible(several)
