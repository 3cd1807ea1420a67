"""Speech end -> committed turn latency, replaying recordings in real time.

    python benchmarks/speech_latency.py [--files sample,ami_ES2004a,questions]
        [--speech field=value ...] [--out benchmarks/results/speech_latency.json]

Each file is fed at the pace of a microphone (RealClock), so decoding competes with
capture as it would live. For every committed turn: latency = wall time the Turn was
emitted - wall time its last voiced audio was captured. The turn-end rule itself waits
0.5 s of silence, so the cost of the pipeline is that latency minus 0.5 s; a speculative
decode during that silence hides most of it. "questions" is a synthesized sequence of
short direct questions with pauses (Piper), the shape the floor cares about.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.events import Turn  # noqa: E402
from app.settings import SpeechSettings  # noqa: E402
from app.speech.audio import ArraySource, load_audio  # noqa: E402
from app.speech.worker import SpeechWorker  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "audio_diarization"
QUESTIONS = [
    "What sample size did they use?",
    "I think it was forty two people.",
    "Hey Jarvis, is that right?",
    "And how long was the follow up?",
    "Eighteen months, I believe.",
    "Okay, let's move on to the results.",
]


def audio_for(name: str) -> np.ndarray:
    if name == "sample":
        return load_audio(DATA / "pyannote_sample/sample.wav")
    if name == "ami_ES2004a":
        return load_audio(DATA / "ami_ES2004a_mixture/mixture.wav")
    from tests.speech import synth

    gap = synth.silence(1.2)
    return np.concatenate([x for q in QUESTIONS for x in (synth.piper(q), gap)])


def run(name: str, speech: dict[str, Any]) -> list[float]:
    source = ArraySource(audio_for(name), realtime=True)
    worker = SpeechWorker(source, replace(SpeechSettings(), **speech))
    latencies: list[float] = []

    def on_turn(event: object) -> None:
        if isinstance(event, Turn) and source._t0 is not None:
            latencies.append(time.monotonic() - (source._t0 + event.end))

    worker.subscribe(on_turn)
    worker.run()
    return latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default="questions,sample")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/speech_latency.json"))
    parser.add_argument(
        "--speech", action="append", default=[], help="SpeechSettings field=value (number or bool)"
    )
    args = parser.parse_args()
    speech = {k: json.loads(v) for k, v in (kv.split("=") for kv in args.speech)}
    rows = []
    for name in args.files.split(","):
        lat = run(name, speech)
        rows.append(
            {
                "file": name,
                "turns": len(lat),
                "p50_ms": 1000 * statistics.median(lat),
                "p90_ms": 1000 * pct(lat, 0.9),
                "p50_after_silence_rule_ms": 1000 * (statistics.median(lat) - 0.5),
            }
        )
    for r in rows:
        print(
            " | ".join(f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items())
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
