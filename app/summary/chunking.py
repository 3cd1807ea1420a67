"""The meeting cut into parts the model's context can hold, on turn boundaries.

Every part is a run of whole transcript lines within a token budget; a turn too long for
one part is split at its sentences (a sentence too long, at its words), every piece
keeping the turn's number, so what the model cites is always a real turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.backbone.transcript import Line
from app.document.segment import cjk_letters
from app.language.sentences import sentences
from app.summary.meeting import SpokenTurn

# Characters per token of transcript text: spoken English with its short words and
# punctuation runs a little denser than prose (about 4), so the estimate errs long.
CHARS_PER_TOKEN = 3.5

TokenCount = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """LLM tokens of a text, erring long; CJK characters count one each."""
    cjk = cjk_letters(text)
    return math.ceil(cjk + (len(text) - cjk) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Piece:
    """One transcript line of a part: a turn, or a piece of a long one."""

    turn: int  # the turn's number
    line: str  # as the model reads it: "[Turn N] Speaker: words"
    tokens: int  # its cost, the line break included


@dataclass(frozen=True)
class Chunk:
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        return "\n".join(p.line for p in self.pieces)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.pieces)

    @property
    def turns(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(p.turn for p in self.pieces))


def pack(sizes: Sequence[int], budget: int) -> list[range]:
    """Consecutive runs of items, each as long as fits in ``budget`` (greedy, in order);
    an item larger than the budget is a run by itself."""
    runs: list[range] = []
    start, total = 0, 0
    for i, size in enumerate(sizes):
        if i > start and total + size > budget:
            runs.append(range(start, i))
            start, total = i, 0
        total += size
    if start < len(sizes):
        runs.append(range(start, len(sizes)))
    return runs


def chunk_turns(turns: Sequence[SpokenTurn], budget: int,
                count: TokenCount = estimate_tokens) -> list[Chunk]:
    """The turns as parts of at most ``budget`` tokens each."""
    pieces = [p for turn in turns for p in _pieces(turn, budget, count)]
    return [Chunk(tuple(pieces[i] for i in run))
            for run in pack([p.tokens for p in pieces], budget)]


def _line(turn: SpokenTurn, text: str) -> str:
    return Line(turn.index, turn.speaker, text).render()


def _pieces(turn: SpokenTurn, budget: int, count: TokenCount) -> list[Piece]:
    """The turn as one line, or as lines of its sentences (or words) when it is too long;
    neighbouring sentences share a line as far as the budget allows."""
    whole = _piece(turn, turn.text, count)
    if whole.tokens <= budget:
        return [whole]
    units: list[str] = []
    for sentence in sentences(turn.text):
        if _piece(turn, sentence, count).tokens <= budget:
            units.append(sentence)
        else:
            units += _fill(turn, sentence.split(), budget, count)
    return [_piece(turn, text, count) for text in _fill(turn, units, budget, count)]


def _fill(turn: SpokenTurn, units: Sequence[str], budget: int, count: TokenCount
          ) -> list[str]:
    """The units joined into as few lines as fit the budget, in order (a unit that does
    not fit alone is a line by itself)."""
    lines: list[str] = []
    current: list[str] = []
    for unit in units:
        if current and _piece(turn, " ".join([*current, unit]), count).tokens > budget:
            lines.append(" ".join(current))
            current = []
        current.append(unit)
    if current:
        lines.append(" ".join(current))
    return lines


def _piece(turn: SpokenTurn, text: str, count: TokenCount) -> Piece:
    line = _line(turn, text)
    return Piece(turn.index, line, count(line + "\n"))
