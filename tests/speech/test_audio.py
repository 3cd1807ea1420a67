"""Audio sources and sinks: file formats, replay timing, typed device errors, recovery."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from app.clock import SimulatedClock
from app.speech.audio import (
    MIC_QUEUE_BLOCKS,
    ArraySource,
    AudioFileError,
    DeviceLostError,
    FileSource,
    MemorySink,
    NoDeviceError,
    PacedFileSource,
    PacedSource,
    load_audio,
    to_mono_float,
)


def tone(rate: int, seconds: float = 1.0, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@pytest.mark.parametrize(
    ("rate", "subtype", "channels", "ext"),
    [
        (16000, "PCM_16", 1, "wav"),
        (44100, "PCM_24", 2, "flac"),
        (48000, "FLOAT", 1, "wav"),
        (8000, "PCM_U8", 1, "wav"),
        (22050, "PCM_32", 2, "wav"),
    ],
)
def test_any_file_becomes_16k_mono_float(
    tmp_path: Path, rate: int, subtype: str, channels: int, ext: str
) -> None:
    data = tone(rate)
    if channels == 2:
        data = np.stack([data, data], axis=1)
    path = tmp_path / f"x.{ext}"
    sf.write(path, data, rate, subtype=subtype)
    audio = load_audio(path)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(audio.size - 16000) <= 2
    assert np.sqrt(np.mean(audio[1000:-1000] ** 2)) == pytest.approx(0.5 / np.sqrt(2), rel=0.05)


def test_integer_pcm_is_scaled() -> None:
    assert to_mono_float(np.array([32767, -32768], np.int16)).tolist() == pytest.approx(
        [32767 / 32768, -1.0]
    )
    assert to_mono_float(np.array([[0.5, -0.5]], np.float32)).tolist() == [0.0]


def test_bad_files_raise_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(AudioFileError, match="does not exist"):
        load_audio(tmp_path / "missing.wav")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"not audio at all" * 10)
    with pytest.raises(AudioFileError) as err:
        FileSource(junk)
    assert "junk.wav" in err.value.user_message


def test_fast_replay_stamps_blocks_and_finishes() -> None:
    src = ArraySource(np.arange(1300, dtype=np.float32), block=512)
    blocks = []
    while not src.finished:
        block = src.read(0.1)
        assert block is not None
        blocks.append(block)
    assert [(b.sample, b.time) for b in blocks] == [(0, 0.0), (512, 0.032), (1024, 0.064)]
    assert blocks[-1].samples.size == 512 and blocks[-1].samples[-1] == 0.0  # padded
    assert src.read(0.1) is None


def test_realtime_replay_follows_the_clock() -> None:
    clock = SimulatedClock()
    src = ArraySource(np.zeros(16000, np.float32), block=1600, realtime=True, clock=clock)
    src.start()
    for i in range(5):
        block = src.read(timeout=1.0)
        assert block is not None and block.sample == i * 1600
    assert clock.now() == pytest.approx(0.5)
    # a read with a timeout shorter than the next block's due time returns nothing yet
    assert src.read(timeout=0.05) is None
    assert clock.now() == pytest.approx(0.55)


def _drain(src: PacedSource, timeout: float = 2.0) -> list:
    blocks = []
    while not src.finished:
        block = src.read(timeout)
        if block is not None:
            blocks.append(block)
    return blocks


def test_paced_source_delivers_like_a_microphone_at_its_pace() -> None:
    samples = np.arange(512 * 8, dtype=np.float32)
    src = PacedSource(samples, speed=2.0)  # 0.256 s of audio in 0.128 s
    started = time.monotonic()
    src.start()
    blocks = _drain(src)
    elapsed = time.monotonic() - started
    assert [b.sample for b in blocks] == [512 * i for i in range(8)]
    assert np.concatenate([b.samples for b in blocks]).tolist() == samples.tolist()
    assert elapsed >= 0.125  # the last block is not released before it is due
    assert src.dropped == []


def test_paced_source_keeps_everything_for_a_lagging_reader_unless_bounded() -> None:
    clock = SimulatedClock()  # its sleeps pass at once: all blocks are due immediately
    src = PacedSource(np.arange(512 * 5, dtype=np.float32), clock=clock)
    src.start()
    time.sleep(0.2)
    assert [b.sample for b in _drain(src)] == [512 * i for i in range(5)] and not src.dropped


def test_paced_source_drops_the_oldest_when_the_reader_lags() -> None:
    clock = SimulatedClock()  # its sleeps pass at once: all blocks are due immediately
    src = PacedSource(np.arange(512 * 5, dtype=np.float32), max_queued=2, clock=clock)
    src.start()
    for _ in range(200):
        if src._fed.is_set():
            break
        time.sleep(0.01)
    blocks = _drain(src)
    # the newest two blocks survive, stamped with their place in the recording
    assert [b.sample for b in blocks] == [512 * 3, 512 * 4]
    assert [b.samples[0] for b in blocks] == [512 * 3, 512 * 4]
    assert src.dropped == pytest.approx([(0.0, 0.032), (0.032, 0.032), (0.064, 0.032)])


def test_paced_source_stops_at_once() -> None:
    src = PacedSource(np.zeros(16000 * 60, np.float32))
    src.start()
    assert src.read(1.0) is not None
    started = time.monotonic()
    src.stop()
    assert time.monotonic() - started < 1.0
    assert src.finished and src.read(0.05) is None


def test_paced_file_source_resamples_any_rate(tmp_path: Path) -> None:
    path = tmp_path / "room.flac"
    sf.write(path, tone(44100, 0.2), 44100)
    src = PacedFileSource(path, speed=8.0)
    audio = np.concatenate([b.samples for b in _drain(src)])
    assert abs(src.duration - 0.2) < 0.001 and audio.size >= 3200


def test_memory_sink_keeps_what_was_played() -> None:
    sink = MemorySink(24000)
    sink.write(np.ones(10))
    sink.write(np.zeros(5))
    assert sink.audio().tolist() == [1.0] * 10 + [0.0] * 5


# --- devices (PortAudio with an ALSA null device; see the CI notes) ----------------------


def _portaudio():
    try:
        from app.speech.audio import list_devices

        devices = list_devices("input")
    except NoDeviceError as exc:
        pytest.skip(reason=f"no audio input device: {exc.user_message}")
    if not devices:
        pytest.skip(reason="no audio input device (configure an ALSA null device)")
    return devices


def test_unknown_device_is_a_typed_error() -> None:
    from app.speech.audio import MicrophoneSource, resolve_device

    _portaudio()
    with pytest.raises(NoDeviceError, match="no-such-mic"):
        resolve_device("no-such-mic")
    with pytest.raises(NoDeviceError):
        MicrophoneSource(device=999).start()


def test_microphone_loss_is_reported_and_recoverable() -> None:
    from app.speech.audio import MicrophoneSource

    _portaudio()
    mic = MicrophoneSource()
    mic.start()
    try:
        block = mic.read(timeout=5.0)
        # A null device may overrun the queue before the first read (the stamps then skip
        # the dropped blocks), so the first stamp is not always 0.
        assert block is not None and block.samples.size == 512 and block.sample >= 0
        mic.simulate_loss("The microphone was disconnected.")
        with pytest.raises(DeviceLostError, match="disconnected"):
            # Drain what was captured before the loss: up to the whole queue, which a
            # null device fills at once.
            for _ in range(4 * MIC_QUEUE_BLOCKS):
                mic.read(timeout=0.05)
        assert mic.state == "lost"
        with pytest.raises(DeviceLostError):
            mic.read(timeout=0.05)
        mic.start()  # the same object recovers
        assert mic.state == "running"
        assert mic.read(timeout=2.0) is not None
    finally:
        mic.stop()


def test_worker_survives_a_device_loss() -> None:
    """The worker reports the loss, retries, and keeps delivering events."""
    from app.speech.audio import MicrophoneSource
    from app.speech.events import DeviceStatus
    from app.speech.worker import SpeechTuning, SpeechWorker

    _portaudio()
    mic = MicrophoneSource()
    statuses: list[str] = []
    levels = threading.Event()
    lost = threading.Event()

    def on_event(event: object) -> None:
        if isinstance(event, DeviceStatus):
            statuses.append(event.state)
            if event.state == "lost":
                lost.set()
        elif lost.is_set() and type(event).__name__ == "InputLevel":
            levels.set()

    worker = SpeechWorker(mic, tuning=SpeechTuning(device_retry=0.1))
    worker.subscribe(on_event)
    worker.start()
    try:
        for _ in range(100):
            if mic.state == "running":
                break
            threading.Event().wait(0.05)
        mic.simulate_loss()
        # The loss is reported once the audio captured before it has been read, and a
        # null device fills the whole queue at once: allow the worker time to get through it.
        assert lost.wait(60.0), statuses
        assert levels.wait(5.0), statuses  # frames flow again after the restart
        assert worker._thread is not None and worker._thread.is_alive()
    finally:
        worker.stop()
    assert statuses[0] == "running" and "lost" in statuses and statuses[-1] == "stopped"
    assert statuses.count("running") >= 2


def test_speaker_sink_plays_and_stops() -> None:
    from app.speech.audio import SpeakerSink

    _portaudio()
    sink = SpeakerSink(sample_rate=24000)
    sink.write(tone(24000, 0.1))  # blocking write of 100 ms
    sink.stop()
    with pytest.raises(DeviceLostError):
        sink.write(tone(24000, 0.02))
