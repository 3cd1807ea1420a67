"""Named voices: how often a remembered speaker is recognised by name in a later clip.

    python benchmarks/voiceprints.py [--thresholds 0.4,0.45,...] [--cache FILE]
        [--out benchmarks/results/voiceprints.json]

Every clip of shared/data/audio_diarization is cut in two at half its length. The first
half enrols each reference speaker, in one of two ways:

- ``rename``: the first half goes through the online diarizer and each session speaker
  is named after the reference speaker it overlaps most, as a user renaming speakers in
  the window would; its voiceprint is the product's (``clusters.voiceprint``).
- ``enrol``: six seconds of the speaker's solo reference speech, through ``enrol`` (the
  "say a sentence" path of the settings dialog).

All prints of all clips share one store, so every other clip's people are there to be
mistaken for. The second half then goes through a fresh diarizer that knows the store,
and each reference speaker of it is scored by the session speaker that covers most of
their speech: ``correct`` (it took their name), ``wrong`` (another name) or ``unnamed``;
``*_s`` weigh the same by seconds of the speaker's speech; ``others named`` counts the
second half's speakers who were not enrolled yet got a name (a session speaker that mixes
two people, or a voice taken for another). ``later_clip`` recognises the whole of tst01
(the same four AMI EN2002 participants as tst00) with the prints enrolled from the whole
of tst00; ``strangers`` runs every second half with its own clip's prints removed, so any
name given there is a false one. Turns are cut at the reference's pauses
(as in tests/speech/test_diarization.py), which keeps the voice activity detector out
of the score; the diarizer's expensive half runs once per turn and the cheap half is
replayed for each threshold.

What it found (CPU, the clips of shared/data): at 0.6, no stranger is named (0 of 10),
3 of 4 renamed speakers and 2 of 3 enrolled ones are named right in the second half and
none wrong; 2 of 6 speakers never enrolled share a session speaker with an enrolled one
and so show that name (a diarization merge, not a voice taken for another). Below 0.6
strangers start taking names (2 of 10 at 0.5-0.55). The clips are short and overlapped:
most first halves hold under 2 s of solo speech for some speakers, which is why several
are not enrolled, and tst01's only talker (FEO070) cannot be enrolled from tst00 at all,
so the later-clip row stays empty on this data.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.settings import SpeechSettings  # noqa: E402
from app.speech.diarization import (  # noqa: E402
    ClusteringTuning,
    Diarizer,
    SpeakerSegment,
    TurnEmbedding,
)
from app.speech.voiceprints import EnrolmentError, Voiceprint, enrol  # noqa: E402
from tests.speech.scoring import DIARIZATION_CLIPS, read_rttm  # noqa: E402
from tests.speech.test_diarization import oracle_turns  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "audio_diarization"
RATE = 16000
ENROL_AUDIO = 6.0  # seconds of solo reference speech an enrolment gets
MIN_SPEECH = 1.0  # a reference speaker with less speech in a second half is not scored
Rows = list[tuple[str, float, float]]


@dataclass
class Clip:
    name: str
    audio: np.ndarray
    reference: Rows
    duration: float

    @property
    def middle(self) -> float:
        return self.duration / 2


def load_clip(name: str) -> Clip:
    import soundfile as sf

    wav, rttm, uri = DIARIZATION_CLIPS[name]
    audio, rate = sf.read(DATA / wav, dtype="float32")
    assert rate == RATE, rate
    return Clip(name, audio, read_rttm(DATA / rttm, uri), audio.size / RATE)


def clipped(rows: Rows, lo: float, hi: float) -> Rows:
    return [(s, max(a, lo), min(b, hi)) for s, a, b in rows if min(b, hi) > max(a, lo)]


def turns(rows: Rows, lo: float, hi: float) -> list[tuple[float, float]]:
    return [(a, b) for a, b in oracle_turns(clipped(rows, lo, hi)) if b - a >= 0.05]


def embed_turns(
    diarizer: Diarizer, clip: Clip, lo: float, hi: float
) -> list[tuple[float, TurnEmbedding]]:
    """The expensive half of every turn between ``lo`` and ``hi`` (seconds)."""
    out = []
    for a, b in turns(clip.reference, lo, hi):
        start = max(lo, a - 0.2)
        audio = clip.audio[int(start * RATE) : int(b * RATE)]
        out.append((start, diarizer.embed(audio)))
    return out


def overlap(a: float, b: float, c: float, d: float) -> float:
    return max(0.0, min(b, d) - max(a, c))


def coverage(rows: Rows, segments: list[SpeakerSegment]) -> dict[str, dict[str, float]]:
    """Seconds of each reference speaker's speech under each session label."""
    table: dict[str, dict[str, float]] = {}
    for spk, a, b in rows:
        for seg in segments:
            shared = overlap(a, b, seg.start, seg.end)
            if shared > 0:
                row = table.setdefault(spk, {})
                row[seg.speaker] = row.get(seg.speaker, 0.0) + shared
    return table


def replay(
    embeddings: list[tuple[float, TurnEmbedding]],
    prints: list[Voiceprint],
    threshold: float,
    tuning: ClusteringTuning,
    match: float,
) -> tuple[Diarizer, list[SpeakerSegment]]:
    """The cheap half of the diarizer over cached turns, with ``prints`` remembered."""
    diarizer = Diarizer(embedder=_NO_EMBEDDER, threshold=match, segmenter=_NO_SEGMENTER,
                        tuning=tuning)  # fmt: skip
    diarizer.know(prints, threshold)
    segments: list[SpeakerSegment] = []
    for start, emb in embeddings:
        segments += diarizer.label(emb, start)[1]
    return diarizer, segments


class _Unused:
    """Stands in for the models in a replay, which only runs the cheap half."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a replay does not embed ({name})")


_NO_EMBEDDER: Any = _Unused()
_NO_SEGMENTER: Any = _Unused()


def renamed_prints(
    clip: Clip,
    heard: list[tuple[float, TurnEmbedding]],
    tuning: ClusteringTuning,
    match: float,
    until: float,
) -> list[Voiceprint]:
    """Each reference speaker's print as a user renaming the turns heard until ``until``
    (seconds) would make it."""
    diarizer, segments = replay(heard, [], 1.0, tuning, match)
    table = coverage(clipped(clip.reference, 0.0, until), segments)
    prints = []
    for spk, row in table.items():
        label = max(row, key=lambda k: row[k])
        label = diarizer.clusters.resolve(label)
        # the user names a session speaker after the person it shows most of
        owner = max(table, key=lambda s: table[s].get(label, 0.0))
        if owner == spk:
            prints.append(diarizer.clusters.voiceprint(label, spk, 0.0))
    return prints


def solo_audio(clip: Clip, speaker: str, lo: float, hi: float) -> np.ndarray:
    """The speaker's speech where no one else talks, up to ``ENROL_AUDIO`` seconds."""
    n = clip.audio.size
    mine, others = np.zeros(n, bool), np.zeros(n, bool)
    for spk, a, b in clipped(clip.reference, lo, hi):
        mask = mine if spk == speaker else others
        mask[int(a * RATE) : int(b * RATE)] = True
    return clip.audio[mine & ~others][: int(ENROL_AUDIO * RATE)]


def enrolled_prints(
    clip: Clip, embedder: Any, until: float
) -> tuple[list[Voiceprint], list[str]]:
    prints, skipped = [], []
    for spk in sorted({r[0] for r in clip.reference}):
        try:
            prints.append(enrol(spk, solo_audio(clip, spk, 0.0, until), embedder, 0.0))
        except EnrolmentError:
            skipped.append(spk)
    return prints, skipped


def name_of(diarizer: Diarizer, label: str) -> str | None:
    clusters = diarizer.clusters
    return clusters.names.get(clusters.resolve(label))


def score(
    rows: Rows,
    diarizer: Diarizer,
    segments: list[SpeakerSegment],
    enrolled: set[str],
) -> list[dict[str, Any]]:
    """Per reference speaker: the name their session speaker got and the seconds of their
    speech under their own name, another, or none."""
    out = []
    for spk, row in sorted(coverage(rows, segments).items()):
        seconds = sum(b - a for s, a, b in rows if s == spk)
        if seconds < MIN_SPEECH:
            continue
        names: dict[str, float] = {}
        for label, shared in row.items():
            kind = name_of(diarizer, label) or "unnamed"
            names[kind] = names.get(kind, 0.0) + shared
        named = name_of(diarizer, max(row, key=lambda k: row[k]))
        verdict = "unnamed" if named is None else ("correct" if named == spk else "wrong")
        heard = max(sum(row.values()), 1e-9)
        out.append({
            "speaker": spk,
            "enrolled": spk in enrolled,
            "seconds": round(seconds, 1),
            "name": named,
            "verdict": verdict,
            "correct_s": round(names.get(spk, 0.0) / heard, 3),
            "wrong_s": round(sum(v for k, v in names.items() if k not in (spk, "unnamed"))
                             / heard, 3),
            "unnamed_s": round(names.get("unnamed", 0.0) / heard, 3),
        })  # fmt: skip
    return out


def centroid_scores(
    rows: Rows, diarizer: Diarizer, segments: list[SpeakerSegment], prints: list[Voiceprint]
) -> list[tuple[float, bool]]:
    """Cosine of each second-half speaker's final centroid to every print, and whether
    the print is that speaker's own (the separation the threshold has to find)."""
    out = []
    table = coverage(rows, segments)
    for spk, row in table.items():
        label = diarizer.clusters.resolve(max(row, key=lambda k: row[k]))
        index = int(label[1:]) - 1
        centroid = diarizer.clusters._prints[index].centroid
        out += [(p.score(centroid), p.name == spk) for p in prints]
    return out


def tally(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    every = list(rows)
    rows = [r for r in every if r["enrolled"]]
    others = [r for r in every if not r["enrolled"]]
    n = max(len(rows), 1)
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("correct", "wrong", "unnamed")}
    return {
        "speakers": len(rows),
        "others": len(others),
        "others_named": sum(r["name"] is not None for r in others),
        **counts,
        **{f"{k}_s": round(float(np.mean([r[f"{k}_s"] for r in rows] or [0.0])), 3)
           for k in ("correct", "wrong", "unnamed")},
        "recognised": round(counts["correct"] / n, 3),
    }  # fmt: skip


def strangers(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    named = [r for r in rows if r["name"] is not None]
    return {"speakers": len(rows), "falsely_named": len(named),
            "wrong_s": round(float(np.mean([r["wrong_s"] for r in rows] or [0.0])), 3)}  # fmt: skip


def embeddings(
    clips: dict[str, Clip], cache: Path | None
) -> dict[str, list[tuple[float, TurnEmbedding]]]:
    """First and second halves of every clip, and the whole of tst01, embedded once."""
    if cache is not None and cache.exists():
        with cache.open("rb") as f:
            return pickle.load(f)  # noqa: S301 - our own cache file
    diarizer = Diarizer()
    out: dict[str, list[tuple[float, TurnEmbedding]]] = {}
    for name, clip in clips.items():
        t = time.perf_counter()
        if name == "ami_tst01":
            out[f"{name}/all"] = embed_turns(diarizer, clip, 0.0, clip.duration)
        else:
            out[f"{name}/first"] = embed_turns(diarizer, clip, 0.0, clip.middle)
            out[f"{name}/second"] = embed_turns(diarizer, clip, clip.middle, clip.duration)
        print(f"embedded {name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("wb") as f:
            pickle.dump(out, f)
    return out


def evaluate(
    clips: dict[str, Clip],
    emb: dict[str, list[tuple[float, TurnEmbedding]]],
    pools: dict[str, list[Voiceprint]],
    whole: list[Voiceprint],
    threshold: float,
    tuning: ClusteringTuning,
    match: float,
) -> dict[str, Any]:
    """One mode's prints at one threshold: halves, the later clip and strangers."""
    every = [p for prints in pools.values() for p in prints]
    halves, later, unknown = [], [], []
    for name, clip in clips.items():
        if name == "ami_tst01":
            continue
        rows = clipped(clip.reference, clip.middle, clip.duration)
        mine = {p.name for p in pools[name]}
        d, segs = replay(emb[f"{name}/second"], every, threshold, tuning, match)
        halves += [{"clip": name, **r} for r in score(rows, d, segs, mine)]
        others = [p for p in every if p.name not in mine]
        d, segs = replay(emb[f"{name}/second"], others, threshold, tuning, match)
        unknown += [{"clip": name, **r} for r in score(rows, d, segs, set())]
    if "ami_tst01" in clips and whole:
        clip = clips["ami_tst01"]
        mine = {p.name for p in whole}
        store = whole + [p for n, prints in pools.items() if n != "ami_tst00" for p in prints]
        d, segs = replay(emb["ami_tst01/all"], store, threshold, tuning, match)
        later = [{"clip": "ami_tst01", **r} for r in score(clip.reference, d, segs, mine)]
    return {
        "threshold": threshold,
        "halves": tally(halves),
        "later_clip": tally(later),
        "strangers": strangers(unknown),
        "rows": {"halves": halves, "later_clip": later, "strangers": unknown},
    }


def separation(
    clips: dict[str, Clip],
    emb: dict[str, list[tuple[float, TurnEmbedding]]],
    pools: dict[str, list[Voiceprint]],
    tuning: ClusteringTuning,
    match: float,
) -> dict[str, float]:
    every = [p for prints in pools.values() for p in prints]
    pairs: list[tuple[float, bool]] = []
    for name, clip in clips.items():
        key = f"{name}/all" if name == "ami_tst01" else f"{name}/second"
        lo = 0.0 if name == "ami_tst01" else clip.middle
        d, segs = replay(emb[key], [], 1.0, tuning, match)
        pairs += centroid_scores(clipped(clip.reference, lo, clip.duration), d, segs, every)
    same = [s for s, own in pairs if own]
    other = [s for s, own in pairs if not own]
    return {
        "same_min": round(min(same), 3), "same_median": round(float(np.median(same)), 3),
        "other_max": round(max(other), 3), "other_median": round(float(np.median(other)), 3),
        "other_p99": round(float(np.percentile(other, 99)), 3),
        "pairs_same": len(same), "pairs_other": len(other),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--thresholds", default="0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75")
    parser.add_argument("--recognise-after", default="2,4", help="seconds, comma-separated")
    parser.add_argument("--cache", type=Path, help="pickle of the turn embeddings (reused)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/voiceprints.json"))
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"no clips: {DATA} is absent", file=sys.stderr)
        return 1
    match = SpeechSettings().speaker_match_cosine
    clips = {name: load_clip(name) for name in DIARIZATION_CLIPS}
    emb = embeddings(clips, args.cache)
    from app.speech.diarization import CamppEmbedder

    embedder = CamppEmbedder()
    results: list[dict[str, Any]] = []
    seps: dict[str, Any] = {}
    skipped: dict[str, list[str]] = {}
    enrolled: dict[str, list[Voiceprint]] = {}
    for name, clip in clips.items():
        if name != "ami_tst01":
            enrolled[name], skipped[name] = enrolled_prints(clip, embedder, clip.middle)
    tst00 = clips["ami_tst00"]
    enrolled_whole, skipped["ami_tst00/all"] = enrolled_prints(tst00, embedder, tst00.duration)
    for after in [float(x) for x in args.recognise_after.split(",")]:
        tuning = replace(ClusteringTuning(), recognise_after=after)
        renamed = {name: renamed_prints(clip, emb[f"{name}/first"], tuning, match, clip.middle)
                   for name, clip in clips.items() if name != "ami_tst01"}  # fmt: skip
        heard = emb["ami_tst00/first"] + emb["ami_tst00/second"]
        renamed_whole = renamed_prints(tst00, heard, tuning, match, tst00.duration)
        pools = {"rename": (renamed, renamed_whole), "enrol": (enrolled, enrolled_whole)}
        for mode, (pool, whole) in pools.items():
            seps[f"{mode}/after={after:g}"] = separation(clips, emb, pool, tuning, match)
            for threshold in [float(x) for x in args.thresholds.split(",")]:
                result = evaluate(clips, emb, pool, whole, threshold, tuning, match)
                results.append({"mode": mode, "recognise_after": after, **result})
    print_table(results, seps)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    report = {"match_cosine": match, "enrol_audio_s": ENROL_AUDIO,
              "enrol_skipped": skipped, "separation": seps, "results": results}  # fmt: skip
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")
    return 0


def print_table(results: list[dict[str, Any]], seps: dict[str, Any]) -> None:
    cols = ["mode", "after", "thr", "halves c/w/u of n", "halves correct_s", "halves wrong_s",
            "others named", "later c/w/u of n", "strangers named"]  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in results:
        h, lc, st = r["halves"], r["later_clip"], r["strangers"]
        cells = [
            r["mode"], f"{r['recognise_after']:g}", f"{r['threshold']:.2f}",
            f"{h['correct']}/{h['wrong']}/{h['unnamed']} of {h['speakers']}",
            f"{h['correct_s']:.2f}", f"{h['wrong_s']:.2f}", f"{h['others_named']} of {h['others']}",
            f"{lc['correct']}/{lc['wrong']}/{lc['unnamed']} of {lc['speakers']}",
            f"{st['falsely_named']} of {st['speakers']}",
        ]  # fmt: skip
        print("| " + " | ".join(cells) + " |")
    print()
    for key, sep in seps.items():
        print(f"{key}: own print cosine min {sep['same_min']} median {sep['same_median']};"
              f" other prints max {sep['other_max']} p99 {sep['other_p99']}"
              f" median {sep['other_median']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
