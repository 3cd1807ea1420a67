"""Reference readers and scores shared by the speech tests and benchmarks."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from app.speech.asr import Word
from app.speech.diarization import SpeakerSegment

# The clips with references in shared/data/audio_diarization: wav, rttm, recording id in
# the rttm (None where the file holds one recording only).
DIARIZATION_CLIPS = {
    "sample": ("pyannote_sample/sample.wav", "pyannote_sample/sample.rttm", None),
    "ami_ES2004a": ("ami_ES2004a_mixture/mixture.wav", "ami_ES2004a_mixture/mixture.rttm", None),
    "ami_tst00": ("ami_debug/tst00.wav", "ami_debug/debug.test.rttm", "tst00"),
    "ami_tst01": ("ami_debug/tst01.wav", "ami_debug/debug.test.rttm", "tst01"),
    "ami_dev00": ("ami_debug/dev00.wav", "ami_debug/debug.development.rttm", "dev00"),
}


def rttm_recordings(path: Path) -> list[str]:
    """The recording ids an RTTM file annotates, in the order they first appear."""
    lines = map(str.split, path.read_text().splitlines())
    return list(dict.fromkeys(f[1] for f in lines if len(f) > 1 and f[0] == "SPEAKER"))


def read_rttm(path: Path, uri: str | None = None) -> list[tuple[str, float, float]]:
    """(speaker, start, end) rows, of one recording only when ``uri`` is given."""
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER" and (uri is None or f[1] == uri):
            rows.append((f[7], float(f[3]), float(f[3]) + float(f[4])))
    return rows


def der(
    reference: list[tuple[str, float, float]],
    segments: list[SpeakerSegment],
    collar: float = 0.0,
    uem: tuple[float, float] | None = None,
) -> float:
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    ref, hyp = Annotation(), Annotation()
    for i, (spk, a, b) in enumerate(reference):
        ref[Segment(a, b), i] = spk
    for i, seg in enumerate(segments):
        hyp[Segment(seg.start, seg.end), i] = seg.speaker
    metric = DiarizationErrorRate(collar=collar, skip_overlap=False)
    extent = (
        Timeline([Segment(*uem)]) if uem else ref.get_timeline().union(hyp.get_timeline()).extent()
    )
    if not isinstance(extent, Timeline):
        extent = Timeline([extent])
    return float(metric(ref, hyp, uem=extent))


def pyannote_sample_stm() -> Path | None:
    """The transcript shipped inside the pyannote.audio wheel, when it is installed."""
    spec = importlib.util.find_spec("pyannote.audio")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "sample" / "sample.stm"
    return path if path.is_file() else None


def read_stm(path: Path) -> list[tuple[str, float, float, str]]:
    rows = []
    for line in path.read_text().splitlines():
        f = line.split(maxsplit=5)
        if len(f) == 6:
            rows.append((f[2], float(f[3]), float(f[4]), f[5]))
    return rows



def der_components(
    reference: list[tuple[str, float, float]],
    segments: list[SpeakerSegment],
    uem: tuple[float, float],
) -> dict[str, float]:
    """Missed speech, false alarm and confusion, each a share of the reference speech."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    ref, hyp = Annotation(), Annotation()
    for i, (spk, a, b) in enumerate(reference):
        ref[Segment(a, b), i] = spk
    for i, seg in enumerate(segments):
        hyp[Segment(seg.start, seg.end), i] = seg.speaker
    d = DiarizationErrorRate()(ref, hyp, uem=Timeline([Segment(*uem)]), detailed=True)
    total = max(d["total"], 1e-9)
    return {
        "miss": d["missed detection"] / total,
        "false_alarm": d["false alarm"] / total,
        "confusion": d["confusion"] / total,
    }


def clip_reference(name: str, root: Path) -> tuple[Path, list[tuple[str, float, float]]]:
    """A diarization clip's WAV and its reference rows, under ``root``."""
    wav, rttm, uri = DIARIZATION_CLIPS[name]
    return root / wav, read_rttm(root / rttm, uri)


class VoicedWords:
    """A transcriber that hears one word per 0.5 s of the audio it is given, so every
    voiced turn commits and a score isolates the VAD, turns and diarization."""

    def transcribe(
        self, audio: np.ndarray, offset: float, prompt: str = "", voiced_seconds: float = 99.0
    ) -> list[Word]:
        n = max(1, int(audio.size / 8000))
        step = audio.size / 16000 / n
        return [Word(offset + i * step, offset + (i + 1) * step, f"w{i}") for i in range(n)]


def unit(*xs: float) -> np.ndarray:
    """A unit vector of 8 dimensions with ``xs`` first: a made-up speaker embedding."""
    v = np.zeros(8)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def worker_events(name: str, **speech: Any) -> tuple[list[tuple[str, float, float]], list]:
    """A diarization clip's reference, and every event a SpeechWorker emits on it with the
    ``SpeechSettings`` fields given (every voiced stretch heard as words)."""
    from app.settings import SpeechSettings
    from app.speech.audio import FileSource
    from app.speech.turn_stage import TurnTuning
    from app.speech.worker import SpeechTuning, SpeechWorker
    from tests.conftest import shared_path

    wav, reference = clip_reference(name, shared_path("data/audio_diarization"))
    tuning = SpeechTuning(turns=TurnTuning(partials=False))
    worker = SpeechWorker(FileSource(wav), replace(SpeechSettings(), **speech),
                          transcriber=VoicedWords(), tuning=tuning)
    events: list[object] = []
    worker.subscribe(events.append)
    worker.run()
    return reference, events
