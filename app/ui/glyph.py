"""The agent's presence: state glyph beside its name, and what it wants to say."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.events import AgentState, Intervention
from app.ui.theme import STATE_COLORS, STATE_LABELS, state_pixmap


class AgentGlyph(QWidget):
    def __init__(self, name: str = "Jarvis", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = AgentState.IDLE
        self.icon = QLabel()
        self.icon.setFixedSize(56, 56)
        self.name = QLabel(f"<b>{name}</b>")
        self.name.setStyleSheet("font-size: 18px;")
        self.state_label = QLabel()
        self.note = QLabel()  # what holds the agent back ("Snoozed until 14:05")
        self.note.setStyleSheet("color:#6e7781;font-size:13px;")
        self.note.hide()
        self.pending = QLabel()
        self.pending.setWordWrap(True)
        self.pending.setStyleSheet(
            "background:#fff4e5;border:1px solid #e36209;border-radius:6px;padding:6px;"
        )
        self.pending.hide()
        text = QVBoxLayout()
        text.addWidget(self.name)
        text.addWidget(self.state_label)
        text.addWidget(self.note)
        row = QHBoxLayout()
        row.addWidget(self.icon)
        row.addLayout(text, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.pending)
        self.set_state(AgentState.IDLE)

    def set_state(self, state: AgentState) -> None:
        self.state = state
        self.icon.setPixmap(state_pixmap(state))
        color = STATE_COLORS[state]
        self.state_label.setText(STATE_LABELS[state])
        self.state_label.setStyleSheet(f"color:{color};font-weight:bold;font-size:14px;")
        self.icon.setToolTip(STATE_LABELS[state])
        if state not in (AgentState.HAND_RAISED, AgentState.SPEAKING):
            self.show_pending(None)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def show_pending(self, intervention: Intervention | None) -> None:
        if intervention is None or not intervention.text:
            self.pending.clear()
            self.pending.hide()
            return
        self.pending.setText(f"<i>Wants to say:</i> {intervention.text}")
        self.pending.setTextFormat(Qt.TextFormat.RichText)
        self.pending.show()
