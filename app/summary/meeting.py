"""A session record read back as a meeting: the turns with speaker names, what the agent
said (or meant to) with its fate, and the document it was checked against."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.language.talk import is_backchannel
from app.session.delivery import InterventionFate, intervention_fates, intervention_id
from app.session.export import record_notes, speaker_names
from app.session.record import RecordContents, read_record_contents

# Sounds that carry no words; dropped from the cleaned transcript (backchannel turns made
# only of them are dropped whole by ``is_backchannel``).
FILLERS = frozenset("um umm uh uhh uhm erm er hm hmm mm mmm mhm eh".split())
_END_MARKS = (".", "?", "!")


@dataclass(frozen=True)
class SpokenTurn:
    """One committed turn of a participant."""

    index: int  # the turn number the record (and the agent's decisions) use
    speaker: str  # the name shown: a speaker renamed during the meeting is named throughout
    text: str
    start: float  # s on the session clock
    end: float  # s on the session clock
    direct: bool = False  # addressed to the agent


@dataclass(frozen=True)
class Contribution:
    """Something the agent said, or decided to say, and how much of it the room heard."""

    fate: InterventionFate
    intent: str  # correct / missing / not_in_paper / answer / abstain
    claim: str  # the point it was about ("" when the record does not say)
    decided_turn: int  # the turn it answers or corrects; -1 when unknown


@dataclass(frozen=True)
class Meeting:
    title: str
    turns: tuple[SpokenTurn, ...]
    contributions: tuple[Contribution, ...]
    document: Path | None  # the document the meeting discussed, as the record names it
    notes: tuple[str, ...] = ()  # what a reader must know about the record itself

    def turn(self, index: int) -> SpokenTurn | None:
        return self.by_index.get(index)

    @property
    def by_index(self) -> dict[int, SpokenTurn]:
        return {t.index: t for t in self.turns}

    @property
    def speakers(self) -> list[str]:
        return list(dict.fromkeys(t.speaker for t in self.turns))


def read_meeting(path: Path) -> Meeting:
    """The meeting in a session record (a damaged one as far as it can be read)."""
    return meeting_from_contents(read_record_contents(path))


def meeting_from_contents(contents: RecordContents) -> Meeting:
    entries = contents.entries
    return Meeting(
        title=contents.path.stem,
        turns=tuple(spoken_turns(entries)),
        contributions=tuple(contributions(entries, contents.ended_cleanly)),
        document=_document(entries),
        notes=tuple(record_notes(contents)),
    )


def spoken_turns(entries: Sequence[dict[str, Any]]) -> list[SpokenTurn]:
    """The ``turn`` entries in order; a turn without a number gets the next one."""
    names = speaker_names(entries)
    turns: list[SpokenTurn] = []
    following = 0
    for entry in entries:
        if entry.get("kind") != "turn":
            continue
        index = _int(entry.get("index"), -1)
        index = index if index >= 0 else following
        following = max(following, index + 1)
        speaker = str(entry.get("speaker") or "?")
        turns.append(SpokenTurn(index, names.get(speaker, speaker), str(entry.get("text") or ""),
                                _float(entry.get("start")), _float(entry.get("end")),
                                bool(entry.get("direct"))))
    return turns


def contributions(entries: Sequence[dict[str, Any]], ended_cleanly: bool = True
                  ) -> list[Contribution]:
    """Every intervention whose words the record holds, with what it was about."""
    carried = _carried(entries)
    out = []
    for fate in intervention_fates(list(entries), ended_cleanly):
        body = carried.get(fate.id, {})
        out.append(Contribution(fate, str(body.get("intent") or ""), str(body.get("claim") or ""),
                                _int(body.get("decided_turn"), -1)))
    return out


def _carried(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The first full copy of each intervention in the record, by id."""
    out: dict[str, dict[str, Any]] = {}
    for entry in entries:
        iid = intervention_id(entry)
        if not iid or iid in out:
            continue
        body = entry.get("intervention") if entry.get("kind") == "decision" else entry
        if isinstance(body, dict) and body.get("text"):
            out[iid] = body
    return out


def _document(entries: Sequence[dict[str, Any]]) -> Path | None:
    """The last document the record says was loaded (else the one the session began with)."""
    for entry in reversed(entries):
        if entry.get("kind") == "document_loaded" and entry.get("path"):
            return Path(str(entry["path"]))
    for entry in entries:
        if entry.get("kind") == "session_started" and entry.get("document"):
            return Path(str(entry["document"]))
    return None


def clean_transcript(turns: Iterable[SpokenTurn]) -> list[SpokenTurn]:
    """The turns worth reading: backchannels dropped, fillers taken out of the others."""
    out = []
    for turn in turns:
        if is_backchannel(turn.text):
            continue
        text = without_fillers(turn.text)
        if text:
            out.append(SpokenTurn(turn.index, turn.speaker, text, turn.start, turn.end,
                                  turn.direct))
    return out


def without_fillers(text: str) -> str:
    """The text without filler sounds ("Um, so the, uh, budget." -> "So the budget."); a
    sentence mark on a dropped filler moves to the word before it, and the word after a
    dropped filler that opened a sentence opens it now."""
    kept: list[str] = []
    opens = False  # the next kept word opens a sentence a filler opened
    for word in text.split():
        if word.strip(",.;:!?\u2026-").lower() not in FILLERS:
            kept.append(word[:1].upper() + word[1:] if opens else word)
            opens = False
            continue
        opens = opens or not kept or kept[-1].endswith(_END_MARKS)
        end = word[-1]
        if kept and end in _END_MARKS and not kept[-1].endswith(_END_MARKS):
            kept[-1] = kept[-1].rstrip(",;:") + end
            opens = True
        elif kept and end == ",":  # "the, uh, budget": the pause marks go with it
            kept[-1] = kept[-1].rstrip(",")
    return " ".join(kept)


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
