"""Speaker changes inside one local voice of a turn.

Segmentation tells voices apart frame by frame, but in a far-field room two people with
alike voices taking turns can come out as a single local speaker over many seconds, and
one embedding of all of it names them both after whoever said more. Here such a voice is
cut into windows of a few seconds of its clean (alone) audio; each window gets its own
embedding, and a window that clearly belongs to another session speaker already known
is handed to that speaker. Only known speakers take windows over: a window is too short
to open one, and two voices of one turn still never share a speaker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class VoiceWindow:
    """Part of one local voice: the frames it speaks for and its embedding."""

    first: int  # [first, end): the turn frames whose activity of the voice it labels
    end: int
    vector: np.ndarray


def window_frames(alone: np.ndarray, per_window: int) -> list[tuple[int, int, np.ndarray]]:
    """Cut a voice's alone frames into consecutive windows of ``per_window`` frames.

    Returns (first, end, frames) per window: ``frames`` the alone frames embedded, and
    [first, end) the stretch of the turn the window stands for, so the windows tile the
    turn (a remainder too short to embed joins the last window). A voice with less than
    two windows' clean audio gives none: its single embedding already says it all."""
    idx = np.flatnonzero(alone)
    count = idx.size // per_window if per_window > 0 else 0
    if count < 2:
        return []
    groups = [idx[i * per_window : (i + 1) * per_window] for i in range(count)]
    firsts = [0] + [int(g[0]) for g in groups[1:]]
    ends = firsts[1:] + [int(alone.size)]
    return list(zip(firsts, ends, groups, strict=True))


def moved_windows(
    windows: tuple[VoiceWindow, ...],
    own: int,
    scores: Callable[[np.ndarray], dict[int, float]],
    threshold: float,
    margin: float,
    taken: set[int],
) -> list[tuple[VoiceWindow, int]]:
    """The windows another known speaker takes over, with that speaker's index.

    A window moves when some speaker other than ``own`` matches it at ``threshold`` or
    above and beats ``own`` by ``margin``; speakers in ``taken`` (the other voices of the
    turn) never take one."""
    moved = []
    for window in windows:
        found = scores(window.vector)
        others = {i: s for i, s in found.items() if i != own and i not in taken}
        if not others:
            continue
        best = max(others, key=lambda i: others[i])
        if others[best] >= threshold and others[best] >= found.get(own, -1.0) + margin:
            moved.append((window, best))
    return moved
