"""The re-run words as speaker turns: each word takes the speaker it overlaps most (or
the nearest one close by), a change of speaker or a long pause ends a turn."""

from __future__ import annotations

from app.events import Turn
from app.retranscribe.transcript import TurnTuning, speaker_turns
from app.speech.asr import Word
from app.speech.diarization import SpeakerSegment


def words(*spec: tuple[float, float, str]) -> list[Word]:
    return [Word(a, b, text) for a, b, text in spec]


SEGMENTS = [
    SpeakerSegment("R1", 0.0, 2.0),
    SpeakerSegment("R2", 2.0, 4.0),
    SpeakerSegment("R1", 6.0, 9.0),
]


def test_words_take_the_speaker_they_overlap_most() -> None:
    said = words((0.1, 0.5, "Hello"), (0.6, 1.9, "there."), (1.8, 2.6, "Hi"),
                 (2.7, 3.1, "Maya."), (6.2, 6.5, "So"), (6.6, 7.0, "anyway."))  # fmt: skip
    assert speaker_turns(said, SEGMENTS) == [
        Turn("R1", "Hello there.", 0.1, 1.9, index=1),
        Turn("R2", "Hi Maya.", 1.8, 3.1, index=2),
        Turn("R1", "So anyway.", 6.2, 7.0, index=3),
    ]


def test_words_outside_every_segment_go_to_the_nearest_or_the_last_speaker() -> None:
    said = words((4.3, 4.6, "right"), (5.5, 5.9, "well"), (11.0, 11.4, "okay"))
    turns = speaker_turns(said, SEGMENTS, TurnTuning(max_gap=10.0, reach=0.6))
    # 4.3 is 0.3 s after R2's segment; 5.5 is 0.5 s before R1's; 11.0 is far from all
    assert [(t.speaker, t.text) for t in turns] == [("R2", "right"), ("R1", "well okay")]


def test_a_long_pause_starts_a_new_turn_of_the_same_speaker() -> None:
    said = words((6.0, 6.4, "One."), (8.5, 8.9, "Two."))
    assert [t.text for t in speaker_turns(said, SEGMENTS)] == ["One.", "Two."]
    assert [t.text for t in speaker_turns(said, SEGMENTS, TurnTuning(max_gap=3.0))] == [
        "One. Two."
    ]
    assert speaker_turns([], SEGMENTS) == []
