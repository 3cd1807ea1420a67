"""Audio sinks: where the player's blocks go (a sound card, a file, memory, nowhere).

All share one small interface so tests and benchmarks drive the same player code as the
app. ``write`` blocks until the sink has accepted the block and may return the time the
block starts sounding on the sink's own timeline (None: the player uses its clock).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from app.clock import Clock
from app.voice.errors import PlaybackError


class AudioSink(Protocol):
    latency: float  # seconds from an accepted write to audible sound

    def open(self, sample_rate: int) -> None: ...

    def write(self, block: np.ndarray) -> float | None: ...

    def abort(self) -> None:
        """Drop whatever is buffered: a stop must be heard at once."""

    def close(self) -> None: ...


class SoundDeviceSink:
    """A sounddevice output stream with small blocks; errors become ``PlaybackError``."""

    def __init__(self, device: int | str | None = None, block_seconds: float = 0.02) -> None:
        self.device = device
        self.block_seconds = block_seconds
        self.latency = 0.0
        self._stream = None
        self._rate = 0

    def open(self, sample_rate: int) -> None:
        import sounddevice as sd

        if self._stream is not None and self._rate == sample_rate:
            return
        self.close()
        try:
            stream = sd.OutputStream(
                samplerate=sample_rate,
                channels=1,
                dtype="float32",
                device=self.device,
                blocksize=int(sample_rate * self.block_seconds),
                latency="low",
            )
            stream.start()
        except Exception as e:  # PortAudioError, ValueError for a bad device
            raise PlaybackError(f"The speaker could not be opened: {e}") from e
        self._stream, self._rate = stream, sample_rate
        self.latency = float(stream.latency)

    def write(self, block: np.ndarray) -> float | None:
        stream = self._stream
        if stream is None:
            raise PlaybackError("The speaker is not open.")
        try:
            if not stream.active:
                stream.start()
            stream.write(np.ascontiguousarray(block, dtype=np.float32).reshape(-1, 1))
        except Exception as e:
            raise PlaybackError(f"The speaker stopped working: {e}") from e
        return None

    def abort(self) -> None:
        if self._stream is not None:
            try:
                self._stream.abort()
            except Exception:  # already broken; close() will clean up
                pass

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close(ignore_errors=True)
            except Exception:
                pass


class MemorySink:
    """Keeps every block with its timeline position; optionally paced in real time.

    ``pace``: a clock to sleep one block per write on (real-time playback without a
    device); ``on_write(sink, block)`` runs after each accepted block.
    """

    def __init__(
        self,
        pace: Clock | None = None,
        on_write: Callable[[MemorySink, np.ndarray], None] | None = None,
        start: float = 0.0,
    ) -> None:
        self.pace = pace
        self.on_write = on_write
        self.start = start
        self.latency = 0.0
        self.sample_rate = 0
        self.blocks: list[np.ndarray] = []
        self.aborts = 0
        self._samples = 0
        self._lock = threading.Lock()

    def open(self, sample_rate: int) -> None:
        self.sample_rate = sample_rate

    def write(self, block: np.ndarray) -> float | None:
        with self._lock:
            at = self.start + self._samples / self.sample_rate
            self.blocks.append(np.array(block, dtype=np.float32))
            self._samples += len(block)
        if self.pace is not None:
            self.pace.sleep(len(block) / self.sample_rate)
        if self.on_write is not None:
            self.on_write(self, block)
        return at

    def abort(self) -> None:
        self.aborts += 1

    def close(self) -> None:
        pass

    @property
    def seconds(self) -> float:
        with self._lock:
            return self._samples / self.sample_rate if self.sample_rate else 0.0

    def audio(self) -> np.ndarray:
        with self._lock:
            return np.concatenate(self.blocks) if self.blocks else np.zeros(0, np.float32)


class FileSink(MemorySink):
    """Writes what was played to a WAV file on close (headless runs, debugging)."""

    def __init__(self, path: str | Path, pace: Clock | None = None) -> None:
        super().__init__(pace)
        self.path = Path(path)

    def close(self) -> None:
        import soundfile as sf

        if self.sample_rate:
            try:
                sf.write(str(self.path), self.audio(), self.sample_rate)
            except Exception as e:
                raise PlaybackError(f"Could not write {self.path}: {e}") from e


class NullSink(MemorySink):
    """Discards audio (keeps only the count), optionally paced in real time.

    Paced, it stands for a loudspeaker: a block is heard as it is written, so it returns
    no time and the player stamps the block on its own clock (as the echo reference must
    see it); unpaced, blocks keep their position in the stream."""

    def write(self, block: np.ndarray) -> float | None:
        at = super().write(block)
        with self._lock:
            self.blocks.clear()
        return None if self.pace is not None else at
