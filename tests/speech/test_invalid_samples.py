"""The capture callback driven by hand (no device needed): NaN/inf samples from a broken
driver never reach the models and are said once; blocks dropped for a lagging reader
leave a gap in the stamps."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

from app.clock import SimulatedClock
from app.speech.audio import MicrophoneSource
from app.speech.wake import to_pcm16


def _bad_block(n: int = 512) -> np.ndarray:
    block = np.full((n, 1), 0.25, dtype=np.float32)
    block[::7, 0] = np.nan
    block[3, 0], block[5, 0] = np.inf, -np.inf
    return block


def test_invalid_samples_become_silence_with_one_log_line(caplog) -> None:
    mic = MicrophoneSource()  # the PortAudio callback is driven by hand: no device needed
    with caplog.at_level(logging.WARNING, logger="app.speech.audio"):
        for _ in range(50):
            mic._callback(_bad_block(), 512, None, None)
    lines = [r for r in caplog.records if "invalid samples" in r.getMessage()]
    assert len(lines) == 1 and mic.invalid_blocks == 50
    mic.state = "running"  # as after start(): read what the callback queued
    block = mic.read(0.1)
    assert block is not None and np.isfinite(block.samples).all()
    assert block.samples[3] == 0.0 and block.samples[1] == np.float32(0.25)


def test_clean_blocks_pass_untouched(caplog) -> None:
    mic = MicrophoneSource()
    clean = np.linspace(-0.5, 0.5, 512, dtype=np.float32).reshape(-1, 1)
    with caplog.at_level(logging.WARNING, logger="app.speech.audio"):
        mic._callback(clean, 512, None, None)
    mic.state = "running"
    block = mic.read(0.1)
    assert block is not None and np.array_equal(block.samples, clean[:, 0])
    assert mic.invalid_blocks == 0 and not caplog.records


def test_samples_beyond_full_scale_are_clipped() -> None:
    mic = MicrophoneSource()
    loud = np.array([1e33, -1e33, 1.5, -0.75] * 128, dtype=np.float32).reshape(-1, 1)
    mic._callback(loud, 512, None, None)
    mic.state = "running"
    block = mic.read(0.1)
    assert block is not None and block.samples[:4].tolist() == [1.0, -1.0, 1.0, -0.75]


def test_wake_pcm_never_warns_on_invalid_or_huge_samples() -> None:
    samples = np.array([np.nan, np.inf, -np.inf, 1e33, -1e33, 0.5], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "invalid value encountered in cast" would raise
        pcm = to_pcm16(samples)
    assert pcm.tolist() == [0, 0, 0, 32767, -32767, 16383]


def _blocks(mic: MicrophoneSource, values: range) -> None:
    """Blocks numbered by their first sample's value, n / 1000 (full scale is 1.0)."""
    for n in values:
        mic._callback(np.full((512, 1), n / 1000, dtype=np.float32), 512, None, None)


def test_blocks_dropped_for_a_lagging_reader_leave_a_gap_in_the_stamps() -> None:
    clock = SimulatedClock()
    mic = MicrophoneSource(max_queued=2, clock=clock)
    _blocks(mic, range(5))  # the reader is away: the queue keeps the newest two
    clock.advance(5 * 512 / 16000)
    mic.state = "running"
    blocks = [mic.read(0.1), mic.read(0.1)]
    assert [b.sample for b in blocks if b is not None] == [512 * 3, 512 * 4]
    assert [round(float(b.samples[0]) * 1000) for b in blocks if b is not None] == [3, 4]
    assert mic.dropped == [(0.0, 512 * 3 / 16000)]
    _blocks(mic, range(5, 6))
    after = mic.read(0.1)
    assert after is not None and after.sample == 512 * 5 and len(mic.dropped) == 1


def test_a_device_faster_than_real_time_cannot_move_the_stamps_ahead(caplog) -> None:
    clock = SimulatedClock()
    mic = MicrophoneSource(max_queued=2, clock=clock)
    mic.state = "running"
    _blocks(mic, range(100))  # 3.2 s of audio delivered at once, as the null device does
    clock.advance(0.5)
    with caplog.at_level(logging.WARNING, logger="app.speech.audio"):
        first = mic.read(0.1)
        _blocks(mic, range(100, 200))
        clock.advance(1.0)
        second = mic.read(0.1)
    assert first is not None and first.sample == 8000  # the 0.5 s that passed, no more
    assert second is not None and second.sample == 24000  # stamped at the 1.5 s that passed
    assert sum(seconds for _, seconds in mic.dropped) == pytest.approx(1.5 - 0.032)
    lines = [r for r in caplog.records if "faster than real time" in r.getMessage()]
    assert len(lines) == 1
