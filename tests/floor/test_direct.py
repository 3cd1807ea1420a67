"""Direct questions: wake binding, wake-only grace, continuation, speculation, supersede."""

from __future__ import annotations

import pytest

from app.events import Intervention, VadEvent, VadKind
from tests.floor.script import (
    answer,
    delta,
    heard,
    iv,
    receipt,
    room,
    run,
    ticks,
    turn,
    wake,
)

Q = "Hey Jarvis, what sample size did they use?"
HEARD = [(1.1, ("earcon", "wake")), (1.1, ("state", "listening"))]


def asked(t: float, text: str = Q, speaker: str = "A", generation: int = 1) -> list:
    return [(t, ("request", text, speaker, generation)), (t, ("state", "thinking"))]


def vad(t: float, kind: VadKind) -> tuple:
    return (t, "vad", VadEvent(kind, t))


BINDING = [
    pytest.param(
        [wake(1.1), (4.0, "turn", turn("A", Q, 1.0, 3.5))],
        [*HEARD, *asked(4.0)],
        id="wake-overlaps-the-turn",
    ),
    pytest.param(
        [wake(1.1), (8.0, "turn", turn("A", "what sample size did they use", 5.9, 7.5))],
        [*HEARD, *asked(8.0, "what sample size did they use")],
        id="turn-starts-within-5s",
    ),
    pytest.param(
        [wake(1.1), (9.0, "turn", turn("A", "what sample size did they use", 6.2, 8.0))],
        HEARD,
        id="turn-starts-after-5s-not-bound",
    ),
    pytest.param(
        [wake(1.1), (4.0, "turn", turn("B", Q, 1.0, 3.5))],
        HEARD,
        id="other-speaker-not-bound",
    ),
    pytest.param(
        [wake(1.1, None), (4.0, "turn", turn("B", Q, 1.0, 3.5))],
        [*HEARD, *asked(4.0, speaker="B")],
        id="wake-without-speaker-binds-any",
    ),
    pytest.param(
        [(4.0, "turn", turn("A", Q, 1.0, 3.5)), wake(4.3, said_at=1.2)],
        [(4.0, ("state", "listening")), (4.3, ("earcon", "wake")), *asked(4.3)],
        id="late-text-wake-binds-the-recent-turn",
    ),
    pytest.param(
        [wake(1.1), (20.5, "turn", turn("A", Q, 1.0, 20.0))],
        [*HEARD, *asked(20.5)],
        id="wake-bound-within-20s",
    ),
    pytest.param(
        [wake(1.1), (21.6, "turn", turn("A", Q, 1.0, 21.1))],
        HEARD,
        id="unbound-wake-expires-after-20s",
    ),
    pytest.param(
        [(4.0, "turn", turn("A", Q, 1.0, 3.5))],
        [(4.0, ("state", "listening"))],
        id="no-wake-no-question",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), BINDING)
def test_wake_binding(steps: list, expected: list) -> None:
    assert run(steps).log == expected


GRACE = [
    pytest.param(
        [
            wake(1.1),
            (2.3, "turn", turn("A", "Hey Jarvis.", 1.0, 1.8)),
            (5.5, "turn", turn("A", "what sample size did they use", 3.0, 5.0)),
        ],
        [*HEARD, *asked(5.5, "what sample size did they use")],
        id="wake-only-turn-opens-a-grace-window",
    ),
    pytest.param(
        [
            wake(1.1),
            (2.3, "turn", turn("A", "Hey Jarvis.", 1.0, 1.8)),
            (9.5, "turn", turn("A", "what sample size did they use", 7.0, 9.0)),
        ],
        HEARD,
        id="question-after-the-grace-window",
    ),
    pytest.param(
        [
            wake(1.1),
            (2.3, "turn", turn("A", "Hey Jarvis.", 1.0, 1.8)),
            (5.5, "turn", turn("B", "what sample size did they use", 3.0, 5.0)),
        ],
        HEARD,
        id="grace-is-for-the-same-speaker",
    ),
    pytest.param(
        [wake(1.1), (4.5, "turn", turn("A", "Hey Jarvis, budget?", 1.0, 4.0))],
        [*HEARD, *asked(4.5, "Hey Jarvis, budget?")],
        id="three-tokens-over-2.5s-is-a-question",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), GRACE)
def test_wake_only_grace(steps: list, expected: list) -> None:
    assert run(steps).log == expected


SAMPLE = "what sample size did they use"
BASE = [wake(1.1), (3.0, "turn", turn("A", SAMPLE, 1.0, 2.5))]
JOINED = f"{SAMPLE} and how long was the follow-up?"
CONTINUATION = [
    pytest.param(
        [(6.5, "turn", turn("A", "and how long was the follow-up?", 4.0, 6.0))],
        [(6.5, ("cancel", 1)), (6.5, ("request", JOINED, "A", 2))],
        id="continuation-within-4.5s-regenerates",
    ),
    pytest.param(
        [(9.5, "turn", turn("A", "and how long was the follow-up?", 7.1, 9.0))],
        [],
        id="after-4.5s-it-is-an-ordinary-turn",
    ),
    pytest.param(
        [
            vad(6.9, VadKind.SPEECH_ONSET),
            vad(9.5, VadKind.SHORT_SILENCE),
            (9.5, "turn", turn("A", "and how long was the follow-up?", 7.2, 9.0)),
        ],
        [(9.5, ("cancel", 1)), (9.5, ("request", JOINED, "A", 2))],
        id="continuation-while-still-voiced",
    ),
    pytest.param(
        [
            vad(6.9, VadKind.SPEECH_ONSET),
            (31.5, "turn", turn("A", "and how long was the follow-up?", 7.2, 31.1)),
        ],
        [(31.5, ("state", "listening"))],
        id="continuation-capped-at-30s",
    ),
    pytest.param(
        [(6.5, "turn", turn("B", "and how long was the follow-up?", 4.0, 6.0))],
        [],
        id="another-speaker-does-not-continue",
    ),
]


@pytest.mark.parametrize(("steps", "tail"), CONTINUATION)
def test_continuation(steps: list, tail: list) -> None:
    assert run(BASE + steps).log == [*HEARD, *asked(3.0, SAMPLE), *tail]


def test_speculative_request_waits_for_half_a_second_of_silence() -> None:
    steps = [wake(1.1), (2.7, "turn", turn("A", Q, 1.0, 2.5)), *ticks(2.7, 3.2)]
    assert run(steps).log == [*HEARD, *asked(3.0)]


def test_speculative_request_waits_while_voiced() -> None:
    steps = [
        wake(1.1),
        (2.7, "turn", turn("A", Q, 1.0, 2.5)),
        vad(2.8, VadKind.SPEECH_ONSET),
        *ticks(2.7, 3.6),
        vad(3.6, VadKind.SHORT_SILENCE),
    ]
    assert run(steps).log == [*HEARD, *asked(3.6)]


def test_new_question_supersedes_and_old_outputs_are_dropped() -> None:
    steps = BASE + [
        wake(5.0, "B"),
        (7.5, "turn", turn("B", "Jarvis, what was the dropout rate?", 5.0, 7.0)),
        delta(8.0, 1, 0, "The sample was 120.", final=True),
        (8.5, "iv", answer(1)),
        (9.0, "iv", answer(2, "About ten percent.")),
    ]
    assert run(steps).log == [
        *HEARD,
        *asked(3.0, SAMPLE),
        (5.0, ("earcon", "wake")),
        (7.5, ("cancel", 1)),
        (7.5, ("request", "Jarvis, what was the dropout rate?", "B", 2)),
        (8.0, ("drop", "direct-1", "superseded")),
        (8.5, ("drop", "a1", "superseded")),
        (9.0, ("play", "a2", "About ten percent.", 0)),
        (9.0, ("state", "speaking")),
    ]


def test_new_question_stops_the_old_answer() -> None:
    steps = BASE + [
        (4.0, "iv", answer(1)),
        wake(5.0, "B"),
        (7.5, "turn", turn("B", "Jarvis, what was the dropout rate?", 5.0, 7.0)),
        receipt(7.52, "a1", "stopped", 3.5, 0),
    ]
    assert run(steps).log == [
        *HEARD,
        *asked(3.0, SAMPLE),
        (4.0, ("play", "a1", "They used 120 patients.", 0)),
        (4.0, ("state", "speaking")),
        (5.0, ("earcon", "wake")),
        (7.5, ("cancel", 1)),
        (7.5, ("stop", "superseded")),
        (7.5, ("request", "Jarvis, what was the dropout rate?", "B", 2)),
        (7.52, ("delivered", "a1", False, 3.5)),
        (7.52, ("state", "thinking")),
    ]


def test_checked_sentences_play_as_they_come_once_and_in_order() -> None:
    steps = BASE + [
        delta(4.0, 1, 1, "It ran for a year.", checked=True),  # waits for sequence 0
        delta(4.1, 1, 0, "They used 120 patients.", checked=True),
        delta(4.2, 1, 0, "They used 120 patients.", checked=True),  # a duplicate
        delta(4.3, 1, 2, "", final=True),
        (4.4, "iv", answer(1, "They used 120 patients. It ran for a year. See page 2.")),
        receipt(6.0, "direct-1", "finished", 1.9, 1),
        receipt(7.0, "a1", "finished", 1.0),
        (7.5, "iv", answer(1)),
    ]
    assert run(steps).of("play", "delivered", "drop") == [
        (4.1, ("play", "direct-1", "They used 120 patients. It ran for a year.", 0)),
        (6.0, ("play", "a1", "See page 2.", 2)),  # only what the final answer adds
        (7.0, ("delivered", "a1", True, 1.0)),
        (7.5, ("drop", "a1", "duplicate")),
    ]


def test_unchecked_deltas_are_never_played() -> None:
    steps = BASE + [
        delta(4.0, 1, 0, "They used 5,000 "),
        delta(4.1, 1, 1, "patients and the m"),
        delta(4.2, 1, 2, "", final=True),
        (4.5, "iv", answer(1, "That isn't covered in the document.")),
    ]
    assert run(steps).of("play", "drop") == [
        (4.5, ("play", "a1", "That isn't covered in the document.", 0)),
    ]


def test_answer_waits_for_the_current_playback() -> None:
    steps = BASE + [
        (3.5, "iv", iv("p1")),
        (3.6, "grant", None),
        (4.0, "tick", None),
        (4.5, "iv", answer(1)),
        receipt(6.0, "p1", "finished", 2.0),
    ]
    log = run(steps).of("play", "delivered")
    assert log == [
        (4.0, ("play", "p1", iv().text, 0)),
        (6.0, ("delivered", "p1", True, 2.0)),
        (6.0, ("play", "a1", "They used 120 patients.", 0)),
    ]


DROPOUT = iv("p1", "Actually, one patient in ten dropped out. That is on page 2.",
             values=("one patient in ten",), topic="dropout rate")


def waiting_remark(answered_at: float | None, until: float, remark: Intervention = DROPOUT,
                   heard_s: float = 2.0) -> list:
    """A proactive remark queued before a direct question, in a room silent after it."""
    steps = room(0, until, speech=[(0, 3), (4, 6)]) + [
        (1.0, "iv", remark), wake(4.1), (6.2, "turn", turn("A", Q, 4.0, 6.0))]
    if answered_at is not None:
        steps += [(answered_at, "iv", answer(1)),
                  receipt(answered_at + heard_s, "a1", "finished", heard_s)]
    return run(steps).of("request", "play", "delivered", "drop")


def test_a_queued_remark_waits_until_the_direct_answer_is_said() -> None:
    assert waiting_remark(15.0, 30) == [
        (6.5, ("request", Q, "A", 1)),
        (15.0, ("play", "a1", "They used 120 patients.", 0)),
        (17.0, ("delivered", "a1", True, 2.0)),
        (19.0, ("play", "p1", DROPOUT.text, 0)),  # the usual 2 s after the agent's own voice
    ]


def test_a_queued_remark_the_direct_answer_said_is_dropped_as_stated() -> None:
    assert waiting_remark(15.0, 30, iv()) == [  # its value: "120 patients"
        (6.5, ("request", Q, "A", 1)),
        (15.0, ("play", "a1", "They used 120 patients.", 0)),
        (17.0, ("delivered", "a1", True, 2.0)),
        (19.0, ("drop", "p1", "stale_stated")),
    ]


def test_an_answer_that_never_comes_holds_a_remark_back_for_30_s_at_most() -> None:
    assert waiting_remark(None, 40) == [
        (6.5, ("request", Q, "A", 1)),
        (36.0, ("play", "p1", DROPOUT.text, 0)),
    ]


def interrupted_answer(heard_s: float) -> list:
    """A remark queued before a question whose streamed answer someone talks over."""
    steps = (room(0, 8, speech=[(0, 3), (4, 6)]) + room(8, 16.5, [(15.5, 16.5)], self_voice=True)
             + room(16.5, 40) + [
        (1.0, "iv", iv()), wake(4.1), (6.2, "turn", turn("A", Q, 4.0, 6.0)),
        delta(8.0, 1, 0, "They used 120 patients.", checked=True),
        (8.5, "iv", answer(1, "They used 120 patients. See page 2.")),
        heard(16.0, 15.5, "Wait, that is not what I asked."),
        receipt(16.2, "direct-1", "stopped", heard_s)])  # stopped in its first sentence
    return run(steps).of("play", "stop", "delivered", "drop")


def test_a_remark_plays_after_a_direct_answer_someone_talked_over() -> None:
    assert interrupted_answer(8.0) == [
        (8.0, ("play", "direct-1", "They used 120 patients.", 0)),
        (16.0, ("stop", "barge_in")),
        (16.2, ("delivered", "a1", False, 8.0)),
        (16.2, ("drop", "a1", "interrupted")),
        # 2 s after the room fell silent; no sentence of the answer was heard whole, so
        # the remark's "120 patients" is not counted as said.
        (18.5, ("play", "p1", iv().text, 0)),
    ]


def test_a_direct_answer_talked_over_at_once_is_said_again_before_an_older_remark() -> None:
    steps = (room(0, 15, speech=[(0, 3), (4, 6)]) + room(15, 16.5, [(15.3, 16.5)], self_voice=True)
             + room(16.5, 30) + [
        (1.0, "iv", DROPOUT), wake(4.1), (6.2, "turn", turn("A", Q, 4.0, 6.0)),
        (15.0, "iv", answer(1)), heard(15.8, 15.3, "Sorry, what was that?"),
        receipt(16.0, "a1", "stopped", 1.0)])
    assert run(steps).of("play", "stop", "delivered", "drop") == [
        (15.0, ("play", "a1", "They used 120 patients.", 0)),
        (15.8, ("stop", "barge_in")),
        (16.0, ("delivered", "a1", False, 1.0)),
        (16.0, ("drop", "p1", "replaced")),  # queued before the question: the answer is newer
        (18.5, ("play", "a1", "They used 120 patients.", 0)),
    ]


def test_a_direct_answer_talked_over_is_not_said_again_once_the_room_has_moved_on() -> None:
    talk = [(16.0 + 3 * i, 18.5 + 3 * i) for i in range(6)]  # six turns, no pause of 2 s
    steps = (room(0, 15, speech=[(0, 3), (4, 6)]) + room(15, 16.0, [(15.3, 16.0)], self_voice=True)
             + room(16.0, 40, speech=talk) + [
        wake(4.1), (6.2, "turn", turn("A", Q, 4.0, 6.0)),
        (15.0, "iv", answer(1)), heard(15.8, 15.3, "Sorry, what was that?"),
        receipt(16.0, "a1", "stopped", 1.0),
        *((b + 0.2, "turn", turn("B", f"Something else, point {i}.", a, b))
          for i, (a, b) in enumerate(talk))])
    assert run(steps).of("play", "delivered", "drop") == [
        (15.0, ("play", "a1", "They used 120 patients.", 0)),
        (16.0, ("delivered", "a1", False, 1.0)),
        # at the first opening, a second after the sixth turn (it waited through more than
        # two): late, not replayed
        (34.5, ("drop", "a1", "stale_late")),
    ]


def test_an_answers_last_piece_talked_over_does_not_displace_an_older_remark() -> None:
    steps = (room(0, 8, speech=[(0, 3), (4, 6)]) + room(8, 11, [(10.2, 11.0)], self_voice=True)
             + room(11, 30) + [
        (1.0, "iv", DROPOUT), wake(4.1), (6.2, "turn", turn("A", Q, 4.0, 6.0)),
        delta(8.0, 1, 0, "They used 120 patients.", checked=True),
        (8.5, "iv", answer(1, "They used 120 patients. See page 2.")),
        receipt(10.0, "direct-1", "finished", 2.0),
        heard(10.7, 10.2, "Right, so the dropout then."),
        receipt(10.9, "a1", "stopped", 0.9, 0)])
    assert run(steps).of("play", "delivered", "drop") == [
        (8.0, ("play", "direct-1", "They used 120 patients.", 0)),
        (10.0, ("play", "a1", "See page 2.", 1)),
        (10.9, ("delivered", "a1", False, 0.9)),
        (10.9, ("drop", "a1", "replaced")),  # its answer was heard: the remark keeps its turn
        (13.0, ("play", "p1", DROPOUT.text, 0)),
    ]
