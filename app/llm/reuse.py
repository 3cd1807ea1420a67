"""Reusing cached KV state past the first differing token.

llama.cpp keeps the state of the previous prompt, and a new prompt normally reuses only
the tokens up to the first one that differs. The meeting's prompts change in the middle:
when the transcript window slides, its oldest lines leave and everything after them is
the same text one step earlier. A :class:`Shift` moves such a run of cached tokens to
its new position (llama.cpp shifts the rotary positions of their keys), so only what is
really new is read again. The plan is pure; the backend applies it to its context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Shift:
    """A run of cached tokens that the new prompt holds at another position."""

    start: int  # position of the run's first token in the cache
    length: int  # tokens in the run
    to: int  # position of its first token in the new prompt (never after ``start``)


@dataclass(frozen=True)
class ReusePlan:
    """How much of the new prompt the cache already holds once the shifts are applied."""

    common: int  # tokens of the shared leading run, reused in place
    shifts: tuple[Shift, ...]  # later runs moved down, in order

    @property
    def reused(self) -> int:
        """Leading tokens of the new prompt that need no evaluation."""
        if not self.shifts:
            return self.common
        last = self.shifts[-1]
        return last.to + last.length


def _run(cached: Sequence[int], prompt: Sequence[int], at_cache: int, at_prompt: int) -> int:
    n = 0
    while (at_cache + n < len(cached) and at_prompt + n < len(prompt)
           and cached[at_cache + n] == prompt[at_prompt + n]):
        n += 1
    return n


def plan_reuse(cached: Sequence[int], prompt: Sequence[int], min_run: int) -> ReusePlan:
    """The shared leading run, then, walking the cache forward, every later run of at
    least ``min_run`` tokens that continues the new prompt where it stands.

    Shorter runs are not worth a shift (and would match stray phrases). Tokens of the
    new prompt that the cache does not continue end the search: what follows them is read.
    """
    common = _run(cached, prompt, 0, 0)
    shifts: list[Shift] = []
    at_cache = at_prompt = common
    while min_run > 0 and at_cache < len(cached) and at_prompt < len(prompt):
        n = _run(cached, prompt, at_cache, at_prompt)
        if n >= min_run:
            shifts.append(Shift(at_cache, n, at_prompt))
            at_cache += n
            at_prompt += n
        else:
            at_cache += 1
    return ReusePlan(common, tuple(shifts))
