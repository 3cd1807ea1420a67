"""Time comparisons that do not trip over float rounding (4.6 + 2.0 != 6.6)."""

from __future__ import annotations

EPS = 1e-6


def reached(now: float, since: float, seconds: float) -> bool:
    """True once ``seconds`` have passed since ``since``."""
    return now - since >= seconds - EPS


def within(elapsed: float, limit: float) -> bool:
    return elapsed <= limit + EPS
