"""A meeting on live audio: a microphone, or a recording played the way a microphone
delivers it, through the speech worker into the pipeline.

``LiveMeeting`` is Qt-free: the window drives it with a bridge, ``run_headless`` from a
plain loop that prints what happens. ``jarvis run``, ``jarvis run --audio`` and the
demo all go through it, so a recorded meeting takes exactly the microphone's path.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from app.clock import Clock, RealClock
from app.events import AgentState, Decision, Turn
from app.pipeline.clocks import AudioFollowingClock
from app.pipeline.events import ComponentStatus, HighlightCitation, PipelineError
from app.pipeline.pipeline import Pipeline
from app.pipeline.playback import open_voice
from app.session.record import SessionRecord
from app.settings import Settings
from app.speech.voiceprints import VoiceprintStore

log = logging.getLogger(__name__)


# --- parts built from whatever the speech package offers -----------------------------------


def file_source(
    path: Path,
    realtime: bool,
    clock: Clock | None = None,
    speed: float = 1.0,
    max_queued: int | None = None,
) -> tuple[Any, str | None]:
    """A recording as a source: paced like a microphone (``realtime``, ``speed`` times real
    time, ``max_queued`` as ``PacedSource`` takes it) or read as fast as it is processed."""
    try:
        from app.speech.audio import FileSource, PacedFileSource
    except ImportError as exc:
        return None, f"the speech package is not installed ({exc})"
    try:
        if realtime:
            return PacedFileSource(path, speed=speed, max_queued=max_queued, clock=clock), None
        return FileSource(path, clock=clock), None
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or str(exc)


def mic_source(device: str | None = None) -> tuple[Any, str | None]:
    try:
        from app.speech import audio
    except ImportError as exc:
        return None, f"the speech package is not installed ({exc})"
    factory = getattr(audio, "MicSource", None) or getattr(audio, "MicrophoneSource", None)
    if factory is None:
        return None, "microphone capture is not built yet"
    try:
        return (factory(device=device) if device else factory()), None
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or f"microphone: {exc}"


def speech_worker(
    source: Any,
    settings: Settings,
    clock: Clock,
    wake: bool = True,
    reference: Any = None,
    transcriber: Any = None,
) -> tuple[Any, str | None]:
    """A SpeechWorker on ``source`` (not started), or why there is none."""
    try:
        from app.speech.worker import SpeechWorker
    except ImportError as exc:
        return None, f"the speech worker is not installed ({exc})"
    detector = None
    if wake:
        try:
            from app.speech.wake import WakeWordDetector

            detector = WakeWordDetector(settings.speech)
        except Exception as exc:  # the transcript fallback still catches "Jarvis"
            log.warning("wake word model unavailable: %s", exc)
    try:
        return SpeechWorker(
            source,
            settings.speech,
            wake=detector,
            clock=clock,
            reference=reference,
            transcriber=transcriber,
            work_clock=RealClock(),  # ``clock`` follows the audio: it cannot show lag
        ), None
    except Exception as exc:
        log.exception("speech worker construction failed")
        return None, getattr(exc, "user_message", None) or f"speech models: {exc}"


def self_voice_reference() -> Any:
    """What the agent plays, for the speech worker to recognise its own voice in the room."""
    try:
        from app.speech.echo import SelfVoiceReference
    except ImportError:
        return None
    return SelfVoiceReference()


# --- the meeting ------------------------------------------------------------------------


@dataclass(frozen=True)
class AudioInput:
    """Where the room's sound comes from."""

    file: Path | None = None  # a WAV/FLAC recording; None: the microphone
    device: str | None = None  # microphone name or index; None: the system default
    fast: bool = False  # recordings only: as fast as processed instead of real time
    speed: float = 1.0  # recordings only: multiple of real time when not fast
    # Recordings only: blocks kept for a lagging speech worker before the oldest is
    # dropped, as from a microphone (MicrophoneSource keeps MIC_QUEUE_BLOCKS); None: none is lost.
    max_queued: int | None = None


class LiveMeeting:
    """The pipeline on live audio with one clean, idempotent ``stop``.

    ``voice_sink``: "device" (the loudspeaker), "null" (real-time silence that still
    feeds the self-voice reference), or "none" (words as text only). ``source``: a source
    the caller built (a benchmark's room), heard instead of ``audio``'s."""

    def __init__(
        self,
        settings: Settings | None = None,
        audio: AudioInput | None = None,
        record: SessionRecord | None = None,
        voice_sink: str = "device",
        voice_device: str | None = None,
        voiceprints: VoiceprintStore | None = None,
        source: Any = None,
    ) -> None:
        self.settings = settings or Settings()
        self.audio = audio or AudioInput()
        self._ready_source = source  # a source built by the caller (a benchmark's room)
        self.record = record or SessionRecord.create(label="meeting")
        self.clock = AudioFollowingClock()
        self.pipeline = Pipeline(self.settings, record=self.record, clock=self.clock)
        self.pipeline.voiceprints = voiceprints  # the voices it names speakers by
        self.pipeline.hub.subscribe(self.clock.observe)
        self.reference = self_voice_reference()
        self.pipeline.voice_tap = self.reference
        self.pipeline.voice_sink, self.pipeline.voice_device = voice_sink, voice_device
        self.source: Any = None
        self.worker: Any = None
        self.agent_problem: str | None = None  # why the agent is not running, once known
        self.audio_ended = threading.Event()
        # Held while a part is being built, so a stop waits for it and nothing starts after.
        self._lock = threading.RLock()
        self._stopped = False
        self.pipeline.hub.subscribe(self._watch)

    def _watch(self, event: Any) -> None:
        if type(event).__name__ == "DeviceStatus" and event.state == "stopped":
            self.audio_ended.set()

    def prepare_voice(self) -> None:
        """Load the voice for a null sink (the other sinks are opened with the floor)."""
        pipeline = self.pipeline
        with self._lock:
            if self._stopped or pipeline.voice_sink != "null" or pipeline.player is not None:
                return
            pipeline.player, why = open_voice(
                self.settings, pipeline.feed, self.clock, sink="null", tap=self.reference
            )
            if pipeline.player is None:
                pipeline.voice_sink = "none"
                log.warning("no voice: %s", why)

    def prepare(
        self, pdf: Path | None, llm_spec: str | None = None, more: Sequence[Path] = ()
    ) -> bool:
        """Index the document (and ``more`` of the meeting's documents), then load the
        voice and the agent, so the model reads them all once (slow; off the GUI thread).
        False, with ``agent_problem`` set, when the agent cannot run."""
        with self._lock:
            if self._stopped:
                self.agent_problem = "the meeting has ended"
                return False
            self.prepare_voice()
            self._start_agent(pdf, llm_spec, more)
        return self.agent_problem is None

    def _start_agent(self, pdf: Path | None, llm_spec: str | None, more: Sequence[Path]) -> None:
        errors: list[str] = []

        def on_error(event: Any) -> None:
            if isinstance(event, PipelineError) and event.component in ("document", "backbone"):
                errors.append(event.message)

        unsubscribe = self.pipeline.hub.subscribe(on_error)
        try:
            if pdf is None:
                self.agent_problem = "no document is open"
            elif self.pipeline.open_document(Path(pdf)):
                for path in more:  # one it cannot read is said and left out
                    self.pipeline.add_document(Path(path))
                self.pipeline.start_agent(llm_spec)
            status = self.pipeline.status.get("backbone")
            if self.agent_problem is None and (status is None or not status.available):
                reason = status.reason if status is not None and status.reason else ""
                self.agent_problem = reason or (errors[-1] if errors else "the agent did not start")
        finally:
            unsubscribe()

    def start_audio(self) -> str | None:
        """Start listening; returns why there is no speech worker (None when listening)."""
        with self._lock:
            if self._stopped:
                return "the meeting has ended"
            source, why = self._source()
            worker = None
            if source is not None:
                worker, why = speech_worker(
                    source, self.settings, self.clock, reference=self.reference
                )
            if worker is None:
                self.clock.end_audio()  # nothing to follow: the floor runs on wall time
                self.pipeline.set_status("speech", False, why or "unknown reason")
                self.audio_ended.set()
                return why or "unknown reason"
            self.source, self.worker = source, worker
            self.pipeline.attach_speech(worker)
            worker.start()
            return None

    def _source(self) -> tuple[Any, str | None]:
        audio = self.audio
        if self._ready_source is not None:
            return self._ready_source, None
        if audio.file is None:
            return mic_source(audio.device)
        return file_source(audio.file, not audio.fast, None, audio.speed, audio.max_queued)

    def settled(self) -> bool:
        """The recording has ended and the agent has nothing left to decide or say."""
        busy = self.pipeline.state in (
            AgentState.SPEAKING, AgentState.THINKING, AgentState.HAND_RAISED
        )
        return self.audio_ended.is_set() and self.pipeline.backbone_pending == 0 and not busy

    def stop(self) -> None:
        """Stop every part, waiting for one still being built; safe to call twice."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self.pipeline.stop()
            if self.pipeline.player is not None and "floor" not in self.pipeline.status:
                self.pipeline.player.close()  # built, but no floor came to close it
            if self.worker is not None:  # the pipeline may have been stopped before it came
                self.worker.stop()
                self.worker.join(30.0)  # a decode in progress finishes first
            self.record.close()


# --- headless ---------------------------------------------------------------------------


class Outcome(str, Enum):
    DONE = "done"  # what the caller waited for happened
    AUDIO_ENDED = "audio_ended"  # the recording was played and the agent settled
    AGENT_FAILED = "agent_failed"
    TIMED_OUT = "timed_out"
    INTERRUPTED = "interrupted"


def print_event(event: Any) -> None:
    """One line per thing worth seeing in a terminal."""
    if isinstance(event, Turn):
        print(f"[{event.end:6.1f}s] {event.speaker}: {event.text}", flush=True)
    elif isinstance(event, Decision) and (event.action == "speak" or event.claim):
        print(
            f"         decision on turn {event.turn}: {event.action} ({event.reason})", flush=True
        )
    elif isinstance(event, AgentState):
        print(f"         Jarvis is {event.value.replace('_', ' ')}", flush=True)
    elif isinstance(event, HighlightCitation) and event.active and event.citation:
        c = event.citation
        print(f"         arrow on page {c.page}: \u201c{c.text}\u201d", flush=True)
    elif isinstance(event, ComponentStatus) and not event.available:
        print(f"  note: {event.component} not available: {event.reason}", flush=True)
    elif isinstance(event, PipelineError):
        print(f"  problem ({event.component}): {event.message}", flush=True)
    elif type(event).__name__ == "Play":
        print(f"  JARVIS: {event.text}", flush=True)


@contextlib.contextmanager
def _ctrl_c_sets(interrupted: threading.Event) -> Iterator[None]:
    """While inside, Ctrl-C sets ``interrupted`` instead of raising KeyboardInterrupt: an
    exception raised inside a Qt callback (``pump``) is swallowed there, a flag is not.
    Off the main thread, where Python delivers no signals, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: interrupted.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_headless(
    meeting: LiveMeeting,
    prepare: Callable[[], bool],
    start_audio: Callable[[], Any],
    done: Callable[[], bool] | None = None,
    timeout: float | None = None,
    settle: float = 3.0,
    pump: Callable[[], None] | None = None,
) -> Outcome:
    """Prepare and start ``meeting`` off this thread and wait until ``done``, the agent
    fails, the recording has been played and settled for ``settle`` seconds, ``timeout``
    or Ctrl-C. The meeting is stopped before this returns, whatever happened."""
    prepared = threading.Event()

    def load() -> None:
        try:
            if prepare():
                start_audio()
        except Exception as exc:  # reported, and the wait below ends on it
            log.exception("starting the meeting failed")
            meeting.agent_problem = meeting.agent_problem or str(exc)
        finally:
            prepared.set()

    loader = threading.Thread(target=load, name="meeting-loader", daemon=True)
    deadline = None if timeout is None else time.monotonic() + timeout
    quiet_since: float | None = None
    interrupted = threading.Event()
    try:
        with _ctrl_c_sets(interrupted):
            loader.start()
            while not interrupted.is_set():
                if pump is not None:
                    pump()
                if done is not None and done():
                    return Outcome.DONE
                if prepared.is_set() and meeting.agent_problem is not None:
                    return Outcome.AGENT_FAILED
                if prepared.is_set() and meeting.settled():
                    quiet_since = quiet_since or time.monotonic()
                    if time.monotonic() - quiet_since >= settle:
                        return Outcome.AUDIO_ENDED
                else:
                    quiet_since = None
                if deadline is not None and time.monotonic() >= deadline:
                    return Outcome.TIMED_OUT
                time.sleep(0.05)
            return Outcome.INTERRUPTED
    except KeyboardInterrupt:
        return Outcome.INTERRUPTED
    finally:
        meeting.stop()  # waits for a part still loading, and nothing starts after it
