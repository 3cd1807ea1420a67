"""From runs of words (units) to numbered sentences in document order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.document.model import Rect, Sentence
from app.document.segment import (
    Word,
    dehyphenate,
    sentence_rects,
    sentence_text,
    split_sentences,
    token_count,
    vocabulary,
)


@dataclass
class Unit:
    """Words a sentence may run through: the text flow, a caption, a footnote, a heading."""

    words: list[Word]
    order: float  # reading position of the unit's first block


@dataclass(frozen=True)
class Row:
    """A table row, already a sentence."""

    text: str
    page: int
    rect: Rect
    order: float


@dataclass
class Assembly:
    units: list[Unit] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    # Reading position of each (page, block), so a flow sentence sorts by where it starts.
    block_order: dict[tuple[int, int], float] = field(default_factory=dict)


def _is_prose(words: Sequence[Word], min_tokens: int) -> bool:
    if token_count(words) < min_tokens:
        return False
    alpha = sum(1 for w in words if any(ch.isalpha() for ch in w.text))
    return alpha >= 0.5 * len(words)


def _order(words: Sequence[Word], unit: Unit, assembly: Assembly) -> float:
    for word in words:
        for key, _ in word.boxes:
            return assembly.block_order.get((key[0], key[1]), unit.order)
    return unit.order


def number_sentences(assembly: Assembly, min_tokens: int) -> list[Sentence]:
    """Split every unit, drop fragments, interleave table rows, and number in reading order."""
    vocab = vocabulary(w for unit in assembly.units for w in unit.words)
    found: list[tuple[float, int, Sentence]] = []
    serial = 0
    for unit in assembly.units:
        for group in split_sentences(dehyphenate(unit.words, vocab)):
            if _is_prose(group, min_tokens):
                text = sentence_text(group)
                sentence = Sentence(-1, text, group[0].page, sentence_rects(group))
                found.append((_order(group, unit, assembly), serial, sentence))
                serial += 1
    for row in assembly.rows:
        sentence = Sentence(-1, row.text, row.page, (row.rect,), "table_row")
        found.append((row.order, serial, sentence))
        serial += 1
    found.sort(key=lambda item: (item[0], item[1]))
    return [Sentence(sid, s.text, s.page, s.rects, s.kind) for sid, (_, _, s) in enumerate(found)]
