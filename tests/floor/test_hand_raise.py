"""Hand-raise mode: hold, raise the hand, speak on permission only."""

from __future__ import annotations

import pytest

from app.floor import FloorFSM
from app.settings import FloorMode, FloorSettings
from tests.floor.script import iv, room, run, turn

TEXT = "Actually, the trial enrolled 120 patients. That is on page 2."
HAND = [(0.0, ("state", "listening")), (1.0, ("state", "hand_raised"))]


def played_at(t: float, iid: str = "p1") -> list:
    return [(t, ("play", iid, TEXT, 0)), (t, ("cite", 7)), (t, ("state", "speaking"))]


def says(speaker: str, text: str, start: float, end: float) -> list:
    """A participant's utterance; its turn arrives 0.5 s after its end."""
    return [(round(end + 0.5, 2), "turn", turn(speaker, text, start, end))]


def talk(start: float, end: float) -> list:
    return [(start, "speech", end)]


def scenario(*extra: list, until: float = 12.0) -> list:
    """One room (one mic hears the union of all speech) plus the inputs."""
    steps: list = [(1.0, "iv", iv())]
    for part in extra:
        steps += part
    speech = [(0.0, 3.0)] + [(t.start, t.end) for _, k, t in steps if k == "turn"]
    speech += [(t, p) for t, k, p in steps if k == "speech"]
    return room(0, until, speech=_union(speech)) + [s for s in steps if s[1] != "speech"]


def _union(spans: list) -> list:
    merged: list = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def hand_fsm() -> FloorFSM:
    return FloorFSM(FloorSettings(mode=FloorMode.HAND_RAISE))


CASES = [
    pytest.param(
        scenario(says("B", "Go ahead, Jarvis.", 4.0, 4.8)),
        [*HAND, *played_at(5.7)],
        id="addressed-permission-then-400ms-wait",
    ),
    pytest.param(
        scenario(says("B", "Okay, go ahead.", 4.0, 4.8)),
        [*HAND, *played_at(5.7)],
        id="bare-go-ahead-while-hand-up",
    ),
    pytest.param(
        scenario(says("B", "Jarvis, you can speak now.", 4.0, 4.8)),
        [*HAND, *played_at(5.7)],
        id="you-can-speak",
    ),
    pytest.param(
        scenario(talk(3.5, 8.0), says("B", "Go ahead, Jarvis.", 4.0, 4.8)),
        HAND,
        id="permission-while-someone-else-holds-the-floor",
    ),
    pytest.param(
        scenario(says("B", "Go ahead, Jarvis.", 4.0, 4.8), talk(5.5, 6.5)),
        HAND,
        id="someone-starts-speaking-during-the-400ms-wait",
    ),
    pytest.param(scenario(says("B", "Not yet, Jarvis.", 4.0, 4.8)), HAND, id="denial-not-yet"),
    pytest.param(scenario(says("B", "Jarvis, hold on.", 4.0, 4.8)), HAND, id="denial-hold-on"),
    pytest.param(
        scenario(says("B", "Wait, don't go ahead.", 4.0, 4.8)), HAND, id="denial-dont-go-ahead"
    ),
    pytest.param(
        scenario(says("B", "Let's go ahead with the budget.", 4.0, 4.8)),
        HAND,
        id="not-end-anchored",
    ),
    pytest.param(
        scenario(says("B", "Jarvis, please", 4.0, 4.6), says("B", "jump in.", 5.5, 5.9)),
        [*HAND, *played_at(6.8)],
        id="sub-phrases-joined-within-1.5s",
    ),
    pytest.param(
        scenario(says("B", "Jarvis, please", 4.0, 4.6), says("B", "jump in.", 6.7, 7.1)),
        HAND,
        id="sub-phrases-too-far-apart",
    ),
    pytest.param(
        scenario(says("B", "Jarvis, please", 4.0, 4.6), says("C", "jump in.", 5.5, 5.9)),
        HAND,
        id="sub-phrases-of-different-speakers",
    ),
    pytest.param(
        scenario([(4.0, "grant", None)]), [*HAND, *played_at(4.4)], id="hand-button-click"
    ),
    pytest.param(
        scenario([(4.0, "lower", None)]),
        [*HAND, (4.0, ("drop", "p1", "hand_lowered")), (4.0, ("state", "listening"))],
        id="hand-lowered-by-the-user",
    ),
    pytest.param(
        scenario([(2.0, "iv", iv("p2")), (4.0, "grant", None)]),
        [*HAND, (2.0, ("drop", "p1", "replaced")), *played_at(4.4, "p2")],
        id="newer-intervention-replaces-the-held-one",
    ),
    pytest.param(
        scenario(until=62.0),
        [*HAND, (61.0, ("drop", "p1", "no_permission")), (61.0, ("state", "idle"))],
        id="61s-without-permission-discards-and-lowers-the-hand",
    ),
    pytest.param(
        scenario(says("B", "Go ahead, Jarvis.", 58.0, 60.8), until=62.0),
        [*HAND, (61.0, ("drop", "p1", "no_permission")), (61.0, ("state", "listening"))],
        id="permission-too-late",
    ),
    pytest.param(
        scenario([(2.0, "mode", FloorMode.SPEAK)]),
        [*HAND, (2.0, ("state", "listening")), *played_at(5.0)],
        id="switch-to-speak-mode-queues-the-held-one",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), CASES)
def test_hand_raise(steps: list, expected: list) -> None:
    assert run(steps, hand_fsm()).log == expected


def test_switch_to_hand_raise_holds_the_queued_one() -> None:
    steps = scenario([(2.0, "mode", FloorMode.HAND_RAISE), (4.0, "grant", None)])
    assert run(steps).log == [
        (0.0, ("state", "listening")),
        (2.0, ("state", "hand_raised")),
        *played_at(4.4),
    ]


def test_speak_mode_addressed_permission_releases_early() -> None:
    steps = scenario(says("B", "Jarvis, go ahead.", 3.2, 3.6))
    assert run(steps).of("play") == [(4.5, ("play", "p1", TEXT, 0))]
