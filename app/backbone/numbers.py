"""Quantities in speech and in the document: number words, scales, percent, units.

"seventy-two percent", "72%" and "72 per cent" are the same quantity; "37M papers" and
"thirty-seven million papers" too. Section, figure, table and page numbers are not
quantities, nor is a bare "one" ("one of them").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_UNITS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_NUMBER_WORD = "|".join(["one", "hundred", *_UNITS, *_TENS])
# A run of number words ("one hundred twenty", "seventy-two", "thirty seven").
_WORD_RUN = re.compile(
    rf"\b(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*\b", re.IGNORECASE
)

SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mio": 1e6,
          "billion": 1e9, "bn": 1e9, "b": 1e9}
# Words before a number that make it a reference, not a quantity.
REFERENCE_WORDS = frozenset(
    "section sec sections figure fig figures table tables page pages p pp chapter eq "
    "equation appendix footnote step version v line turn item s".split()
)
_NOUN_SKIP = frozenset(
    "of the a an and or to in on for per about roughly around nearly over under more less "
    "than unique total other different those these".split()
)

_QUANTITY = re.compile(
    r"(?<![\w.\-])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)"          # the number
    r"(?:\s?(thousand|million|billion|mio|bn|k|m|b)\b)?"  # an optional scale
    r"(\s?%|\s+percent\b|\s+per\s+cent\b)?",            # an optional percent
    re.IGNORECASE,
)

# The upper bound of a percent range: "35-50%", "25 to 50 percent" (the lower bound is a
# percentage too, and the range is what was said).
_RANGE_PERCENT = re.compile(r"\s?(?:-|\u2013|to)\s?\d+(?:\.\d+)?(?:\s?%|\s+percent\b)",
                            re.IGNORECASE)


def _parse_word_run(run: str) -> int | None:
    tokens = [t for t in re.split(r"[\s-]+", run.lower()) if t and t != "and"]
    if tokens == ["one"]:
        return None  # "one of them", "one huge graph": not a quantity
    total, current = 0, 0
    for tok in tokens:
        if tok == "one":
            current += 1
        elif tok in _UNITS:
            current += _UNITS[tok]
        elif tok in _TENS:
            current += _TENS[tok]
        elif tok == "hundred":
            current = max(current, 1) * 100
    total += current
    return total


def word_numbers_to_digits(text: str) -> str:
    """Spell number words as digits; a lone "one" stays a word."""

    def repl(match: re.Match[str]) -> str:
        value = _parse_word_run(match.group(0))
        return match.group(0) if value is None else str(value)

    return _WORD_RUN.sub(repl, text)


@dataclass(frozen=True)
class Quantity:
    value: float
    percent: bool
    nouns: frozenset[str]  # stemmed words right after the number: what is counted
    raw: str
    year: bool = False
    # stemmed words around it within its clause: which of several quantities is which
    context: frozenset[str] = frozenset()

    def same_value(self, other: Quantity) -> bool:
        return abs(self.value - other.value) <= 1e-9 * max(1.0, abs(self.value))

    def compatible(self, other: Quantity) -> bool:
        """Both count the same kind of thing, so differing values contradict."""
        if self.percent != other.percent or self.year != other.year:
            return False
        return self.percent or self.year or bool(self.nouns & other.nouns)

    def spoken(self) -> str:
        number = f"{self.value:g}" if self.value < 1e6 else f"{self.value:.0f}"
        return number + ("%" if self.percent else "")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _nouns_after(text: str, end: int) -> frozenset[str]:
    clause = re.split(r"[,.;:!?()]", text[end : end + 60].lower())[0]
    following = re.findall(r"[a-z][a-z0-9-]*", clause)
    nouns = [_stem(w) for w in following if w not in _NOUN_SKIP][:3]
    return frozenset(nouns)


_COUNT_QUESTION = re.compile(r"\bhow (?:many|much)\b|\bnumber of\b", re.IGNORECASE)
_COUNT_PHRASE_END = re.compile(
    r"\b(?:was|were|is|are|did|do|does|had|has|have|that|they|we|it|there|in|of)\b.*")


def counted_in_question(question: str) -> frozenset[str]:
    """What a "how many X" question counts, stemmed like ``Quantity.nouns``."""
    m = _COUNT_QUESTION.search(question)
    if m is None:
        return frozenset()
    phrase = _COUNT_PHRASE_END.sub("", question[m.end() :].lower())
    return _nouns_after(phrase, 0)


def _context(text: str, start: int, end: int, reach: int = 40) -> frozenset[str]:
    """Words of the clause around a number ("43% for MERS", "MERS at 34%")."""
    before = re.split(r"[,;:!?()]|\.\s", text[max(0, start - reach) : start].lower())[-1]
    after = re.split(r"[,;:!?()]|\.\s", text[end : end + reach].lower())[0]
    words = re.findall(r"[a-z][a-z0-9-]*", f"{before} {after}")
    return frozenset(_stem(w) for w in words if w not in _NOUN_SKIP and len(w) > 2)


# A word with its contraction or possessive ("it's", "they've", "Northfield's"): one word,
# so the "s" of "it's" is not the section-style reference "s".
_WORD_BEFORE = re.compile(r"(?<![a-z'])[a-z]+(?:'[a-z]+)*\.?")


def _is_reference(text: str, start: int) -> bool:
    before = _WORD_BEFORE.findall(text[max(0, start - 12) : start].lower())
    return bool(before) and before[-1].rstrip(".") in REFERENCE_WORDS


def quantities(text: str) -> list[Quantity]:
    """Every quantity in ``text`` (number words included), references skipped."""
    normal = word_numbers_to_digits(text.replace("\u2019", "'"))
    found: list[Quantity] = []
    range_end = 0  # the upper bound of a range is part of the range, not a quantity
    for match in _QUANTITY.finditer(normal):
        if match.start() < range_end or _is_reference(normal, match.start()):
            continue
        if re.match(r"[a-z]", normal[match.end() : match.end() + 1], re.IGNORECASE):
            continue  # "2e-5", "F1", "v1": part of a token
        number = float(match.group(1).replace(",", ""))
        scale = SCALES.get((match.group(2) or "").lower(), 1.0)
        upper = _RANGE_PERCENT.match(normal, match.end())
        percent = bool(match.group(3)) or upper is not None
        raw = normal[match.start() : upper.end()] if upper else match.group(0)
        range_end = upper.end() if upper else range_end
        year = not percent and scale == 1.0 and number.is_integer() and 1900 <= number <= 2100
        nouns = frozenset() if percent else _nouns_after(normal, match.end())
        found.append(Quantity(number * scale, percent, nouns, raw.strip(), year,
                              _context(normal, match.start(), match.end())))
    return found


def repeats(quantity: Quantity, given: Iterable[Quantity]) -> bool:
    """``quantity`` is one of ``given`` ("five thousand" is "5,000"; 40% is not 40)."""
    return any(quantity.same_value(g) and quantity.percent == g.percent for g in given)


# Words that name a value only to set it aside: "not 5,000", "rather than 5,000",
# "instead of about 5,000", "it isn't 5,000".
_SET_ASIDE = (r"\b(?:not|isn't|wasn't|aren't|weren't|rather than|instead of|as opposed to)"
              r"\s+(?:(?:about|around|roughly|nearly|some|the|a)\s+)?")


def set_aside(text: str, said: Iterable[str]) -> str:
    """``text`` (number words as digits) less each value it names only to set it aside
    where ``said`` (what the participants said) gives that value.

    A correction names the participant's wrong value ("It is 1,260 pupils, not 5,000"):
    that value is no claim of the text's own, so no document sentence need hold it. Any
    other value stays, a value nobody said included, even in that position.
    """
    given = [q for turn in said for q in quantities(turn)]
    normal = word_numbers_to_digits(text.replace("\u2019", "'"))
    for q in quantities(normal) if given else []:
        if repeats(q, given):
            # The whole number only: "not 5" leaves "5,000" and "5.5" alone.
            normal = re.sub(_SET_ASIDE + re.escape(q.raw) + r"(?![\d,.]*\d)", "", normal,
                            flags=re.IGNORECASE)
    return normal
