"""The running agent: document, speech, backbone worker, floor and voice, one hub.

``Pipeline`` owns the workers and their lifetimes. Every event a worker produces goes
through ``_route``: it is recorded, published on the hub, and fed to the parts that need
it (turns to the backbone, everything to the floor). User actions are plain methods.
Parts that are not installed yet are reported as ``ComponentStatus(available=False)``
and the rest keeps working.

Settings apply live: ``change_setting`` records and publishes one ``SettingsChanged``,
which the floor applies (mode, patience, proactive gap), the ledger applies (patience),
and which reopens the voice (engine, voice, speed, loudspeaker) or the capture
(microphone) on their own threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.clock import Clock, RealClock
from app.document.library import merge
from app.events import (
    AgentState,
    Decision,
    Intervention,
    NameOffered,
    NameSource,
    PlaybackReceipt,
    Setting,
    SettingsChanged,
    SettingValue,
    SpeakerRenamed,
    Turn,
    is_speaker_label,
)
from app.pipeline import components
from app.pipeline.backbone_worker import BackboneWorker
from app.pipeline.events import (
    AgentProgress,
    ComponentStatus,
    DocumentLoaded,
    InputState,
    InputStatus,
    InterventionOffered,
    PendingIntervention,
    PipelineError,
    PipelineStopped,
    WarmStage,
)
from app.pipeline.floor_driver import FloorDriver
from app.pipeline.hub import EventHub
from app.pipeline.playback import TextOnlyPlayer, open_voice
from app.pipeline.session_hooks import SessionHooks
from app.session.record import SessionRecord
from app.settings import FloorMode, Patience, Settings
from app.speech.introductions import introduced_name

if TYPE_CHECKING:
    from app.speech.voiceprints import VoiceprintStore

log = logging.getLogger(__name__)

MIN_REMEMBERED = 2.0  # seconds of a speaker's speech below which no voice is remembered

# Settings the voice is built with: changing one reopens it.
VOICE_SETTINGS = frozenset(
    {Setting.VOICE_ENGINE, Setting.VOICE, Setting.SPEED, Setting.OUTPUT_DEVICE}
)
PlayerFactory = Callable[[Settings], tuple[Any, str | None]]


def with_setting(settings: Settings, change: SettingsChanged) -> Settings:
    """``settings`` with the change laid over it (the devices are not part of them)."""
    new, s = change.new, settings
    match change.setting:
        case Setting.PATIENCE:
            return replace(s, ledger=replace(s.ledger, patience=Patience(str(new))))
        case Setting.MODE:
            return replace(s, floor=replace(s.floor, mode=FloorMode(str(new))))
        case Setting.PROACTIVE_GAP:
            return replace(s, floor=replace(s.floor, proactive_gap=float(new)))
        case Setting.VOICE_ENGINE:
            return replace(s, voice=replace(s.voice, engine=str(new)))
        case Setting.VOICE:
            return replace(s, voice=replace(s.voice, voice=str(new)))
        case Setting.SPEED:
            return replace(s, voice=replace(s.voice, speed=float(new)))
    return s


def carry_meeting(old: Any, new: Any) -> None:
    """What the backbone ``old`` knows of the meeting, given to ``new`` over other
    documents. Claims cite sentence IDs, so the ledger moves only when the old document's
    IDs all resolve to the same sentences in the new one (a document was added)."""
    same_ids = all(
        (n := new.document.get(s.sid)) is not None and n.text == s.text
        for s in old.document.sentences
    )
    kept = ("transcript", "_next_index", "_generation", "_ids", "_delivered")
    for name in (*kept, "ledger", "_asked") if same_ids else kept:
        if hasattr(old, name):
            setattr(new, name, getattr(old, name))


class Pipeline:
    def __init__(
        self,
        settings: Settings | None = None,
        hub: EventHub | None = None,
        record: SessionRecord | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.hub = hub or EventHub()
        self.clock = clock or RealClock()
        self.record = record
        self.document: Any = None  # the index the backbone reads: all documents merged
        self.documents: list[Any] = []  # the meeting's documents, in the order opened
        self._rebuilding = False  # the backbone is read again over a new set of documents
        self._held: list[Turn] = []  # turns heard meanwhile, for the new backbone
        self._rebuild_lock = threading.Lock()  # one rebuild at a time
        self._index_lock = threading.RLock()  # documents are opened one after the other
        # Builds the backbone over other documents on the model it has (document, llm,
        # settings) -> (backbone, why not); None: the installed Backbone.
        self.backbone_factory: Callable[[Any, Any, Settings], tuple[Any, str | None]] | None = (
            None
        )
        self.status: dict[str, ComponentStatus] = {}
        self.state = AgentState.IDLE
        self.paused = False
        self._backbone: BackboneWorker | None = None
        self._floor: FloorDriver | None = None
        self._speech: Any = None
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._hooks = SessionHooks(record) if record is not None else None
        self.player: Any = None  # a ready player, else one is built from voice_sink
        self.voice_sink = "none"  # "device" (loudspeaker), "null" (headless), "none" (text)
        self.voice_device: str | None = None
        self.voice_tap: Any = None  # the speech worker's self-voice reference
        self.tick_floor = True
        self.speaker_names: dict[str, str] = {}  # session label -> name
        self.voiceprints: VoiceprintStore | None = None  # remembered voices; None: not kept
        self._offered: set[tuple[str, str]] = set()  # (label, name) offers already made
        self.input_device: str | None = None  # the microphone chosen; None: the default
        self.voice_factory: PlayerFactory | None = None  # builds players instead of open_voice
        self._core: Any = None  # the backbone itself (its ledger applies patience)
        self._voice_lock = threading.Lock()  # one voice is built at a time
        self._voice_wanted = 0  # the newest voice asked for; older ones are discarded
        self._switching_input = False  # the capture was stopped to reopen it elsewhere
        self._read_fraction = -1.0  # how much of the document prefix the model has read

    # --- lifecycle ------------------------------------------------------------------

    def set_status(self, component: str, available: bool, reason: str = "") -> None:
        status = ComponentStatus(component, available, reason)
        self.status[component] = status
        self._route(status)

    def open_document(self, path: Path) -> bool:
        with self._index_lock:
            return self._open_document(path)

    def _open_document(self, path: Path) -> bool:
        self._route(AgentProgress(WarmStage.INDEXING))
        document, why = components.load_document(Path(path), self.settings)
        if document is None:
            self._route(
                PipelineError(
                    "document",
                    why or "could not open the document",
                    "Choose a PDF with a text layer (File > Open).",
                )
            )
            return False
        self.documents = [document]
        self.document = document
        self._route(
            DocumentLoaded(str(path), document.title, document.page_count, len(document.sentences))
        )
        return True

    # --- several documents ----------------------------------------------------------

    def add_document(self, path: Path) -> bool:
        """Index one more document of the meeting; a running backbone reads them all again
        (slow: call off the GUI thread). Retrieval, detectors and answers then span all."""
        with self._index_lock:
            return self._add_document(Path(path))

    def _add_document(self, path: Path) -> bool:
        if any(Path(d.path) == path for d in self.documents):
            self._route(PipelineError("document", f"{path.name} is already open."))
            return False
        if not self.documents:
            return self.open_document(path)
        running = self._core is not None  # its status ends the progress shown
        if running:
            self._route(AgentProgress(WarmStage.INDEXING))
        document, why = components.load_document(path, self.settings)
        if document is None:
            self._route(PipelineError("document", why or f"could not open {path.name}",
                                      "The documents already open stay as they are."))
            if running:
                self.set_status("backbone", True)
            return False
        with self._lock:
            self.documents.append(document)
            self.document = merge(self.documents)
        self._route(
            DocumentLoaded(str(path), document.title, document.page_count, len(document.sentences))
        )
        self._rebuild_backbone()
        return True

    def remove_document(self, path: Path) -> bool:
        """Leave a document out of the meeting (not the last one); the backbone reads the
        rest again. Slow: call off the GUI thread."""
        with self._index_lock:
            kept = [d for d in self.documents if Path(d.path) != Path(path)]
            if len(kept) == len(self.documents) or not kept:
                return False
            with self._lock:
                self.documents = kept
                self.document = merge(kept)
            self._rebuild_backbone()
            return True

    def _rebuild_backbone(self) -> None:
        """The backbone again over ``self.document``, on the model it already has. The
        meeting so far (transcript, turn numbers, what was said) carries over; the claims
        carry over when every sentence ID they may cite still means the same sentence."""
        with self._rebuild_lock:
            with self._lock:
                worker, old = self._backbone, self._core
                if old is None or getattr(old, "document", None) is self.document:
                    return
                self._backbone, self._rebuilding = None, True
            try:
                if worker is not None:
                    worker.stop()
                self._read_fraction = -1.0
                self._route(AgentProgress(WarmStage.READING, 0.0))
                build = self.backbone_factory or components.backbone_on
                new, why = build(self.document, old.llm, self.settings)
                if new is None:
                    self.set_status("backbone", False, why or "")
                    return
                carry_meeting(old, new)
                self.attach_backbone(new)
            finally:
                with self._lock:
                    self._rebuilding, held, self._held = False, self._held, []
            for turn in held:
                self._to_backbone(turn)

    def start_agent(self, llm_spec: str | None = None) -> None:
        """Build the backbone and the floor (slow: loads the model); call off the GUI thread.

        Never raises: whatever fails is reported on the hub and the rest keeps running."""
        try:
            self._start_agent(llm_spec)
        except Exception as exc:
            log.exception("starting the agent failed")
            self._route(
                PipelineError(
                    "backbone",
                    f"The agent could not start: {exc}",
                    "Run `jarvis doctor` to see what is missing.",
                )
            )

    def _start_agent(self, llm_spec: str | None) -> None:
        self._start_floor()
        if self.document is None:
            self.set_status("backbone", False, "no document is open")
            return
        self._read_fraction = -1.0
        self._route(AgentProgress(WarmStage.LOADING_MODEL))
        backbone, why = components.load_backbone(
            self.document, self.settings, llm_spec, progress=self._reading
        )
        if backbone is None:
            self.set_status("backbone", False, why or "")
            return
        self.attach_backbone(backbone)
        self._rebuild_backbone()  # a document added while the model loaded

    def attach_backbone(self, backbone: Any) -> None:
        """Run ``backbone`` on its worker thread; its decisions reach the floor."""
        worker = BackboneWorker(backbone, self._route, self._on_intervention, on_delta=self.feed)
        worker.start()
        with self._lock:
            self._backbone, self._core = worker, backbone
        self.set_status("backbone", True)

    def _reading(self, done: int, total: int) -> None:
        """The model's progress through the document prefix, in whole percents."""
        fraction = done / total if total else 1.0
        if fraction >= 1.0 or fraction - self._read_fraction >= 0.01:
            self._read_fraction = fraction
            self._route(AgentProgress(WarmStage.READING, min(1.0, fraction)))

    def _start_floor(self) -> None:
        if self._floor is not None:
            return
        fsm, why = components.load_floor(self.settings)
        self.set_status("floor", fsm is not None, why or "")
        if fsm is None:
            return
        player, why = self.player, "voice output is off"
        if player is None and (self.voice_sink != "none" or self.voice_factory is not None):
            player, why = self._open_player()
        if player is None:
            self.set_status("voice", False, f"{why}; the agent's words appear as text")
            player = TextOnlyPlayer(self.clock, self.feed)
        else:
            self.set_status("voice", True)
        with self._lock:
            self._floor = FloorDriver(
                fsm,
                self.clock,
                self._route,
                player,
                on_direct=self._direct,
                on_delivered=self._delivered,
                tick=self.tick_floor,
            )
        self._floor.set_patience(self.settings.ledger.patience)

    def _direct(self, question: Turn, generation: int) -> None:
        if self._backbone is not None:
            self._backbone.request_direct(question, generation)

    def _delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        if self._backbone is not None:
            self._backbone.delivered(intervention, receipt)

    def _open_player(self) -> tuple[Any, str | None]:
        if self.voice_factory is not None:
            return self.voice_factory(self.settings)
        return open_voice(
            self.settings, self.feed, self.clock, self.voice_sink, self.voice_device,
            self.voice_tap,
        )

    def attach_speech(self, worker: Any) -> None:
        """A started-or-startable speech worker that calls ``subscribe(callback)``."""
        self._speech = worker
        worker.subscribe(self.feed)
        self.set_status("speech", True)
        self.reload_voiceprints()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        for part in (self._speech, self._floor, self._backbone):
            if part is None:
                continue
            try:
                part.stop()
            except Exception:
                log.exception("stopping %r failed", part)
        self._close_model()
        self._route(PipelineStopped("closed"))

    def _close_model(self) -> None:
        """The model's owner thread holds it (a gigabyte or more) until it is closed; a
        late call after this gets a model error, which the backbone reports as a reason."""
        close = getattr(getattr(self._core, "llm", None), "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                log.exception("closing the language model failed")

    @property
    def backbone_pending(self) -> int:
        return self._backbone.pending if self._backbone else 0

    # --- events from workers --------------------------------------------------------

    def feed(self, event: Any) -> None:
        """Entry for speech events (any thread)."""
        if self._stopped.is_set():
            return
        if type(event).__name__ == "DeviceStatus" and self._on_device(event):
            return
        if isinstance(event, SpeakerRenamed):  # a remembered voice, or a merge
            self.speaker_names[event.speaker] = event.name
        said = event if isinstance(event, Turn) else None  # by its session label
        if isinstance(event, Turn) and event.speaker in self.speaker_names:
            event = replace(event, speaker=self.speaker_names[event.speaker])
        self._route(event)
        if said is not None:
            self._offer_name(said)
        if isinstance(event, Turn) and not self.paused:
            self._to_backbone(event)

    def _to_backbone(self, turn: Turn) -> None:
        with self._lock:
            if self._rebuilding:  # the new backbone hears it once it is ready
                self._held.append(turn)
                return
            backbone = self._backbone
        if backbone is not None:
            backbone.submit_turn(turn)

    def _route(self, event: Any) -> None:
        event = self._translate(event)
        if isinstance(event, AgentState):
            self.state = event
        if self._hooks is not None:
            self._hooks.on_event(event)
        self.hub.publish(event)
        floor = self._floor
        if floor is not None:
            floor.feed(event)

    def _on_device(self, status: Any) -> bool:
        """Say where the sound comes from; True for the loss a device switch causes."""
        if status.state == "lost" and self._switching_input:
            self._switching_input = False
            return True
        state = {"running": InputState.LISTENING, "lost": InputState.LOST}.get(
            status.state, InputState.STOPPED
        )
        self._route(InputStatus(state, self.input_name()))
        return False

    def input_name(self) -> str:
        """The microphone in use ("" for the system default), or the recording played."""
        source = getattr(self._speech, "source", None)
        path = getattr(source, "path", None)
        if path is not None:
            return f"recording {Path(path).name}"
        device = getattr(source, "device", self.input_device)
        return "" if device is None else str(device)

    def _translate(self, event: Any) -> Any:
        """Speech-package health events as the window's status and error events."""
        name = type(event).__name__
        if name == "DeviceStatus" and event.state == "lost":
            return PipelineError(
                "speech",
                f"Microphone lost: {event.message}",
                "Retrying; check the cable or choose another device.",
            )
        if name == "SpeechError":
            return PipelineError("speech", f"Speech {event.stage} failed: {event.message}")
        return event

    def _on_intervention(self, intervention: Intervention, decision: Decision | None) -> None:
        if decision is None:  # a direct answer: no decision entry carries it
            self._route(InterventionOffered(intervention))
        floor = self._floor
        if floor is None:
            self._route(PendingIntervention(intervention))
            self._route(
                PipelineError(
                    "floor",
                    "The agent has something to say but the floor "
                    "control is not available, so it stays silent.",
                )
            )
            return
        floor.offer(intervention)

    # --- user actions ---------------------------------------------------------------

    def grant_floor(self) -> None:
        if self._floor is not None:
            self._floor.grant()

    def lower_hand(self) -> None:
        if self._floor is not None:
            self._floor.dismiss()

    def set_mode(self, mode: FloorMode) -> None:
        self.change_setting(Setting.MODE, mode)

    def set_patience(self, patience: Patience) -> None:
        self.change_setting(Setting.PATIENCE, patience)

    def snooze(self, seconds: float) -> None:
        """Keep proactive interventions back for ``seconds`` (0 ends a snooze)."""
        if self._floor is not None:
            self._floor.snooze(seconds)

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        if self._floor is not None:
            self._floor.set_paused(paused)
        else:
            self._route(AgentState.PAUSED if paused else AgentState.LISTENING)

    # --- speaker names ---------------------------------------------------------------

    def rename_speaker(
        self, speaker: str, name: str, source: NameSource = NameSource.USER
    ) -> None:
        """Name a session speaker (``speaker``: its label, or the name it shows now). The
        user's names are remembered by voice for later meetings."""
        name = name.strip()
        if not name:
            return
        label = self.speaker_label(speaker)
        self.speaker_names[label] = name
        rename = getattr(self._speech, "rename", None)
        try:
            if callable(rename):
                rename(label, name, source)  # the worker announces SpeakerRenamed itself
            else:
                self._route(SpeakerRenamed(label, name, source))
        except KeyError:  # a label the diarizer never issued (turns replayed from a file)
            self._route(SpeakerRenamed(label, name, source))
        for merged in self._merged_into(label):  # their earlier turns follow the name
            self.speaker_names[merged] = name
            self._route(SpeakerRenamed(merged, name, source))
        self._remember_voice(label, name)

    def speaker_label(self, speaker: str) -> str:
        """The session speaker behind what a transcript row shows (a label or a name),
        as the diarizer knows it now (a merged label: the speaker it joined)."""
        if not is_speaker_label(speaker):
            named = [label for label, name in self.speaker_names.items() if name == speaker]
            speaker = named[-1] if named else speaker
        clusters = self._clusters()
        try:
            return speaker if clusters is None else str(clusters.resolve(speaker))
        except KeyError:  # a label the diarizer never issued
            return speaker

    def _clusters(self) -> Any:
        return getattr(getattr(self._speech, "diarizer", None), "clusters", None)

    def _merged_into(self, label: str) -> list[str]:
        merged = getattr(self._clusters(), "merged", {})
        return [m for m in merged if self.speaker_label(m) == label and m != label]

    def _remember_voice(self, label: str, name: str) -> None:
        clusters = self._clusters()
        if self.voiceprints is None or clusters is None:
            return
        try:
            heard = clusters.voiceprint(label, name, time.time())
        except (KeyError, IndexError, ValueError):  # a label this meeting's voices lack
            return
        if heard.seconds < MIN_REMEMBERED:
            return
        kept = self.voiceprints.remember(heard)
        log.info("voice of %s remembered (%.0f s of speech)", kept.name, kept.seconds)

    def reload_voiceprints(self) -> None:
        """Give the diarizer the remembered voices (at start, and after the settings
        dialog enrols or forgets one)."""
        know = getattr(getattr(self._speech, "diarizer", None), "know", None)
        if self.voiceprints is None or not callable(know):
            return
        know(self.voiceprints.voices(), self.settings.speech.voiceprint_match_cosine)

    def _offer_name(self, turn: Turn) -> None:
        """A speaker who introduces themself is offered that name (once per name)."""
        name = introduced_name(turn.text)
        if name is None or (turn.speaker, name) in self._offered:
            return
        if self.speaker_names.get(turn.speaker, "").casefold() == name.casefold():
            return
        self._offered.add((turn.speaker, name))
        self._route(NameOffered(turn.speaker, name, turn.index, turn.text))

    # --- settings that apply live ---------------------------------------------------

    def setting(self, setting: Setting) -> SettingValue:
        """The value the running agent uses now (the microphone: the one capturing)."""
        s = self.settings
        microphone = getattr(getattr(self._speech, "source", None), "device", self.input_device)
        values: dict[Setting, SettingValue] = {
            Setting.PATIENCE: s.ledger.patience.value,
            Setting.MODE: s.floor.mode.value,
            Setting.PROACTIVE_GAP: s.floor.proactive_gap,
            Setting.VOICE_ENGINE: s.voice.engine,
            Setting.VOICE: s.voice.voice,
            Setting.SPEED: s.voice.speed,
            Setting.INPUT_DEVICE: "" if microphone is None else str(microphone),
            Setting.OUTPUT_DEVICE: self.voice_device or "",
        }
        return values[setting]

    def change_setting(self, setting: Setting, value: SettingValue) -> SettingsChanged | None:
        """Apply one setting to the running agent and record it; None when it is unchanged.
        An enum value (a Patience, a FloorMode) is recorded as its plain value."""
        new: SettingValue = value.value if isinstance(value, Enum) else value
        old = self.setting(setting)
        if new == old:
            return None
        change = SettingsChanged(setting, old, new, self.clock.now())
        with self._lock:
            self.settings = with_setting(self.settings, change)
            if setting == Setting.INPUT_DEVICE:
                self.input_device = str(new) or None
            elif setting == Setting.OUTPUT_DEVICE:
                self.voice_device = str(new) or None
        self._route(change)  # recorded, shown, and applied by the floor
        self._apply_to_backbone(change)
        if setting in VOICE_SETTINGS:
            self._reopen_voice()
        elif setting == Setting.INPUT_DEVICE:
            self._switch_capture()
        return change

    def _apply_to_backbone(self, change: SettingsChanged) -> None:
        """The ledger's gate reads patience from the next turn on. Both are swapped whole
        (frozen settings), so the backbone thread sees the old or the new, never a mix."""
        core = self._core
        ledger = getattr(core, "ledger", None)
        if change.setting != Setting.PATIENCE or ledger is None:
            return
        ledger.apply(change)
        if isinstance(getattr(core, "settings", None), Settings):
            core.settings = replace(core.settings, ledger=ledger.settings)

    def _reopen_voice(self) -> None:
        """Build the voice again with the new settings on its own thread (a voice takes
        seconds to load); the floor speaks through it from the next intervention."""
        with self._lock:
            text_only = self.voice_sink == "none" and self.voice_factory is None
            if (self._floor is None and self.player is None) or text_only:
                return  # opened with the new settings when the floor starts, or no voice
            self._voice_wanted += 1
            wanted = self._voice_wanted
        threading.Thread(
            target=self._open_voice_for, args=(wanted,), name="voice-reopen", daemon=True
        ).start()

    def _open_voice_for(self, wanted: int) -> None:
        with self._voice_lock:
            if wanted != self._voice_wanted or self._stopped.is_set():
                return  # a newer change is on its way
            player, why = self._open_player()
        if player is None:
            self._route(PipelineError(
                "voice", f"The new voice could not be opened: {why}.",
                "Jarvis keeps speaking with the voice it had.",
            ))
            return
        with self._lock:
            floor, old = self._floor, self.player
            current = wanted == self._voice_wanted and not self._stopped.is_set()
            if current and floor is None:
                self.player = player
        if not current:
            player.close()
        elif floor is not None:
            floor.replace_player(player)
        elif old is not None:
            old.close()
        self.set_status("voice", True)

    def _switch_capture(self) -> None:
        """Capture from the chosen microphone: the source is stopped and the speech worker
        reopens it, as after a loss, on the new device (speakers and turns carry on)."""
        source = getattr(self._speech, "source", None)
        if source is None or not hasattr(source, "device"):
            return  # a recording, or no capture yet: the microphone opens on the new one
        self._switching_input = True
        source.device = self.input_device
        self._route(InputStatus(InputState.SWITCHING, self.input_name()))
        source.stop()
