"""Glyph timeouts and debounce, pause/mute, patience, playback receipts."""

from __future__ import annotations

import pytest

from app.events import VadEvent, VadKind
from app.settings import Patience
from tests.floor.script import iv, receipt, room, run, ticks, turn, wake

TEXT = iv().text


def onset(t: float) -> tuple:
    return (t, "vad", VadEvent(VadKind.SPEECH_ONSET, t))


def played_at(t: float) -> list:
    return [(t, ("play", "p1", TEXT, 0)), (t, ("cite", 7)), (t, ("state", "speaking"))]


GLYPH = [
    pytest.param(
        [onset(1.0), *ticks(1.0, 33.0, 1.0)],
        [(1.0, ("state", "listening")), (31.0, ("state", "idle"))],
        id="listening-times-out-after-30s",
    ),
    pytest.param(
        [wake(1.1), (3.0, "turn", turn("A", "Jarvis, what sample size did they use?", 1, 2.5))]
        + ticks(3.0, 34.0, 1.0),
        [
            (1.1, ("earcon", "wake")),
            (1.1, ("state", "listening")),
            (3.0, ("request", "Jarvis, what sample size did they use?", "A", 1)),
            (3.0, ("state", "thinking")),
            (18.0, ("state", "listening")),
            (33.0, ("state", "idle")),
        ],
        id="thinking-times-out-after-15s",
    ),
    pytest.param(
        [onset(1.0), (1.1, "pause", True), *ticks(1.1, 1.5, 0.05)],
        [(1.0, ("state", "listening")), (1.25, ("state", "paused"))],
        id="change-within-250ms-is-held-back",
    ),
    pytest.param(
        [onset(1.0), (1.1, "pause", True), (1.2, "pause", False), *ticks(1.1, 1.5, 0.05)],
        [(1.0, ("state", "listening"))],
        id="flicker-within-250ms-never-shown",
    ),
    pytest.param(
        [(1.0, "patience", Patience.ENTHUSIASTIC)],
        [(1.0, ("patience", "enthusiastic"))],
        id="patience-preset-passed-on",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), GLYPH)
def test_glyph(steps: list, expected: list) -> None:
    assert run(steps).log == expected


BASE = room(0, 10, speech=[(0, 3)]) + [(1.0, "iv", iv())]
LISTENING = (0.0, ("state", "listening"))
RECEIPTS = [
    pytest.param(
        [receipt(9.0, "p1", "finished", 4.0)],
        [(9.0, ("uncite",)), (9.0, ("delivered", "p1", True, 4.0)), (9.0, ("state", "listening"))],
        id="heard-in-full-is-delivered",
    ),
    pytest.param(
        [receipt(5.1, "p1", "failed"), *ticks(5.1, 5.4, 0.05)],
        [
            (5.1, ("uncite",)),
            (5.1, ("drop", "p1", "playback_failed")),
            (5.25, ("state", "listening")),
        ],
        id="device-failure-recorded",
    ),
    pytest.param(
        [receipt(6.0, "other", "finished", 4.0), receipt(6.1, "p1", "started")],
        [],
        id="receipts-of-other-ids-and-started-change-nothing",
    ),
    pytest.param(
        [(6.0, "pause", True), receipt(6.02, "p1", "stopped", 1.0), (7.0, "iv", iv("p2"))]
        + [(8.0, "pause", False)],
        [
            (6.0, ("stop", "paused")),
            (6.0, ("state", "paused")),
            (6.02, ("uncite",)),
            (6.02, ("delivered", "p1", False, 1.0)),
            (7.0, ("drop", "p2", "paused")),
            (8.0, ("state", "listening")),
        ],
        id="pause-stops-without-recovery-and-refuses-new-ones",
    ),
]


@pytest.mark.parametrize(("extra", "tail"), RECEIPTS)
def test_receipts_and_pause(extra: list, tail: list) -> None:
    assert run(BASE + extra).log == [LISTENING, *played_at(5.0), *tail]


def test_pause_drops_queued_and_cancels_the_question() -> None:
    steps = [
        (1.0, "iv", iv()),
        wake(1.5),
        (2.5, "turn", turn("A", "Jarvis, what sample size did they use?", 1.4, 2.0)),
        (2.6, "pause", True),
        wake(3.0),
    ]
    assert run(steps).log == [
        (1.5, ("earcon", "wake")),
        (1.5, ("state", "listening")),
        (2.5, ("request", "Jarvis, what sample size did they use?", "A", 1)),
        (2.5, ("state", "thinking")),
        (2.6, ("drop", "p1", "paused")),
        (2.6, ("cancel", 1)),
        (3.0, ("state", "paused")),
    ]
