"""Controls that change the running floor: settings events, the proactive gap, snoozes."""

from __future__ import annotations

from typing import Any

import pytest

from app.events import Setting, SettingsChanged
from app.floor import FloorFSM, SnoozeChanged, SnoozeSource
from app.floor.permission import snooze_request
from app.settings import FloorMode, FloorSettings
from tests.floor import script
from tests.floor.script import answer, iv, receipt, room, turn, wake

TEXT = iv().text
LISTENING = (0.0, ("state", "listening"))


def played_at(t: float, iid: str = "p1", text: str = TEXT) -> list:
    return [(t, ("play", iid, text, 0)), (t, ("cite", 7)), (t, ("state", "speaking"))]


def finished_at(t: float, seconds: float, iid: str = "p1") -> list:
    return [(t, ("uncite",)), (t, ("delivered", iid, True, seconds)), (t, ("state", "listening"))]


def setting(t: float, which: Setting, old: Any, new: Any) -> script.Step:
    return (t, "setting", SettingsChanged(which, old, new, t))


def describe(c: Any) -> tuple[Any, ...]:
    if isinstance(c, SnoozeChanged):
        return ("snooze", c.until, c.seconds, c.source.value)
    return script.describe(c)


def run(steps: list[script.Step], fsm: FloorFSM | None = None) -> list:
    """``script.run`` with the live controls: settings events and window snoozes."""
    fsm = fsm or FloorFSM()
    order = script._ORDER
    ordered = sorted(enumerate(steps), key=lambda s: (s[1][0], order.get(s[1][1], 5), s[0]))
    log = []
    for _, (t, kind, p) in ordered:
        if kind == "setting":
            commands = fsm.on_settings(p, t)
        elif kind == "snooze":
            commands = fsm.snooze(p, SnoozeSource.WINDOW, t)
        else:
            commands = script._feed(fsm, t, kind, p)
        log += [(t, describe(c)) for c in commands]
    return log


def quiet(log: list) -> list:
    """The log without glyph changes (the proactivity rules are what these tests read)."""
    return [(t, d) for t, d in log if d[0] != "state"]


# --- the proactive gap -------------------------------------------------------------------

ROOM = room(0, 12, speech=[(0, 3)])
FIRST = [(1.0, "iv", iv()), receipt(8.0, "p1", "finished", 3.0)]


def test_without_a_gap_both_interventions_play() -> None:
    log = run([*ROOM, *FIRST, (9.0, "iv", iv("p2"))])
    assert log == [LISTENING, *played_at(5.0), *finished_at(8.0, 3.0), *played_at(10.0, "p2")]


def test_gap_set_mid_meeting_drops_the_second_intervention_inside_it() -> None:
    steps = [setting(0.5, Setting.PROACTIVE_GAP, 0.0, 300.0), *ROOM, *FIRST,
             (9.0, "iv", iv("p2"))]
    assert run(steps) == [
        LISTENING, *played_at(5.0), *finished_at(8.0, 3.0), (9.0, ("drop", "p2", "rate_limited"))
    ]


def test_gap_allows_the_next_one_once_it_has_passed() -> None:
    """Counted from the start of the last proactive intervention (5.0 s)."""
    steps = [setting(0.5, Setting.PROACTIVE_GAP, 0.0, 300.0), *ROOM, *FIRST,
             (304.9, "iv", iv("p2")), (305.0, "iv", iv("p3")), (305.0, "tick", None)]
    assert quiet(run(steps)) == [
        (5.0, ("play", "p1", TEXT, 0)), (5.0, ("cite", 7)),
        (8.0, ("uncite",)), (8.0, ("delivered", "p1", True, 3.0)),
        (304.9, ("drop", "p2", "rate_limited")),
        (305.0, ("play", "p3", TEXT, 0)), (305.0, ("cite", 7)),
    ]


def test_a_gap_set_while_one_waits_is_checked_when_its_turn_comes() -> None:
    steps = [*ROOM, *FIRST, (8.5, "iv", iv("p2")), setting(9.0, Setting.PROACTIVE_GAP, 0.0, 300.0),
             (11.0, "tick", None)]
    assert quiet(run(steps)) == [
        (5.0, ("play", "p1", TEXT, 0)), (5.0, ("cite", 7)),
        (8.0, ("uncite",)), (8.0, ("delivered", "p1", True, 3.0)),
        (10.0, ("drop", "p2", "rate_limited")),
    ]


def test_direct_answers_are_never_rate_limited() -> None:
    fsm = FloorFSM(FloorSettings(proactive_gap=300.0))
    question = "Jarvis, how many patients were enrolled?"
    steps = [*ROOM, *FIRST, (8.5, "iv", iv("p2")), wake(9.0),
             (10.5, "turn", turn("A", question, 9.0, 10.0)), (11.5, "iv", answer(1))]
    assert quiet(run(steps, fsm))[4:] == [
        (8.5, ("drop", "p2", "rate_limited")),
        (9.0, ("earcon", "wake")),
        (10.5, ("request", question, "A", 1)),
        (11.5, ("play", "a1", "They used 120 patients.", 0)),
    ]


# --- mode and patience -------------------------------------------------------------------


def test_mode_changed_to_hand_raise_mid_queue_holds_the_queued_one() -> None:
    steps = [*ROOM, (1.0, "iv", iv()), setting(2.0, Setting.MODE, "speak", "hand_raise"),
             (6.0, "grant", None), (7.0, "tick", None)]
    assert run(steps) == [
        LISTENING, (2.0, ("state", "hand_raised")), *played_at(6.4),
    ]


def test_mode_changed_to_speak_releases_the_held_one_at_the_next_opening() -> None:
    fsm = FloorFSM(FloorSettings(mode=FloorMode.HAND_RAISE))
    steps = [*ROOM, (1.0, "iv", iv()), setting(4.0, Setting.MODE, "hand_raise", "speak")]
    assert run(steps, fsm) == [
        LISTENING, (1.0, ("state", "hand_raised")), (4.0, ("state", "listening")),
        *played_at(5.0),
    ]


def test_patience_change_reaches_the_floor() -> None:
    assert run([setting(1.0, Setting.PATIENCE, "default", "deferent")]) == [
        (1.0, ("patience", "deferent"))
    ]


def test_settings_of_the_voice_and_devices_leave_the_floor_alone() -> None:
    steps = [*ROOM, (1.0, "iv", iv()), setting(2.0, Setting.VOICE, "af_heart", "am_adam"),
             setting(2.5, Setting.OUTPUT_DEVICE, "", "USB speaker")]
    assert run(steps) == [LISTENING, *played_at(5.0)]


# --- snoozes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Jarvis, not now.", 900.0),
        ("Not now, Jarvis.", 900.0),
        ("Jarvis, quiet for ten minutes.", 600.0),
        ("Okay Jarvis, please be quiet for twenty five minutes.", 1500.0),
        ("Jarvis, snooze for an hour.", 3600.0),
        ("Jarvis, quiet for 5 minutes please.", 300.0),
        ("We are not now ready to decide.", None),
        ("Jarvis, not now, but what was the sample size?", None),
        ("Be quiet, everyone.", None),
    ],
)
def test_snooze_phrases(text: str, seconds: float | None) -> None:
    assert snooze_request(text, 900.0) == seconds


def test_snooze_by_voice_drops_proactive_ones_and_answers_questions() -> None:
    question = "Jarvis, how many patients were enrolled?"
    steps = [
        wake(1.0), (2.5, "turn", turn("A", "Jarvis, quiet for ten minutes.", 1.0, 2.0)),
        (3.0, "turn", turn("B", "So, the budget.", 2.6, 2.9)),
        (10.0, "iv", iv()),
        wake(20.0), (21.5, "turn", turn("A", question, 20.0, 21.0)), (22.0, "iv", answer(1)),
        receipt(24.0, "a1", "finished", 2.0),
        (602.5, "tick", None), (603.0, "iv", iv("p2")),
        *room(0, 2, speech=[(0, 2)]), *room(598, 610),
    ]
    assert quiet(run(steps)) == [
        (1.0, ("earcon", "wake")),
        (2.5, ("snooze", 602.5, 600.0, "voice")),
        (10.0, ("drop", "p1", "snoozed")),
        (20.0, ("earcon", "wake")),
        (21.5, ("request", question, "A", 1)),
        (22.0, ("play", "a1", "They used 120 patients.", 0)),
        (24.0, ("delivered", "a1", True, 2.0)),
        (602.5, ("snooze", None, 0.0, "expired")),
        (603.0, ("play", "p2", TEXT, 0)), (603.0, ("cite", 7)),
    ]


def test_not_now_joined_from_two_phrases_lowers_the_hand() -> None:
    fsm = FloorFSM(FloorSettings(mode=FloorMode.HAND_RAISE))
    steps = [
        *ROOM, (1.0, "iv", iv()),
        wake(4.0), (5.0, "turn", turn("A", "Jarvis.", 4.0, 4.4)),
        (6.0, "turn", turn("A", "Not now.", 5.2, 5.6)),
        (8.0, "turn", turn("A", "What do you think, Maya?", 7.0, 7.8)),
        (12.0, "tick", None),
    ]
    assert run(steps, fsm) == [
        LISTENING, (1.0, ("state", "hand_raised")),
        (4.0, ("earcon", "wake")),
        (6.0, ("snooze", 906.0, 900.0, "voice")),
        (6.0, ("drop", "p1", "snoozed")),
        (6.0, ("state", "listening")),
    ]


def test_snooze_from_the_window_stops_a_proactive_intervention_being_said() -> None:
    steps = [*ROOM, (1.0, "iv", iv()), (6.0, "snooze", 300.0),
             receipt(6.1, "p1", "stopped", 1.0), (7.0, "iv", iv("p2")),
             (306.0, "iv", iv("p3")), (306.0, "tick", None)]
    assert quiet(run(steps)) == [
        (5.0, ("play", "p1", TEXT, 0)), (5.0, ("cite", 7)),
        (6.0, ("snooze", 306.0, 300.0, "window")),
        (6.0, ("stop", "snoozed")),
        (6.1, ("uncite",)), (6.1, ("delivered", "p1", False, 1.0)),
        (7.0, ("drop", "p2", "snoozed")),
        (306.0, ("snooze", None, 0.0, "expired")),
        (306.0, ("play", "p3", TEXT, 0)), (306.0, ("cite", 7)),
    ]


def test_a_snooze_ended_from_the_window() -> None:
    steps = [*ROOM, (1.0, "snooze", 900.0), (2.0, "snooze", 0.0), (3.0, "iv", iv())]
    assert quiet(run(steps)) == [
        (1.0, ("snooze", 901.0, 900.0, "window")),
        (2.0, ("snooze", None, 0.0, "window")),
        (5.0, ("play", "p1", TEXT, 0)), (5.0, ("cite", 7)),
    ]
