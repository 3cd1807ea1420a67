"""Sentence segmentation over positioned words.

Pure text logic: words come from a PDF page (with boxes) or a text file (without). The
splitter cuts after ``.!?`` unless the period belongs to an abbreviation, an initial or a
number, keeps trailing citations with their sentence, and repairs line-end hyphenation.
Chinese and Japanese set sentences without spaces, so there it also cuts inside a word,
after ``。`` and after ``.!?`` (NFKC folds ``．！？`` into these) that follow CJK text.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from app.document.model import Rect

LineKey = tuple[int, int, int]  # (page, block, line) of the visual line a box sits on
Box = tuple[LineKey, Rect]


@dataclass(frozen=True)
class Word:
    text: str
    page: int = 1
    boxes: tuple[Box, ...] = ()
    line_end: bool = False  # last word of its visual line (or block): hyphenation may join


# Periods after these never end a sentence (they always lead into more text).
NEVER_FINAL = frozenset(
    "e.g i.e cf vs viz fig figs eq eqs sec secs tab dr mr mrs ms prof approx ca resp "
    "incl ref refs ch chap app st mt vol eds ed nr".split()
)
# These end a sentence only when a typical sentence opener follows.
MAYBE_FINAL = frozenset("al etc inc ltd co corp jr sr bros".split())
# Only abbreviations when a number follows ("No. 5", "pp. 12", "Feb. 10").
BEFORE_NUMBER = frozenset("no nos p pp jan feb mar apr jun jul aug sep sept oct nov dec".split())
OPENERS = frozenset(
    "the this these that those there their then thus however we our in on at for it its "
    "a an as to after although because but by during each from here if moreover most "
    "many more other since some such two three while with when where which what who how "
    "furthermore finally first second overall further note also".split()
)

_CLOSERS = "\"'”’)]»」』】〕》〉"
# Scripts set without spaces between words: kana, Han, Hangul (letters), plus the CJK
# symbols and punctuation block (。、「」).
_CJK_LETTERS = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = "\u3000-\u303f" + _CJK_LETTERS
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_LETTER = re.compile(f"[{_CJK_LETTERS}]")
# A sentence end inside CJK text: the ideographic full stop, or .!? right after a CJK
# character (so never a decimal point or a Latin abbreviation). A quotation closed on its
# stop runs on in the same sentence (「はい。」と答えた。), so no cut before closing quotes.
_CJK_END = re.compile(f"(?:。|(?<=[{_CJK}])[.!?．！？])+(?![{re.escape(_CLOSERS)}])")
# A sentence end glued to the next sentence's first word ("done.Then we"), as text
# extraction leaves it where a line's layout hid the space: after two lower-case letters
# and before a capital and a lower-case letter, so never an initialism or a decimal.
_GLUED_END = re.compile(r"(?<=[a-z]{2})[.!?](?=[A-Z][a-z])")
_TRAILING_CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]$")
_CITATION_WORD = re.compile(r"^\[\d+(?:[,–-]\d+)*[,\]]?\.?$|^\d+\]\.?$")
_FOOTNOTE_AFTER_PERIOD = re.compile(r"[A-Za-z)\]][.!?]\d{1,2}$")
_INITIALISM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")
_DROP_CATEGORIES = frozenset({"Cc", "Co", "Cf", "Cs", "Cn"})


def normalize(text: str) -> str:
    """NFKC (ligatures, compatibility forms) minus control / private-use characters."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if unicodedata.category(ch) not in _DROP_CATEGORIES)


def words_from_text(text: str, page: int = 1) -> list[Word]:
    """Words of plain text; the last word of each line may join a hyphenated next line."""
    words: list[Word] = []
    for line in text.splitlines():
        tokens = [t for t in (normalize(t) for t in line.split()) if t]
        for i, token in enumerate(tokens):
            words.append(Word(token, page, (), i == len(tokens) - 1))
    return words


def vocabulary(words: Iterable[Word]) -> frozenset[str]:
    """Lower-cased words of the document, used to decide how a line-end hyphen joins."""
    return frozenset(_bare(w.text) for w in words if not w.line_end)


def _bare(text: str) -> str:
    return text.strip(".,;:!?()[]{}\"'“”‘’").lower()


def _join_hyphen(head: str, tail: str, vocab: frozenset[str]) -> str:
    stem = head[:-1]
    if head.endswith("–") or not tail[:1].islower():
        return head + tail  # "Wi-" + "Fi", "12–" + "15": the dash is part of the word
    glued, kept = stem + tail, head + tail
    if _bare(kept) in vocab and _bare(glued) not in vocab:
        return kept
    if ("-" in stem.lstrip("-") or stem[-1:].isdigit()) and _bare(glued) not in vocab:
        return kept  # "state-of-the-" + "art", "20-" + "fold"
    return glued


def dehyphenate(words: Sequence[Word], vocab: frozenset[str] = frozenset()) -> list[Word]:
    """Join words broken across lines: "de-" + "terministic" -> "deterministic"."""
    out: list[Word] = []
    i = 0
    while i < len(words):
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (
            nxt is not None
            and word.line_end
            and len(word.text) > 1
            and word.text[-1] in "-–"
            and word.text[-2].isalnum()
        ):
            text = _join_hyphen(word.text, nxt.text, vocab)
            boxes = word.boxes + nxt.boxes
            out.append(replace(word, text=text, boxes=boxes, line_end=nxt.line_end))
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def _core(text: str) -> str:
    """The word without closing quotes/brackets and a citation glued after its period."""
    core = text.rstrip(_CLOSERS)
    stripped = _TRAILING_CITATION.sub("", text)
    if stripped != text and stripped[-1:] in ".!?":
        return stripped.rstrip(_CLOSERS)
    return core


def _opener(word: Word | None) -> bool:
    return word is not None and word.text.strip("\"“‘'(").lower() in OPENERS


def ends_sentence(word: Word, nxt: Word | None) -> bool:
    """Whether a sentence ends after ``word`` given the following word."""
    text = word.text
    if _FOOTNOTE_AFTER_PERIOD.search(text) and (nxt is None or nxt.text[:1].isupper()):
        return True  # "(see above).2 The next ..." (footnote mark after the period)
    core = _core(text)
    if not core or core[-1] not in ".!?…。":
        return False
    if nxt is None:
        return True
    if core[-1] == "。" or _CJK_CHAR.match(core[-2:-1]):  # CJK has no abbreviations
        return text == core or not _CJK_CHAR.match(nxt.text[:1])  # 「はい。」と runs on
    starts_lower = nxt.text[:1].islower()
    if core[-1] in "!?":
        return not starts_lower
    stem = core.rstrip(".…").lstrip("(\"“‘'[")
    key = stem.lower()
    if key in NEVER_FINAL or (key in BEFORE_NUMBER and nxt.text[:1].isdigit()):
        return False
    if key in MAYBE_FINAL or _INITIALISM.match(stem) or (len(stem) == 1 and stem.isupper()):
        return _opener(nxt)
    return not starts_lower


def _slice_boxes(boxes: tuple[Box, ...], start: float, end: float) -> tuple[Box, ...]:
    """The part of a word's boxes between two fractions of its text, by horizontal extent.

    CJK glyphs are all one width, so a character share is a share of the width (near
    enough for Latin letters too)."""
    total = sum(r[2] - r[0] for _, r in boxes)
    out: list[Box] = []
    before = 0.0
    for key, (x0, y0, x1, y1) in boxes:
        lo = max(start * total - before, 0.0)
        hi = min(end * total - before, x1 - x0)
        if hi > lo or (total == 0 and not out):
            out.append((key, (x0 + lo, y0, x0 + hi, y1)))
        before += x1 - x0
    return tuple(out)


def word_pieces(word: Word) -> list[Word]:
    """A word cut after each sentence end inside it: CJK ones ("好。再见" -> "好。",
    "再见") and Latin ones glued to the next sentence ("done.Then" -> "done.", "Then")."""
    text = word.text
    glued = {m.end() for m in _GLUED_END.finditer(text) if ends_sentence(
        replace(word, text=text[: m.end()]), replace(word, text=text[m.end():]))}
    cuts = sorted(({m.end() for m in _CJK_END.finditer(text)} | glued) - {len(text)})
    if not cuts:
        return [word]
    n = len(text)
    bounds = [0, *cuts, n]
    return [
        replace(
            word,
            text=text[a:b],
            boxes=_slice_boxes(word.boxes, a / n, b / n),
            line_end=word.line_end and b == n,
        )
        for a, b in itertools.pairwise(bounds)
    ]


def cjk_letters(text: str) -> int:
    """Han, kana and Hangul characters: in CJK text each is about one word and one token."""
    return len(_CJK_LETTER.findall(text))


def token_count(words: Sequence[Word]) -> int:
    """Words of running text; in CJK text, where no spaces divide words, each character."""
    count = 0
    for word in words:
        cjk = cjk_letters(word.text)
        rest = [t for t in _CJK_CHAR.sub(" ", word.text).split() if any(map(str.isalnum, t))]
        count += cjk + len(rest) if cjk else 1
    return count


def split_sentences(words: Sequence[Word]) -> list[list[Word]]:
    """Cut a run of words into sentences; a citation after the period stays with it."""
    words = [piece for word in words for piece in word_pieces(word)]
    sentences: list[list[Word]] = []
    current: list[Word] = []
    i = 0
    while i < len(words):
        current.append(words[i])
        nxt = words[i + 1] if i + 1 < len(words) else None
        if ends_sentence(words[i], nxt):
            while i + 1 < len(words) and _CITATION_WORD.match(words[i + 1].text):
                i += 1
                current.append(words[i])
            sentences.append(current)
            current = []
        i += 1
    if current:
        sentences.append(current)
    return sentences


def sentence_text(words: Sequence[Word]) -> str:
    """Words joined by spaces, except across a line break inside CJK text."""
    parts: list[str] = []
    for word in words:
        if parts and _CJK_CHAR.match(word.text[:1]) and _CJK_CHAR.match(parts[-1][-1:]):
            parts[-1] += word.text
        else:
            parts.append(word.text)
    return " ".join(parts)


def sentence_rects(words: Sequence[Word]) -> tuple[Rect, ...]:
    """One rectangle per visual line on the sentence's first page, in reading order."""
    if not words:
        return ()
    page = words[0].page
    lines: dict[LineKey, list[float]] = {}
    for word in words:
        for key, (x0, y0, x1, y1) in word.boxes:
            if key[0] != page:
                continue
            r = lines.setdefault(key, [x0, y0, x1, y1])
            r[0], r[1], r[2], r[3] = min(r[0], x0), min(r[1], y0), max(r[2], x1), max(r[3], y1)
    return _merge_same_line([(r[0], r[1], r[2], r[3]) for r in lines.values()])


def _merge_same_line(rects: list[Rect]) -> tuple[Rect, ...]:
    """Merge rectangles that sit side by side on one baseline (a run-in heading + text)."""
    merged: list[Rect] = []
    for r in rects:
        if merged:
            p = merged[-1]
            overlap = min(p[3], r[3]) - max(p[1], r[1])
            height = min(p[3] - p[1], r[3] - r[1])
            gap = r[0] - p[2]
            if height > 0 and overlap >= 0.5 * height and -1.0 <= gap <= 2.0 * height:
                merged[-1] = (min(p[0], r[0]), min(p[1], r[1]), max(p[2], r[2]), max(p[3], r[3]))
                continue
        merged.append(r)
    return tuple(merged)
