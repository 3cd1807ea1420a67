"""Wake-word recall and false accepts.

    python benchmarks/speech_wake.py [--phrases 6] [--out benchmarks/results/speech_wake.json]

Positives: "hey jarvis ..." synthesized at run time (never stored) with Piper (three
speeds), Kokoro (three voices speaking en-us) and espeak-ng (three voices). Real
positives: Picovoice's crowd-sourced "jarvis" clips (bare keyword, no "hey": a harder,
different phrase for the hey_jarvis model). Negatives: Picovoice "alexa"/"computer" clips,
openWakeWord's test clips, and long non-wake speech (the AMI mixture and the pyannote
sample), reported as false accepts per hour.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.speech.audio import AudioFileError, load_audio  # noqa: E402
from app.speech.wake import WakeWordDetector  # noqa: E402
from tests.speech import synth  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
PHRASES = [
    "Hey Jarvis, what sample size did they use?",
    "Hey Jarvis.",
    "Hey Jarvis, is that right?",
    "Hey Jarvis, can you check page four?",
    "Hey Jarvis, what does the paper say about that?",
    "Hey Jarvis, go ahead.",
]


def hits(detector: WakeWordDetector, audio: np.ndarray) -> int:
    detector.reset()
    pad = np.zeros(8000, np.float32)
    return len(detector.feed(np.concatenate([pad, audio, pad, pad]), 0))


def voices() -> dict[str, object]:
    out: dict[str, object] = {}
    for scale in (0.85, 1.0, 1.25):
        out[f"piper x{scale}"] = lambda t, s=scale: synth.piper(t, s)
    for v in synth.KOKORO_VOICES:
        out[f"kokoro {v}"] = lambda t, v=v: synth.kokoro(t, v)
    for v in synth.ESPEAK_VOICES:
        out[f"espeak {v}"] = lambda t, v=v: synth.espeak(t, v)
    return out


def clips(folder: Path, pattern: str) -> list[np.ndarray]:
    out = []
    for path in sorted(folder.glob(pattern)):
        try:
            out.append(load_audio(path))
        except AudioFileError:
            continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phrases", type=int, default=len(PHRASES))
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/speech_wake.json"))
    args = parser.parse_args()
    det = WakeWordDetector()
    rows = []
    for name, say in voices().items():
        got = [hits(det, say(p)) for p in PHRASES[: args.phrases]]  # type: ignore[operator]
        rows.append(
            {"set": f"synth {name}", "clips": len(got), "detected": sum(g > 0 for g in got)}
        )
    pv = DATA / "wakeword" / "picovoice"
    real = clips(pv / "jarvis", "*.wav")
    rows.append(
        {
            "set": "picovoice 'jarvis' (bare)",
            "clips": len(real),
            "detected": sum(hits(det, a) > 0 for a in real),
        }
    )
    for name, folder, pattern in (
        ("picovoice alexa", pv / "alexa", "*.flac"),
        ("picovoice computer", pv / "computer", "*.wav"),
        ("openwakeword clips", DATA / "wakeword" / "openwakeword", "*.wav"),
    ):
        neg = clips(folder, pattern)
        rows.append(
            {"set": name, "clips": len(neg), "false_accepts": sum(hits(det, a) for a in neg)}
        )
    long = [
        load_audio(DATA / "audio_diarization" / p)
        for p in (
            "ami_ES2004a_mixture/mixture.wav",
            "pyannote_sample/sample.wav",
            "ami_debug/tst00.wav",
            "ami_debug/dev00.wav",
        )
    ]
    hours = sum(a.size for a in long) / 16000 / 3600
    fa = sum(hits(det, a) for a in long)
    rows.append(
        {
            "set": "long non-wake speech",
            "hours": round(hours, 4),
            "false_accepts": fa,
            "per_hour": fa / hours,
        }
    )
    synth_rows = [r for r in rows if r["set"].startswith("synth")]
    recall = sum(r["detected"] for r in synth_rows) / sum(r["clips"] for r in synth_rows)
    for r in rows:
        print(
            " | ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items())
        )
    print(f"synthesized recall: {recall:.3f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows, "synth_recall": recall}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
