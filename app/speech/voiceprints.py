"""Voices remembered across meetings: a named speaker's CAM++ embedding, kept locally.

A voiceprint is the mean direction of one person's embeddings (a session speaker's, or a
short enrolment's) and a few exemplars, the embeddings of single stretches of speech. A
later meeting's speaker takes the name of the print its centroid matches above the
threshold (``SpeechSettings.voiceprint_match_cosine``). The store is one JSON file in the
user data folder; nothing leaves the machine, and every print can be listed and deleted.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.paths import data_dir

log = logging.getLogger(__name__)

EMBEDDING = "campplus-192"  # the embedder prints are comparable under
STORE_VERSION = 1
MAX_EXEMPLARS = 6  # single-stretch embeddings kept beside the centroid
MEMORY_SECONDS = 120.0  # evidence beyond this fades when a print is updated
ENROL_SECONDS = 5.0  # how long the enrolment records ("say a sentence")
MIN_ENROL_SPEECH = 2.0  # voiced seconds an enrolment needs
EXEMPLAR_WINDOW = 2.0  # seconds of speech per enrolment exemplar


def _unit(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32)
    return v / max(float(np.linalg.norm(v)), 1e-8)


@dataclass(frozen=True)
class Voiceprint:
    """One remembered voice."""

    name: str
    centroid: np.ndarray  # L2-normalized mean embedding
    exemplars: np.ndarray  # (k, dim), L2-normalized embeddings of single stretches
    seconds: float  # speech behind the print, in seconds
    updated: float  # when it last changed, Unix time in seconds

    def score(self, vector: np.ndarray) -> float:
        """Cosine of a voice (L2-normalized) to this print's centroid."""
        return float(self.centroid @ vector)

    def merged(self, newer: Voiceprint) -> Voiceprint:
        """This voice heard again: centroids weighted by their speech (older evidence capped
        so the print follows a voice that changes), the newest exemplars first."""
        old = min(self.seconds, MEMORY_SECONDS)
        total = self.centroid * old + newer.centroid * max(newer.seconds, 1e-3)
        exemplars = np.concatenate([newer.exemplars, self.exemplars])[:MAX_EXEMPLARS]
        return replace(
            newer,
            centroid=_unit(total),
            exemplars=exemplars,
            seconds=self.seconds + newer.seconds,
        )


def voiceprint(
    name: str,
    vectors: Sequence[np.ndarray],
    seconds: Sequence[float],
    now: float,
) -> Voiceprint:
    """A print from embeddings and the speech behind each: their weighted mean, and the
    best-evidenced ones as exemplars."""
    if not vectors:
        raise ValueError("a voiceprint needs at least one embedding")
    stack = np.stack([_unit(v) for v in vectors])
    weights = np.asarray(seconds, dtype=np.float32).clip(1e-3)
    order = np.argsort(-weights, kind="stable")[:MAX_EXEMPLARS]
    centroid = _unit((stack * weights[:, None]).sum(axis=0))
    return Voiceprint(name.strip(), centroid, stack[order], float(weights.sum()), now)


@dataclass(frozen=True)
class VoiceMatch:
    name: str
    score: float  # cosine of the voice to the print's centroid


def best_match(
    vector: np.ndarray,
    prints: Iterable[Voiceprint],
    threshold: float,
    taken: Iterable[str] = (),
) -> VoiceMatch | None:
    """The print the voice matches best at ``threshold`` or above, or None. A name in
    ``taken`` (another speaker of this meeting has it) is never given twice."""
    busy = {n.casefold() for n in taken}
    scored = [(p.score(vector), p.name) for p in prints if p.name.casefold() not in busy]
    if not scored:
        return None
    score, name = max(scored)
    return VoiceMatch(name, score) if score >= threshold else None


# --- enrolment ---------------------------------------------------------------------------


class Embedder(Protocol):
    def embed(self, windows: list[np.ndarray]) -> np.ndarray: ...


class EnrolmentError(ValueError):
    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


def voiced_audio(audio: np.ndarray, rate: int = 16000, frame: float = 0.032) -> np.ndarray:
    """The loud part of a recording: frames within 26 dB of its loud frames and clearly
    above its quietest ones (the room's noise floor), joined."""
    n = int(frame * rate)
    count = audio.size // n
    if count == 0:
        return np.zeros(0, np.float32)
    frames = np.asarray(audio[: count * n], dtype=np.float32).reshape(count, n)
    level = np.sqrt(np.mean(np.square(frames, dtype=np.float64), axis=1))
    floor, loud = np.percentile(level, 10), np.percentile(level, 95)
    keep = level >= max(0.05 * loud, 3.0 * floor, 1e-3)
    return frames[keep].reshape(-1)


def enrol(
    name: str, audio: np.ndarray, embedder: Embedder, now: float, rate: int = 16000
) -> Voiceprint:
    """A print from a short recording of one person ("say a sentence"): its voiced part
    cut into stretches of ``EXEMPLAR_WINDOW`` seconds, each embedded."""
    if not name.strip():
        raise EnrolmentError("Give the voice a name.")
    speech = voiced_audio(audio, rate)
    if speech.size < MIN_ENROL_SPEECH * rate:
        raise EnrolmentError(
            f"Only {speech.size / rate:.1f} s of speech was heard; say a longer sentence "
            "closer to the microphone."
        )
    step = int(EXEMPLAR_WINDOW * rate)
    windows = [speech[i : i + step] for i in range(0, speech.size, step)]
    if len(windows) > 1 and windows[-1].size < step // 2:
        windows[-2] = np.concatenate(windows[-2:])  # a short tail joins its neighbour
        windows.pop()
    vectors = list(embedder.embed(windows))
    return voiceprint(name, vectors, [w.size / rate for w in windows], now)


def capture(source: Any, seconds: float, timeout: float = 2.0, rate: int = 16000) -> np.ndarray:
    """``seconds`` of audio from a started-or-startable source (a microphone, a file)."""
    chunks: list[np.ndarray] = []
    wanted, have = int(seconds * rate), 0
    source.start()
    try:
        while have < wanted:
            block = source.read(timeout)
            if block is None:
                if source.finished:
                    break
                continue
            chunks.append(block.samples)
            have += block.samples.size
    finally:
        source.stop()
    audio = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    return np.nan_to_num(audio[:wanted], nan=0.0, posinf=0.0, neginf=0.0)


# --- store -------------------------------------------------------------------------------


def _plain(print_: Voiceprint) -> dict[str, Any]:
    return {
        "name": print_.name,
        "centroid": [round(float(x), 5) for x in print_.centroid],
        "exemplars": [[round(float(x), 5) for x in row] for row in print_.exemplars],
        "seconds": round(print_.seconds, 2),
        "updated": round(print_.updated, 3),
    }


def _from_plain(entry: dict[str, Any]) -> Voiceprint:
    centroid = _unit(np.asarray(entry["centroid"], dtype=np.float32))
    rows = entry.get("exemplars") or [entry["centroid"]]
    exemplars = np.stack([_unit(np.asarray(r, dtype=np.float32)) for r in rows])
    return Voiceprint(
        str(entry["name"]),
        centroid,
        exemplars,
        float(entry.get("seconds", 0.0)),
        float(entry.get("updated", 0.0)),
    )


class VoiceprintStore:
    """The remembered voices: one JSON file, rewritten whole (atomically) on each change.
    Names are unique regardless of case; remembering a known name updates its print."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> VoiceprintStore:
        return cls(data_dir() / "voiceprints.json")

    def voices(self) -> list[Voiceprint]:
        """Every remembered voice, by name."""
        with self._lock:
            return sorted(self._read(), key=lambda p: p.name.casefold())

    def get(self, name: str) -> Voiceprint | None:
        key = name.strip().casefold()
        return next((p for p in self.voices() if p.name.casefold() == key), None)

    def remember(self, print_: Voiceprint) -> Voiceprint:
        """Store a print; a voice of that name already stored is merged with it."""
        with self._lock:
            prints = self._read()
            key = print_.name.casefold()
            old = next((p for p in prints if p.name.casefold() == key), None)
            kept = old.merged(print_) if old is not None else print_
            self._write([p for p in prints if p.name.casefold() != key] + [kept])
            return kept

    def delete(self, name: str) -> bool:
        """Forget a voice; False when no print has that name."""
        with self._lock:
            prints = self._read()
            key = name.strip().casefold()
            left = [p for p in prints if p.name.casefold() != key]
            if len(left) == len(prints):
                return False
            self._write(left)
            return True

    def _read(self) -> list[Voiceprint]:
        if not self.path.exists():
            return []
        try:
            body = json.loads(self.path.read_text(encoding="utf-8"))
            if body.get("embedding") != EMBEDDING:
                log.warning("voiceprints in %s are of another embedder; ignored", self.path)
                return []
            return [_from_plain(e) for e in body.get("voices", [])]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Keep the damaged file aside so the next save cannot overwrite what it holds.
            aside = self.path.with_suffix(f".damaged-{int(time.time())}.json")
            log.warning("voiceprints unreadable (%s); moved to %s", exc, aside)
            try:
                self.path.replace(aside)
            except OSError:
                pass
            return []

    def _write(self, prints: list[Voiceprint]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = {"version": STORE_VERSION, "embedding": EMBEDDING,
                "voices": [_plain(p) for p in prints]}  # fmt: skip
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(body), encoding="utf-8")
        os.replace(tmp, self.path)
