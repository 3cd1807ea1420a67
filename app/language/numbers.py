"""Quantities in speech and in the document: number words, scales, percent, units.

"sixty-four percent", "64%" and "64 per cent" are the same quantity; "12M users" and
"twelve million users" too. Section, figure, table and page numbers are not
quantities, nor is a bare "one" ("one of them").

One table of number words and one of scales serve every reader of numbers here: the
quantities the detectors compare (``quantities``), the values retrieval matches
(``numeric_values``) and the evaluator's tokens with each number merged into one
(``canonical_tokens``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from app.language.stems import strip_plural_s

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALE_WORDS: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9,
                                 "trillion": 1e12}
SCALE_SUFFIXES: dict[str, float] = {"k": 1e3, "m": 1e6, "mn": 1e6, "mio": 1e6, "b": 1e9,
                                    "bn": 1e9}
SCALES: dict[str, float] = SCALE_WORDS | SCALE_SUFFIXES
# Longest first, so "bn" is not read as "b".
_SCALE = "|".join(sorted(SCALES, key=len, reverse=True))

_NUMBER_WORD = "|".join(["hundred", *NUMBER_WORDS])
# A run of number words ("one hundred twenty", "sixty-four", "thirty one").
_WORD_RUN = re.compile(
    rf"\b(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*\b", re.IGNORECASE
)

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
    rf"(?:\s?({_SCALE})\b)?"                             # an optional scale
    r"(\s?%|\s+percent\b|\s+per\s+cent\b)?",            # an optional percent
    re.IGNORECASE,
)

# The upper bound of a percent range: "20-30%", "10 to 15 percent" (the lower bound is a
# percentage too, and the range is what was said).
_RANGE_PERCENT = re.compile(r"\s?(?:-|\u2013|to)\s?\d+(?:\.\d+)?(?:\s?%|\s+percent\b)",
                            re.IGNORECASE)


def _parse_word_run(run: str) -> int | None:
    tokens = [t for t in re.split(r"[\s-]+", run.lower()) if t and t != "and"]
    if tokens == ["one"]:
        return None  # "one of them", "one big room": not a quantity
    current = 0
    for tok in tokens:
        if tok == "hundred":
            current = max(current, 1) * 100
        else:
            current += NUMBER_WORDS[tok]
    return current


def word_numbers_to_digits(text: str) -> str:
    """Spell number words as digits; a lone "one" stays a word."""

    def repl(match: re.Match[str]) -> str:
        value = _parse_word_run(match.group(0))
        return match.group(0) if value is None else str(value)

    return _WORD_RUN.sub(repl, text)


@dataclass(frozen=True)
class Quantity:
    """A number said or written, with what it counts."""

    value: float  # the number, scale applied ("12M" -> 12000000.0)
    percent: bool  # said as a percentage
    nouns: frozenset[str]  # stemmed words right after the number: what is counted
    raw: str  # as written (number words as digits)
    year: bool = False  # a plain integer 1900-2100 that reads as a year
    # stemmed words around it within its clause: which of several quantities is which
    context: frozenset[str] = frozenset()

    def same_value(self, other: Quantity) -> bool:
        return abs(self.value - other.value) <= 1e-9 * max(1.0, abs(self.value))

    def rounds_to(self, other: Quantity) -> bool:
        """Said with fewer decimals than ``other`` is written with, the value is
        ``other``'s rounded to them ("about two degrees" for 2.1 degrees)."""
        mine, theirs = _written(self), _written(other)
        if mine is None or theirs is None or theirs[1] <= mine[1]:
            return False
        return abs(round(theirs[0], mine[1]) - mine[0]) <= 1e-9 * max(1.0, abs(mine[0]))

    def compatible(self, other: Quantity) -> bool:
        """Both count the same kind of thing, so differing values contradict."""
        if self.percent != other.percent or self.year != other.year:
            return False
        return self.percent or self.year or bool(self.nouns & other.nouns)

    def spoken(self) -> str:
        number = f"{self.value:g}" if self.value < 1e6 else f"{self.value:.0f}"
        return number + ("%" if self.percent else "")


def _written(q: Quantity) -> tuple[float, int] | None:
    """The number as written and its decimals; None when a scale applies ("26.7M")."""
    match = re.search(r"\d[\d,]*(?:\.(\d+))?", q.raw)
    if match is None:
        return None
    written = float(match.group(0).replace(",", ""))
    if abs(written - q.value) > 1e-9 * max(1.0, abs(q.value)):
        return None
    return written, len(match.group(1) or "")


def nouns_after(text: str, end: int) -> frozenset[str]:
    """What a number ending at ``end`` counts: the stemmed words after it in its clause."""
    clause = re.split(r"[,.;:!?()]", text[end : end + 60].lower())[0]
    following = re.findall(r"[a-z][a-z0-9-]*", clause)
    nouns = [strip_plural_s(w) for w in following if w not in _NOUN_SKIP][:3]
    return frozenset(nouns)


def _context(text: str, start: int, end: int, reach: int = 40) -> frozenset[str]:
    """Words of the clause around a number ("62% for group A", "group B at 26%")."""
    before = re.split(r"[,;:!?()]|\.\s", text[max(0, start - reach) : start].lower())[-1]
    after = re.split(r"[,;:!?()]|\.\s", text[end : end + reach].lower())[0]
    words = re.findall(r"[a-z][a-z0-9-]*", f"{before} {after}")
    return frozenset(strip_plural_s(w) for w in words if w not in _NOUN_SKIP and len(w) > 2)


# A word with its contraction or possessive ("it's", "they've", "the school's"): one word,
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
        # "2,056 clicks" is a count: a year is never written with a thousands separator
        year = (not percent and scale == 1.0 and number.is_integer()
                and 1900 <= number <= 2100 and "," not in match.group(1))
        nouns = frozenset() if percent else nouns_after(normal, match.end())
        found.append(Quantity(number * scale, percent, nouns, raw.strip(), year,
                              _context(normal, match.start(), match.end())))
    return found


# A single digit, a full stop or comma and a space, then digits: how a recognizer may
# write a spoken decimal point ("1. 4 million", "one, four million" for 1.4 million).
_SPLIT_DECIMAL = re.compile(r"(?<![\d.,])(\d)[.,]\s+(\d+)(?![\d,]*\.\d)")
_LONE_ONE = re.compile(r"\bone(?=[.,]\s+\d)", re.IGNORECASE)


def joined_decimals(text: str) -> str:
    """``text`` (number words as digits) with each decimal the recognizer may have split
    read as one number ("1. 4 million" -> "1.4 million")."""
    digits = _LONE_ONE.sub("1", word_numbers_to_digits(text))
    return _SPLIT_DECIMAL.sub(r"\1.\2", digits)


def repeats(quantity: Quantity, given: Iterable[Quantity]) -> bool:
    """``quantity`` is one of ``given`` ("five thousand" is "5,000"; 40% is not 40)."""
    return any(quantity.same_value(g) and quantity.percent == g.percent for g in given)


# --- thousands separators -------------------------------------------------------------

THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")


# --- values for retrieval -----------------------------------------------------------------

_VALUE = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)\s*"
    r"(%|percent|per cent|[kKmMbB]\b|thousand|million|billion)?"
)
_CITATION_MARK = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
_MULTIPLIERS = {"hundred": 100.0} | SCALE_WORDS


def numeric_values(text: str) -> set[float]:
    """Numbers in digits or words, with k/M/B/million scales applied ("12M" = 12 million);
    citation marks ("[12]") skipped.

    Bare "one" is left out: in talk it is a pronoun far more often than a count.
    """
    found: set[float] = set()
    text = _CITATION_MARK.sub(" ", text)
    for digits, scale in _VALUE.findall(text):
        value = float(digits.replace(",", ""))
        found.add(value * SCALES.get(scale.lower(), 1.0) if scale else value)
    found |= _word_values(text)
    return found


def _word_values(text: str) -> set[float]:
    found: set[float] = set()
    value: float | None = None
    for token in re.findall(r"[a-z]+|[^a-z\s-]", text.lower()):
        if token in NUMBER_WORDS:
            value = (value or 0) + NUMBER_WORDS[token]
        elif token in _MULTIPLIERS and value is not None:
            value *= _MULTIPLIERS[token]
        elif token == "and" and value is not None:
            continue
        else:
            if value is not None and value != 1:
                found.add(value)
            value = None
    if value is not None and value != 1:
        found.add(value)
    return found


# --- the evaluator's tokens: each number expression merged into one token -----------------

_ARTICLES = frozenset({"the", "a", "an"})
_CANONICAL = re.compile(
    r"(?P<num>\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?P<suffix>k|mn|m|bn|b)?(?![a-z0-9])"
    r"|(?P<pct>%)"
    r"|(?P<word>[a-z0-9]+(?:'[a-z]+)?)"
)
_PERCENT_WORDS = re.compile(r"\bper\s*cent\b|\bpercent(?:age)?\b")


def _raw_tokens(text: str) -> list[str | float]:
    """Words as strings, numeric literals as floats (suffixes applied)."""
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    text = _PERCENT_WORDS.sub(" % ", text)
    out: list[str | float] = []
    for match in _CANONICAL.finditer(text):
        if match.group("num"):
            value = float(match.group("num").replace(",", ""))
            suffix = match.group("suffix")
            out.append(value * SCALE_SUFFIXES[suffix] if suffix else value)
        else:
            out.append(match.group("pct") or match.group("word"))
    return out


class _NumberBuilder:
    """Accumulates one spoken or written number across tokens."""

    def __init__(self) -> None:
        self.total = 0.0
        self.current = 0.0
        self.active = False
        self.literal = False  # started from digits ("12 million")

    def feed(self, token: str | float, following: str | float | None) -> bool:
        """Take ``token`` into the number if it continues it; False when it does not."""
        if isinstance(token, float):
            if self.active:
                return False
            self.current, self.active, self.literal = token, True, True
            return True
        if token in NUMBER_WORDS and not self.literal:
            unit = NUMBER_WORDS[token]
            # "twenty one" continues; "one two" or "twenty thirty" starts a new number.
            if self.active and (self.current % 100 == 0 or (self.current % 10 == 0 and unit < 10)):
                self.current += unit
                return True
            if self.active:
                return False
            self.current, self.active = float(unit), True
            return True
        if token == "hundred" and not self.literal:
            self.current = max(self.current, 1.0) * 100
            self.active = True
            return True
        if token in SCALE_WORDS:
            self.total += max(self.current, 1.0) * SCALE_WORDS[token]
            self.current, self.active = 0.0, True
            return True
        if token == "and" and self.active and not self.literal:
            # only "hundred and twenty" / "thousand and five", not "twenty one and two"
            after_scale = self.current % 100 == 0 and self.value() > 0
            return after_scale and isinstance(following, str) and following in NUMBER_WORDS
        if token == "a" and not self.active:
            if following == "hundred" or following in SCALE_WORDS:
                self.active = True
                return True
        return False

    def value(self) -> float:
        return self.total + self.current


def _format_number(value: float) -> str:
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.6g}"


def canonical_tokens(text: str) -> list[str]:
    """Lower-case word tokens, articles dropped, with each number expression ("120.0",
    "1,200", "12M", "twelve million") merged into one token holding its value;
    "%" and "percent" both become a "%" token."""
    raw = _raw_tokens(text)
    out: list[str] = []
    builder = _NumberBuilder()
    index = 0
    while index < len(raw):
        token = raw[index]
        following = raw[index + 1] if index + 1 < len(raw) else None
        if builder.feed(token, following):
            index += 1
            continue
        if builder.active:
            out.append(_format_number(builder.value()))
            builder = _NumberBuilder()
            continue  # re-read this token with a fresh builder
        if isinstance(token, str) and token not in _ARTICLES:
            out.append(token)
        index += 1
    if builder.active:
        out.append(_format_number(builder.value()))
    return out
