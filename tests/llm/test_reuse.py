"""The reuse plan: which cached runs a new prompt repeats, and where they move."""

from __future__ import annotations

import itertools
import random

import pytest

from app.llm.reuse import ReusePlan, Shift, plan_reuse


def apply(cached: list[int], plan: ReusePlan) -> list[int]:
    """What the cache holds after the plan, as the backend leaves it."""
    held = list(cached[: plan.common])
    for shift in plan.shifts:
        assert shift.to == len(held) and shift.to < shift.start
        held.extend(cached[shift.start : shift.start + shift.length])
    return held


def test_only_the_shared_leading_run_when_nothing_later_repeats() -> None:
    plan = plan_reuse([1, 2, 3, 4, 5], [1, 2, 3, 9, 9], min_run=2)
    assert plan == ReusePlan(3, ())
    assert plan.reused == 3


def test_a_window_that_dropped_its_oldest_line_shifts_the_rest_down() -> None:
    system, old_line, kept, tail = [1, 2], [50, 51, 52], [60, 61, 62, 63], [70, 71]
    cached = system + old_line + kept + tail
    prompt = system + kept + [80, 81]
    plan = plan_reuse(cached, prompt, min_run=3)
    assert plan.shifts == (Shift(start=5, length=4, to=2),)
    assert plan.reused == 6
    assert apply(cached, plan) == prompt[:6]


def test_runs_shorter_than_the_minimum_are_read_again() -> None:
    cached = [1, 2, 9, 3, 4, 9]
    prompt = [1, 2, 3, 4, 8]
    assert plan_reuse(cached, prompt, min_run=3).reused == 2
    assert plan_reuse(cached, prompt, min_run=2).shifts == (Shift(3, 2, 2),)


def test_several_runs_move_in_order() -> None:
    cached = [1, 9, 2, 3, 9, 9, 4, 5, 6]
    prompt = [1, 2, 3, 4, 5, 6, 7]
    plan = plan_reuse(cached, prompt, min_run=2)
    assert plan.shifts == (Shift(2, 2, 1), Shift(6, 3, 3))
    assert apply(cached, plan) == prompt[:6]


def test_a_zero_minimum_turns_shifting_off() -> None:
    assert plan_reuse([1, 9, 2, 3], [1, 2, 3], min_run=0) == ReusePlan(1, ())


@pytest.mark.parametrize("cached, prompt", [([], [1, 2]), ([1, 2], []), ([1, 2], [1, 2]),
                                            ([1, 2, 3], [1, 2])])
def test_edges(cached: list[int], prompt: list[int]) -> None:
    plan = plan_reuse(cached, prompt, min_run=1)
    assert apply(cached, plan) == prompt[: plan.reused]


def test_the_cache_always_holds_a_leading_part_of_the_new_prompt() -> None:
    """Every plan over small random token lists leaves a valid cache: a prefix of the new
    prompt, made of runs taken from the cache in order, each at least the minimum long."""
    rng = random.Random(3)
    for _, min_run in itertools.product(range(400), (1, 2, 3)):
        cached = [rng.randrange(4) for _ in range(rng.randrange(12))]
        prompt = [rng.randrange(4) for _ in range(rng.randrange(12))]
        plan = plan_reuse(cached, prompt, min_run)
        assert apply(cached, plan) == prompt[: plan.reused]
        assert all(s.length >= min_run for s in plan.shifts)
        assert plan.reused >= plan.common
