"""How long real meetings fall silent between turns: the gaps a rendered room leaves.

A script's own times (or a narrow band of short gaps) never leave the room silent for the
2 s that speak mode waits for (SPEC §5), so a rendered meeting could not show whether
the agent speaks up at a real pause. Real meetings do pause: in the 16 AMI meetings under
``../shared/data/ami_rttm`` (528 minutes, word-level speaker references) 22% of the
silences between anyone's speech last 2 s or more, about 1.3 a minute. A rendered turn
after another draws its gap from those silences.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tests.speech.scoring import read_rttm, rttm_recordings

MAX_PAUSE = 10.0  # s: longer silences (a room reading, a whiteboard) are cut to this


def silences(spans: Iterable[tuple[float, float]]) -> list[float]:
    """Seconds of silence between the stretches where anyone speaks, in order of time
    (``spans``: one recording's (start, end) of speech, in any order, overlaps allowed)."""
    gaps: list[float] = []
    end: float | None = None
    for start, stop in sorted(spans):
        if end is not None and start > end:
            gaps.append(start - end)
        end = stop if end is None else max(end, stop)
    return gaps


def meeting_pauses(folder: Path, at_most: float = MAX_PAUSE) -> tuple[float, ...]:
    """Every silence of the RTTM files in ``folder``, rounded to 10 ms, cut to ``at_most``."""
    files = sorted(folder.glob("*.rttm"))
    if not files:
        raise FileNotFoundError(f"no .rttm files in {folder}")
    found: list[float] = []
    for path in files:
        for uri in rttm_recordings(path):
            found += silences((start, end) for _, start, end in read_rttm(path, uri))
    return tuple(round(min(g, at_most), 2) for g in found)
