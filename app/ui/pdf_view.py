"""PDF pages rendered with PyMuPDF into a QGraphicsView, with citation overlays.

Scene units are PDF points: page ``n`` sits at ``page_origin(n)``, so a sentence's
rectangles from the document index map onto the scene by a plain offset. Pages render
lazily as they scroll into view; Ctrl+wheel zooms.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsItemGroup,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from app.events import Rect
from app.ui.theme import ARROW_COLOR, HIGHLIGHT_COLOR

PAGE_GAP = 16.0
RENDER_SCALE = 2.0  # pixels per point: crisp at 200% zoom
ARROW_LENGTH = 70.0
FADE_STEPS = 20


class PdfError(Exception):
    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class PdfView(QGraphicsView):
    pageChanged = Signal(int)  # 1-based page at the top of the view

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(
            QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform
        )
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setBackgroundBrush(QBrush(QColor("#e6e8eb")))
        self.setAcceptDrops(False)  # the window handles drops
        self._doc: pymupdf.Document | None = None
        self._origins: list[QPointF] = []
        self._sizes: list[tuple[float, float]] = []
        self._text_left: list[float] = []  # left edge of the text column, per page
        self._pages: list[QGraphicsPixmapItem | None] = []
        self._overlay: QGraphicsItemGroup | None = None
        self.highlight_items: list[QGraphicsRectItem] = []
        self.arrow_item: QGraphicsPathItem | None = None
        self.arrow_tip: QPointF | None = None
        self._fade = QTimer(self)
        self._fade.setInterval(60)
        self._fade.timeout.connect(self._fade_step)
        self._zoom = 1.0
        self.verticalScrollBar().valueChanged.connect(self._on_scroll)

    # --- document -------------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return len(self._sizes)

    @property
    def rendered_pages(self) -> list[int]:
        return [i + 1 for i, item in enumerate(self._pages) if item is not None]

    def open(self, path: Path) -> None:
        try:
            doc = pymupdf.open(str(path))
        except Exception as exc:
            raise PdfError(f"{Path(path).name} could not be opened as a PDF ({exc}).") from exc
        if not doc.is_pdf:
            raise PdfError(f"{Path(path).name} is not a PDF file.")
        if doc.needs_pass:
            raise PdfError(f"{Path(path).name} is password-protected; open an unlocked copy.")
        if doc.page_count == 0:
            raise PdfError(f"{Path(path).name} has no pages.")
        self.close_document()
        self._doc = doc
        y = 0.0
        for index in range(doc.page_count):
            page = doc[index]
            w, h = page.rect.width, page.rect.height
            self._origins.append(QPointF(0.0, y))
            self._sizes.append((w, h))
            blocks = page.get_text("blocks")
            self._text_left.append(min((b[0] for b in blocks), default=40.0))
            frame = self.scene().addRect(
                QRectF(0, y, w, h), QPen(QColor("#b0b4b9")), QBrush(Qt.GlobalColor.white)
            )
            frame.setZValue(-1)
            y += h + PAGE_GAP
        self._pages = [None] * doc.page_count
        width = max(w for w, _ in self._sizes)
        self.scene().setSceneRect(
            QRectF(-ARROW_LENGTH - 30, -PAGE_GAP, width + ARROW_LENGTH + 60, y + PAGE_GAP)
        )
        self.fit_width()
        self.render_visible()

    def close_document(self) -> None:
        self.clear_citation(immediately=True)
        self.scene().clear()
        self._overlay = None
        self._origins, self._sizes, self._pages, self._text_left = [], [], [], []
        if self._doc is not None:
            self._doc.close()
            self._doc = None

    def page_origin(self, page: int) -> QPointF:
        return self._origins[page - 1]

    def _render_page(self, index: int) -> None:
        if self._doc is None or self._pages[index] is not None:
            return
        pix = self._doc[index].get_pixmap(
            matrix=pymupdf.Matrix(RENDER_SCALE, RENDER_SCALE), alpha=False
        )
        image = QImage(
            pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888
        ).copy()
        item = self.scene().addPixmap(QPixmap.fromImage(image))
        item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        item.setScale(1.0 / RENDER_SCALE)
        item.setPos(self._origins[index])
        self._pages[index] = item

    def render_visible(self) -> None:
        if not self._pages:
            return
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        for i, origin in enumerate(self._origins):
            w, h = self._sizes[i]
            if QRectF(origin.x(), origin.y(), w, h).intersects(visible.adjusted(0, -h, 0, h)):
                self._render_page(i)

    def _on_scroll(self, _value: int) -> None:
        self.render_visible()
        self.pageChanged.emit(self.current_page())

    def current_page(self) -> int:
        if not self._origins:
            return 0
        top = self.mapToScene(self.viewport().rect().center()).y()
        page = 1
        for i, origin in enumerate(self._origins):
            if origin.y() <= top:
                page = i + 1
        return page

    # --- zoom -----------------------------------------------------------------------

    def fit_width(self) -> None:
        if not self._sizes:
            return
        width = max(w for w, _ in self._sizes) + 2 * PAGE_GAP
        self.set_zoom(max(0.2, (self.viewport().width() - 4) / width))

    def set_zoom(self, zoom: float) -> None:
        self._zoom = min(6.0, max(0.2, zoom))
        self.resetTransform()
        self.scale(self._zoom, self._zoom)
        self.render_visible()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt override)
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self._zoom * (1.15 if event.angleDelta().y() > 0 else 1 / 1.15))
            event.accept()
            return
        super().wheelEvent(event)

    # --- citation overlay -----------------------------------------------------------

    def show_citation(self, page: int, rects: tuple[Rect, ...] | list[Rect]) -> None:
        """Scroll to ``page``, highlight ``rects`` (PDF points) and point an arrow at them."""
        if not 1 <= page <= self.page_count:
            raise PdfError(
                f"The citation points at page {page}, but the document has {self.page_count} pages."
            )
        self.clear_citation(immediately=True)
        origin = self.page_origin(page)
        group = QGraphicsItemGroup()
        group.setZValue(10)
        self.scene().addItem(group)
        scene_rects = [
            QRectF(origin.x() + x0, origin.y() + y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in rects
        ]
        if not scene_rects:  # a sentence without positions: mark the page top
            w, _h = self._sizes[page - 1]
            scene_rects = [QRectF(origin.x() + 40, origin.y() + 40, w - 80, 14)]
        for r in scene_rects:
            item = QGraphicsRectItem(r)
            item.setPen(QPen(Qt.PenStyle.NoPen))
            item.setBrush(QBrush(HIGHLIGHT_COLOR))
            group.addToGroup(item)
            self.highlight_items.append(item)
        margin = origin.x() + self._text_left[page - 1]
        self.arrow_item = self._arrow_to(scene_rects[0], min(margin, scene_rects[0].left()))
        group.addToGroup(self.arrow_item)
        self._overlay = group
        self._render_page(page - 1)
        united = scene_rects[0]
        for r in scene_rects[1:]:
            united = united.united(r)
        self.centerOn(united.center())
        self.render_visible()

    def _arrow_to(self, target: QRectF, left: float) -> QGraphicsPathItem:
        """An arrow in the page margin pointing right at the first line of the passage."""
        tip = QPointF(left - 4, target.center().y())
        tail = QPointF(tip.x() - ARROW_LENGTH, tip.y() - ARROW_LENGTH * 0.55)
        path = QPainterPath(tail)
        path.lineTo(tip)
        head = 12.0
        direction = (tip - tail) / ((ARROW_LENGTH**2 + (ARROW_LENGTH * 0.55) ** 2) ** 0.5)
        normal = QPointF(-direction.y(), direction.x())
        base = tip - direction * head
        path.moveTo(tip)
        path.lineTo(base + normal * head * 0.55)
        path.moveTo(tip)
        path.lineTo(base - normal * head * 0.55)
        item = QGraphicsPathItem(path)
        pen = QPen(ARROW_COLOR, 4.5)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        item.setPen(pen)
        self.arrow_tip = tip
        return item

    def fade_citation(self) -> None:
        """Let the arrow and highlight fade out over about a second."""
        if self._overlay is not None and not self._fade.isActive():
            self._fade.start()

    def _fade_step(self) -> None:
        if self._overlay is None:
            self._fade.stop()
            return
        opacity = self._overlay.opacity() - 1.0 / FADE_STEPS
        if opacity <= 0:
            self.clear_citation(immediately=True)
        else:
            self._overlay.setOpacity(opacity)

    def clear_citation(self, immediately: bool = False) -> None:
        if not immediately:
            self.fade_citation()
            return
        self._fade.stop()
        if self._overlay is not None:
            scene = self._overlay.scene()
            if scene is not None:
                scene.removeItem(self._overlay)
            self._overlay = None
        self.highlight_items = []
        self.arrow_item = None
        self.arrow_tip = None

    @property
    def overlay(self) -> QGraphicsItem | None:
        return self._overlay

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001 (Qt override)
        super().resizeEvent(event)
        self.render_visible()
