"""PDF pages rendered with PyMuPDF into a QGraphicsView, with citation overlays.

Scene units are PDF points: page ``n`` sits at ``page_origin(n)``, so a sentence's
rectangles from the document index map onto the scene by a plain offset. Pages render
lazily as they scroll into view; Ctrl+wheel zooms. Opening checks and measures the file on
a worker thread while the GUI keeps processing events, and refuses a file over the limits
before any page is laid out or rendered.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from PySide6.QtCore import (
    QEventLoop,
    QObject,
    QPointF,
    QRectF,
    QRunnable,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
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

from app.document.errors import TooLargeError
from app.events import Rect
from app.settings import DocumentSettings
from app.ui.theme import ARROW_COLOR, HIGHLIGHT_COLOR

PAGE_GAP = 16.0
RENDER_SCALE = 2.0  # pixels per point: crisp at 200% zoom
ARROW_LENGTH = 70.0
FADE_STEPS = 20


class PdfError(Exception):
    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


_MB = 1024 * 1024


@dataclass(frozen=True)
class PdfLayout:
    """An open PDF and the measures the viewer lays its pages out with."""

    doc: pymupdf.Document
    sizes: tuple[tuple[float, float], ...]  # page width and height, PDF points
    text_left: tuple[float, ...]  # left edge of each page's text column, PDF points


def read_layout(path: Path, limits: DocumentSettings) -> PdfLayout:
    """Open and check a PDF, then measure its pages; slow on big files, so off the GUI thread.

    The limits are checked first, from the file size and the page tree alone."""
    name = Path(path).name
    try:
        size = Path(path).stat().st_size
    except OSError as exc:
        raise PdfError(f"{name} could not be opened ({exc.strerror}).") from exc
    if size > limits.max_file_mb * _MB:
        raise PdfError(
            TooLargeError(
                path, f"{size / _MB:.0f} MB; the limit is {limits.max_file_mb} MB"
            ).user_message
        )
    try:
        doc = pymupdf.open(str(path))
    except Exception as exc:
        raise PdfError(f"{name} could not be opened as a PDF ({exc}).") from exc
    try:
        return _measure(doc, path, limits)
    except BaseException:
        doc.close()
        raise


def _measure(doc: pymupdf.Document, path: Path, limits: DocumentSettings) -> PdfLayout:
    name = Path(path).name
    if not doc.is_pdf:
        raise PdfError(f"{name} is not a PDF file.")
    if doc.needs_pass:
        raise PdfError(f"{name} is password-protected; open an unlocked copy.")
    if doc.page_count == 0:
        raise PdfError(f"{name} has no pages.")
    if doc.page_count > limits.max_pages:
        raise PdfError(
            TooLargeError(
                path, f"{doc.page_count} pages; the limit is {limits.max_pages}"
            ).user_message
        )
    sizes, text_left = [], []
    for index in range(doc.page_count):
        page = doc[index]
        sizes.append((page.rect.width, page.rect.height))
        blocks = page.get_text("blocks")
        text_left.append(min((b[0] for b in blocks), default=40.0))
    return PdfLayout(doc, tuple(sizes), tuple(text_left))


class _Relay(QObject):
    done = Signal()


class _LayoutJob(QRunnable):
    """read_layout on the thread pool; ``relay.done`` fires once ``result`` is set."""

    def __init__(self, path: Path, limits: DocumentSettings) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the view reads the result after the pool is done with it
        self.path, self.limits = path, limits
        self.relay = _Relay()  # made on the GUI thread, so its signal is queued there
        self.result: PdfLayout | PdfError | None = None
        self.finished = threading.Event()

    def run(self) -> None:
        try:
            self.result = read_layout(self.path, self.limits)
        except PdfError as exc:
            self.result = exc
        except Exception as exc:  # a damaged page tree surfaces while measuring
            self.result = PdfError(f"{Path(self.path).name} could not be read ({exc}).")
        self.relay.done.emit()
        self.finished.set()


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
        self.path: Path | None = None  # the file shown
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
        self._fitting = True  # the zoom follows the view's width until the user zooms
        self._opening: Path | None = None  # the file being checked on the worker thread
        self._generation = 0  # counts close_document calls
        self._job: _LayoutJob | None = None
        self.verticalScrollBar().valueChanged.connect(self._on_scroll)

    # --- document -------------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return len(self._sizes)

    @property
    def rendered_pages(self) -> list[int]:
        return [i + 1 for i, item in enumerate(self._pages) if item is not None]

    def open(self, path: Path, limits: DocumentSettings | None = None) -> None:
        """Check and measure the file on a worker thread, then lay its pages out.

        The GUI keeps processing events while the worker runs; a file over ``limits`` is
        refused (PdfError) before anything is drawn, and so is a second open meanwhile."""
        if self._opening is not None:
            raise PdfError(
                f"{self._opening.name} is still opening; open {Path(path).name} after it."
            )
        job = _LayoutJob(Path(path), limits or DocumentSettings())
        generation = self._generation
        waiting = QEventLoop()
        job.relay.done.connect(waiting.quit)
        self._opening = Path(path)
        self._job = job  # kept until the next open: the pool still holds it after the result
        try:
            QThreadPool.globalInstance().start(job)
            # ``done`` is queued to this thread, so even a job done before exec() ends it;
            # exec() also returns early when the application quits.
            waiting.exec()
            job.finished.wait()
        finally:
            self._opening = None
        layout = job.result
        if isinstance(layout, PdfError):
            raise layout
        if layout is None or generation != self._generation:  # closed meanwhile
            if layout is not None:
                layout.doc.close()
            raise PdfError(f"Opening {Path(path).name} was cancelled.")
        self._lay_out(layout)
        self.path = Path(path)

    def _lay_out(self, layout: PdfLayout) -> None:
        self.close_document()
        self._doc = layout.doc
        y = 0.0
        for w, h in layout.sizes:
            self._origins.append(QPointF(0.0, y))
            self._sizes.append((w, h))
            frame = self.scene().addRect(
                QRectF(0, y, w, h), QPen(QColor("#b0b4b9")), QBrush(Qt.GlobalColor.white)
            )
            frame.setZValue(-1)
            y += h + PAGE_GAP
        self._text_left = list(layout.text_left)
        self._pages = [None] * len(layout.sizes)
        width = max(w for w, _ in self._sizes)
        self.scene().setSceneRect(
            QRectF(-ARROW_LENGTH - 30, -PAGE_GAP, width + ARROW_LENGTH + 60, y + PAGE_GAP)
        )
        self.fit_width()
        self.render_visible()

    def close_document(self) -> None:
        self._generation += 1  # an open still in progress is not shown
        self.clear_citation(immediately=True)
        self.scene().clear()
        self._overlay = None
        self._origins, self._sizes, self._pages, self._text_left = [], [], [], []
        self.path = None
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
        self._fitting = True

    def set_zoom(self, zoom: float) -> None:
        self._zoom = min(6.0, max(0.2, zoom))
        self.resetTransform()
        self.scale(self._zoom, self._zoom)
        self.render_visible()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt override)
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self._zoom * (1.15 if event.angleDelta().y() > 0 else 1 / 1.15))
            self._fitting = False
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
        if self._fitting:  # a list shown beside it, or the window resized
            self.fit_width()
        self.render_visible()
