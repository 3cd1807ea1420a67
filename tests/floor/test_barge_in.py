"""Barge-in with the backchannel filter (app.floor.bargein) on a simulated clock.

The agent plays from 5.0 s; a participant talks over it (VAD events flagged self_voice,
input levels every 0.1 s); ``heard`` is the speech worker's transcript of that speech.
"""

from __future__ import annotations

import pytest

from app.floor import FloorFSM
from app.settings import FloorSettings
from tests.floor.script import heard, iv, receipt, room, run

TEXT = "Actually, the trial enrolled 120 patients. That is on page 2."
PLAYED = [
    (0.0, ("state", "listening")),
    (5.0, ("play", "p1", TEXT, 0)),
    (5.0, ("cite", 7)),
    (5.0, ("state", "speaking")),
]


def over(speech: list[tuple[float, float]], *extra) -> list:
    """A queued intervention released at 5.0 and played to 9.0 unless stopped."""
    return (
        room(0, 5, speech=[(0, 3)])
        + room(5, 9, speech=speech, self_voice=True)
        + [(1.0, "iv", iv()), *extra]
    )


STOPS = [
    pytest.param(
        over([(5.5, 8.0)], heard(6.0, 5.5, "Wait, that is not right.")),
        [6.0],
        id="words-at-sustained-speech-stop-at-once",
    ),
    pytest.param(
        over([(5.5, 6.2)], heard(6.0, 5.5, "Yeah.")),
        [],
        id="a-backchannel-holds",
    ),
    pytest.param(
        over([(5.5, 6.2)], heard(6.0, 5.5, "Mm-hmm, okay.")),
        [],
        id="a-two-word-backchannel-holds",
    ),
    pytest.param(
        over([(5.5, 8.0)], heard(6.0, 5.5, "Yeah."), heard(6.3, 5.5, "Yeah, but the")),
        [6.3],
        id="backchannel-then-words-stops-when-the-words-come",
    ),
    pytest.param(
        over([(5.5, 8.0)], heard(6.0, 5.5, "Mm-hmm.")),
        [6.6],
        id="a-backchannel-that-goes-on-stops-after-1.2s",
    ),
    pytest.param(
        over([(5.5, 8.0)], heard(6.0, 5.5, "")),
        [6.6],
        id="no-words-holds-until-1.2s",
    ),
    pytest.param(
        over([(5.5, 8.0)]),
        [6.6],
        id="no-transcript-at-all-stops-after-1.2s",
    ),
    pytest.param(
        over([(5.5, 8.0)], heard(5.8, 5.5, "Stop")),
        [6.0],
        id="words-before-sustained-speech-wait-for-it",
    ),
    pytest.param(
        over([(5.5, 8.0)], heard(6.0, 5.5, "yeah yeah okay right sure")),
        [6.0],
        id="five-backchannel-words-are-not-a-backchannel",
    ),
    pytest.param(
        over(
            [(5.5, 5.9), (6.5, 8.0)],
            heard(7.0, 5.5, "Hold on, stop."),
            heard(7.0, 6.5, "Okay."),
        ),
        [7.6],
        id="a-transcript-of-earlier-speech-does-not-count",
    ),
    pytest.param(
        over([(5.5, 6.2), (6.9, 7.6)], heard(6.0, 5.5, "Yeah."), heard(7.4, 6.9, "Right.")),
        [],
        id="two-separate-backchannels-hold",
    ),
]


@pytest.mark.parametrize(("steps", "stops"), STOPS)
def test_backchannel_filter(steps: list, stops: list[float]) -> None:
    assert run(steps).of("stop") == [(t, ("stop", "barge_in")) for t in stops]


# A drawn-out "Okaaay." (a recorded participant: 1.06 s of voice, Whisper hears "Okay.").
# Levels every 0.1 s: speech over [a, b) spans b - a + 0.1 s from its first voiced frame.
LONG_BACKCHANNEL = [
    pytest.param([(5.5, 6.5)], "Okay.", [], id="1.1s-okay-holds"),
    pytest.param([(5.5, 6.6)], "Okay.", [], id="1.2s-okay-holds-to-its-last-frame"),
    pytest.param([(5.5, 6.7)], "Okay.", [6.6], id="1.3s-okay-stops-at-1.2s"),
    pytest.param([(5.5, 6.5)], "", [], id="1.1s-no-words-holds"),
    pytest.param([(5.5, 6.5)], "Okay, but", [6.0], id="1.1s-with-words-stops-at-once"),
    pytest.param(
        [(5.5, 6.5), (7.1, 7.8)], "Okay.", [], id="a-sound-after-a-short-silence-is-new-speech"
    ),
]


@pytest.mark.parametrize(("speech", "words", "stops"), LONG_BACKCHANNEL)
def test_a_long_backchannel_holds_up_to_hold_max(
    speech: list[tuple[float, float]], words: str, stops: list[float]
) -> None:
    steps = over(speech, heard(6.0, 5.5, words))
    assert FloorSettings().barge_in_hold_max == 1.2
    assert run(steps).of("stop") == [(t, ("stop", "barge_in")) for t in stops]


def test_a_held_backchannel_lets_the_agent_finish() -> None:
    steps = over([(5.5, 6.2)], heard(6.0, 5.5, "Yeah."), receipt(9.0, "p1", "finished", 4.0))
    assert run(steps).log == [
        *PLAYED,
        (9.0, ("uncite",)),
        (9.0, ("delivered", "p1", True, 4.0)),
        (9.0, ("state", "listening")),
    ]


def test_filter_off_stops_at_sustained_speech() -> None:
    fsm = FloorFSM(FloorSettings(barge_in_backchannel_filter=False))
    steps = over([(5.5, 6.2)], heard(6.0, 5.5, "Yeah."))
    assert run(steps, fsm).of("stop") == [(6.0, ("stop", "barge_in"))]


@pytest.mark.parametrize(("hold_max", "stop"), [(0.5, 6.0), (0.7, 6.1), (1.5, 6.9)])
def test_hold_max_sets_when_speech_that_goes_on_takes_the_floor(
    hold_max: float, stop: float
) -> None:
    fsm = FloorFSM(FloorSettings(barge_in_hold_max=hold_max))
    steps = over([(5.5, 8.0)], heard(6.0, 5.5, "Yeah."))
    assert run(steps, fsm).of("stop") == [(stop, ("stop", "barge_in"))]


def test_unflagged_speech_goes_through_the_filter_too() -> None:
    """Speech in a pause of the agent's audio (not flagged) is filtered the same way."""
    steps = room(0, 5, speech=[(0, 3)]) + room(5, 9, speech=[(5.5, 6.2)]) + [(1.0, "iv", iv())]
    assert run(steps + [heard(6.0, 5.5, "Okay.")]).of("stop") == []
    assert run(steps + [heard(6.0, 5.5, "No, no.")]).of("stop") == [(6.0, ("stop", "barge_in"))]


def test_speech_the_detector_hears_in_pieces_counts_from_its_onset() -> None:
    """The double-talk detector misses frames of a participant: the 1.2 s run from the
    onset to the latest voiced frame, not over voiced frames only."""
    from app.events import InputLevel, VadEvent, VadKind

    voiced = [(5.5, 5.8), (6.0, 6.2), (6.4, 6.7)]
    steps = room(0, 5, speech=[(0, 3)]) + [(1.0, "iv", iv())]
    for i in range(50, 90):
        t = round(i * 0.1, 3)
        talking = any(a <= t < b for a, b in voiced)
        steps.append((t, "level", InputLevel(t, 0.05 if talking else 0.001, talking)))
    steps += [
        (5.5, "vad", VadEvent(VadKind.SPEECH_ONSET, 5.5, 0.05, True)),
        (6.1, "vad", VadEvent(VadKind.SUSTAINED_SPEECH, 6.1, 0.05, True)),
        heard(6.1, 5.5, ""),
        (7.2, "vad", VadEvent(VadKind.SHORT_SILENCE, 7.2, 0.001, True)),
    ]
    assert run(steps).of("stop") == [(6.6, ("stop", "barge_in"))]
