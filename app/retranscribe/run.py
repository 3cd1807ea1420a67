"""A cleaner transcript after the meeting, from the meeting audio the session kept.

The record says where the audio is (its ``meeting_audio`` entries). Recognition runs
again over the whole recording with the best Whisper model in the model store, offline
diarization with pyannote.audio says who spoke when, the live speakers' names are carried
over by voice (app.retranscribe.names), and the export is the session export
(app.session.export) with the re-run turns in place of the live ones.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.events import RecordingState, Turn
from app.retranscribe.diarization import OfflineDiarization, OfflineDiarizer, torch_threads
from app.retranscribe.names import (
    NameMatch,
    live_spans,
    match_speakers,
    record_labels,
    rerun_spans,
    shown_as,
    voiceprints_of,
)
from app.retranscribe.transcript import TurnTuning, WholeRecording, best_asr_model, speaker_turns
from app.session.export import ExportFormat, export_format, record_notes, to_html, to_markdown
from app.session.record import RecordContents, read_record_contents, to_plain
from app.settings import SpeechSettings
from app.speech.voiceprints import Embedder

log = logging.getLogger(__name__)

MEETING_AUDIO = "meeting_audio"  # the record entry of app.events.MeetingAudio
RATE = 16000

# progress(what is being done, in words)
Progress = Callable[[str], None]


class RetranscribeError(Exception):
    """Why the transcript cannot be re-run, in words for the user."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


def kept_audio(entries: list[dict[str, Any]]) -> Path:
    """The meeting audio the record names (the last file it kept)."""
    kept = [e for e in entries if e.get("kind") == MEETING_AUDIO and e.get("path")]
    if not kept:
        raise RetranscribeError(
            "This session kept no meeting audio, so its transcript cannot be re-run. "
            "Turn on \u201cKeep meeting audio\u201d (speech setting keep_meeting_audio) "
            "before a meeting to keep it."
        )
    path = Path(str(kept[-1]["path"]))
    if not path.is_file():
        raise RetranscribeError(f"The meeting audio of this session is gone: {path} is missing.")
    if kept[-1].get("state") == RecordingState.FAILED:
        log.warning("writing %s failed during the meeting; re-running what it holds", path)
    return path


@dataclass(frozen=True)
class Retranscript:
    """The re-run transcript of one session."""

    turns: list[Turn]  # speakers as the export shows them: live names where matched
    diarization: OfflineDiarization
    matches: dict[str, NameMatch]  # re-run speaker -> the live speaker it is
    shown: dict[str, str]  # re-run speaker -> what the transcript calls it
    model: str  # the Whisper model
    audio: Path
    seconds: float  # length of the recording
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage


@dataclass
class Retranscriber:
    """The models of a re-run, loaded once (a benchmark re-runs several recordings)."""

    asr: WholeRecording | None = None
    diarizer: OfflineDiarizer | None = None
    embedder: Embedder | None = None
    settings: SpeechSettings = field(default_factory=SpeechSettings)
    turns: TurnTuning = field(default_factory=TurnTuning)
    # torch's CPU threads for the diarization and the voiceprints (0: torch's choice).
    # On a busy 2-core machine two threads made both over 20 times slower (they spin
    # against each other); with one the 30 s pyannote sample diarizes in 7 s.
    torch_threads: int = 1

    def run(self, entries: list[dict[str, Any]], progress: Progress | None = None
            ) -> Retranscript:  # fmt: skip
        from app.speech.audio import load_audio

        say = progress or (lambda _: None)
        path = kept_audio(entries)
        audio = load_audio(path)
        seconds = audio.size / RATE
        timings: dict[str, float] = {}
        asr = self.asr or WholeRecording(best_asr_model())
        say(f"Recognising {seconds:.0f} s of audio with {asr.choice.name}")
        t = time.perf_counter()
        words = asr.words(audio, _tenths(seconds, lambda done: say(
            f"  recognised {done:.0f} of {seconds:.0f} s")))  # fmt: skip
        timings["asr"] = time.perf_counter() - t
        with torch_threads(self.torch_threads):
            diarizer = self.diarizer or OfflineDiarizer()
            say(f"Finding who spoke when ({diarizer.kind})")
            t = time.perf_counter()
            diarization = diarizer(audio, _diarization_progress(say))
            timings["diarization"] = time.perf_counter() - t
            t = time.perf_counter()
            matches, shown = self._names(entries, audio, diarization)
            timings["names"] = time.perf_counter() - t
        turns = [
            Turn(shown[turn.speaker], turn.text, turn.start, turn.end, index=turn.index)
            if turn.speaker in shown else turn
            for turn in speaker_turns(words, diarization.exclusive, self.turns)
        ]  # fmt: skip
        return Retranscript(turns, diarization, matches, shown, asr.choice.name, path, seconds,
                            timings)  # fmt: skip

    def _names(
        self, entries: list[dict[str, Any]], audio: np.ndarray, diarization: OfflineDiarization
    ) -> tuple[dict[str, NameMatch], dict[str, str]]:
        from app.speech.diarization import CamppEmbedder

        embedder = self.embedder or CamppEmbedder()
        now = time.time()
        live = voiceprints_of(live_spans(entries), audio, embedder, now)
        rerun = voiceprints_of(rerun_spans(diarization.exclusive), audio, embedder, now)
        matches = match_speakers(rerun, live, self.settings.speaker_match_cosine)
        known = {p.name for p in live} | record_labels(entries)
        return matches, shown_as(matches, diarization.speakers, known)


def _tenths(total: float, report: Callable[[float], None]) -> Callable[[float], None]:
    """``report`` once per tenth of ``total`` reached (a long meeting has many segments)."""
    last = [-1]

    def progress(done: float) -> None:
        tenth = int(10 * min(done, total) / total) if total > 0 else 10
        if tenth != last[0]:
            last[0] = tenth
            report(done)

    return progress


def _diarization_progress(say: Progress) -> Callable[[str, int, int], None]:
    """A line when a pyannote step starts and per tenth of its batches."""
    last: dict[str, int] = {}

    def progress(step: str, completed: int, total: int) -> None:
        tenth = min(10, completed * 10 // total) if total else 10
        if last.get(step, -1) < tenth or step not in last:
            last[step] = tenth
            count = f" {min(completed, total)}/{total}" if total else ""
            say(f"  {step.replace('_', ' ')}{count}")

    return progress


# --- the export -------------------------------------------------------------------------


def rewritten_entries(entries: list[dict[str, Any]], result: Retranscript) -> list[dict[str, Any]]:
    """The record with the re-run turns in place of the live ones. Everything else stays
    where it happened: after the re-run turns that began before the live turn it followed.
    The agent's decisions are left out (their turn numbers are the live transcript's)."""
    rows: list[tuple[float, int, int, dict[str, Any]]] = []
    anchor = 0.0
    for i, entry in enumerate(entries):
        kind = entry.get("kind")
        if kind == "turn":
            anchor = float(entry.get("end", anchor))
        elif kind != "decision":
            at = 0.0 if kind == "session_started" else anchor
            rows.append((at, 1, i, entry))
    for turn in result.turns:
        rows.append((turn.start, 0, turn.index, {"kind": "turn", **to_plain(turn)}))
    return [entry for *_, entry in sorted(rows, key=lambda r: (r[0], r[1], r[2]))]


def retranscript_notes(result: Retranscript) -> list[str]:
    minutes = f"{result.seconds / 60:.1f} min"
    whisper = result.model.removeprefix("whisper-")
    notes = [
        f"Transcript re-run after the meeting from its kept audio ({result.audio.name}, "
        f"{minutes}): Whisper {whisper}, {result.diarization.pipeline}.",
    ]
    carried = [
        f"{result.shown[m.rerun]} ({m.score:.2f})"
        for m in sorted(result.matches.values(), key=lambda m: -m.score)
    ]
    new = [who for speaker, who in result.shown.items() if speaker not in result.matches]
    if carried:
        notes.append("Speakers of the meeting found again by voice: " + ", ".join(carried) + ".")
    if new:
        notes.append("Voices the meeting did not tell apart: " + ", ".join(new) + ".")
    notes.append("The agent's decisions are left out: their turn numbers are the live ones.")
    return notes


def render(contents: RecordContents, result: Retranscript, fmt: ExportFormat) -> str:
    title = f"Meeting record {contents.path.stem} (transcript re-run)"
    notes = [*record_notes(contents), *retranscript_notes(result)]
    write = to_html if fmt == ExportFormat.HTML else to_markdown
    return write(rewritten_entries(contents.entries, result), title, notes)


def default_out(record: Path) -> Path:
    return record.with_name(f"{record.stem}.retranscribed.md")


def retranscribe(
    record: Path,
    out: Path | None = None,
    retranscriber: Retranscriber | None = None,
    progress: Progress | None = None,
) -> tuple[Path, Retranscript]:
    """Re-run the transcript of ``record`` and write the export (Markdown or HTML by the
    suffix of ``out``; default beside the record); returns where and what."""
    target = out or default_out(record)
    fmt = export_format(target)
    try:
        contents = read_record_contents(record)
    except OSError as exc:
        raise RetranscribeError(f"Could not read the session record {record}: {exc}") from exc
    result = (retranscriber or Retranscriber()).run(contents.entries, progress)
    target.write_text(render(contents, result, fmt), encoding="utf-8")
    return target, result
