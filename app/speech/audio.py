"""Audio sources and sinks behind one small interface.

A source yields 16 kHz mono float32 blocks stamped with their audio time; the same
pipeline runs on a microphone (sounddevice) or on a file replayed in real time or as fast
as possible. Device problems surface as typed errors with a message fit for a dialog,
and a live source can be restarted after a loss.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.clock import Clock, RealClock

log = logging.getLogger(__name__)

TARGET_RATE = 16000
# Blocks of 512 samples (32 ms) the microphone keeps for a worker that is behind: about
# 8 s, so a worker that keeps up on average loses nothing to one slow decode on a CPU
# (a Whisper window takes over a second there) and drops audio only when far behind.
MIC_QUEUE_BLOCKS = 256


# --- errors -----------------------------------------------------------------------------


class AudioError(Exception):
    """Base of every audio problem; ``user_message`` is fit for a dialog."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class AudioFileError(AudioError):
    pass


class AudioDeviceError(AudioError):
    pass


class NoDeviceError(AudioDeviceError):
    pass


class DeviceBusyError(AudioDeviceError):
    pass


class DeviceLostError(AudioDeviceError):
    pass


# --- blocks and resampling --------------------------------------------------------------


@dataclass(frozen=True)
class AudioBlock:
    samples: np.ndarray  # float32 mono at 16 kHz, range [-1, 1]
    time: float  # audio time of the first sample, seconds
    sample: int  # index of the first sample since the source started


def to_mono_float(data: np.ndarray) -> np.ndarray:
    """Any integer or float PCM, any channel count -> float32 mono in [-1, 1]."""
    arr = np.asarray(data)
    if arr.dtype.kind in "iu":
        info = np.iinfo(arr.dtype)
        scale = float(max(abs(info.min), info.max))
        offset = 0.0 if arr.dtype.kind == "i" else (info.max + 1) / 2
        arr = (arr.astype(np.float64) - offset) / scale
    arr = arr.astype(np.float32, copy=False)
    if arr.ndim == 2:
        arr = arr.mean(axis=1)
    return np.ascontiguousarray(arr, dtype=np.float32)


def resample(samples: np.ndarray, rate: int, target: int = TARGET_RATE) -> np.ndarray:
    if rate == target or samples.size == 0:
        return samples.astype(np.float32, copy=False)
    from scipy.signal import resample_poly

    g = gcd(int(rate), int(target))
    out = resample_poly(samples, target // g, int(rate) // g)
    return np.asarray(out, dtype=np.float32)


class StreamResampler:
    """Resamples a stream block by block without seams at block edges: a polyphase FIR
    low-pass whose filter state and output phase carry over from block to block, so the
    result is the same as resampling the whole stream at once. ``delay`` is how far (in
    seconds) the output lags the input.

    Ratios with a large upsampling factor (44.1 kHz -> 16 kHz is 160/441) would need a
    huge filter at the upsampled rate; those fall back to resampling each block alone."""

    MAX_UP = 8

    def __init__(self, rate: int, target: int = TARGET_RATE, taps_per_side: int = 16) -> None:
        from scipy.signal import firwin

        g = gcd(int(rate), int(target))
        self.rate, self.target = int(rate), int(target)
        self.up, self.down = int(target) // g, int(rate) // g
        self.seamless = self.up != self.down and self.up <= self.MAX_UP
        widest = max(self.up, self.down)
        taps = 2 * taps_per_side * widest + 1 if self.seamless else 1
        self._taps = firwin(taps, 1.0 / widest) * self.up if self.seamless else np.ones(1)
        self._state = np.zeros(taps - 1)
        self._phase = 0  # the next output sample's offset in the upsampled block
        self.delay = (taps - 1) / 2 / (rate * self.up)

    def process(self, block: np.ndarray) -> np.ndarray:
        if self.up == self.down or block.size == 0:
            return block.astype(np.float32, copy=False)
        if not self.seamless:
            return resample(block, self.rate, self.target)
        from scipy.signal import lfilter

        upsampled = np.zeros(block.size * self.up)
        upsampled[:: self.up] = block
        filtered, self._state = lfilter(self._taps, 1.0, upsampled, zi=self._state)
        out = filtered[self._phase :: self.down]
        self._phase = (self._phase - upsampled.size) % self.down
        return np.asarray(out, dtype=np.float32)

    def reset(self) -> None:
        self._state[:] = 0.0
        self._phase = 0


def load_audio(path: str | Path, rate: int = TARGET_RATE) -> np.ndarray:
    """Read WAV/FLAC/OGG (any width, float included) as float32 mono at ``rate``."""
    import soundfile as sf

    p = Path(path)
    if not p.is_file():
        raise AudioFileError(f"The audio file {p} does not exist.")
    try:
        data, file_rate = sf.read(str(p), dtype="float32", always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise AudioFileError(f"{p.name} is not a readable audio file ({exc}).") from exc
    if data.shape[0] == 0:
        raise AudioFileError(f"{p.name} contains no audio.")
    return resample(to_mono_float(data), int(file_rate), rate)


# --- sources ----------------------------------------------------------------------------


class AudioSource(Protocol):
    sample_rate: int

    def start(self) -> None: ...

    def read(self, timeout: float) -> AudioBlock | None:
        """The next block, or None when nothing arrived within ``timeout`` or the source
        is exhausted (see ``finished``). Raises AudioDeviceError on a device failure."""

    @property
    def finished(self) -> bool: ...

    def stop(self) -> None: ...


class ArraySource:
    """Replays samples already in memory, in real time on ``clock`` or as fast as possible."""

    sample_rate = TARGET_RATE

    def __init__(
        self,
        samples: np.ndarray,
        *,
        block: int = 512,
        realtime: bool = False,
        clock: Clock | None = None,
    ) -> None:
        self._samples = np.asarray(samples, dtype=np.float32)
        self._block = block
        self._realtime = realtime
        self._clock = clock or RealClock()
        self._pos = 0
        self._t0: float | None = None

    @property
    def duration(self) -> float:
        return self._samples.size / self.sample_rate

    def start(self) -> None:
        self._t0 = self._clock.now()

    def read(self, timeout: float) -> AudioBlock | None:
        if self.finished:
            return None
        if self._t0 is None:
            self.start()
        pos = self._pos
        chunk = self._samples[pos : pos + self._block]
        if chunk.size < self._block:
            chunk = np.pad(chunk, (0, self._block - chunk.size))
        if self._realtime and self._t0 is not None:
            due = self._t0 + (pos + self._block) / self.sample_rate
            wait = due - self._clock.now()
            if wait > timeout:
                self._clock.sleep(timeout)
                return None
            self._clock.sleep(wait)
        self._pos += self._block
        return AudioBlock(chunk, pos / self.sample_rate, pos)

    @property
    def finished(self) -> bool:
        return self._pos >= self._samples.size

    def stop(self) -> None:
        self._pos = self._samples.size


class FileSource(ArraySource):
    """A WAV/FLAC file as a source (resampled to 16 kHz mono)."""

    def __init__(self, path: str | Path, **kwargs: Any) -> None:
        self.path = Path(path)
        super().__init__(load_audio(self.path), **kwargs)


class PacedSource:
    """Samples delivered the way a microphone delivers them.

    A feeder thread releases each block when its last sample is due on ``clock``
    (``speed`` times real time) into a queue, as a microphone callback does. With
    ``max_queued`` (``MicrophoneSource`` keeps ``MIC_QUEUE_BLOCKS``) the oldest block is
    dropped when the reader falls that far behind, as from a microphone; without it
    nothing is lost and a lagging reader catches up. Blocks are stamped with their place
    in the recording, as the microphone stamps them, so a loss leaves a gap in the stamps;
    each is kept in ``dropped`` as (audio time of the lost block, seconds lost)."""

    sample_rate = TARGET_RATE

    def __init__(
        self,
        samples: np.ndarray,
        *,
        block: int = 512,
        speed: float = 1.0,
        max_queued: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._samples = np.asarray(samples, dtype=np.float32)
        self._block = block
        self.speed = speed
        self._clock = clock or RealClock()
        # (first sample's place in the recording, block)
        self._queue: queue.Queue[tuple[int, np.ndarray]] = queue.Queue(maxsize=max_queued or 0)
        self._lock = threading.Lock()
        self._halt = threading.Event()
        self._fed = threading.Event()
        self._thread: threading.Thread | None = None
        self.started_at: float | None = None  # clock reading at recording time 0
        self.dropped: list[tuple[float, float]] = []

    @property
    def duration(self) -> float:
        return self._samples.size / self.sample_rate

    def start(self) -> None:
        if self._thread is not None:
            return
        self.started_at = self._clock.now()
        self._thread = threading.Thread(target=self._feed, name="paced-source", daemon=True)
        self._thread.start()

    def blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """The blocks to deliver, each with its first sample's place in the stream: the
        recording as it is (a room that reacts to the agent inserts silence here)."""
        for pos in range(0, self._samples.size, self._block):
            chunk = self._samples[pos : pos + self._block]
            if chunk.size < self._block:
                chunk = np.pad(chunk, (0, self._block - chunk.size))
            yield pos, chunk

    def _feed(self) -> None:
        assert self.started_at is not None
        for pos, chunk in self.blocks():
            due = self.started_at + (pos + self._block) / self.sample_rate / self.speed
            while not self._halt.is_set() and (wait := due - self._clock.now()) > 0:
                self._clock.sleep(min(wait, 0.05))
            if self._halt.is_set():
                break
            self._put((pos, chunk))
        self._fed.set()

    def _put(self, item: tuple[int, np.ndarray]) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:  # the reader lags: drop the oldest, keep the newest
            try:
                pos, lost = self._queue.get_nowait()
                with self._lock:
                    self.dropped.append((pos / self.sample_rate, lost.size / self.sample_rate))
            except queue.Empty:
                pass
            self._queue.put_nowait(item)

    def read(self, timeout: float) -> AudioBlock | None:
        if self._thread is None:
            self.start()
        try:
            start, chunk = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return AudioBlock(chunk, start / self.sample_rate, start)

    @property
    def finished(self) -> bool:
        return self._fed.is_set() and self._queue.empty()

    def stop(self) -> None:
        self._halt.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)
        self._fed.set()
        while not self._queue.empty():
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break


class PacedFileSource(PacedSource):
    """A WAV/FLAC file (any rate, resampled to 16 kHz mono) played like a microphone."""

    def __init__(self, path: str | Path, **kwargs: Any) -> None:
        self.path = Path(path)
        super().__init__(load_audio(self.path), **kwargs)


def list_devices(kind: str = "input") -> list[dict[str, Any]]:
    """Devices with at least one channel of ``kind`` ("input" or "output")."""
    sd = _sounddevice()
    key = "max_input_channels" if kind == "input" else "max_output_channels"
    devices: list[dict[str, Any]] = []
    for index, dev in enumerate(sd.query_devices()):
        if dev[key] > 0:
            devices.append({"index": index, "name": dev["name"], "rate": dev["default_samplerate"]})
    return devices


def resolve_device(device: str | int | None, kind: str = "input") -> int | None:
    """A device index from an index, an index as text, or part of a name."""
    devices = list_devices(kind)
    if not devices:
        raise NoDeviceError(f"No audio {kind} device was found. Connect one and try again.")
    if device is None or device == "":
        return None
    if isinstance(device, int) or str(device).isdigit():
        idx = int(device)
        if any(d["index"] == idx for d in devices):
            return idx
        raise NoDeviceError(f"There is no {kind} device number {idx}.")
    wanted = str(device).lower()
    for d in devices:
        if wanted in str(d["name"]).lower():
            return int(d["index"])
    raise NoDeviceError(f"No {kind} device is called '{device}'.")


def _sounddevice() -> Any:
    try:
        import sounddevice as sd
    except OSError as exc:  # PortAudio missing
        raise NoDeviceError("The audio system is not available (PortAudio is missing).") from exc
    return sd


def _open_error(exc: Exception, kind: str) -> AudioDeviceError:
    text = str(exc).lower()
    if "busy" in text or "unavailable" in text or "-9985" in text:
        return DeviceBusyError(f"The {kind} device is busy; close other audio apps.")
    if "no default" in text or "invalid device" in text or "-9996" in text:
        return NoDeviceError(f"No usable {kind} device was found.")
    return AudioDeviceError(f"The {kind} device could not be opened ({exc}).")


class MicrophoneSource:
    """Live capture at 16 kHz mono; captures at the device rate and resamples if needed.

    The PortAudio callback only enqueues (dropping the oldest when the reader lags far
    behind); a loss (stream stopped, callback error) raises DeviceLostError from ``read``
    and leaves the source stopped, so ``start`` can be called again to recover. Dropped
    blocks leave a gap in the stamps, never longer than the time that passed on ``clock``:
    a driver that delivers faster than real time (the ALSA null device) cannot move the
    stamps ahead of the room.
    """

    sample_rate = TARGET_RATE

    def __init__(
        self, device: str | int | None = None, *, block: int = 512,
        max_queued: int = MIC_QUEUE_BLOCKS, clock: Clock | None = None,
    ) -> None:
        self.device = device
        self._clock = clock or RealClock()
        self._opened = self._clock.now()  # when the current stream's stamps began
        self._opened_at = 0  # the stamp at that moment
        self._faster_than_real_time = False
        self._block = block
        # (device samples captured before it, block at the device rate)
        self._queue: queue.Queue[tuple[int, np.ndarray]] = queue.Queue(maxsize=max_queued)
        self._stream: Any = None
        self._rate = TARGET_RATE
        self._resampler = StreamResampler(TARGET_RATE)
        self._samples = 0  # 16 kHz samples stamped so far, read or lost
        self._pending = np.zeros(0, dtype=np.float32)
        self._captured = 0  # device samples the callback was given (callback thread)
        self._expected = 0  # device samples read or known lost (reader thread)
        self.dropped: list[tuple[float, float]] = []  # (audio time, seconds) of each loss
        self._failure: str | None = None
        self._lock = threading.Lock()
        self.state = "idle"  # idle | running | lost
        self.invalid_blocks = 0  # blocks that held NaN/inf samples

    def start(self) -> None:
        sd = _sounddevice()
        index = resolve_device(self.device, "input")
        self._rate = self._pick_rate(sd, index)
        self._resampler = StreamResampler(self._rate)
        self._pending = np.zeros(0, dtype=np.float32)
        self._captured = self._expected = 0  # a new stream counts from its own start
        self._opened, self._opened_at = self._clock.now(), self._samples
        while not self._queue.empty():  # blocks of the stream that was lost
            self._queue.get_nowait()
        device_block = int(round(self._block * self._rate / TARGET_RATE))
        self._failure = None
        try:
            stream = sd.InputStream(
                device=index,
                channels=1,
                samplerate=self._rate,
                blocksize=device_block,
                dtype="float32",
                callback=self._callback,
                finished_callback=self._on_finished,
            )
            stream.start()
        except Exception as exc:  # PortAudioError and friends
            self.state = "lost"
            raise _open_error(exc, "input") from exc
        self._stream = stream
        self.state = "running"

    def _pick_rate(self, sd: Any, index: int | None) -> int:
        try:
            sd.check_input_settings(device=index, channels=1, samplerate=TARGET_RATE)
            return TARGET_RATE
        except Exception:
            return int(sd.query_devices(index, "input")["default_samplerate"])

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        block = np.array(indata[:, 0], dtype=np.float32)
        finite = np.isfinite(block)
        if not finite.all():  # a broken driver (the ALSA null device): silence, said once
            block[~finite] = 0.0
            self.invalid_blocks += 1
            if self.invalid_blocks == 1:
                log.warning("The microphone delivers invalid samples (NaN/inf); they are "
                            "replaced by silence.")
        # Full scale is 1.0; a driver handing out larger values would overflow the
        # recognizer's features, so they are clipped as a converter would clip them.
        np.clip(block, -1.0, 1.0, out=block)
        item = (self._captured, block)
        self._captured += block.size
        try:
            self._queue.put_nowait(item)
        except queue.Full:  # the reader lags: drop the oldest, keep the newest
            try:
                self._queue.get_nowait()
            except queue.Empty:
                pass
            self._queue.put_nowait(item)

    def _on_finished(self) -> None:
        with self._lock:
            if self.state == "running" and self._failure is None:
                self._failure = "The microphone stopped delivering audio (unplugged?)."

    def simulate_loss(self, reason: str = "The microphone was disconnected.") -> None:
        """What the PortAudio thread reports when a device vanishes; used by diagnostics."""
        with self._lock:
            self._failure = reason
        if self._stream is not None:
            self._stream.abort()

    def read(self, timeout: float) -> AudioBlock | None:
        if self.state != "running":
            raise DeviceLostError("The microphone is not running.")
        while self._pending.size < self._block:
            try:
                captured, raw = self._queue.get(timeout=timeout)
            except queue.Empty:
                self._check_alive()
                return None
            if captured > self._expected:
                self._skip(captured - self._expected)
            self._expected = captured + raw.size
            self._pending = np.concatenate([self._pending, self._resampler.process(raw)])
        chunk, self._pending = self._pending[: self._block], self._pending[self._block :]
        start = self._samples
        self._samples += chunk.size
        return AudioBlock(chunk, start / TARGET_RATE, start)

    def _skip(self, device_samples: int) -> None:
        """Blocks were dropped: the stamps jump over them, so later audio keeps its place in
        time. The unread remainder before the gap goes with them (a block never spans one)."""
        lost = self._pending.size + int(round(device_samples * TARGET_RATE / self._rate))
        passed = self._opened_at + int((self._clock.now() - self._opened) * TARGET_RATE)
        bound = max(0, passed - self._samples)
        if lost - bound > TARGET_RATE and not self._faster_than_real_time:
            self._faster_than_real_time = True
            log.warning("The microphone delivers audio faster than real time (a null "
                        "device?); its stamps follow the clock instead.")
        lost = min(lost, bound)
        if lost:
            with self._lock:
                self.dropped.append((self._samples / TARGET_RATE, lost / TARGET_RATE))
        self._samples += lost
        self._pending = np.zeros(0, dtype=np.float32)
        self._resampler = StreamResampler(self._rate)

    def _check_alive(self) -> None:
        stream = self._stream
        with self._lock:
            failure = self._failure
        if failure is None and stream is not None and not stream.active:
            failure = "The microphone stopped delivering audio (unplugged?)."
        if failure is not None:
            self._close()
            self.state = "lost"
            raise DeviceLostError(failure)

    @property
    def finished(self) -> bool:
        return False

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:  # already gone with the device
                log.debug("closing a lost input stream failed", exc_info=True)

    def stop(self) -> None:
        with self._lock:
            self.state = "idle"
        self._close()


# --- sinks ------------------------------------------------------------------------------


class AudioSink(Protocol):
    sample_rate: int

    def write(self, samples: np.ndarray) -> None: ...

    def stop(self) -> None: ...


class MemorySink:
    """Collects what would have been played (files, tests, simulated rooms)."""

    def __init__(self, sample_rate: int = 24000) -> None:
        self.sample_rate = sample_rate
        self.blocks: list[np.ndarray] = []

    def write(self, samples: np.ndarray) -> None:
        self.blocks.append(np.asarray(samples, dtype=np.float32).copy())

    def stop(self) -> None:
        pass

    def audio(self) -> np.ndarray:
        return np.concatenate(self.blocks) if self.blocks else np.zeros(0, np.float32)


class SpeakerSink:
    """Blocking writes to an output device; ``stop`` cuts playback within one block."""

    def __init__(
        self,
        device: str | int | None = None,
        sample_rate: int = 24000,
        on_error: Callable[[AudioDeviceError], None] | None = None,
    ) -> None:
        sd = _sounddevice()
        self.sample_rate = sample_rate
        index = resolve_device(device, "output")
        try:
            self._stream = sd.OutputStream(
                device=index, channels=1, samplerate=sample_rate, dtype="float32"
            )
            self._stream.start()
        except Exception as exc:
            raise _open_error(exc, "output") from exc
        self._on_error = on_error

    def write(self, samples: np.ndarray) -> None:
        try:
            self._stream.write(np.asarray(samples, dtype=np.float32).reshape(-1, 1))
        except Exception as exc:
            err = DeviceLostError(f"The speaker stopped working ({exc}).")
            if self._on_error is not None:
                self._on_error(err)
            raise err from exc

    def stop(self) -> None:
        try:
            self._stream.abort()
            self._stream.close()
        except Exception:
            log.debug("closing the output stream failed", exc_info=True)
