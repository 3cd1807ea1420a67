"""The ordered handoff from the frame side to the turn stage's thread."""

from __future__ import annotations

import threading

from app.speech.handoff import ThreadHandoff


def test_items_are_taken_in_order_on_another_thread_and_close_drains_them() -> None:
    taken: list[tuple[int, str]] = []
    gate = threading.Event()

    def take(item: int) -> None:
        gate.wait(5)
        taken.append((item, threading.current_thread().name))

    handoff: ThreadHandoff[int] = ThreadHandoff(take, name="stage")
    handoff.start()
    for item in range(50):
        handoff.put(item)  # never waits for the slow taker
    assert taken == []
    gate.set()
    assert handoff.close(5)
    assert [item for item, _ in taken] == list(range(50))
    assert {name for _, name in taken} == {"stage"}


def test_a_failing_item_does_not_end_the_thread() -> None:
    taken: list[int] = []

    def take(item: int) -> None:
        if item == 1:
            raise RuntimeError("a bad item")
        taken.append(item)

    handoff: ThreadHandoff[int] = ThreadHandoff(take)
    handoff.start()
    for item in range(3):
        handoff.put(item)
    assert handoff.close(5)
    assert taken == [0, 2]


def test_close_reports_a_stage_that_does_not_finish_in_time_and_restart_works() -> None:
    release = threading.Event()
    taken: list[int] = []

    def take(item: int) -> None:
        release.wait(5)
        taken.append(item)

    handoff: ThreadHandoff[int] = ThreadHandoff(take)
    handoff.start()
    handoff.put(1)
    assert not handoff.close(0.05)
    release.set()
    assert handoff.close(5) and taken == [1]
    handoff.start()  # a second run of the worker gets a fresh thread
    handoff.put(2)
    assert handoff.close(5) and taken == [1, 2]
