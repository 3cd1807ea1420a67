"""The live session's speakers carried over to the re-run ones, by voice.

Each speaker of the record (by the name it is shown with, or its session label) gets a
voiceprint from the kept audio of its live turns, each re-run speaker one from its own
segments, both with the live diarizer's CAM++ embedder; a re-run speaker takes the live
speaker whose print its centroid matches at the live clustering's cosine or above, the
best-scoring pair first and no live speaker twice (app.speech.voiceprints.best_match).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.events import is_speaker_label
from app.session.export import speaker_names
from app.speech.diarization import SpeakerSegment
from app.speech.voiceprints import Embedder, Voiceprint, best_match, voiceprint

RATE = 16000
MIN_SPAN = 0.5  # seconds: shorter stretches say too little about a voice
MAX_SPAN = 10.0  # seconds: longer stretches are embedded in pieces of this length

Span = tuple[float, float]


@dataclass(frozen=True)
class NameMatch:
    rerun: str  # the re-run speaker (R1, R2, ...)
    who: str  # the live speaker it is: a name, or a session label for an unnamed one
    score: float  # cosine of the two voiceprints' centroids


def live_spans(entries: Iterable[dict[str, Any]]) -> dict[str, list[Span]]:
    """Where each live speaker talks, by the name the export shows it with (a merged or
    renamed label counts as the speaker it became)."""
    entries = list(entries)
    names = speaker_names(entries)
    spans: dict[str, list[Span]] = {}
    for e in entries:
        if e.get("kind") != "turn" or not e.get("speaker"):
            continue
        who = names.get(str(e["speaker"]), str(e["speaker"]))
        spans.setdefault(who, []).append((float(e.get("start", 0)), float(e.get("end", 0))))
    return spans


def rerun_spans(segments: Iterable[SpeakerSegment]) -> dict[str, list[Span]]:
    spans: dict[str, list[Span]] = {}
    for seg in segments:
        spans.setdefault(seg.speaker, []).append((seg.start, seg.end))
    return spans


def _pieces(spans: list[Span]) -> list[Span]:
    out = []
    for start, end in spans:
        while end - start >= MIN_SPAN:
            out.append((start, min(end, start + MAX_SPAN)))
            start += MAX_SPAN
    return out


def voiceprints_of(
    spans: dict[str, list[Span]], audio: np.ndarray, embedder: Embedder, now: float
) -> list[Voiceprint]:
    """One print per speaker with enough speech, from its stretches of ``audio``."""
    prints = []
    for who, own in spans.items():
        pieces = [(a, b) for a, b in _pieces(own) if int(a * RATE) < audio.size]
        clips = [audio[int(a * RATE) : int(b * RATE)] for a, b in pieces]
        clips = [c for c in clips if c.size >= MIN_SPAN * RATE]
        if clips:
            vectors = list(embedder.embed(clips))
            prints.append(voiceprint(who, vectors, [c.size / RATE for c in clips], now))
    return prints


def match_speakers(
    rerun: list[Voiceprint], live: list[Voiceprint], threshold: float
) -> dict[str, NameMatch]:
    """Re-run speaker -> the live speaker it is, the most alike pair first; a re-run
    speaker no live one matches at ``threshold`` is left out."""
    found: dict[str, NameMatch] = {}
    while True:
        taken = [m.who for m in found.values()]
        options = [
            (match.score, p.name, match.name)
            for p in rerun
            if p.name not in found and (match := best_match(p.centroid, live, threshold, taken))
        ]
        if not options:
            return found
        score, name, who = max(options)
        found[name] = NameMatch(name, who, score)


def shown_as(matches: dict[str, NameMatch], rerun: Iterable[str], live: Iterable[str]
             ) -> dict[str, str]:  # fmt: skip
    """What each re-run speaker is called: its live speaker's name or label, else a new
    session label after every label the live session used (so none is mistaken for a
    live speaker)."""
    numbers = [int(m.group(1)) for who in live if (m := re.fullmatch(r"S(\d+)", who))]
    following = max(numbers, default=0)
    names: dict[str, str] = {}
    for speaker in sorted(rerun, key=_order):
        if speaker in matches:
            names[speaker] = matches[speaker].who
        else:
            following += 1
            names[speaker] = f"S{following}"
    return names


def record_labels(entries: Iterable[dict[str, Any]]) -> set[str]:
    """Every session label the record mentions (turns and renames)."""
    return {
        str(e["speaker"])
        for e in entries
        if e.get("kind") in ("turn", "speaker_renamed")
        and e.get("speaker")
        and is_speaker_label(str(e["speaker"]))
    }


def _order(label: str) -> tuple[int, str]:
    digits = "".join(c for c in label if c.isdigit())
    return (int(digits) if digits else 0, label)
