"""Block-by-block resampling of the microphone stream."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import resample_poly

from app.speech.audio import StreamResampler


def tone(rate: int, seconds: float = 1.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3000 * t)).astype(np.float32)


def in_blocks(resampler: StreamResampler, x: np.ndarray, sizes: list[int]) -> np.ndarray:
    out, at = [], 0
    for n in sizes:
        out.append(resampler.process(x[at : at + n]))
        at += n
    return np.concatenate(out)


@pytest.mark.parametrize("rate", [24000, 48000, 8000, 32000])
def test_blocks_of_any_size_give_the_whole_stream_result(rate: int) -> None:
    x = tone(rate)
    sizes = list(np.random.default_rng(1).integers(1, 900, 400))
    sizes = [n for n in np.cumsum(sizes) if n <= x.size]
    sizes = list(np.diff([0, *sizes]))
    whole = StreamResampler(rate).process(x[: sum(sizes)])
    assert np.max(np.abs(in_blocks(StreamResampler(rate), x, sizes) - whole)) < 1e-6


def test_stream_matches_a_reference_resampler_after_its_delay() -> None:
    x = tone(24000)
    r = StreamResampler(24000)
    y = in_blocks(r, x, [480] * 50)
    lag = int(round(r.delay * 16000))
    ideal = resample_poly(x, 2, 3)
    assert np.max(np.abs(y[200 + lag : -200] - ideal[200 : -200 - lag])) < 0.01
    # the old way, each 20 ms block alone, leaves seams at every block edge
    seams = np.concatenate([resample_poly(x[i : i + 480], 2, 3) for i in range(0, x.size, 480)])
    assert np.max(np.abs(seams - ideal)) > 0.1


def test_awkward_ratio_falls_back_to_per_block_resampling() -> None:
    r = StreamResampler(44100)
    assert not r.seamless
    assert r.process(np.zeros(882, dtype=np.float32)).size == 320
