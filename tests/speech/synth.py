"""Speech synthesized at test time (Piper, Kokoro, espeak-ng) into memory or a temp dir.

Nothing generated is ever committed; each voice skips cleanly when its package is absent.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from app.speech.audio import load_audio, resample


@cache
def _piper() -> object:
    from piper import PiperVoice

    from app.models import resolve

    base = resolve("piper-joe")
    model = next(base.glob("*.onnx"))
    return PiperVoice.load(str(model), str(model) + ".json")


def piper(text: str, length_scale: float = 1.0) -> np.ndarray:
    """16 kHz float32 speech from Piper's en_US joe voice."""
    from piper import SynthesisConfig

    voice = _piper()
    # No sampling noise: the same text gives the same audio, so thresholds hold every run.
    config = SynthesisConfig(length_scale=length_scale, noise_scale=0.0, noise_w_scale=0.0)
    chunks = list(voice.synthesize(text, config))  # type: ignore[attr-defined]
    audio = np.concatenate([c.audio_float_array for c in chunks]).astype(np.float32)
    return resample(audio, int(chunks[0].sample_rate))


@cache
def _kokoro() -> object:
    from kokoro_onnx import Kokoro

    from app.models import resolve

    base = resolve("kokoro")
    return Kokoro(str(base / "kokoro.int8.onnx"), str(base / "voices.npz"))


KOKORO_VOICES = ("jf_alpha", "jm_kumo", "jf_nezumi")


def kokoro(text: str, voice: str = "jf_alpha") -> np.ndarray:
    audio, rate = _kokoro().create(text, voice=voice, lang="en-us")  # type: ignore[attr-defined]
    return resample(np.asarray(audio, dtype=np.float32), int(rate))


ESPEAK_VOICES = ("en-us", "en-gb", "en-us+f3")


def espeak(text: str, voice: str = "en-us") -> np.ndarray:
    exe = shutil.which("espeak-ng")
    assert exe is not None, "espeak-ng is not installed (installers/setup-embedded.sh does it)"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "say.wav"
        subprocess.run([exe, "-v", voice, "-w", str(path), text], check=True)
        return load_audio(path)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * 16000), dtype=np.float32)
