"""Speak mode: release at a real opening, replacement, barge-in and recovery, freshness."""

from __future__ import annotations

import pytest

from app.floor import FloorFSM
from app.settings import FloorSettings
from tests.floor.script import heard, iv, receipt, recognized, room, run, turn

TEXT = "Actually, the trial enrolled 120 patients. That is on page 2."
PLAY = ("play", "p1", TEXT, 0)
SPEAKING = [("cite", 7), ("state", "speaking")]
LISTENING = (0.0, ("state", "listening"))


def played_at(t: float, iid: str = "p1", text: str = TEXT, resume: int = 0) -> list:
    return [(t, ("play", iid, text, resume)), (t, ("cite", 7)), (t, ("state", "speaking"))]


def finished_at(t: float, seconds: float, iid: str = "p1") -> list:
    return [(t, ("uncite",)), (t, ("delivered", iid, True, seconds)), (t, ("state", "listening"))]


RELEASE = [
    pytest.param(
        room(0, 12, speech=[(0, 3)]) + [(1.0, "iv", iv())],
        [LISTENING, *played_at(5.0)],
        id="released-after-2s-silence-and-quiet-level",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3)], noise=[(3, 6)]) + [(1.0, "iv", iv())],
        [LISTENING, *played_at(6.4)],
        id="noisy-room-holds-until-rms-quiet-350ms",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3), (4, 4.6)]) + [(1.0, "iv", iv())],
        [LISTENING, *played_at(6.6)],
        id="new-speech-restarts-the-2s-silence",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3)]) + [recognized(0.4, 0.0), (1.0, "iv", iv()),
                                        recognized(3.6, 3.5)],
        [LISTENING, *played_at(5.0)],
        id="a-turn-recognized-before-the-pause-ends-delays-nothing",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3), (4, 4.6)]) + [recognized(0.4, 0.0), (1.0, "iv", iv()),
                                                  recognized(3.6, 3.5), recognized(8.1, 5.1)],
        [LISTENING, *played_at(8.1)],
        id="the-pause-waits-until-the-speech-before-it-is-recognized",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3), (4, 4.6)]) + [recognized(0.4, 0.0), (1.0, "iv", iv()),
                                                  recognized(3.6, 3.5), recognized(5.5, 3.9)],
        [LISTENING],
        id="recognized-up-to-before-the-last-onset-is-not-enough",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3)]) + [(1.0, "iv", iv()), (2.0, "iv", iv("p2"))],
        [LISTENING, (2.0, ("drop", "p1", "replaced")), *played_at(5.0, "p2")],
        id="newer-intervention-replaces-the-queued-one",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3)]) + [(1.0, "iv", iv()), (2.0, "iv", iv())],
        [LISTENING, (2.0, ("drop", "p1", "duplicate")), *played_at(5.0)],
        id="duplicate-dropped-on-arrival",
    ),
    pytest.param(
        room(0, 12, speech=[(0, 3)])
        + [(1.0, "iv", iv()), (6.0, "iv", iv("p2")), receipt(8.0, "p1", "finished", 3.0)],
        [LISTENING, *played_at(5.0), *finished_at(8.0, 3.0), *played_at(10.0, "p2")],
        id="one-arriving-while-speaking-waits-2s-after-own-playback",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), RELEASE)
def test_release(steps: list, expected: list) -> None:
    assert run(steps).log == expected


# A lively room: four turns with 1.2 s between them, then a long pause.
LIVELY = [(0.0, 3.0), (4.2, 6.0), (7.2, 9.0), (10.2, 12.0)]
TALK = ["The trial ran for a year.", "Mostly in two clinics.", "Both urban ones.",
        "Yes, Lisbon and Porto."]


def lively_room() -> list:
    turns = [(b + 0.5, "turn", turn("AB"[i % 2], TALK[i], a, b, i))
             for i, (a, b) in enumerate(LIVELY)]  # fmt: skip
    return room(0, 16, speech=LIVELY) + turns + [(1.0, "iv", iv())]


@pytest.mark.parametrize(("wait_turns", "at"), [
    (2, 7.0),  # after two turns, one second of the next gap is an opening
    (3, 10.0),  # after three, the gap after the third turn
    (0, 14.0),  # never: only the two seconds after the last turn
])
def test_a_long_wait_takes_a_shorter_opening(wait_turns: int, at: float) -> None:
    settings = FloorSettings(release_wait_turns=wait_turns)
    plays = run(lively_room(), FloorFSM(settings)).of("play")
    assert plays == [(at, PLAY)]


def test_the_shorter_opening_is_still_a_pause() -> None:
    """Gaps under ``release_silence_waited`` never open the floor, however long it waits;
    the pause after the last turn does after one second, not two."""
    speech = [(0.0, 3.0), (3.8, 6.0), (6.8, 9.0), (9.8, 12.0)]
    turns = [(b + 0.5, "turn", turn("AB"[i % 2], TALK[i], a, b, i))
             for i, (a, b) in enumerate(speech)]  # fmt: skip
    log = run(room(0, 16, speech=speech) + turns + [(1.0, "iv", iv())]).log
    assert log == [LISTENING, *played_at(13.0)]


heard_at = heard


def barge(heard: float, sentence: int, after: float) -> list:
    """Playback starts at 5.0; a participant takes the floor so that ``heard`` s were heard."""
    onset = 5.0 + heard - 0.5
    return (
        room(0, 16, speech=[(0, 3), (onset, onset + 2.0)])
        + [heard_at(onset + 0.5, onset, "Wait, that is not right.")]
        + [(1.0, "iv", iv()), receipt(5.0 + heard + 0.02, "p1", "stopped", heard, sentence)]
        + [(after, "tick", None)]
    )


def stopped_at(t: float, heard: float) -> list:
    return [(t, ("stop", "barge_in"))], [
        (round(t + 0.02, 2), ("uncite",)),
        (round(t + 0.02, 2), ("delivered", "p1", False, heard)),
    ]


def _barge_expected(heard: float, tail: list) -> list:
    stop, partial = stopped_at(5.0 + heard, heard)
    t = round(5.0 + heard + 0.02, 2)
    return [LISTENING, *played_at(5.0), *stop, *partial, *tail(t)]


BARGE = [
    pytest.param(
        barge(1.9, 0, 12),
        _barge_expected(1.9, lambda t: [(t, ("state", "listening")), *played_at(10.4)]),
        id="barge-in-at-1.9s-replays-in-full-at-next-opening",
    ),
    pytest.param(
        barge(3.0, 1, 13),
        _barge_expected(
            3.0,
            lambda t: [
                (t, ("state", "listening")),
                *played_at(11.5, text="To finish my response, that is on page 2.", resume=1),
            ],
        ),
        id="barge-in-at-3s-resumes-at-the-interrupted-sentence",
    ),
    pytest.param(
        barge(6.0, 1, 16),
        _barge_expected(
            6.0, lambda t: [(t, ("drop", "p1", "interrupted")), (t, ("state", "listening"))]
        ),
        id="barge-in-at-6s-drops-the-rest",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), BARGE)
def test_barge_in_and_recovery(steps: list, expected: list) -> None:
    assert run(steps).log == expected


NO_YIELD = [
    pytest.param(room(5, 9, speech=[(5.5, 8.0)], self_voice=True), id="own-voice-sustained"),
    pytest.param(
        room(5, 9, speech=[(6.0, 6.4)]) + [(6.9, "turn", turn("B", "Mm-hmm.", 6.0, 6.4))],
        id="backchannel",
    ),
    pytest.param(room(5, 9, speech=[(6.0, 6.3)]), id="short-burst-under-0.5s"),
]


@pytest.mark.parametrize("extra", NO_YIELD)
def test_no_yield(extra: list) -> None:
    steps = room(0, 5, speech=[(0, 3)]) + extra
    steps += [(1.0, "iv", iv()), receipt(9.0, "p1", "finished", 4.0)]
    fsm = FloorFSM(FloorSettings(barge_in_on_flagged=False))
    assert run(steps, fsm).log == [LISTENING, *played_at(5.0), *finished_at(9.0, 4.0)]


def test_flagged_sustained_speech_barges_in_when_echo_cancelled() -> None:
    steps = room(0, 5, speech=[(0, 3)]) + room(5, 9, speech=[(5.5, 8.0)], self_voice=True)
    steps += [(1.0, "iv", iv()), heard(6.0, 5.5, "Sorry, one question.")]
    assert run(steps).of("stop") == [(6.0, ("stop", "barge_in"))]
    onset_only = room(0, 5, speech=[(0, 3)]) + room(5, 9, speech=[(5.5, 5.8)], self_voice=True)
    assert run(onset_only + [(1.0, "iv", iv())]).of("stop") == []


def test_second_interruption_counts_sentences_from_the_resume_point() -> None:
    text = "One fact. Two facts here. Three facts now. Four and last."
    steps = (
        room(0, 22, speech=[(0, 3), (7.5, 9.5), (13.5, 14.5)])
        + [(1.0, "iv", iv(text=text, values=())), heard(8.0, 7.5, "But why")]
        + [heard(14.0, 13.5, "Hang on")]
        + [receipt(8.02, "p1", "stopped", 3.0, 1), receipt(14.02, "p1", "stopped", 2.5, 1)]
    )
    plays = [d for _, d in run(steps).log if d[0] == "play"]
    assert plays == [
        ("play", "p1", text, 0),
        ("play", "p1", "To finish my response, two facts here. Three facts now. Four and last.", 1),
        ("play", "p1", "To finish my response, three facts now. Four and last.", 2),
    ]


OFF_TOPIC = ["Shall we order lunch now?", "Pizza sounds good to me.", "Pepperoni or margherita?"]


def _talk(texts: list[str]) -> list:
    """Participants' turns 5, 6, ... after the decision on turn 4."""
    return [(2.0 + 0.1 * i, "turn", turn("BC"[i % 2], text, 1.0 + 0.1 * i, 1.05 + 0.1 * i, 5 + i))
            for i, text in enumerate(texts)]


FRESHNESS = [
    pytest.param(
        [(2.0, "turn", turn("B", "I think it was 120 patients in the end.", 1.0, 1.8, 5))],
        [(5.0, ("drop", "p1", "stale_stated"))],
        id="participant-stated-the-fact",
    ),
    pytest.param(
        [(2.0, "turn", turn("B", "I think it was 100 patients in the end.", 1.0, 1.8, 5))],
        played_at(5.0),
        id="different-number-is-not-the-fact",
    ),
    pytest.param(
        [(2.0, "turn", turn("B", "It was 120 or so.", 1.0, 1.8, 5))],
        played_at(5.0),
        id="number-without-the-words-is-not-the-fact",
    ),
    pytest.param(
        [(2.0, "turn", turn("B", "Yes, 120 patients.", 1.0, 1.8, 4))],
        played_at(5.0),
        id="turn-before-the-decision-does-not-count",
    ),
    pytest.param(
        _talk(OFF_TOPIC * 2),
        [(5.0, ("drop", "p1", "stale_topic"))],
        id="late-and-the-conversation-moved-to-another-topic",
    ),
    pytest.param(
        _talk(OFF_TOPIC + ["Wait, how many patients did the trial enroll?", *OFF_TOPIC[1:]]),
        played_at(5.0),
        id="one-on-topic-turn-keeps-a-late-one",
    ),
    pytest.param(
        _talk((OFF_TOPIC * 2)[:5]),
        played_at(5.0),
        id="five-off-topic-turns-are-not-yet-late",
    ),
    pytest.param(
        _talk([*OFF_TOPIC, "In", "Let me.", *OFF_TOPIC[:2]]),
        played_at(5.0),
        id="fragments-endpointing-cut-off-are-not-turns-talked-on",
    ),
    pytest.param(
        _talk([*OFF_TOPIC, "In", "Let me.", *OFF_TOPIC]),
        [(5.0, ("drop", "p1", "stale_topic"))],
        id="fragments-aside-six-off-topic-turns-are-late",
    ),
    pytest.param(
        _talk(["Wait, how many patients did the trial enroll?", *OFF_TOPIC * 2]),
        [(5.0, ("drop", "p1", "stale_topic"))],
        id="an-on-topic-turn-before-the-last-few-does-not-keep-it",
    ),
]


@pytest.mark.parametrize(("turns", "tail"), FRESHNESS)
def test_freshness_before_playback(turns: list, tail: list) -> None:
    steps = room(0, 8, speech=[(0, 3)]) + [(1.0, "iv", iv(decided_turn=4))] + turns
    # the turns all come within one speech: the release stays at two seconds of silence
    fsm = FloorFSM(FloorSettings(release_wait_turns=0))
    assert run(steps, fsm).log == [LISTENING, *tail]


def test_freshness_without_turn_indices_uses_arrival() -> None:
    said = "So 120 patients, right?"
    early = room(0, 8, speech=[(0, 3)]) + [
        (0.5, "turn", turn("B", said, 0.1, 0.4)),
        (1.0, "iv", iv()),
    ]
    late = room(0, 8, speech=[(0, 3)]) + [(1.0, "iv", iv()), (2.0, "turn", turn("B", said, 1, 2))]
    assert run(early).of("play", "drop") == [(5.0, ("play", "p1", TEXT, 0))]
    assert run(late).of("play", "drop") == [(5.0, ("drop", "p1", "stale_stated"))]


def test_stale_detail_says_why() -> None:
    steps = room(0, 8, speech=[(0, 3)]) + [
        (1.0, "iv", iv(decided_turn=4)),
        (2.0, "turn", turn("B", "I think it was 120 patients.", 1.0, 1.8, 5)),
    ]
    fsm = run([s for s in steps if s[0] < 4.9]).fsm
    from app.floor import Dropped

    dropped = [c for c in fsm.tick(5.0) if isinstance(c, Dropped)]
    assert dropped[0].detail.startswith("B said '120 patients'")
