"""The live transcript: committed turns by speaker colour, partials greyed, the agent's
interventions with a clickable citation. Speaker labels are links that rename; a speaker
who introduces themself is offered their name in a bar above it ("Name S2 as Maya?")."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QTextBrowser,
    QWidget,
)

from app.backbone.utterance import page_hint
from app.events import (
    Citation,
    Intervention,
    NameOffered,
    PartialTranscript,
    Turn,
    is_speaker_label,
)
from app.ui.theme import AGENT_COLOR, speaker_color


@dataclass
class _Row:
    speaker: str
    text: str
    start: float
    intervention: Intervention | None = None
    note: str = ""


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60):02d}:{int(seconds % 60):02d}"


class TranscriptView(QTextBrowser):
    renameRequested = Signal(str, str)  # speaker id, new name
    citationClicked = Signal(object)  # Citation

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._on_anchor)
        self.rows: list[_Row] = []
        self.partial: PartialTranscript | None = None
        self.names: dict[str, str] = {}  # session label -> name
        self._labels: dict[str, str] = {}  # name -> the label it was given to
        self._colors: dict[str, str] = {}
        self._citations: list[Citation] = []

    def name_of(self, speaker: str) -> str:
        return self.names.get(speaker, speaker)

    def add_turn(self, turn: Turn) -> None:
        # A named speaker's turns arrive under the name; the row keeps the label, so a
        # later rename shows on every row of that speaker.
        speaker = self._labels.get(turn.speaker, turn.speaker)
        self.rows.append(_Row(speaker, turn.text, turn.start))
        if self.partial is not None and self.partial.speaker in (turn.speaker, None):
            self.partial = None
        self._refresh()

    def set_partial(self, partial: PartialTranscript | None) -> None:
        self.partial = partial if partial and partial.text.strip() else None
        self._refresh()

    def add_intervention(self, intervention: Intervention, note: str = "") -> None:
        if any(r.intervention and r.intervention.id == intervention.id for r in self.rows):
            return
        self.rows.append(
            _Row(
                "Jarvis",
                intervention.text,
                self.rows[-1].start if self.rows else 0.0,
                intervention,
                note,
            )
        )
        self._refresh()

    def add_notice(self, text: str) -> None:
        """A line about the agent itself (a snooze, a setting changed), not a turn."""
        self.rows.append(_Row("", text, self.rows[-1].start if self.rows else 0.0))
        self._refresh()

    def rename(self, speaker: str, name: str) -> None:
        self.names[speaker] = name
        # A name stays with the label that has it: a merge gives an absorbed label the
        # name (or the label) of the speaker it joined.
        holder = self._labels.get(name)
        if not is_speaker_label(name) and (holder is None or self.names.get(holder) != name):
            self._labels[name] = speaker
        self._refresh()

    def clear_all(self) -> None:
        self.rows, self.partial, self._citations = [], None, []
        self._refresh()

    def _color(self, speaker: str) -> str:
        if speaker not in self._colors:
            self._colors[speaker] = speaker_color(len(self._colors))
        return self._colors[speaker]

    def _row_html(self, row: _Row) -> str:
        text = html.escape(row.text)
        if row.intervention is not None:
            cites = []
            for c in row.intervention.citations:
                self._citations.append(c)
                where = html.escape(page_hint(c))  # names the document when there are several
                cites.append(f'<a href="cite:{len(self._citations) - 1}">{where}</a>')
            cite_html = f" <small>({', '.join(cites)})</small>" if cites else ""
            note = f" <small><i>{html.escape(row.note)}</i></small>" if row.note else ""
            return (
                f'<p style="background:#eef4ff;"><span style="color:{AGENT_COLOR};">'
                f"<b>\u25b6 Jarvis</b></span> {text}{cite_html}{note}</p>"
            )
        if not row.speaker:
            return f'<p style="color:#6e7781;"><small><i>{text}</i></small></p>'
        name = html.escape(self.name_of(row.speaker))
        color = self._color(row.speaker)
        link = bytes(QUrl.toPercentEncoding(row.speaker).data()).decode()
        return (
            f'<p><small style="color:#6e7781;">{_clock(row.start)}</small> '
            f'<a href="speaker:{link}" style="color:{color};text-decoration:none;">'
            f"<b>{name}</b></a>: {text}</p>"
        )

    def _refresh(self) -> None:
        self._citations = []
        parts = [self._row_html(r) for r in self.rows]
        if self.partial is not None:
            who = html.escape(self.name_of(self.partial.speaker or "\u2026"))
            parts.append(
                f'<p style="color:#8b949e;"><i>{who}: {html.escape(self.partial.text)}</i></p>'
            )
        self.setHtml("".join(parts))
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_anchor(self, url: QUrl) -> None:
        target = url.toString()
        if target.startswith("cite:"):
            index = int(target.split(":", 1)[1])
            if 0 <= index < len(self._citations):
                self.citationClicked.emit(self._citations[index])
        elif target.startswith("speaker:"):
            speaker = QUrl.fromPercentEncoding(target.split(":", 1)[1].encode())
            self.ask_rename(speaker)

    def ask_rename(self, speaker: str) -> None:
        name, ok = QInputDialog.getText(
            self, "Rename speaker", f"Name for {self.name_of(speaker)}:", text=self.name_of(speaker)
        )
        if ok and name.strip():
            self.renameRequested.emit(speaker, name.strip())


class NameOfferBar(QWidget):
    """"Name S2 as Maya?" with Yes and No, above the transcript; never modal. Offers
    that come while one is shown wait their turn."""

    accepted = Signal(str, str)  # session label, name

    def __init__(
        self, display: Callable[[str], str] | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._display = display or (lambda speaker: speaker)
        self.queue: list[NameOffered] = []
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.yes = QPushButton("Yes")
        self.no = QPushButton("No")
        self.yes.clicked.connect(self.accept)
        self.no.clicked.connect(self.decline)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.yes)
        row.addWidget(self.no)
        self.setStyleSheet("NameOfferBar{background:#ddf4ff;border:1px solid #54aeff;}")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.hide()

    @property
    def current(self) -> NameOffered | None:
        return self.queue[0] if self.queue else None

    def offer(self, offer: NameOffered) -> None:
        if any((o.speaker, o.name) == (offer.speaker, offer.name) for o in self.queue):
            return
        self.queue.append(offer)
        self._show()

    def accept(self) -> None:
        offer = self.current
        if offer is not None:
            self.queue.pop(0)
            self.accepted.emit(offer.speaker, offer.name)
        self._show()

    def decline(self) -> None:
        if self.queue:
            self.queue.pop(0)
        self._show()

    def _show(self) -> None:
        offer = self.current
        self.setVisible(offer is not None)
        if offer is not None:
            who = html.escape(self._display(offer.speaker))
            said = html.escape(offer.text if len(offer.text) <= 80 else offer.text[:77] + "\u2026")
            self.label.setText(
                f"Name <b>{who}</b> as <b>{html.escape(offer.name)}</b>?"
                f" <small style='color:#57606a;'>\u201c{said}\u201d</small>"
            )
