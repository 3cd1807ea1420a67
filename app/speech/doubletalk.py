"""Double-talk detection: is a participant talking while the agent plays?

AEC3's suppressor removes much of a participant who talks over the agent, so the VAD on
its output rarely sees sustained speech. This detector keeps its own linear echo estimate
(a partitioned-block frequency-domain NLMS filter from the played reference to the raw
microphone, with no suppressor), and calls a frame near-end speech when what is left
after subtracting the estimated echo is well above the room's noise, no louder than the
microphone itself, above its usual level relative to the echo, and voiced. Before it has
heard enough of the agent it never fires, so the agent's own voice alone cannot trigger it.

Adaptation is the fragile part: a participant the detector misses (Silero calls only
part of their frames) would be learned as echo, the filter drifts, and the estimate stays
poor for seconds after. So the filter also holds still while the echo-over-residual ratio
sits below its usual value (something other than the echo is there), whether or not the
frame was called near-end. (Holding it still longer after such frames starved the filter.)

Pure: fed one microphone frame and the matching reference frame at a time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

_EPS = 1e-10


@dataclass(frozen=True)
class DoubleTalkSettings:
    partitions: int = 4  # filter length in frames (4 x 32 ms covers delay + early echo)
    step: float = 0.5  # NLMS step
    regularization: float = 1e-6  # per sample, keeps quiet bins from taking big steps
    smoothing: float = 0.9  # reference power average per bin
    warmup_seconds: float = 3.0  # agent speech heard before the detector may fire (AEC warm-up)
    # Near-end: the rest this far above the usual residual. Without it Silero on the
    # residual alone hears the agent's own leftover (Piper in tests/speech); with the
    # adaptation guard a small margin suffices (10 dB and a 6 dB cap cost yield).
    ratio_check: bool = True
    residual_margin_db: float = 3.0
    freeze_margin_db: float = 3.0  # no adaptation while the ratio is this far below usual
    erle_smoothing: float = 0.95  # per frame
    strong_echo_db: float = 20.0  # the usual ratio is learned where the echo is this loud
    erle_cap_db: float = 30.0  # frames of pure echo count at most this much
    reference_floor: float = 1e-4  # reference RMS below this is silence
    noise_margin_db: float = 10.0  # near-end: the rest is this far above the noise floor
    heard_margin_db: float = 1.0
    noise_rise_db: float = 0.05  # per frame; the noise floor follows minima of the rest


class DoubleTalkDetector:
    """Near-end speech during playback from a linear echo estimate (see module doc)."""

    def __init__(self, settings: DoubleTalkSettings | None = None) -> None:
        self.settings = s = settings or DoubleTalkSettings()
        self._n = 0
        self._spectra: deque[np.ndarray] = deque(maxlen=s.partitions)
        self._levels: deque[float] = deque(maxlen=s.partitions)
        self._weights = np.zeros(0, np.complex128)
        self._power = np.zeros(0)
        self._last_ref = np.zeros(0)
        self._x = np.zeros((0, 0), np.complex128)
        self._rest = np.zeros(0)
        self._playing = False
        self.learned_seconds = 0.0
        self._erle_seen = False
        self.erle_db = 0.0  # usual echo-over-residual ratio while only the agent talks
        self.ratio_db = 0.0  # last frame: estimated echo over what is left
        self.rest_db = 0.0  # last frame: energy left after removing the echo
        self.mic_db = 0.0
        self.echo_db = 0.0
        self.noise_db: float | None = None  # floor of that energy (the room's noise)
        self.residual = np.zeros(0, np.float32)  # last frame with the estimated echo removed
        self.near_end = False

    @property
    def ready(self) -> bool:
        return self.learned_seconds >= self.settings.warmup_seconds

    def _reset(self, n: int) -> None:
        s = self.settings
        self._n = n
        self._spectra.clear()
        for _ in range(s.partitions):
            self._spectra.append(np.zeros(n + 1, np.complex128))
        self._weights = np.zeros((s.partitions, n + 1), np.complex128)
        self._power = np.full(n + 1, _EPS)
        self._last_ref = np.zeros(n)

    def update(
        self, mic: np.ndarray, reference: np.ndarray, frame_seconds: float, voiced: bool = True
    ) -> bool:
        """True when this mic frame holds speech the agent's echo does not explain.

        ``voiced``: the VAD's verdict on the frame; it keeps non-speech noise out.
        """
        self.estimate(mic, reference)
        return self.decide(voiced, frame_seconds)

    def estimate(self, mic: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Subtract the estimated echo; returns (and keeps) the residual."""
        mic = np.asarray(mic, np.float64)
        ref = np.asarray(reference, np.float64)
        if mic.size != self._n:
            self._reset(mic.size)
        n = self._n
        self._spectra.appendleft(np.fft.rfft(np.concatenate([self._last_ref, ref])))
        self._last_ref = ref
        x = np.stack(self._spectra)
        echo = np.fft.irfft(np.sum(self._weights * x, axis=0))[n:]
        rest = mic - echo
        self._x, self._rest = x, rest
        # The echo of a frame lasts the filter's span: adapt while any of it was played.
        self._levels.appendleft(float(np.sqrt(np.mean(ref**2))))
        self._playing = max(self._levels) >= self.settings.reference_floor
        e_echo, e_rest = float(np.mean(echo**2)), float(np.mean(rest**2))
        self.ratio_db = float(10.0 * np.log10((e_echo + _EPS) / (e_rest + _EPS)))
        self.rest_db = float(10.0 * np.log10(e_rest + _EPS))
        self.echo_db = float(10.0 * np.log10(e_echo + _EPS))
        self.mic_db = float(10.0 * np.log10(float(np.mean(mic**2)) + _EPS))
        rise = self.settings.noise_rise_db
        floor = self.rest_db if self.noise_db is None else self.noise_db + rise
        self.noise_db = min(floor, self.rest_db)
        self.residual = rest.astype(np.float32)
        return self.residual

    def decide(self, voiced: bool, frame_seconds: float) -> bool:
        """Near-end verdict for the last estimated frame; adapts on echo-only frames."""
        self.near_end = self.ready and voiced and self._unexplained()
        if self._playing and not self._suspect():
            self._adapt(self._x, self._rest)
            if self.echo_db >= (self.noise_db or 0.0) + self.settings.strong_echo_db:
                self._track_erle()
            self.learned_seconds += frame_seconds
        return self.near_end

    def _unexplained(self) -> bool:
        s = self.settings
        above_noise = self.rest_db >= (self.noise_db or 0.0) + s.noise_margin_db
        # What is left cannot be louder than what was heard: then the estimate, not a
        # person, made it (an echo predicted a little early or late).
        heard = self.rest_db <= self.mic_db + s.heard_margin_db
        unexplained = not s.ratio_check or self.ratio_db <= self.erle_db - s.residual_margin_db
        return bool(above_noise and heard and unexplained)

    def _suspect(self) -> bool:
        """A participant may be in this frame: adapting on it would learn them as echo."""
        below_usual = self.ratio_db < self.erle_db - self.settings.freeze_margin_db
        return self.near_end or (self.ready and below_usual)

    def _track_erle(self) -> None:
        """The usual echo-over-residual ratio (a slow average) while the agent talks loudly
        (in its pauses the ratio says nothing about the filter)."""
        a = self.settings.erle_smoothing
        self.erle_db = a * self.erle_db + (1 - a) * min(self.ratio_db, self.settings.erle_cap_db)

    def _adapt(self, x: np.ndarray, rest: np.ndarray) -> None:
        s, n = self.settings, self._n
        current = np.sum(np.abs(x) ** 2, axis=0)
        self._power = s.smoothing * self._power + (1 - s.smoothing) * current
        # Normalise by the larger of the average and the current power: a loud onset
        # after a quiet stretch must not take a huge step (divergence).
        norm = np.maximum(self._power, current) + n * s.regularization
        err = np.fft.rfft(np.concatenate([np.zeros(n), rest]))
        grad = np.conj(x) * err / norm
        w = self._weights + s.step * grad
        taps = np.fft.irfft(w, axis=1)
        taps[:, n:] = 0.0  # keep the filter causal and linear (overlap-save constraint)
        self._weights = np.fft.rfft(taps, axis=1)


class NearEndVoice:
    """Speech probability of the participants while the agent plays.

    Silero on the microphone minus the linear echo estimate, zeroed on frames the
    detector does not call near-end. Fed the raw mic frame and the played reference.
    """

    def __init__(
        self,
        vad: Callable[[np.ndarray], float] | None = None,
        settings: DoubleTalkSettings | None = None,
        threshold: float = 0.5,
    ) -> None:
        if vad is None:
            from app.speech.vad import SileroVad

            vad = SileroVad()
        self.vad = vad
        self.detector = DoubleTalkDetector(settings)
        self.threshold = threshold

    def __call__(self, mic: np.ndarray, reference: np.ndarray, frame_seconds: float) -> float:
        residual = self.detector.estimate(mic, reference)
        prob = self.vad(residual)
        near = self.detector.decide(prob >= self.threshold, frame_seconds)
        return prob if near else 0.0
