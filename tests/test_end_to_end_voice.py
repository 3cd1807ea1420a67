"""End to end: a spoken wake-word question becomes a direct answer that the agent speaks,
and a participant who talks over it stops it.

Piper speaks "Hey Jarvis, what ..." into a WAV; the room replays it into the real
SpeechWorker (Silero, Whisper, diarization, wake word) on a simulated clock. The worker's
events drive the real FloorFSM; its direct-answer request is answered with a fixed text
(the backbone is not under test here); the real Player synthesizes it with Piper into
the room's loudspeaker, whose echo reaches the mic. While it speaks, JFK (a recording)
starts talking; the floor must stop playback.

The room runs in lockstep on audio time: the mic frame for a moment is produced only
once the loudspeaker has played it, and the loudspeaker takes its next block only after
the worker has heard the previous frame.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.clock import SimulatedClock
from app.events import (
    InputLevel,
    Intervention,
    InterventionKind,
    OverlapTranscript,
    PlaybackReceipt,
    Turn,
    VadEvent,
    WakeEvent,
)
from app.floor import Command, FloorFSM, Play, RequestDirectAnswer, Stop
from app.language.talk import is_backchannel
from app.speech.audio import AudioBlock, FileSource, load_audio
from app.speech.echo import SelfVoiceReference
from tests.conftest import shared_path

pytestmark = pytest.mark.slow

R, FRAME = 16000, 512
QUESTION = "Hey Jarvis, what sample size did the study use?"
ANSWER = (
    "The study enrolled one hundred and twenty patients across four sites. "
    "Each of them was followed for twelve weeks after the first dose, "
    "and the main result is reported on page six."
)
ECHO = ((0.04, 0.3), (0.09, 0.1))  # loudspeaker to mic: (delay s, gain)
INTERRUPT_AFTER = 2.5  # seconds of answer before the participant talks over it


class Room:
    """One mic hearing the question, the agent's loudspeaker and an interruption."""

    def __init__(self, question: np.ndarray, interruption: np.ndarray, clock: SimulatedClock):
        self.base = np.concatenate([np.zeros(R // 2, np.float32), question])
        self.interruption = interruption
        self.clock = clock
        self.played = np.zeros(0, np.float32)  # loudspeaker output at 16 kHz, mic timeline
        self.play_start: float | None = None
        self.play_end: float | None = None  # set when playback finished or stopped
        self.interrupt_at: float | None = None
        self.stop_decided: float | None = None
        self.cond = threading.Condition()
        self.heard_until = 0.0  # mic time the worker has fully processed
        self.given_until = 0.0  # mic time handed to the worker
        self.finished = False

    # --- loudspeaker side (player thread) --------------------------------------------

    def start_playback(self) -> None:
        with self.cond:
            self.play_start = self.given_until
            self.play_end = None
            self.interrupt_at = self.play_start + INTERRUPT_AFTER
            self.cond.notify_all()

    def speaker_t(self) -> float:
        assert self.play_start is not None
        return self.play_start + self.played.size / R

    def write(self, block16: np.ndarray) -> float:
        """Accept one played block once the worker has heard up to (one frame before) it."""
        with self.cond:
            at = self.speaker_t()
            self.cond.wait_for(lambda: self.heard_until >= at - FRAME / R - 1e-9, timeout=30)
            self.played = np.concatenate([self.played, block16])
            self.cond.notify_all()
            return at

    def end_playback(self) -> None:
        with self.cond:
            self.play_end = self.speaker_t() if self.play_start is not None else None
            self.cond.notify_all()

    # --- mic side (worker thread) ------------------------------------------------------

    def ready(self, end: float) -> bool:
        playing = self.play_start is not None and self.play_end is None
        return not playing or self.speaker_t() >= end - 1e-9

    def mic(self, start: float) -> np.ndarray:
        n0 = int(round(start * R))
        idx = np.arange(n0, n0 + FRAME)
        out = np.random.default_rng(n0).normal(0, 0.001, FRAME).astype(np.float32)
        ok = idx < self.base.size
        out[ok] += self.base[idx[ok]]
        if self.play_start is not None:
            p0 = int(round(self.play_start * R))
            for delay, gain in ECHO:
                src = idx - p0 - int(delay * R)
                ok = (src >= 0) & (src < self.played.size)
                out[ok] += gain * self.played[src[ok]]
        if self.interrupt_at is not None:
            src = idx - int(round(self.interrupt_at * R))
            ok = (src >= 0) & (src < self.interruption.size)
            out[ok] += self.interruption[src[ok]]
        return out


class RoomSource:
    """The worker's audio source: mic frames of the room in real time, as a microphone
    gives them (the turns are decoded beside it), and paced by the loudspeaker."""

    def __init__(self, room: Room, seconds: float) -> None:
        self.room, self.total = room, seconds
        self.finished = False
        self._began: float | None = None  # wall time of mic time 0

    def start(self) -> None:
        pass

    def stop(self) -> None:
        self.finished = True

    def read(self, timeout: float | None = None) -> AudioBlock | None:
        room = self.room
        with room.cond:
            room.heard_until = room.given_until  # asking for more: the last frame was heard
            room.cond.notify_all()
            start = room.given_until
            if start >= self.total:
                self.finished = True
                return None
            if not room.cond.wait_for(lambda: room.ready(start + FRAME / R), timeout=timeout):
                return None
            block = AudioBlock(room.mic(start), start, int(round(start * R)))
            room.given_until = start + FRAME / R
        if self._began is None:
            self._began = time.monotonic() - start
        time.sleep(max(0.0, self._began + start - time.monotonic()))
        room.clock.advance(max(0.0, room.given_until - room.clock.now()))
        return block


class Loudspeaker:
    """The player's sink: resamples to the mic rate and plays into the room."""

    latency = 0.0

    def __init__(self, room: Room) -> None:
        self.room = room
        self.sample_rate = 0

    def open(self, sample_rate: int) -> None:
        self.sample_rate = sample_rate

    def write(self, block: np.ndarray) -> float | None:
        from app.speech.audio import resample

        return self.room.write(resample(np.asarray(block, np.float32), self.sample_rate))

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass


def piper_wav(text: str, folder: Path) -> Path:
    import soundfile as sf

    from tests.speech import synth

    path = folder / "question.wav"
    sf.write(path, synth.piper(text), R)
    return path


def test_wake_question_answer_and_barge_in(tmp_path: Path) -> None:
    from app.settings import VoiceSettings
    from app.speech.wake import WakeWordDetector
    from app.speech.worker import SpeechWorker
    from app.voice import Player, open_engine

    jfk = load_audio(shared_path("data/audio_asr/jfk.flac"))
    wav = piper_wav(QUESTION, tmp_path)
    question = np.concatenate(list(_blocks(FileSource(wav))))
    clock = SimulatedClock()
    room = Room(question, jfk * 0.5, clock)
    source = RoomSource(room, seconds=question.size / R + 14.0)
    reference = SelfVoiceReference()
    fsm = FloorFSM()
    log: list[tuple[float, Command]] = []
    receipts: list[PlaybackReceipt] = []
    overlaps: list[OverlapTranscript] = []
    done = threading.Event()

    def on_receipt(r: PlaybackReceipt) -> None:
        receipts.append(r)
        if r.status != "started":
            room.end_playback()
            done.set()
        apply(fsm.on_receipt(r, room.given_until), room.given_until)

    player = Player(
        open_engine(VoiceSettings(engine="piper")),
        Loudspeaker(room),
        tap=reference,
        on_receipt=on_receipt,
        clock=clock,
    )

    def apply(commands: list[Command], now: float) -> None:
        for c in commands:
            log.append((now, c))
            if isinstance(c, RequestDirectAnswer):
                answer = Intervention(
                    "answer", InterventionKind.DIRECT, ANSWER, generation=c.generation
                )
                apply(fsm.on_intervention(answer, now), now)
            elif isinstance(c, Play):
                room.start_playback()
                player.play(c.intervention.id, c.text)
            elif isinstance(c, Stop):
                room.stop_decided = now
                player.stop()

    def hear(event: object) -> None:
        now = room.given_until
        if isinstance(event, VadEvent):
            apply(fsm.on_vad(event, now), now)
        elif isinstance(event, InputLevel):
            apply(fsm.on_level(event, now), now)
            apply(fsm.tick(now), now)
        elif isinstance(event, WakeEvent):
            apply(fsm.on_wake(event, now), now)
        elif isinstance(event, Turn):
            apply(fsm.on_turn(event, now), now)
        elif isinstance(event, OverlapTranscript):
            overlaps.append(event)
            apply(fsm.on_overlap(event, now), now)

    worker = SpeechWorker(
        source, wake=WakeWordDetector(), reference=reference, clock=clock, clock_origin=0.0
    )
    worker.subscribe(hear)
    worker.start()
    assert done.wait(240), f"playback never ended; commands: {log}"
    worker.stop()
    player.close()

    kinds = [type(c).__name__ for _, c in log]
    asked = [c for _, c in log if isinstance(c, RequestDirectAnswer)]
    assert asked and "sample size" in asked[0].question.lower(), log
    order = [k for k in kinds if k in ("RequestDirectAnswer", "Play", "Stop")]
    assert order == ["RequestDirectAnswer", "Play", "Stop"], order
    stop = next(c for _, c in log if isinstance(c, Stop))
    assert stop.reason == "barge_in"
    # the worker heard JFK's words over the agent: words, not a backchannel, took the floor
    assert any(o.text and not is_backchannel(o.text) for o in overlaps), overlaps
    # the agent stopped because of the participant, not its own voice: after they began,
    # within the sustained-speech window plus detection slack
    assert room.interrupt_at is not None and room.stop_decided is not None
    assert 0.5 <= room.stop_decided - room.interrupt_at <= 1.5
    # audio stopped within about one block of the decision
    assert room.play_end is not None
    assert room.play_end - room.stop_decided <= 0.1
    final = receipts[-1]
    assert final.status == "stopped"
    assert INTERRUPT_AFTER < final.delivered_seconds < INTERRUPT_AFTER + 1.6


def _blocks(source: FileSource):
    source.start()
    while (block := source.read(0.1)) is not None:
        yield block.samples
    source.stop()
