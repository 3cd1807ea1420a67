"""Online diarization error rate on real recordings, through the SpeechWorker's turns.

    python benchmarks/speech_diarization.py [--files sample,ami_tst00,...] [--asr vad|whisper]
        [--out benchmarks/results/speech_diarization.json]

Each file is replayed as fast as possible through the SpeechWorker (Silero VAD, turn
tracker, online diarization); the speaker segments it emits are scored against the RTTM
with pyannote.metrics (no collar and 0.25 s collar, overlap counted). With ``--asr vad``
(the default) every voiced stretch stands for a word, so the score isolates diarization
from Whisper's dropped turns and the run takes seconds; ``--asr whisper`` uses the real
transcriber, as the product does. ``diar_s`` is the time spent inside the diarizer.

Where speech is lost: the same reference scored as speech detection alone (who speaks
ignored; pyannote's detection error, shares of the reference's speech time) at each stage
of the path: ``vad_*`` the frames the VAD segmenter calls voiced, ``turn_*`` the committed
turns' spans, ``seg_*`` the emitted speaker segments. What the segments miss beyond
``seg_miss`` is overlapped speech (a second voice not found); ``seg_fa`` is speech found
where nobody talks, the rest of ``false_alarm`` an extra voice where someone does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.events import InputLevel, Turn  # noqa: E402
from app.speech.diarization import ClusteringTuning, Diarizer, SpeakerSegment  # noqa: E402
from tests.speech.scoring import (  # noqa: E402
    DIARIZATION_CLIPS,
    VoicedWords,
    der,
    der_components,
    read_rttm,
)

DATA = ROOT.parent / "shared" / "data" / "audio_diarization"
FILES = DIARIZATION_CLIPS


class TimedDiarizer(Diarizer):
    seconds = 0.0

    def embed(self, audio: np.ndarray) -> Any:
        t = time.perf_counter()
        try:
            return super().embed(audio)
        finally:
            self.seconds += time.perf_counter() - t

    def label(self, emb: Any, start: float) -> Any:
        t = time.perf_counter()
        try:
            return super().label(emb, start)
        finally:
            self.seconds += time.perf_counter() - t


def reference(name: str) -> list[tuple[str, float, float]]:
    _, rttm, uri = FILES[name]
    return read_rttm(DATA / rttm, uri)


Span = tuple[float, float]


def detection(ref: list[tuple[str, float, float]], spans: list[Span], duration: float) -> Span:
    """Missed and falsely detected speech time (speakers ignored), shares of the speech."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.detection import DetectionErrorRate

    r, h = Annotation(), Annotation()
    for i, (_, a, b) in enumerate(ref):
        r[Segment(a, b), i] = "speech"
    for i, (a, b) in enumerate(spans):
        h[Segment(a, b), i] = "speech"
    d = DetectionErrorRate()(r, h, uem=Timeline([Segment(0.0, duration)]), detailed=True)
    total = max(d["total"], 1e-9)
    return d["miss"] / total, d["false alarm"] / total


def voiced_spans(levels: list[InputLevel], frame: float) -> list[Span]:
    """The frames the VAD called voiced, as spans (each level is stamped at its frame end)."""
    spans: list[list[float]] = []
    for level in levels:
        if not level.is_speech:
            continue
        if spans and level.time - frame <= spans[-1][1] + 1e-6:
            spans[-1][1] = level.time
        else:
            spans.append([level.time - frame, level.time])
    return [(a, b) for a, b in spans]


def stages(
    ref: list[tuple[str, float, float]], events: list[object], frame: float, duration: float
) -> dict[str, float]:
    levels = [e for e in events if isinstance(e, InputLevel)]
    turns = [(e.start, e.end) for e in events if isinstance(e, Turn)]
    segments = [(e.start, e.end) for e in events if isinstance(e, SpeakerSegment)]
    out: dict[str, float] = {}
    for stage, spans in (("vad", voiced_spans(levels, frame)), ("turn", turns),
                         ("seg", segments)):  # fmt: skip
        out[f"{stage}_miss"], out[f"{stage}_fa"] = detection(ref, spans, duration)
    return out


def run(
    name: str, asr: str, threshold: float | None, tuning: ClusteringTuning,
    speech: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    from dataclasses import replace

    from app.settings import SpeechSettings
    from app.speech.audio import FileSource
    from app.speech.turn_stage import TurnTuning
    from app.speech.worker import SpeechTuning, SpeechWorker

    settings = replace(SpeechSettings(), **speech)
    source = FileSource(DATA / FILES[name][0])
    match = settings.speaker_match_cosine if threshold is None else threshold
    diarizer = TimedDiarizer(
        threshold=match, tuning=tuning, change_window=settings.speaker_change_window,
        change_margin=settings.speaker_change_margin,
    )  # fmt: skip
    transcriber = VoicedWords() if asr == "vad" else None
    worker = SpeechWorker(
        source, settings, transcriber=transcriber, diarizer=diarizer,
        tuning=SpeechTuning(turns=TurnTuning(partials=False)),
    )  # fmt: skip
    events: list[object] = []
    worker.subscribe(events.append)
    wall = time.perf_counter()
    worker.run()
    wall = time.perf_counter() - wall
    segments = [e for e in events if isinstance(e, SpeakerSegment)]
    ref = reference(name)
    duration = source.duration
    frame = settings.frame_samples / settings.sample_rate
    return {
        "file": name,
        "seconds": round(duration, 1),
        "ref_speakers": len({r[0] for r in ref}),
        "hyp_speakers": len({s.speaker for s in segments}),
        "der": der(ref, segments, uem=(0.0, duration)),
        "der_collar": der(ref, segments, collar=0.25, uem=(0.0, duration)),
        **der_components(ref, segments, (0.0, duration)),
        **stages(ref, events, frame, duration),
        "diar_s": diarizer.seconds,
        "wall_s": wall,
    }


def table(rows: list[dict[str, Any]], cols: list[str]) -> None:
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        cells = [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in cols]
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--asr", choices=("vad", "whisper"), default="vad")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/speech_diarization.json"))
    parser.add_argument("--threshold", type=float, help="match cosine (default: settings)")
    parser.add_argument("--set", action="append", default=[], help="tuning field=value")
    parser.add_argument(
        "--speech", action="append", default=[], help="SpeechSettings field=value (number or bool)"
    )
    args = parser.parse_args()
    fields = {k: float(v) for k, v in (kv.split("=") for kv in args.set)}
    tuning = ClusteringTuning(**fields)  # type: ignore[arg-type]
    speech = {k: json.loads(v) for k, v in (kv.split("=") for kv in args.speech)}
    rows = [run(n, args.asr, args.threshold, tuning, speech) for n in args.files.split(",")]
    cols = ["file", "seconds", "ref_speakers", "hyp_speakers", "der", "der_collar"]
    cols += ["miss", "false_alarm", "confusion", "diar_s"]
    table(rows, cols)
    print("\nspeech detection per stage (speakers ignored):")
    table(rows, ["file"] + [f"{s}_{k}" for s in ("vad", "turn", "seg") for k in ("miss", "fa")])
    mean = np.mean([float(r["der"]) for r in rows])
    print(f"mean DER {mean:.3f}  (asr={args.asr} threshold={args.threshold} {fields} {speech})")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    report = {"asr": args.asr, "tuning": fields, "speech": speech, "rows": rows}
    Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
