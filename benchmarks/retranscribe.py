"""The live transcript against the one re-run after the meeting, on the AMI and pyannote
clips: diarization error rate and cpWER.

    python benchmarks/retranscribe.py [--files sample,ami_ES2004a,...] [--asr-model NAME]
        [--set step=0.25] [--out benchmarks/results/retranscribe.json]

Live: each clip goes through the SpeechWorker from a FileSource as fast as it is
processed (Silero VAD, the turn tracker, Whisper as SpeechSettings says, the online
diarizer), with ``keep_meeting_audio`` on and its events written to a session record by
the session hooks, as in a meeting. Re-run: ``app.retranscribe`` on that record (the best
Whisper model installed, or ``--asr-model``; pyannote.audio's community-1 pipeline where
pulled, else the embedded one with ``--set`` EmbeddedTuning fields).

DER: pyannote.metrics, no collar (and 0.25 s), overlap counted, over the whole clip; live
from the worker's speaker segments, re-run from the offline diarization. cpWER: each
speaker's words joined, speakers paired for the fewest errors (speech_pipeline.cpwer),
where the clip has speaker transcripts (the pyannote sample's sample.stm, the AMI
ES2004a minute's per-speaker word files). ``carried``: re-run speakers given a live
speaker's label by voice; ``carried_right``: of those, the ones whose live speaker is
mostly the same person (the reference speaker talking most in both).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.events import Turn  # noqa: E402
from app.speech.diarization import SpeakerSegment  # noqa: E402
from benchmarks.speech_pipeline import cpwer  # noqa: E402
from tests.speech.scoring import (  # noqa: E402
    DIARIZATION_CLIPS,
    der,
    pyannote_sample_stm,
    read_rttm,
    read_stm,
)

DATA = ROOT.parent / "shared" / "data" / "audio_diarization"
AMI_TEXT = DATA / "ami_ES2004a_mixture" / "text"

Rows = list[tuple[str, float, float]]


def reference_text(name: str) -> dict[str, str] | None:
    """Each reference speaker's words in time order, where the clip has them."""
    if name == "sample":
        stm = pyannote_sample_stm()
        if stm is None:
            return None
        out: dict[str, list[str]] = {}
        for who, _, _, text in sorted(read_stm(stm), key=lambda r: r[1]):
            out.setdefault(who, []).append(text)
        return {who: " ".join(parts) for who, parts in out.items()}
    if name == "ami_ES2004a" and AMI_TEXT.is_dir():
        return {p.name.split(".")[1]: p.read_text() for p in sorted(AMI_TEXT.glob("*.txt"))}
    return None


def by_speaker(turns: list[Turn]) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for turn in sorted(turns, key=lambda t: t.start):
        out.setdefault(turn.speaker, []).append(turn.text)
    return {who: " ".join(parts) for who, parts in out.items()}


def main_person(spans: list[tuple[float, float]], ref: Rows) -> str | None:
    """The reference speaker who talks most within ``spans``."""
    talk: dict[str, float] = {}
    for a, b in spans:
        for who, c, d in ref:
            talk[who] = talk.get(who, 0.0) + max(0.0, min(b, d) - max(a, c))
    best = max(talk, key=lambda w: talk[w], default=None)
    return best if best is not None and talk[best] > 0 else None


def live_run(name: str, folder: Path, settings: Any) -> tuple[Path, list[object], float, float]:
    from app.pipeline.session_hooks import SessionHooks
    from app.session.record import SessionRecord
    from app.speech.audio import FileSource
    from app.speech.turn_stage import TurnTuning
    from app.speech.worker import SpeechTuning, SpeechWorker

    source = FileSource(DATA / DIARIZATION_CLIPS[name][0])
    worker = SpeechWorker(source, settings, tuning=SpeechTuning(turns=TurnTuning(partials=False)),
                          audio_path=folder / f"{name}.wav")  # fmt: skip
    events: list[object] = []
    with SessionRecord(folder / f"{name}.jsonl") as record:
        record.append("session_started", document=None, audio=name)
        hooks = SessionHooks(record)
        worker.subscribe(events.append)
        worker.subscribe(hooks.on_event)
        wall = time.perf_counter()
        worker.run()
        wall = time.perf_counter() - wall
    return record.path, events, source.duration, wall


def score(name: str, retranscriber: Any, folder: Path, settings: Any) -> dict[str, Any]:
    from app.session.record import read_record

    _, rttm, uri = DIARIZATION_CLIPS[name]
    ref = read_rttm(DATA / rttm, uri)
    record, events, duration, live_wall = live_run(name, folder, settings)
    live_segments = [e for e in events if isinstance(e, SpeakerSegment)]
    live_turns = [e for e in events if isinstance(e, Turn)]
    wall = time.perf_counter()
    result = retranscriber.run(read_record(record))
    rerun_wall = time.perf_counter() - wall
    words = reference_text(name)
    uem = (0.0, duration)
    row: dict[str, Any] = {
        "file": name,
        "seconds": round(duration, 1),
        "ref_speakers": len({r[0] for r in ref}),
        "live_speakers": len({s.speaker for s in live_segments}),
        "rerun_speakers": len(result.diarization.speakers),
        "live_der": der(ref, live_segments, uem=uem),
        "rerun_der": der(ref, result.diarization.segments, uem=uem),
        "live_der_collar": der(ref, live_segments, collar=0.25, uem=uem),
        "rerun_der_collar": der(ref, result.diarization.segments, collar=0.25, uem=uem),
        "live_cpwer": cpwer(words, by_speaker(live_turns)) if words else None,
        "rerun_cpwer": cpwer(words, by_speaker(result.turns)) if words else None,
        **carried(result, live_turns, ref),
        "live_s": round(live_wall, 1),
        "rerun_s": round(rerun_wall, 1),
        **{f"{k}_s": round(v, 1) for k, v in result.timings.items()},
        "rerun_rtf": round(rerun_wall / duration, 2),
        "asr": result.model,
        "diarization": str(result.diarization.pipeline),
    }
    return row


def carried(result: Any, live_turns: list[Turn], ref: Rows) -> dict[str, int]:
    right = 0
    for match in result.matches.values():
        live = [(t.start, t.end) for t in live_turns if t.speaker == match.who]
        rerun = [(s.start, s.end) for s in result.diarization.exclusive
                 if s.speaker == match.rerun]  # fmt: skip
        person = main_person(live, ref)
        right += int(person is not None and person == main_person(rerun, ref))
    return {"carried": len(result.matches), "carried_right": right}


def fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(rows: list[dict[str, Any]], cols: list[str]) -> None:
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        print("| " + " | ".join(fmt(row.get(c)) for c in cols) + " |")


def main() -> int:
    from app.retranscribe.diarization import EmbeddedTuning, OfflineDiarizer
    from app.retranscribe.run import Retranscriber
    from app.retranscribe.transcript import AsrChoice, WholeRecording, best_asr_model
    from app.settings import SpeechSettings

    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default=",".join(DIARIZATION_CLIPS))
    parser.add_argument("--asr-model", help="a model store name, e.g. whisper-base")
    parser.add_argument("--set", action="append", default=[], help="EmbeddedTuning field=value")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/retranscribe.json"))
    args = parser.parse_args()
    fields = {k: json.loads(v) for k, v in (kv.split("=") for kv in args.set)}
    if args.asr_model:
        from app.models import resolve

        choice = AsrChoice(args.asr_model, Path(resolve(args.asr_model)))
    else:
        choice = best_asr_model()
    retranscriber = Retranscriber(
        asr=WholeRecording(choice), diarizer=OfflineDiarizer(tuning=EmbeddedTuning(**fields))
    )
    settings = replace(SpeechSettings(), keep_meeting_audio=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [score(n, retranscriber, Path(tmp), settings) for n in args.files.split(",")]
    cols = ["file", "seconds", "ref_speakers", "live_speakers", "rerun_speakers", "live_der",
            "rerun_der", "live_der_collar", "rerun_der_collar", "live_cpwer", "rerun_cpwer",
            "carried", "carried_right"]  # fmt: skip
    table(rows, cols)
    print()
    table(rows, ["file", "live_s", "rerun_s", "asr_s", "diarization_s", "names_s", "rerun_rtf"])
    print(f"\nlive: Whisper {settings.asr_model} (worker); re-run: {choice.name}, "
          f"{rows[0]['diarization'] if rows else ''} {fields}")  # fmt: skip
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    report = {"asr": choice.name, "live_asr": settings.asr_model, "tuning": fields, "rows": rows}
    Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
