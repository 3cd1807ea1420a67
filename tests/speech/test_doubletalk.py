"""Double-talk detector: synthetic rooms for the pure detector, real voices for the
near-end voicing the worker uses while the agent plays."""

from __future__ import annotations

import numpy as np
import pytest

from app.speech.doubletalk import DoubleTalkDetector, DoubleTalkSettings, NearEndVoice
from tests.conftest import shared_path
from tests.speech import synth

R, N = 16000, 512
DT = N / R


def babble(seconds: float, seed: int, rate_hz: float = 4.0) -> np.ndarray:
    """Speech-like: coloured noise gated on and off at a syllable rate."""
    rng = np.random.default_rng(seed)
    n = int(seconds * R)
    noise = np.convolve(rng.standard_normal(n), np.hanning(9), "same")
    t = np.arange(n) / R
    envelope = np.clip(np.sin(2 * np.pi * rate_hz * t + rng.uniform(0, 6)), 0, None) ** 0.5
    x = noise * envelope
    return (0.1 * x / np.sqrt(np.mean(x**2))).astype(np.float32)


def room(reference: np.ndarray, paths: tuple[tuple[float, float], ...]) -> np.ndarray:
    out = np.zeros_like(reference)
    for delay, gain in paths:
        k = int(delay * R)
        out[k:] += gain * reference[: reference.size - k]
    return out


PATHS = ((0.04, 0.3), (0.09, 0.1))


def run(
    det: DoubleTalkDetector, mic: np.ndarray, ref: np.ndarray, voiced: bool = True
) -> np.ndarray:
    return np.array(
        [
            det.update(mic[i : i + N], ref[i : i + N], DT, voiced)
            for i in range(0, mic.size - N + 1, N)
        ]
    )


def test_own_voice_alone_never_fires() -> None:
    ref = babble(20.0, seed=1)
    mic = room(ref, PATHS) + np.random.default_rng(2).normal(0, 0.001, ref.size).astype(np.float32)
    det = DoubleTalkDetector()
    flags = run(det, mic, ref)
    assert not flags.any()
    assert det.ready and det.erle_db > 10.0  # the linear echo estimate converged


def test_never_fires_before_it_has_heard_the_agent() -> None:
    ref = babble(3.0, seed=1)
    person = babble(3.0, seed=9, rate_hz=3.0)
    det = DoubleTalkDetector(DoubleTalkSettings(warmup_seconds=1.5))
    flags = run(det, room(ref, PATHS) + person, ref)
    first = int(1.5 / DT)
    assert not flags[:first].any()


@pytest.mark.parametrize("margin_db", [10.0, None])
def test_participant_over_the_agent_is_detected(margin_db: float | None) -> None:
    """Synthetic voicing is always on, so energy alone must keep the echo out only with a
    wide ratio margin; the default margin relies on the VAD too (real-speech test below)."""
    ref = babble(16.0, seed=1)
    person = np.zeros_like(ref)
    talk = babble(8.0, seed=9, rate_hz=3.0) * 0.4  # quieter than the agent's echo peak
    person[8 * R :] = talk
    settings = DoubleTalkSettings()
    if margin_db is not None:
        settings = DoubleTalkSettings(residual_margin_db=margin_db)
    det = DoubleTalkDetector(settings)
    flags = run(det, room(ref, PATHS) + person, ref)
    before, during = flags[: int(8 / DT)], flags[int(8 / DT) :]
    active = np.array(
        [np.sqrt(np.mean(person[i : i + N] ** 2)) > 0.01 for i in range(0, person.size - N + 1, N)]
    )[int(8 / DT) :]
    if margin_db is not None:
        assert not before.any()
    assert during[active].mean() > 0.6
    # the residual is the participant, not the agent: near-end level survives
    assert np.sqrt(np.mean(det.residual**2)) < 0.2


def test_not_voiced_never_fires() -> None:
    ref = babble(10.0, seed=1)
    mic = room(ref, PATHS) + babble(10.0, seed=9)
    assert not run(DoubleTalkDetector(), mic, ref, voiced=False).any()


def test_the_filter_does_not_learn_the_participant() -> None:
    """Detected frames are not used for adaptation, so a long interruption stays detected."""
    ref = babble(30.0, seed=1)
    person = np.zeros_like(ref)
    person[5 * R :] = babble(25.0, seed=9, rate_hz=3.0) * 0.5
    # A wide ratio margin makes the flags follow the participant (voicing is always on).
    det = DoubleTalkDetector(DoubleTalkSettings(residual_margin_db=10.0))
    flags = run(det, room(ref, PATHS) + person, ref)
    late = flags[int(25 / DT) :]
    early = flags[int(5 / DT) : int(10 / DT)]
    assert late.mean() >= 0.8 * early.mean() > 0.3


def echo_gain_db(det: DoubleTalkDetector, ref: np.ndarray) -> float:
    """How much of the echo the current filter removes (frozen: no adaptation)."""
    frozen = DoubleTalkDetector(det.settings)
    frozen._reset(N)
    frozen._weights = det._weights.copy()
    mic = room(ref, PATHS)
    for i in range(0, mic.size - N + 1, N):
        frozen.estimate(mic[i : i + N], ref[i : i + N])
    return float(10 * np.log10(np.sum(mic**2) / np.sum(frozen._rest**2)))


@pytest.mark.parametrize("guarded", [True, False])
def test_a_missed_participant_is_not_learned_as_echo(guarded: bool) -> None:
    """The VAD misses the participant (voiced=False), yet the filter holds still while
    the residual is above its usual level, so it still cancels the agent afterwards."""
    settings = DoubleTalkSettings() if guarded else DoubleTalkSettings(freeze_margin_db=1e9)
    ref = babble(20.0, seed=1)
    person = np.zeros_like(ref)
    person[8 * R : 16 * R] = babble(8.0, seed=9, rate_hz=3.0) * 0.5
    noise = np.random.default_rng(2).normal(0, 0.001, ref.size).astype(np.float32)
    mic = room(ref, PATHS) + noise
    det = DoubleTalkDetector(settings)
    run(det, mic[: 8 * R], ref[: 8 * R], voiced=False)
    before = echo_gain_db(det, babble(2.0, seed=3))
    run(det, (mic + person)[8 * R : 16 * R], ref[8 * R : 16 * R], voiced=False)
    after = echo_gain_db(det, babble(2.0, seed=3))
    assert before > 15.0
    if guarded:
        assert after > before - 3.0
    else:
        assert after < before - 6.0  # unguarded, the participant is learned as echo


@pytest.mark.slow
def test_near_end_voice_on_real_speech() -> None:
    """Piper as the agent through a room, JFK talking over it: Silero on the residual."""
    from app.speech.audio import load_audio

    agent = synth.piper(
        "The study enrolled one hundred and twenty patients across four sites. Each of "
        "them was followed for twelve weeks after the first dose."
    )
    person = load_audio(shared_path("data/audio_asr/jfk.flac"))[: 4 * R] * 0.5
    at = 4 * R
    total = agent.size
    echo = room(agent, PATHS) + np.random.default_rng(0).normal(0, 0.001, total).astype(np.float32)
    mic = echo.copy()
    mic[at : at + person.size] += person[: max(0, total - at)]

    def voiced_frames(signal: np.ndarray) -> np.ndarray:
        voice = NearEndVoice()
        return np.array(
            [voice(signal[i : i + N], agent[i : i + N], DT) for i in range(0, total - N + 1, N)]
        )

    alone = voiced_frames(echo)
    assert alone.max() < 0.5  # the agent's own voice is never near-end speech
    both = voiced_frames(mic)
    span = both[at // N : (at + person.size) // N]
    assert (both[: at // N] < 0.5).all()
    assert (span >= 0.5).mean() > 0.4
