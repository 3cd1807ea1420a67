"""Session records of small meetings, written the way the app writes them: the events go
through the real SessionHooks into a real SessionRecord."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.events import (
    Citation,
    Decision,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    SpeakerRenamed,
    Turn,
)
from app.floor.outputs import Play
from app.pipeline.session_hooks import SessionHooks
from app.session.record import SessionRecord

DOCUMENT_TEXT = """\
Green roofs in the pilot district

Planted roofs were installed on 48 residential buildings in the pilot district.

Top floor flats were about two degrees cooler on the hottest afternoons.

The energy used for cooling fell by fourteen percent over the summer.

The pilot cost 2.1 million euros over three years.
"""

TURNS = [
    ("S1", "Okay, let's go over the green roof pilot before we decide on the budget."),
    ("S2", "Sure. Um, top floor flats were about two degrees cooler on the hottest afternoons."),
    ("S1", "Yeah."),
    ("S3", "But they only put planted roofs on twelve buildings, so it is a small sample."),
    ("S2", "How much did the pilot cost in the end?"),
    ("S3", "I don't remember, honestly."),
    ("S1", "Maya will send the cost figures to the council by Friday."),
    ("S2", "Okay, I can do that."),
]
NAMES = {"S1": "Alex", "S2": "Maya", "S3": "Ken"}
CORRECTION = ("Actually, the document says planted roofs were installed on 48 residential "
              "buildings. You'll find this on page 1.")


def meeting_turns(lines: Sequence[tuple[str, str]] = TURNS, gap: float = 5.0) -> list[Turn]:
    return [Turn(speaker, text, i * gap, i * gap + gap - 1, index=i)
            for i, (speaker, text) in enumerate(lines)]


def correction(page: int = 1, sid: int = 1) -> Intervention:
    cite = Citation(sid=sid, page=page, text="Planted roofs were installed on 48 "
                    "residential buildings in the pilot district.")
    return Intervention(id="p1", kind=InterventionKind.PROACTIVE, text=CORRECTION,
                        claim="number of buildings with planted roofs", intent="correct",
                        citations=(cite,), decided_turn=3)


def write_record(folder: Path, document: Path | None = None,
                 lines: Sequence[tuple[str, str]] = TURNS, heard: str | None = "finished",
                 intervention: Intervention | None = None) -> Path:
    """A record of the meeting; the correction is decided on turn 3 and played
    (``heard``: its receipt's status, None for no playback at all)."""
    record = SessionRecord(folder / "meeting.jsonl")
    hooks = SessionHooks(record)
    record.append("session_started", document=str(document) if document else None)
    for speaker, name in NAMES.items():
        hooks.on_event(SpeakerRenamed(speaker, name))
    made = intervention or correction()
    for turn in meeting_turns(lines):
        hooks.on_event(turn)
        if turn.index == made.decided_turn:
            hooks.on_event(Decision(turn.index, "speak", "gate passed", made, made.claim))
            if heard is not None:
                hooks.on_event(Play(made, made.text))
                hooks.on_event(PlaybackReceipt(made.id, "started"))
                hooks.on_event(PlaybackReceipt(made.id, heard, delivered_seconds=4.2))
    record.close()
    return record.path


def write_document(folder: Path) -> Path:
    path = folder / "green_roofs.txt"
    path.write_text(DOCUMENT_TEXT, encoding="utf-8")
    return path
