"""Turn tracker: open, speculate, resume, close on silence, wall-clock watchdog."""

from __future__ import annotations

from app.speech.turns import TurnAction, TurnTracker

F = 0.032


def feed(tracker: TurnTracker, pattern: str, t0: float = 0.0, wall0: float = 0.0):
    steps = []
    for i, ch in enumerate(pattern):
        start = t0 + i * F
        for s in tracker.update(start, start + F, ch == "1", wall0 + start + F):
            steps.append((s.action, round(s.start, 3), round(s.end, 3), i))
    return steps


def test_turn_closes_after_half_a_second_of_silence() -> None:
    tr = TurnTracker()
    steps = feed(tr, "1" * 20 + "0" * 20)
    # voiced 0..0.64; speculation at 0.2 s silence (7th silent frame), close at 0.5 s
    # (16th silent frame: 0.512 s)
    assert steps == [
        (TurnAction.OPEN, 0.0, 0.032, 0),
        (TurnAction.SPECULATE, 0.0, 0.64, 26),
        (TurnAction.CLOSE, 0.0, 0.64, 35),
    ]
    assert not tr.is_open


def test_voice_after_speculation_resumes_the_same_turn() -> None:
    tr = TurnTracker()
    steps = feed(tr, "1" * 5 + "0" * 8 + "1" * 3 + "0" * 16)
    actions = [s[0] for s in steps]
    assert actions == [
        TurnAction.OPEN,
        TurnAction.SPECULATE,
        TurnAction.RESUME,
        TurnAction.SPECULATE,
        TurnAction.CLOSE,
    ]
    assert steps[-1][1:3] == (0.0, 0.512)


def test_silence_alone_opens_nothing() -> None:
    tr = TurnTracker()
    assert feed(tr, "0" * 50) == []
    assert tr.tick(100.0) == []
    assert tr.flush() == []


def test_watchdog_closes_when_audio_stops_arriving() -> None:
    tr = TurnTracker(end_silence=0.5, watchdog=0.7)
    feed(tr, "1" * 10)  # last voiced frame reported at wall 0.32
    assert tr.tick(0.32 + 0.69) == []
    (step,) = tr.tick(0.32 + 0.7)
    assert step.action is TurnAction.CLOSE and round(step.end, 3) == 0.32


def test_flush_closes_an_open_turn_at_its_last_voiced_frame() -> None:
    tr = TurnTracker()
    feed(tr, "0011100")
    (step,) = tr.flush()
    assert (step.action, round(step.start, 3), round(step.end, 3)) == (
        TurnAction.CLOSE,
        0.064,
        0.16,
    )


def test_speculation_never_comes_after_the_end_threshold() -> None:
    tr = TurnTracker(end_silence=0.1, speculate_after=0.5)
    assert tr.speculate_after == 0.1
    steps = feed(tr, "111" + "0000")
    assert [(s[0], s[3]) for s in steps] == [(TurnAction.OPEN, 0), (TurnAction.CLOSE, 6)]
