"""``run_headless``: how a headless meeting ends (Ctrl-C, done, time out), on a meeting
stand-in whose parts are plain flags; the loop itself is the real one."""

from __future__ import annotations

import os
import signal

from app.pipeline.live import Outcome, run_headless


class Meeting:
    """What ``run_headless`` reads of a meeting."""

    def __init__(self) -> None:
        self.agent_problem: str | None = None
        self.stopped = False

    def settled(self) -> bool:
        return False

    def stop(self) -> None:
        self.stopped = True


def test_ctrl_c_inside_a_callback_that_swallows_exceptions_ends_the_run() -> None:
    calls = []

    def pump() -> None:  # as Qt does: an exception raised in a slot goes no further
        calls.append(1)
        try:
            if len(calls) == 3:
                os.kill(os.getpid(), signal.SIGINT)
            sum(range(100_000))  # Python code runs, so the signal's handler runs in here
        except KeyboardInterrupt:
            pass

    meeting = Meeting()
    before = signal.getsignal(signal.SIGINT)
    outcome = run_headless(meeting, lambda: True, lambda: None, timeout=5.0, pump=pump)
    assert outcome is Outcome.INTERRUPTED and len(calls) == 3
    assert meeting.stopped and signal.getsignal(signal.SIGINT) is before


def test_a_run_ends_when_done_or_at_its_timeout() -> None:
    meeting = Meeting()
    assert run_headless(meeting, lambda: True, lambda: None, done=lambda: True) is Outcome.DONE
    assert meeting.stopped
    assert run_headless(Meeting(), lambda: True, lambda: None, timeout=0.2) is Outcome.TIMED_OUT
