"""The summary names speakers as the export does: a rename, a rename of a rename and a
merged label all end at the speaker's last name."""

from __future__ import annotations

from app.summary.meeting import spoken_turns


def _turn(index: int, speaker: str, text: str) -> dict:
    return {"kind": "turn", "index": index, "speaker": speaker, "text": text,
            "start": float(index), "end": index + 0.5}  # fmt: skip


def _renamed(speaker: str, name: str) -> dict:
    return {"kind": "speaker_renamed", "speaker": speaker, "name": name}


def test_turns_carry_each_speakers_last_name_through_renames_and_merges():
    entries = [
        _turn(0, "S1", "The survey had 48 buildings."),
        _renamed("S1", "Maya"),
        _turn(1, "Maya", "I checked the appendix."),
        _turn(2, "S2", "And the budget?"),
        _renamed("S1", "Maya Chen"),  # renamed again: earlier rows follow
        _renamed("S3", "S2"),  # S3 was the same voice as S2
        _renamed("S2", "Omar"),
        _turn(3, "S3", "It was on page four."),
    ]
    names = [t.speaker for t in spoken_turns(entries)]
    assert names == ["Maya Chen", "Maya Chen", "Omar", "Omar"]
