"""Speech pipeline accuracy and speed on real recordings with references.

    python benchmarks/speech_pipeline.py [--files sample,ami_tst00,...] [--no-partials]
        [--out benchmarks/results/speech_pipeline.json]

Runs the whole SpeechWorker (Silero VAD, Whisper tiny.en int8, CAM++ online diarization,
openWakeWord) as fast as possible on each file and prints, per file: DER (pyannote.metrics,
no collar and 0.25 s collar), WER (pyannote sample transcript) or cpWER (AMI ES2004a
per-speaker references), and the real-time factor (wall and CPU seconds per audio second).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.events import Turn  # noqa: E402
from app.speech.diarization import SpeakerSegment  # noqa: E402
from tests.speech.scoring import (  # noqa: E402
    DIARIZATION_CLIPS,
    der,
    pyannote_sample_stm,
    read_rttm,
    read_stm,
)

DATA = ROOT.parent / "shared" / "data" / "audio_diarization"
FILES = DIARIZATION_CLIPS


def clean(text: str) -> list[str]:
    from app.speech.asr import normalize

    return [w for w in (normalize(t) for t in text.replace("_", "").split()) if w]


def errors(ref: list[str], hyp: list[str]) -> int:
    import jiwer

    if not ref:
        return len(hyp)
    if not hyp:
        return len(ref)
    out = jiwer.process_words(" ".join(ref), " ".join(hyp))
    return int(out.substitutions + out.deletions + out.insertions)


def cpwer(refs: dict[str, str], hyps: dict[str, str]) -> float:
    """Concatenated minimum-permutation WER (speakers matched to minimise errors)."""
    r = {k: clean(v) for k, v in refs.items()}
    h = {k: clean(v) for k, v in hyps.items()}
    rk, hk = list(r), list(h)
    hk += [""] * max(0, len(rk) - len(hk))
    h[""] = []
    best = min(
        sum(errors(r[a], h[b]) for a, b in zip(rk, perm, strict=False))
        + sum(len(h[b]) for b in hk if b not in perm)
        for perm in itertools.permutations(hk, len(rk))
    )
    return best / max(1, sum(len(v) for v in r.values()))


def run(name: str, partials: bool) -> dict[str, float | str]:
    from app.speech.audio import FileSource
    from app.speech.turn_stage import TurnTuning
    from app.speech.wake import WakeWordDetector
    from app.speech.worker import SpeechTuning, SpeechWorker

    wav, rttm, uri = FILES[name]
    source = FileSource(DATA / wav)
    tuning = SpeechTuning(turns=TurnTuning(partials=partials))
    worker = SpeechWorker(source, wake=WakeWordDetector(), tuning=tuning)
    turns: list[Turn] = []
    segments: list[SpeakerSegment] = []
    worker.subscribe(lambda e: turns.append(e) if isinstance(e, Turn) else None)
    worker.subscribe(lambda e: segments.append(e) if isinstance(e, SpeakerSegment) else None)
    wall, cpu = time.perf_counter(), time.process_time()
    worker.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    reference = read_rttm(DATA / rttm, uri)
    duration = source.duration
    row: dict[str, float | str] = {
        "file": name,
        "seconds": round(duration, 1),
        "ref_speakers": len({r[0] for r in reference}),
        "hyp_speakers": len({s.speaker for s in segments}),
        "der": der(reference, segments, uem=(0.0, duration)),
        "der_collar": der(reference, segments, collar=0.25, uem=(0.0, duration)),
        "rtf_wall": wall / duration,
        "rtf_cpu": cpu / duration,
        "turns": len(turns),
    }
    if name == "sample" and (stm := pyannote_sample_stm()) is not None:
        ref = clean(" ".join(r[3] for r in read_stm(stm)))
        row["wer"] = errors(ref, clean(" ".join(t.text for t in turns))) / len(ref)
    if name == "ami_ES2004a":
        text_dir = DATA / "ami_ES2004a_mixture" / "text"
        refs = {p.name.split(".")[1]: p.read_text() for p in sorted(text_dir.glob("*.txt"))}
        hyps: dict[str, str] = {}
        for t in turns:
            hyps[t.speaker] = (hyps.get(t.speaker, "") + " " + t.text).strip()
        row["cpwer"] = cpwer(refs, hyps)
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--no-partials", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/speech_pipeline.json"))
    args = parser.parse_args()
    rows = [run(name, not args.no_partials) for name in args.files.split(",")]
    cols = [
        "file",
        "seconds",
        "ref_speakers",
        "hyp_speakers",
        "der",
        "der_collar",
        "wer",
        "cpwer",
        "rtf_wall",
        "rtf_cpu",
        "turns",
    ]
    print(" | ".join(cols))
    for row in rows:
        print(
            " | ".join(
                f"{row[c]:.3f}" if isinstance(row.get(c), float) else str(row.get(c, "-"))
                for c in cols
            )
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
