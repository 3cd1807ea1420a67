"""The main window: PDF viewer with citation arrow, agent glyph, hand button, transcript.

Its status says what the agent is doing: reading the document while it starts (with the
model's progress), which microphone it listens on (with a live level), paused, snoozed.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.events import (
    AgentState,
    Citation,
    Decision,
    InputLevel,
    MeetingAudio,
    NameSource,
    RecordingState,
    Setting,
    SettingsChanged,
    Turn,
    WakeEvent,
)
from app.floor.outputs import SnoozeChanged, SnoozeSource
from app.pipeline.events import (
    AgentProgress,
    ComponentStatus,
    DocumentLoaded,
    HighlightCitation,
    InputState,
    InputStatus,
    PendingIntervention,
    PipelineError,
)
from app.pipeline.pipeline import Pipeline
from app.session.export import export_record
from app.settings import FloorMode, Patience
from app.ui.bridge import Bridge
from app.ui.documents import DocumentList
from app.ui.earcon import Earcons
from app.ui.glyph import AgentGlyph
from app.ui.pdf_view import PdfError, PdfView
from app.ui.recovery import RecoveryBar
from app.ui.settings_dialog import SettingsDialog, device_label
from app.ui.settings_store import Preferences, live_changes, save_preferences, start_changes
from app.ui.summary_action import SummaryAction
from app.ui.theme import app_icon, state_pixmap
from app.ui.transcript import NameOfferBar, TranscriptView

log = logging.getLogger(__name__)

COMPONENT_NAMES = {
    "speech": "Speech pipeline",
    "backbone": "Agent (language model)",
    "floor": "Floor control",
    "voice": "Voice output",
    "document": "Document",
}
SNOOZE_MINUTES = (5, 15, 60)
METER_FLOOR_DB = -60.0  # the level meter's empty end; full scale (0 dBFS) fills it


def meter_percent(rms: float) -> int:
    """An input RMS on the meter: 0 at -60 dBFS or below, 100 at full scale."""
    if rms <= 0:
        return 0
    db = 20.0 * math.log10(rms)
    return max(0, min(100, round(100 * (1 - db / METER_FLOOR_DB))))


def snooze_text(until_wall: datetime) -> str:
    return f"Snoozed until {until_wall:%H:%M}"


class MessageBar(QWidget):
    """In-window messages (errors, what to do); dismissable, never modal."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("\u2715")
        close.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(close)
        self.setStyleSheet("MessageBar{background:#ffebe9;border:1px solid #cf222e;}")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.messages: list[str] = []
        self.hide()

    def show_message(self, text: str) -> None:
        self.messages.append(text)
        self.label.setText(text)
        self.show()


class MainWindow(QMainWindow):
    documentRefused = Signal(Path)  # the agent could not index an added document

    def __init__(
        self,
        pipeline: Pipeline,
        prefs: Preferences | None = None,
        earcons: Earcons | None = None,
        save_prefs: bool = True,
    ) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.prefs = prefs or Preferences()
        self.save_prefs = save_prefs
        self.earcons = earcons or Earcons(enabled=False)
        self.bridge = Bridge(pipeline.hub, self)
        self.on_close: list[Callable[[], None]] = []
        self._missing: dict[str, str] = {}
        self._pending_state: AgentState | None = None
        self._input: InputStatus | None = None
        self.snoozed_until: datetime | None = None  # wall-clock end of a snooze
        self.setWindowTitle("Jarvis for the room")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self._build()
        self._menus()
        self._connect()
        self.resize(1280, 820)

    # --- layout ---------------------------------------------------------------------

    def _build(self) -> None:
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background:#fff8c5;border:1px solid #d4a72c;padding:4px;")
        self.banner.hide()
        self.messages = MessageBar()
        self.pdf = PdfView()
        self.drop_hint = QLabel("Drop a PDF here, or use File \u203a Open")
        self.drop_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_hint.setStyleSheet("color:#6e7781;font-size:18px;")
        self.glyph = AgentGlyph("Jarvis")
        self.hand = QPushButton()
        self.hand.setMinimumHeight(64)
        self.hand.setIconSize(QSize(36, 36))
        self.hand.setShortcut(QKeySequence("Ctrl+Space"))
        self.hand.setStyleSheet("font-size:17px;font-weight:bold;")
        self.mode = QComboBox()
        self.mode.addItem("Speaks at a pause", FloorMode.SPEAK)
        self.mode.addItem("Raises its hand", FloorMode.HAND_RAISE)
        self.patience = QComboBox()
        for p in Patience:
            self.patience.addItem(f"Patience: {p.value}", p)
        self.pause = QPushButton("Pause agent")
        self.pause.setCheckable(True)
        self.snooze_menu = QMenu("&Snooze", self)
        self.snooze_button = QToolButton()
        self.snooze_button.setText("Snooze")
        self.snooze_button.setToolTip("No proactive remarks for a while; questions still work")
        self.snooze_button.setMenu(self.snooze_menu)
        self.snooze_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.transcript = TranscriptView()
        self.name_offer = NameOfferBar(self.transcript.name_of)
        controls = QHBoxLayout()
        controls.addWidget(self.mode)
        controls.addWidget(self.patience)
        controls.addWidget(self.snooze_button)
        controls.addWidget(self.pause)
        side = QWidget()
        col = QVBoxLayout(side)
        col.addWidget(self.glyph)
        col.addLayout(self._status_rows())
        col.addWidget(self.hand)
        col.addLayout(controls)
        col.addWidget(QLabel("<b>Transcript</b> <small>(click a name to rename)</small>"))
        col.addWidget(self.name_offer)
        col.addWidget(self.transcript, 1)
        left = QWidget()
        row = QHBoxLayout(left)  # the meeting's documents beside the viewer
        row.setContentsMargins(0, 0, 0, 0)
        self.documents = DocumentList()  # shown once a second document joins
        row.addWidget(self.documents)
        lcol = QVBoxLayout()
        row.addLayout(lcol, 1)
        lcol.addWidget(self.drop_hint)
        lcol.addWidget(self.pdf, 1)
        self.pdf.hide()
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(side)
        split.setSizes([780, 480])
        central = QWidget()
        main = QVBoxLayout(central)
        main.addWidget(self.banner)
        main.addWidget(self.messages)
        main.addWidget(split, 1)
        self.setCentralWidget(central)
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label, 1)
        self.recording = QLabel("\u25cf Recording the meeting audio")
        self.recording.setStyleSheet("color:#cf222e;")
        self.recording.hide()  # shown while the kept meeting audio grows
        self.statusBar().addPermanentWidget(self.recording)
        self._glyph_timer = QTimer(self)
        self._glyph_timer.setSingleShot(True)
        self._glyph_timer.setInterval(int(self.pipeline.settings.floor.glyph_debounce * 1000))
        self._glyph_timer.timeout.connect(self._apply_state)
        mode = FloorMode(self.prefs.mode)
        self.mode.setCurrentIndex(self.mode.findData(mode))
        self.patience.setCurrentIndex(self.patience.findData(Patience(self.prefs.patience)))
        self._update_hand(AgentState.IDLE)

    def _status_rows(self) -> QVBoxLayout:
        """The agent starting (with progress) and the microphone (with its level)."""
        self.warm_label = QLabel()
        self.warm_bar = QProgressBar()
        self.warm_bar.setRange(0, 100)
        self.warm_bar.setTextVisible(False)
        self.warm_bar.setFixedHeight(8)
        self.input_label = QLabel("Microphone: not started")
        self.input_label.setStyleSheet("color:#57606a;")
        self.meter = QProgressBar()
        self.meter.setRange(0, 100)
        self.meter.setTextVisible(False)
        self.meter.setFixedSize(120, 8)
        self.meter.setToolTip("Input level")
        mic = QHBoxLayout()
        mic.addWidget(self.input_label, 1)
        mic.addWidget(self.meter)
        rows = QVBoxLayout()
        rows.addWidget(self.warm_label)
        rows.addWidget(self.warm_bar)
        rows.addLayout(mic)
        self._show_warming(None)
        return rows

    def _menus(self) -> None:
        file = self.menuBar().addMenu("&File")
        self.open_action = QAction(
            "&Open PDF\u2026", self, shortcut=QKeySequence(QKeySequence.StandardKey.Open)
        )
        self.open_action.triggered.connect(self.ask_open)
        file.addAction(self.open_action)
        self.add_action = QAction(
            "&Add document\u2026", self, shortcut=QKeySequence("Ctrl+Shift+O")
        )
        self.add_action.triggered.connect(self.ask_add)
        file.addAction(self.add_action)
        self.recent_menu = file.addMenu("Open &Recent")
        self._fill_recent()
        file.addSeparator()
        for label, suffix in (
            ("Export meeting record (&Markdown)\u2026", ".md"),
            ("Export meeting record (&HTML)\u2026", ".html"),
        ):
            action = QAction(label, self)
            action.triggered.connect(lambda _=False, s=suffix: self.ask_export(s))
            file.addAction(action)
        self.summary = SummaryAction(self)  # enabled once the meeting has stopped
        file.addAction(self.summary.action)
        file.addSeparator()
        quit_action = QAction("&Quit", self, shortcut=QKeySequence(QKeySequence.StandardKey.Quit))
        quit_action.triggered.connect(self.close)
        file.addAction(quit_action)
        agent = self.menuBar().addMenu("&Agent")
        dismiss = QAction("Lower hand / stop speaking", self, shortcut=QKeySequence("Esc"))
        dismiss.triggered.connect(self.pipeline.lower_hand)
        agent.addAction(dismiss)
        for minutes in SNOOZE_MINUTES:
            action = self.snooze_menu.addAction(f"Snooze for {minutes} minutes")
            action.triggered.connect(lambda _=False, m=minutes: self.snooze(m))
        self.snooze_menu.addSeparator()
        self.unsnooze_action = self.snooze_menu.addAction("Speak up again now")
        self.unsnooze_action.triggered.connect(lambda: self.snooze(0))
        self.unsnooze_action.setEnabled(False)
        agent.addMenu(self.snooze_menu)
        settings = QAction("&Settings\u2026", self)
        settings.triggered.connect(self.ask_settings)
        agent.addAction(settings)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.prefs.recent_files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_pdf(Path(p)))
        self.recent_menu.setEnabled(bool(self.prefs.recent_files))

    def _connect(self) -> None:
        b = self.bridge
        b.turn.connect(self._on_turn)
        b.partial.connect(self.transcript.set_partial)
        b.agentState.connect(self._on_state)
        b.pending.connect(self._on_pending)
        b.citation.connect(self._on_citation)
        b.decision.connect(self._on_decision)
        b.play.connect(lambda play: self.transcript.add_intervention(play.intervention))
        b.wake.connect(self._on_wake)
        b.renamed.connect(lambda e: self.transcript.rename(e.speaker, e.name))
        b.component.connect(self._on_component)
        b.error.connect(self._on_error)
        b.document.connect(self._on_document)
        b.progress.connect(self._show_warming)
        b.inputStatus.connect(self._on_input)
        b.level.connect(self._on_level)
        b.snooze.connect(self._on_snooze)
        b.settingsChanged.connect(self._on_setting)
        b.meetingAudio.connect(self._on_meeting_audio)
        self.hand.clicked.connect(self._on_hand)
        self.mode.currentIndexChanged.connect(self._on_mode)
        self.patience.currentIndexChanged.connect(self._on_patience)
        self.pause.toggled.connect(self._on_pause)
        self.transcript.renameRequested.connect(self.pipeline.rename_speaker)
        b.nameOffered.connect(self.name_offer.offer)
        self.name_offer.accepted.connect(
            lambda speaker, name: self.pipeline.rename_speaker(
                speaker, name, NameSource.INTRODUCTION
            )
        )
        self.transcript.citationClicked.connect(self.jump_to)
        self.documents.chosen.connect(self.show_document)
        self.documents.addRequested.connect(self.ask_add)
        self.documents.removeRequested.connect(self.remove_pdf)
        self.documentRefused.connect(self._unlist)

    # --- documents ------------------------------------------------------------------

    def ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a PDF", "", "PDF documents (*.pdf)")
        if path:
            self.open_pdf(Path(path))

    def open_pdf(self, path: Path, start_agent: bool = True) -> bool:
        """Show the PDF at once; index it and start the agent on a worker thread."""
        try:
            self.pdf.open(path, self.pipeline.settings.document)
        except PdfError as exc:
            self.show_error(exc.user_message)
            return False
        self.drop_hint.hide()
        self.pdf.show()
        self.setWindowTitle(f"{path.name} \u2014 Jarvis for the room")
        self.documents.clear()
        self.documents.add(path)
        self.documents.mark_shown(path)
        self.prefs.add_recent(str(path))
        self._fill_recent()
        if start_agent:
            self._start_loader([path])
        return True

    def open_pdfs(self, paths: Sequence[Path], start_agent: bool = True) -> bool:
        """The meeting's documents at start (``jarvis run a.pdf b.pdf``): all listed, the
        first shown, and (``start_agent``) all indexed in order on one worker thread
        before the agent starts on them, so it reads them once."""
        paths = list(dict.fromkeys(Path(p) for p in paths))
        if not paths or not self.open_pdf(paths[0], start_agent=False):
            return False
        opened = [paths[0], *(p for p in paths[1:] if self.add_pdf(p, index=False))]
        self.show_document(paths[0])
        if start_agent:
            self._start_loader(opened)
        return True

    def _start_loader(self, paths: list[Path]) -> None:
        threading.Thread(
            target=self._load_agent, args=(paths,), daemon=True, name="agent-loader"
        ).start()

    def _load_agent(self, paths: list[Path]) -> None:
        """On a worker thread: index the documents (says how far it got as it goes; one
        the agent cannot read leaves the list), then start the agent on them."""
        opened = False
        for path in paths:
            ok = self.pipeline.add_document(path) if opened else self.pipeline.open_document(path)
            if not ok:
                self.documentRefused.emit(path)
            opened = opened or ok
        if opened:
            self.pipeline.start_agent(self.prefs.llm_model or None)

    def ask_add(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Add documents to the meeting", "", "PDF documents (*.pdf)"
        )
        for path in paths:
            self.add_pdf(Path(path))

    def add_pdf(self, path: Path, index: bool = True) -> bool:
        """One more document for the meeting: shown at once, listed beside the viewer, and
        (``index``) indexed for the agent on a worker thread, which reads all of them."""
        if self.pdf.path is None:
            return self.open_pdf(path, start_agent=index)
        if path in self.documents.paths():
            return self.show_document(path)
        if not self.show_document(path):
            return False
        self.documents.add(path)
        self.documents.mark_shown(path)
        self.prefs.add_recent(str(path))
        self._fill_recent()
        if index:
            threading.Thread(
                target=self._index_added, args=(path,), daemon=True, name="document-loader"
            ).start()
        return True

    def _index_added(self, path: Path) -> None:
        """On a worker thread: a document the agent cannot read leaves the list again
        (the pipeline has said why)."""
        if not self.pipeline.add_document(path):
            self.documentRefused.emit(path)

    def _unlist(self, path: Path) -> None:
        rest = [p for p in self.documents.paths() if p != path]
        if rest and path in self.documents.paths():
            self.documents.take(path)
            if self.pdf.path == path:
                self.show_document(rest[-1])

    def show_document(self, path: Path) -> bool:
        """Show one of the meeting's documents in the viewer."""
        if self.pdf.path == path:
            return True
        try:
            self.pdf.open(path, self.pipeline.settings.document)
        except PdfError as exc:
            self.show_error(exc.user_message)
            return False
        self.documents.mark_shown(path)
        self.setWindowTitle(f"{path.name} \u2014 Jarvis for the room")
        return True

    def remove_pdf(self, path: Path) -> None:
        """Leave a document out of the meeting; the viewer shows another if it showed it."""
        rest = [p for p in self.documents.paths() if p != path]
        if not rest:
            return
        self.documents.take(path)
        if self.pdf.path == path:
            self.show_document(rest[0])
        threading.Thread(
            target=self.pipeline.remove_document, args=(path,), daemon=True,
            name="document-remover",
        ).start()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            self.show_error("Only local files can be dropped here.")
            return
        for url in urls:  # the first opens the meeting's document, the rest join it
            self.add_pdf(Path(url.toLocalFile()))
        event.acceptProposedAction()

    def ask_export(self, suffix: str) -> None:
        record = self.pipeline.record
        if record is None:
            self.show_error("This session is not being recorded, so there is nothing to export.")
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Export meeting record", str(record.path.with_suffix(suffix))
        )
        if path:
            self.export(Path(path))

    def export(self, path: Path) -> Path | None:
        record = self.pipeline.record
        if record is None:
            self.show_error("This session is not being recorded, so there is nothing to export.")
            return None
        try:
            out = export_record(record.path, path)
        except (OSError, ValueError) as exc:
            self.show_error(f"Could not export the meeting record: {exc}")
            return None
        self.status_label.setText(f"Meeting record written to {out}")
        return out

    def offer_last_session(self, record_path: Path | None) -> None:
        """After a crash: a bar above the document offers the cut-off meeting's export."""
        if record_path is None:
            return
        central = self.centralWidget()
        layout = central.layout() if central is not None else None
        assert isinstance(layout, QVBoxLayout)
        self.recovery = RecoveryBar(record_path)
        layout.insertWidget(0, self.recovery)

    def ask_settings(self) -> None:
        dialog = SettingsDialog(self.prefs, self, voiceprints=self.pipeline.voiceprints)
        if dialog.voices is not None:  # voices are remembered and forgotten at once
            dialog.voices.changed.connect(self.pipeline.reload_voiceprints)
        if dialog.exec():
            self.apply_preferences(dialog.preferences())

    def apply_preferences(self, prefs: Preferences) -> None:
        """Take the dialog's preferences: the running agent changes at once where it can,
        and they are remembered."""
        old, self.prefs = self.prefs, prefs
        for setting, value in live_changes(old, prefs):
            self.pipeline.change_setting(setting, value)
        self.earcons.device = prefs.output_device or None
        self.patience.setCurrentIndex(self.patience.findData(Patience(prefs.patience)))
        if self.save_prefs:
            save_preferences(prefs)
        later = start_changes(old, prefs)
        self.status_label.setText(
            "Settings applied."
            + (f" {', '.join(n.replace('_', ' ') for n in later)}: from the next start."
               if later else "")
        )

    # --- pipeline events ------------------------------------------------------------

    def _on_turn(self, turn: Turn) -> None:
        self.transcript.add_turn(turn)

    def _on_state(self, state: AgentState) -> None:
        self._pending_state = state
        if not self._glyph_timer.isActive():
            self._glyph_timer.start()

    def _apply_state(self) -> None:
        state = self._pending_state
        if state is None or state == self.glyph.state:
            return
        if state == AgentState.HAND_RAISED:
            self.earcons.play("hand")
        if self.glyph.state == AgentState.SPEAKING and state != AgentState.SPEAKING:
            self.pdf.fade_citation()
        self.glyph.set_state(state)
        self._update_hand(state)

    def set_state_now(self, state: AgentState) -> None:
        """Apply a state without the debounce (used when a test or screenshot needs it)."""
        self._pending_state = state
        self._glyph_timer.stop()
        self._apply_state()

    def _on_pending(self, event: PendingIntervention) -> None:
        self.glyph.show_pending(event.intervention)

    def _on_citation(self, event: HighlightCitation) -> None:
        if event.active and event.citation is not None:
            self.jump_to(event.citation)
        else:
            self.pdf.fade_citation()

    def jump_to(self, citation: Citation) -> None:
        if self.pdf.page_count == 0:
            self.show_error("Open the document to see the cited passage.")
            return
        if not self.show_document(self._cited_document(citation)):
            return
        try:
            self.pdf.show_citation(citation.page, citation.rects)
        except PdfError as exc:
            self.show_error(exc.user_message)

    def _cited_document(self, citation: Citation) -> Path:
        """The document a citation is from: the one it names, else the meeting's first."""
        if citation.document:
            return Path(citation.document)
        opened = self.documents.paths()
        return opened[0] if opened else self.pdf.path or Path()

    def _on_decision(self, decision: Decision) -> None:
        if decision.intervention is not None:
            self.transcript.add_intervention(decision.intervention)
        self.status_label.setText(
            f"Turn {decision.turn}: {decision.action} \u2014 {decision.reason}"
        )

    def _on_wake(self, _event: WakeEvent) -> None:
        self.earcons.play("wake")

    def _on_component(self, status: ComponentStatus) -> None:
        if status.component == "backbone":
            self._show_warming(None)  # started, or the banner says why not
        if status.available:
            self._missing.pop(status.component, None)
        else:
            self._missing[status.component] = status.reason
        lines = [
            f"{COMPONENT_NAMES.get(c, c)} not available: {why}" for c, why in self._missing.items()
        ]
        self.banner.setText("\n".join(lines))
        self.banner.setVisible(bool(lines))

    def _on_error(self, error: PipelineError) -> None:
        text = error.message + (f" {error.hint}" if error.hint else "")
        self.show_error(text)

    def _on_document(self, event: DocumentLoaded) -> None:
        self.status_label.setText(
            f"{event.title or Path(event.path).name}: {event.page_count} "
            f"pages, {event.sentence_count} sentences indexed"
        )
        if Path(event.path) in self.documents.paths() and event.title:
            self.documents.add(Path(event.path), event.title)
        for document in self.pipeline.documents:
            if str(document.path) == event.path:
                for warning in document.warnings:  # pages the agent cannot read
                    self.show_error(warning.what)

    def show_error(self, text: str) -> None:
        log.warning("%s", text)
        self.messages.show_message(text)

    # --- controls -------------------------------------------------------------------

    def _update_hand(self, state: AgentState) -> None:
        if state == AgentState.HAND_RAISED:
            self.hand.setText("Let Jarvis speak  (Ctrl+Space)")
            self.hand.setIcon(QIcon(state_pixmap(AgentState.HAND_RAISED)))
            self.hand.setEnabled(True)
        elif state == AgentState.SPEAKING:
            self.hand.setText("Stop Jarvis  (Ctrl+Space)")
            self.hand.setIcon(QIcon(state_pixmap(AgentState.SPEAKING)))
            self.hand.setEnabled(True)
        else:
            self.hand.setText("Jarvis has nothing to add")
            self.hand.setIcon(QIcon())
            self.hand.setEnabled(False)

    def _on_hand(self) -> None:
        if self.glyph.state == AgentState.HAND_RAISED:
            self.pipeline.grant_floor()
        else:
            self.pipeline.lower_hand()

    def _on_mode(self, _index: int) -> None:
        mode = FloorMode(self.mode.currentData())  # Qt hands the enum back as its str
        self.prefs.mode = mode.value
        self.pipeline.set_mode(mode)

    def _on_patience(self, _index: int) -> None:
        patience = Patience(self.patience.currentData())
        self.prefs.patience = patience.value
        self.pipeline.set_patience(patience)

    def _on_pause(self, paused: bool) -> None:
        self.pause.setText("Resume agent" if paused else "Pause agent")
        self.pipeline.set_paused(paused)
        self._show_input()

    # --- honest status --------------------------------------------------------------

    def _show_warming(self, progress: AgentProgress | None) -> None:
        """What the agent does before it follows the meeting; hidden once it does."""
        self.warm_label.setVisible(progress is not None)
        self.warm_bar.setVisible(progress is not None)
        if progress is None:
            return
        self.warm_label.setText(progress.text)
        if progress.fraction is None:
            self.warm_bar.setRange(0, 0)  # busy: no fraction to show
        else:
            self.warm_bar.setRange(0, 100)
            self.warm_bar.setValue(round(progress.fraction * 100))

    def _on_input(self, status: InputStatus) -> None:
        self._input = status
        if status.state != InputState.LISTENING:
            self.meter.setValue(0)
        self._show_input()

    def _show_input(self) -> None:
        status = self._input
        if status is None:
            return
        source = status.source
        name = source if source.startswith("recording ") else device_label(source, "input")
        if status.state == InputState.SWITCHING:
            text = f"Switching to {name}\u2026"
        elif status.state == InputState.LOST:
            text = f"Microphone lost, retrying: {name}"
        elif status.state == InputState.STOPPED:
            text = f"Stopped listening: {name}"
        elif self.pause.isChecked():
            text = f"Paused \u2014 Jarvis ignores the room: {name}"
        else:
            text = f"Listening: {name}"
        self.input_label.setText(text)

    def _on_meeting_audio(self, event: MeetingAudio) -> None:
        self.recording.setVisible(event.state == RecordingState.RECORDING)
        self.recording.setToolTip(event.path)
        if event.state == RecordingState.FAILED:
            self.show_error(f"The meeting audio is no longer kept: {event.message}. "
                            f"{event.path} holds what came before.")  # fmt: skip

    def _on_level(self, level: InputLevel) -> None:
        self.meter.setValue(meter_percent(level.rms))

    def snooze(self, minutes: float) -> None:
        """From the window: no proactive remarks for ``minutes`` (0: speak up again)."""
        self.pipeline.snooze(minutes * 60.0)

    def _on_snooze(self, change: SnoozeChanged) -> None:
        if change.until is None:
            self.snoozed_until = None
            self.glyph.set_note("")
            self.snooze_button.setToolTip("No proactive remarks for a while; questions still work")
            self.unsnooze_action.setEnabled(False)
            if change.source != SnoozeSource.EXPIRED:
                self.transcript.add_notice("Jarvis may speak up again.")
            return
        left = change.until - self.pipeline.clock.now()
        self.snoozed_until = datetime.now() + timedelta(seconds=max(0.0, left))
        text = snooze_text(self.snoozed_until)
        self.glyph.set_note(text)
        self.snooze_button.setToolTip(text)
        self.unsnooze_action.setEnabled(True)
        by = "by voice" if change.source == SnoozeSource.VOICE else "from the window"
        self.transcript.add_notice(f"{text} (asked {by}); questions are still answered.")

    def _on_setting(self, change: SettingsChanged) -> None:
        """Keep the controls in step with the running agent (a change from anywhere)."""
        if change.setting == Setting.MODE:
            index = self.mode.findData(FloorMode(str(change.new)))
            if index != self.mode.currentIndex():
                self.mode.setCurrentIndex(index)
        elif change.setting == Setting.PATIENCE:
            index = self.patience.findData(Patience(str(change.new)))
            if index != self.patience.currentIndex():
                self.patience.setCurrentIndex(index)

    # --- shutdown -------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.bridge.detach()
        self.pipeline.stop()
        for callback in self.on_close:
            callback()
        if self.save_prefs:
            save_preferences(self.prefs)
        self.pdf.close_document()
        super().closeEvent(event)
