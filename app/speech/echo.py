"""Self-voice suppression: the agent's playback is the reference signal.

The player hands every block it actually plays to a ``PlaybackTap``
(``on_played(samples, sample_rate, time)``, ``time`` on the capture clock when the block
starts sounding). ``SelfVoiceReference`` keeps those blocks, ``EchoCanceller`` removes
them from the microphone with WebRTC AEC3 (livekit's AudioProcessingModule), and
``playing`` marks audio captured while the agent was audible so later stages can
discount it.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Protocol

import numpy as np

from app.speech.audio import TARGET_RATE, resample

APM_FRAME = 160  # AEC3 works on 10 ms frames


class PlaybackTap(Protocol):
    def on_played(self, samples: np.ndarray, sample_rate: int, time: float) -> None:
        """A block the output device actually played, starting at ``time`` (seconds)."""


class SelfVoiceReference:
    """What the agent played, addressable by capture time. Thread-safe: the player
    thread writes, the speech worker reads."""

    def __init__(self, keep_seconds: float = 30.0, tail: float = 0.3) -> None:
        self.keep_seconds = keep_seconds
        self.tail = tail  # room reverberation and device latency after the last block
        self._blocks: deque[tuple[float, np.ndarray]] = deque()
        self._lock = threading.Lock()
        self.ever_played = False

    def on_played(self, samples: np.ndarray, sample_rate: int, time: float) -> None:
        block = resample(np.asarray(samples, dtype=np.float32).reshape(-1), sample_rate)
        with self._lock:
            self._blocks.append((time, block))
            self.ever_played = True
            while self._blocks and self._blocks[0][0] < time - self.keep_seconds:
                self._blocks.popleft()

    def reference(self, start: float, n: int) -> np.ndarray:
        """The played signal for ``n`` samples from ``start`` (zeros where silent)."""
        out = np.zeros(n, dtype=np.float32)
        first = int(round(start * TARGET_RATE))
        with self._lock:
            blocks = list(self._blocks)
        for t, block in blocks:
            a = int(round(t * TARGET_RATE)) - first
            lo, hi = max(a, 0), min(a + block.size, n)
            if lo < hi:
                out[lo:hi] += block[lo - a : hi - a]
        return out

    def playing(self, start: float, end: float) -> bool:
        """Was the agent audible at any moment of [start, end]?"""
        with self._lock:
            blocks = list(self._blocks)
        for t, block in blocks:
            stop = t + block.size / TARGET_RATE + self.tail
            if t <= end and stop >= start:
                return True
        return False


class EchoCanceller:
    """WebRTC AEC3 (plus high-pass filter) over 16 kHz mono blocks of any length.

    Output lags input by one 10 ms frame (a fixed FIFO), which callers can ignore.
    """

    def __init__(self, delay_ms: int = 0, noise_suppression: bool = False) -> None:
        from livekit import rtc

        self._rtc = rtc
        self._apm = rtc.AudioProcessingModule(
            echo_cancellation=True, noise_suppression=noise_suppression, high_pass_filter=True
        )
        self.delay_ms = delay_ms
        self._mic = np.zeros(0, dtype=np.float32)
        self._ref = np.zeros(0, dtype=np.float32)
        self._out = np.zeros(APM_FRAME, dtype=np.float32)

    def _frame(self, samples: np.ndarray) -> Any:
        frame = self._rtc.AudioFrame.create(TARGET_RATE, 1, APM_FRAME)
        pcm = np.clip(samples * 32768.0, -32768, 32767).astype(np.int16)
        np.frombuffer(frame.data, dtype=np.int16)[:] = pcm
        return frame

    def process(self, mic: np.ndarray, reference: np.ndarray) -> np.ndarray:
        self._mic = np.concatenate([self._mic, mic.astype(np.float32)])
        self._ref = np.concatenate([self._ref, reference.astype(np.float32)])
        done = []
        while self._mic.size >= APM_FRAME and self._ref.size >= APM_FRAME:
            ref = self._frame(self._ref[:APM_FRAME])
            near = self._frame(self._mic[:APM_FRAME])
            self._apm.process_reverse_stream(ref)
            self._apm.set_stream_delay_ms(self.delay_ms)
            self._apm.process_stream(near)
            pcm = np.frombuffer(near.data, dtype=np.int16)
            done.append(pcm.astype(np.float32) / 32768.0)
            self._mic, self._ref = self._mic[APM_FRAME:], self._ref[APM_FRAME:]
        if done:
            self._out = np.concatenate([self._out, *done])
        out, self._out = self._out[: mic.size], self._out[mic.size :]
        if out.size < mic.size:
            out = np.pad(out, (0, mic.size - out.size))
        return out
