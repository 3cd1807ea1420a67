"""Colours, icons and where the bundled resources live."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.events import AgentState
from app.paths import resources_dir

RESOURCES = resources_dir()
ICONS = RESOURCES / "icons"

STATE_COLORS: dict[AgentState, str] = {
    AgentState.IDLE: "#8b949e",
    AgentState.LISTENING: "#2da44e",
    AgentState.THINKING: "#bf8700",
    AgentState.HAND_RAISED: "#e36209",
    AgentState.SPEAKING: "#1f6feb",
    AgentState.PAUSED: "#6e7781",
}

STATE_LABELS: dict[AgentState, str] = {
    AgentState.IDLE: "Idle",
    AgentState.LISTENING: "Listening",
    AgentState.THINKING: "Thinking",
    AgentState.HAND_RAISED: "Hand raised",
    AgentState.SPEAKING: "Speaking",
    AgentState.PAUSED: "Paused",
}

SPEAKER_COLORS = ("#0969da", "#8250df", "#1a7f37", "#bc4c00", "#cf222e", "#116329", "#953800")
AGENT_COLOR = "#1f6feb"
HIGHLIGHT_COLOR = QColor(255, 211, 61, 110)
ARROW_COLOR = QColor("#d1242f")


def speaker_color(index: int) -> str:
    return SPEAKER_COLORS[index % len(SPEAKER_COLORS)]


@lru_cache(maxsize=64)
def state_pixmap(state: AgentState, size: int = 56) -> QPixmap:
    """The state's SVG glyph drawn in the state's colour."""
    svg = (ICONS / f"{state.value}.svg").read_text(encoding="utf-8")
    svg = svg.replace("#000000", STATE_COLORS[state])
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return pixmap


def app_icon() -> QIcon:
    return QIcon(str(ICONS / "jarvis.svg"))
