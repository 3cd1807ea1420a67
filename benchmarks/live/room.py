"""A rendered meeting played through the whole app in real time, and what the room saw.

The recording goes through ``app.pipeline.live.LiveMeeting`` exactly as a microphone
would (speech worker -> backbone worker -> floor -> voice); the agent speaks into a
real-time null sink that still feeds the self-voice reference. Every event is stamped
with the monotonic clock the audio source is paced on, so recording time and wall time
convert into each other.

CPU time is counted per thread from ``/proc/self/task``: each part is built on a thread
named after it (speech, model, voice), and the threads a part starts inherit that name
from the Linux thread that created them, native thread pools included.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.clock import RealClock
from app.events import (
    AnswerDelta,
    Decision,
    InputLevel,
    Intervention,
    PlaybackReceipt,
    ReceiptStatus,
    Turn,
)
from app.pipeline.live import AudioInput, LiveMeeting
from app.session.record import SessionRecord
from app.settings import Settings
from app.speech.audio import MIC_QUEUE_BLOCKS, load_audio
from live.render import Line
from live.yielding import AgentVoice, Hold, YieldingRoom

PARTS = {"jv-speech": "speech", "jv-model": "model", "jv-voice": "voice"}
JUDGED_LATE_S = 0.3  # an input frame judged later than this after it was heard is late
PAUSE_START_S = 2.0  # the start of a pause: as long as the floor's release silence


@dataclass
class RoomLog:
    """What happened while one recording played; times are monotonic seconds."""

    speed: float
    started_at: float = 0.0  # monotonic time of recording time 0
    ended_at: float = 0.0  # when the run was stopped
    turns: list[tuple[float, Turn]] = field(default_factory=list)
    decisions: list[tuple[float, Decision]] = field(default_factory=list)
    played: dict[str, Intervention] = field(default_factory=dict)  # id -> what was played
    first_audio: dict[str, float] = field(default_factory=dict)  # id -> first block heard
    finished: dict[str, float] = field(default_factory=dict)  # id -> playback end
    dropped: dict[str, str] = field(default_factory=dict)  # id -> why it was not said
    backlog: list[tuple[float, int]] = field(default_factory=list)
    cpu_s: dict[str, float] = field(default_factory=dict)  # part -> CPU seconds
    audio_drops: list[tuple[float, float]] = field(default_factory=list)  # (audio time, s)
    # generation -> first checked (sayable) sentence of a direct answer
    first_checked: dict[int, float] = field(default_factory=dict)
    holds: list[Hold] = field(default_factory=list)  # silence a yielding room inserted
    started: int = 0  # playbacks begun
    stopped: int = 0  # playbacks cut short (by a participant, mostly)
    begun_at: list[float] = field(default_factory=list)  # audio time each playback began
    # (audio time, lag) of each input level the floor was sent: a pause called on a frame
    # judged more than ``JUDGED_LATE_S`` after it was heard may already be over
    lags: list[tuple[float, float]] = field(default_factory=list)

    @property
    def begun_over_speech(self) -> int:
        """Playbacks that began while a participant was talking (by the recognized
        turns' times, a tenth of a second in): the agent started over someone."""
        spans = [(t.start + 0.1, t.end) for _, t in self.turns]
        return sum(any(a < at < b for a, b in spans) for at in self.begun_at)

    @property
    def levels(self) -> tuple[int, int]:
        """Input levels, and those judged late."""
        return _late([lag for _, lag in self.lags])

    @property
    def pause_levels(self) -> tuple[int, int]:
        """Input levels in the first ``PAUSE_START_S`` after a recognized turn's end and
        inside no turn, where the floor looks for its opening, and those judged late."""
        turns = [t for _, t in self.turns]
        pauses = [(t.end, t.end + PAUSE_START_S) for t in turns]
        return _late([lag for at, lag in self.lags if any(a < at <= b for a, b in pauses)
                      and not any(t.start <= at <= t.end for t in turns)])

    def recording_time(self, wall: float) -> float:
        return (wall - self.started_at) * self.speed

    def wall_time(self, recording: float) -> float:
        return self.started_at + recording / self.speed

    @property
    def audio_dropped_s(self) -> float:
        """Audio the speech worker never read because it fell behind."""
        return sum(s for _, s in self.audio_drops)

    def observe(self, event: Any) -> None:
        now = time.monotonic()
        name = type(event).__name__
        if isinstance(event, InputLevel):
            self.lags.append((event.time, event.lag))
        elif isinstance(event, Turn):
            self.turns.append((now, event))
        elif isinstance(event, Decision):
            self.decisions.append((now, event))
        elif isinstance(event, AnswerDelta) and event.text and event.checked:
            self.first_checked.setdefault(event.generation, now)
        elif name == "Play":
            self.played.setdefault(event.intervention.id, event.intervention)
        elif isinstance(event, PlaybackReceipt):
            if event.status == ReceiptStatus.STARTED:
                self.started += 1
                self.begun_at.append(event.time)
                self.first_audio.setdefault(event.intervention_id, now)
            elif event.intervention_id in self.first_audio:
                self.finished[event.intervention_id] = now
                if event.status == ReceiptStatus.STOPPED:
                    self.stopped += 1
        elif name == "Dropped":
            self.dropped.setdefault(event.intervention_id, event.reason)


def _late(lags: list[float]) -> tuple[int, int]:
    """How many lags, and how many of them are over ``JUDGED_LATE_S``."""
    return len(lags), sum(lag > JUDGED_LATE_S for lag in lags)


def name_this_thread(name: str) -> None:
    """Set the Linux name of the calling thread (threads it starts inherit it)."""
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def on_named_thread(name: str, work: Callable[[], Any]) -> Any:
    """Run ``work`` on a new thread with that Linux name; returns its result."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        name_this_thread(name)
        try:
            result.append(work())
        except BaseException as exc:  # re-raised on the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]


def thread_cpu() -> dict[str, float]:
    """CPU seconds so far per part, from every thread of this process."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    totals: dict[str, float] = {}
    for task in Path("/proc/self/task").glob("*"):
        try:
            comm = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended meanwhile
        part = PARTS.get(comm, "other")
        totals[part] = totals.get(part, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return totals


def play(
    audio: Path,
    document: Path,
    settings: Settings,
    llm_spec: str | None,
    record: Path,
    speed: float = 1.0,
    tail: float = 120.0,
    settle: float = 3.0,
    max_queued: int | None = MIC_QUEUE_BLOCKS,
    lines: Sequence[Line] | None = None,
) -> RoomLog:
    """Play ``audio`` through the app with ``document`` open; waits for the agent to
    settle after the recording ends (at most ``tail`` seconds), then stops it.
    ``max_queued``: the microphone's buffer in blocks (None: a lagging speech worker
    loses nothing). Given the recording's ``lines``, the room yields to the agent
    (``YieldingRoom``); without them it keeps the recording's times whatever it says."""
    log = RoomLog(speed)
    heard = AudioInput(file=audio, speed=speed, max_queued=max_queued)
    room, voice = None, AgentVoice(RealClock())
    if lines is not None:
        room = YieldingRoom(load_audio(audio), lines, voice, speed=speed, max_queued=max_queued)
    meeting = LiveMeeting(settings, heard, SessionRecord(record), voice_sink="null", source=room)
    meeting.pipeline.hub.subscribe(log.observe)
    meeting.pipeline.hub.subscribe(voice.observe)
    try:
        on_named_thread("jv-voice", meeting.prepare_voice)
        if not on_named_thread("jv-model", lambda: meeting.prepare(document, llm_spec)):
            raise RuntimeError(f"the agent could not start: {meeting.agent_problem}")
        why = on_named_thread("jv-speech", meeting.start_audio)
        if why is not None:
            raise RuntimeError(f"no speech worker: {why}")
        _follow(meeting, log, tail, settle)
    finally:
        meeting.stop()
        log.ended_at = time.monotonic()
        log.holds = list(room.holds) if room is not None else []
    return log


def _follow(meeting: LiveMeeting, log: RoomLog, tail: float, settle: float) -> None:
    source = meeting.source
    while source.started_at is None:
        time.sleep(0.01)
    log.started_at = source.started_at
    before = thread_cpu()
    ended: float | None = None
    quiet: float | None = None
    while True:
        now = time.monotonic()
        log.backlog.append((now, meeting.pipeline.backbone_pending))
        if meeting.audio_ended.is_set():
            ended = ended or now
            quiet = (quiet or now) if meeting.settled() else None
            if (quiet is not None and now - quiet >= settle) or now - ended >= tail:
                break
        time.sleep(0.25)
    after = thread_cpu()
    log.cpu_s = {k: round(after.get(k, 0.0) - before.get(k, 0.0), 2) for k in after}
    log.audio_drops = list(source.dropped)
