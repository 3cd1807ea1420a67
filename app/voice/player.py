"""The player: synthesizes sentence by sentence and writes small blocks to a sink.

One long-lived thread plays one job at a time; a producer thread per job synthesizes
ahead so audio starts after the first clause. ``stop()`` is honoured before the next
block, so at most the block being written still sounds. Every played block goes to the
playback tap (the echo canceller's reference). Receipts say what was heard.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from app.clock import Clock, RealClock
from app.events import PlaybackReceipt, ReceiptStatus
from app.language.sentences import sentences as split_sentences
from app.settings import VoiceSettings
from app.voice.engines import TTSEngine
from app.voice.errors import PlaybackError, VoiceError
from app.voice.sinks import AudioSink

log = logging.getLogger(__name__)

Tap = Callable[[np.ndarray, int, float], None]
_CLAUSE = re.compile(r"[,;:]\s+")
_END = object()


def first_pieces(sentence: str, min_words: int) -> list[str]:
    """Split a sentence at its first clause break after ``min_words`` words, if any."""
    for m in _CLAUSE.finditer(sentence):
        head, tail = sentence[: m.start() + 1], sentence[m.end() :]
        if len(head.split()) >= min_words and len(tail.split()) >= 2:
            return [head, tail]
    return [sentence]


def as_tap(tap: object | None) -> Tap | None:
    """Accept a plain callable or an object with ``on_played`` (app.speech.echo)."""
    if tap is None:
        return None
    on_played = getattr(tap, "on_played", None)
    return on_played if callable(on_played) else tap  # type: ignore[return-value]


@dataclass(frozen=True)
class Position:
    intervention_id: str
    sentence_index: int
    seconds: float


@dataclass
class _Job:
    intervention_id: str
    text: str
    stop: threading.Event = field(default_factory=threading.Event)
    stop_requested: float | None = None  # perf_counter when stop() was called
    blocks_after_stop: int = 0


class Player:
    def __init__(
        self,
        engine: TTSEngine,
        sink: AudioSink,
        settings: VoiceSettings | None = None,
        tap: object | None = None,
        on_receipt: Callable[[PlaybackReceipt], None] | None = None,
        on_error: Callable[[VoiceError], None] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.engine, self.sink = engine, sink
        self.settings = settings or VoiceSettings()
        self.tap = as_tap(tap)
        self.on_receipt = on_receipt
        self.on_error = on_error
        self.clock = clock or RealClock()
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._current: _Job | None = None
        self._position = Position("", 0, 0.0)
        self._lock = threading.Lock()
        self._sink_rate = 0
        self.last_stop_latency: float | None = None  # seconds from stop() to silence
        self.last_blocks_after_stop = 0
        self._thread = threading.Thread(target=self._run, name="player", daemon=True)
        self._thread.start()

    # --- control (any thread) -----------------------------------------------------------

    def play(self, intervention_id: str, text: str) -> None:
        self.stop()
        self._jobs.put(_Job(intervention_id, text))

    def stop(self) -> None:
        with self._lock:
            job = self._current
            if job is not None and not job.stop.is_set():
                job.stop_requested = time.perf_counter()
                job.stop.set()
        # jobs queued behind the current one are dropped too
        while True:
            try:
                pending = self._jobs.get_nowait()
            except queue.Empty:
                break
            if pending is None:
                self._jobs.put(None)
                break

    def position(self) -> Position:
        with self._lock:
            return self._position

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._current is not None or not self._jobs.empty()

    def close(self) -> None:
        self.stop()
        self._jobs.put(None)
        self._thread.join(timeout=5)
        self.sink.close()

    def wait_idle(self, timeout: float = 60.0) -> bool:
        end = time.monotonic() + timeout
        while self.busy and time.monotonic() < end:
            time.sleep(0.005)
        return not self.busy

    # --- the player thread --------------------------------------------------------------

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            with self._lock:
                self._current = job
                self._position = Position(job.intervention_id, 0, 0.0)
            try:
                self._play(job)
            except Exception as e:  # never let the thread die
                log.exception("playback failed")
                self._fail(job, VoiceError(f"Playback failed: {e}"))
            finally:
                with self._lock:
                    self._current = None

    def _play(self, job: _Job) -> None:
        pieces: queue.Queue[object] = queue.Queue(maxsize=8)
        threading.Thread(
            target=self._synthesize, args=(job, pieces), name="tts", daemon=True
        ).start()
        started = False
        while True:
            item = self._next(job, pieces)
            if item is None:
                return self._stopped(job)
            if item is _END:
                return self._receipt(job, ReceiptStatus.FINISHED)
            if isinstance(item, VoiceError):
                return self._fail(job, item)
            assert isinstance(item, tuple)
            index, samples, rate = item
            if not started:
                try:
                    self._open(rate)
                except PlaybackError as e:
                    return self._fail(job, e)
                self._receipt(job, ReceiptStatus.STARTED)
                started = True
            if not self._write_sentence(job, index, samples, rate):
                return self._stopped(job)

    def _next(self, job: _Job, pieces: queue.Queue[object]) -> object | None:
        while not job.stop.is_set():
            try:
                return pieces.get(timeout=0.01)
            except queue.Empty:
                continue
        return None

    def _synthesize(self, job: _Job, pieces: queue.Queue[object]) -> None:
        try:
            for item in self._sentences(job.text):
                if job.stop.is_set():
                    return
                pieces.put(item)
            pieces.put(_END)
        except VoiceError as e:
            pieces.put(e)
        except Exception as e:
            pieces.put(VoiceError(f"Speech synthesis failed: {e}"))

    def _sentences(self, text: str) -> Iterator[tuple[int, np.ndarray, int]]:
        for index, sentence in enumerate(split_sentences(text)):
            parts = (
                first_pieces(sentence, self.settings.first_chunk_words)
                if index == 0
                else [sentence]
            )
            for part in parts:
                for _, samples, rate in self.engine.synthesize_sentences(part):
                    yield index, samples, rate

    def _open(self, rate: int) -> None:
        if rate != self._sink_rate:
            self.sink.open(rate)
            self._sink_rate = rate

    def _write_sentence(self, job: _Job, index: int, samples: np.ndarray, rate: int) -> bool:
        """Write one sentence block by block; False when stopped or failed."""
        n = max(1, int(rate * self.settings.block_seconds))
        for lo in range(0, len(samples), n):
            if job.stop.is_set():
                return False
            block = samples[lo : lo + n]
            try:
                at = self.sink.write(block)
            except PlaybackError as e:
                self._sink_rate = 0
                self.sink.close()
                self._fail(job, e)
                job.stop.set()
                return False
            if job.stop_requested is not None:
                job.blocks_after_stop += 1
            when = at if at is not None else self.clock.now() + self.sink.latency
            if self.tap is not None:
                self.tap(block, rate, when)
            with self._lock:
                seconds = self._position.seconds + len(block) / rate
                self._position = Position(job.intervention_id, index, seconds)
        return True

    def _stopped(self, job: _Job) -> None:
        if job.stop_requested is None:  # a device failure already sent its receipt
            return
        self.sink.abort()
        self.last_stop_latency = time.perf_counter() - job.stop_requested
        self.last_blocks_after_stop = job.blocks_after_stop
        self._receipt(job, ReceiptStatus.STOPPED)

    def _fail(self, job: _Job, error: VoiceError) -> None:
        if self.on_error is not None:
            self.on_error(error)
        self._receipt(job, ReceiptStatus.FAILED)

    def _receipt(self, job: _Job, status: ReceiptStatus) -> None:
        pos = self.position()
        receipt = PlaybackReceipt(
            job.intervention_id, status, round(pos.seconds, 4), pos.sentence_index, self.clock.now()
        )
        if self.on_receipt is not None:
            self.on_receipt(receipt)
