"""Synthesize the earcons (short sine chimes with soft envelopes) as 16-bit WAVs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

HERE = Path(__file__).resolve().parent
RATE = 24000


def chime(freqs: list[float], note: float = 0.11, gap: float = 0.03) -> np.ndarray:
    parts = []
    for f in freqs:
        t = np.arange(int(note * RATE)) / RATE
        env = np.minimum(1.0, t / 0.008) * np.exp(-t / (note / 2.5))
        tone = np.sin(2 * np.pi * f * t) + 0.25 * np.sin(2 * np.pi * 2 * f * t)
        parts += [0.3 * env * tone, np.zeros(int(gap * RATE))]
    return np.concatenate(parts).astype(np.float32)


def build() -> list[Path]:
    sounds = {"wake.wav": chime([660.0, 880.0]), "hand.wav": chime([523.25, 659.25, 783.99])}
    out = []
    for name, audio in sounds.items():
        sf.write(HERE / name, audio, RATE, subtype="PCM_16")
        out.append(HERE / name)
    return out


if __name__ == "__main__":
    for p in build():
        print(p)
