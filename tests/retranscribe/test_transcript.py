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


def test_a_sentence_left_open_is_finished_by_its_speaker() -> None:
    """Diarization puts the change of speaker a word early: 'I.' ends the sentence the
    first speaker left open, and goes back to them."""
    segments = [SpeakerSegment("R1", 0.0, 1.0), SpeakerSegment("R2", 1.0, 3.0)]
    said = words((0.1, 0.4, "Neither"), (0.5, 0.9, "did"), (1.0, 1.2, "I."),
                 (1.4, 1.6, "I"), (1.7, 2.0, "thought."))  # fmt: skip
    assert [(t.speaker, t.text) for t in speaker_turns(said, segments)] == [
        ("R1", "Neither did I."),
        ("R2", "I thought."),
    ]
    kept = speaker_turns(said, segments, TurnTuning(sentence_words=0))
    assert [t.text for t in kept] == ["Neither did", "I. I thought."]
    # three words are more than a stray word or two: they stay where their times put them
    said = words((0.1, 0.9, "So"), (1.0, 1.2, "you"), (1.3, 1.5, "did"), (1.6, 1.9, "it."))
    assert [t.text for t in speaker_turns(said, segments)] == ["So", "you did it."]
    # a turn made only of the moved words disappears, and numbering has no gap
    said = words((0.1, 0.9, "Well"), (1.0, 1.2, "yes."), (1.6, 2.9, "Fine"))
    turns = speaker_turns(said, segments, TurnTuning(max_gap=0.3))
    assert [(t.index, t.speaker, t.text) for t in turns] == [(1, "R1", "Well yes."),
                                                             (2, "R2", "Fine")]  # fmt: skip
