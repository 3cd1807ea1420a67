"""The partial-transcript schedule: decodes for the live caption stay within their share."""

from __future__ import annotations

import pytest

from app.speech.partials import DecodeLoad, PartialSchedule


def test_a_fast_decoder_keeps_the_interval() -> None:
    schedule = PartialSchedule(interval=1.0, share=0.25)
    assert not schedule.due(0.99) and schedule.due(1.0)
    schedule.spent(0.05)  # a GPU decode
    assert schedule.wait() == 1.0 and schedule.due(1.0)


@pytest.mark.parametrize(("cost", "wait"), [(0.25, 1.0), (0.5, 2.0), (1.3, 5.2), (3.0, 12.0)])
def test_a_slow_decode_stretches_the_wait_to_its_share_of_real_time(
    cost: float, wait: float
) -> None:
    schedule = PartialSchedule(interval=1.0, share=0.25)
    schedule.spent(cost)
    assert schedule.wait() == pytest.approx(wait)
    assert not schedule.due(wait - 0.01) and schedule.due(wait)


def test_the_last_decode_sets_the_wait_so_a_machine_that_frees_up_gets_partials_back() -> None:
    schedule = PartialSchedule(interval=1.0, share=0.25)
    schedule.spent(2.0)
    assert schedule.wait() == pytest.approx(8.0)
    schedule.spent(0.1)
    assert schedule.wait() == 1.0


def test_no_share_means_no_budget_and_a_clock_step_back_costs_nothing() -> None:
    schedule = PartialSchedule(interval=1.0, share=0.0)
    schedule.spent(5.0)
    assert schedule.wait() == 1.0
    timed = PartialSchedule(interval=1.0, share=0.25)
    timed.spent(-3.0)
    assert timed.cost == 0.0 and timed.wait() == 1.0


def test_decode_load_is_the_share_of_the_last_window_of_audio() -> None:
    load = DecodeLoad(window=20.0, limit=0.5)
    assert load.share(0.0) == 0.0 and load.room(0.0)
    load.spent(5.0, 4.0)
    load.spent(10.0, 4.0)
    assert load.share(10.0) == pytest.approx(0.4) and load.room(10.0)
    load.spent(12.0, 2.0)
    assert load.share(12.0) == pytest.approx(0.5) and not load.room(12.0)
    # The decode at 5 s leaves the window at 25 s; the one at 10 s at 30 s.
    assert load.share(25.5) == pytest.approx(0.3) and load.room(25.5)
    assert load.share(40.0) == 0.0


def test_decode_load_forgets_what_left_the_window_when_it_records() -> None:
    load = DecodeLoad(window=10.0, limit=0.5)
    for t in range(100):
        load.spent(float(t), 0.1)
    assert len(load._decodes) == 10 and load.share(99.0) == pytest.approx(0.1)
