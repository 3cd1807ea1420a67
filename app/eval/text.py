"""Text comparison for scoring: numbers compared as numbers, token F1, abstention phrases.

Text is reduced to canonical tokens: lower case, punctuation dropped, articles dropped,
and every number expression ("120.0", "1,200", "37M", "37 million", "thirty-seven
million") merged into one token holding its value, so "120" and "one hundred twenty"
compare equal. "%" and "percent" both become a "%" token.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SUFFIXES = {"k": 1e3, "m": 1e6, "mn": 1e6, "b": 1e9, "bn": 1e9}
_ARTICLES = frozenset({"the", "a", "an"})

_TOKEN = re.compile(
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
    for match in _TOKEN.finditer(text):
        if match.group("num"):
            value = float(match.group("num").replace(",", ""))
            suffix = match.group("suffix")
            out.append(value * _SUFFIXES[suffix] if suffix else value)
        else:
            out.append(match.group("pct") or match.group("word"))
    return out


class _NumberBuilder:
    """Accumulates one spoken or written number across tokens."""

    def __init__(self) -> None:
        self.total = 0.0
        self.current = 0.0
        self.active = False
        self.literal = False  # started from digits ("37 million")

    def feed(self, token: str | float, following: str | float | None) -> bool:
        """Take ``token`` into the number if it continues it; False when it does not."""
        if isinstance(token, float):
            if self.active:
                return False
            self.current, self.active, self.literal = token, True, True
            return True
        if token in _UNITS and not self.literal:
            unit = _UNITS[token]
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
        if token in _SCALES:
            self.total += max(self.current, 1.0) * _SCALES[token]
            self.current, self.active = 0.0, True
            return True
        if token == "and" and self.active and not self.literal:
            # only "hundred and twenty" / "thousand and five", not "twenty one and two"
            after_scale = self.current % 100 == 0 and self.value() > 0
            return after_scale and isinstance(following, str) and following in _UNITS
        if token == "a" and not self.active:
            if following == "hundred" or following in _SCALES:
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
    """Lower-case word tokens with number expressions merged into one numeric token."""
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


def _contains_sequence(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def contains_value(text: str, value: str) -> bool:
    """True when ``value`` occurs in ``text`` as a token sequence, numbers by value."""
    return _contains_sequence(canonical_tokens(text), canonical_tokens(value))


def contains_any(text: str, values: Iterable[str]) -> bool:
    tokens = canonical_tokens(text)
    return any(_contains_sequence(tokens, canonical_tokens(v)) for v in values)


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD-style token F1 over canonical tokens."""
    pred, ref = canonical_tokens(prediction), canonical_tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


_FUNCTION_WORDS = frozenset(
    "of to in on for and or by with from at as is are was were be been this that these those "
    "it its their there which who".split()
)


def overlap_coefficient(a: str, b: str) -> float:
    """|A ∩ B| / min(|A|, |B|) over canonical content-token sets."""
    sa = set(canonical_tokens(a)) - _FUNCTION_WORDS
    sb = set(canonical_tokens(b)) - _FUNCTION_WORDS
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


_ABSTAIN = re.compile(
    r"\b(?:does ?n[o']t|do ?n[o']t|did ?n[o']t|never|isn't|is not|aren't|are not|wasn't|was not"
    r")\s+(?:\w+\s+){0,3}?"
    r"(?:say|says|said|state|states|stated|mention|mentions|mentioned|give|gives|given"
    r"|report|reports|reported|specify|specifies|specified|cover|covers|covered|include"
    r"|includes|included|discuss|discusses|discussed|provide|provides|provided|list|lists"
    r"|listed|describe|describes|described"
    r"|in (?:the|this) (?:document|paper|article|text)"
    r"|from (?:the|this) (?:document|paper|article))"
    r"|not (?:in|from) (?:the|this) (?:document|paper|article|text)"
    r"|not (?:\w+ ){0,2}?(?:stated|mentioned|reported|given|specified|covered|discussed)"
    r"|\b(?:gives?|provides?|states?|reports?|mentions?|lists?|offers?) no\b"
    r"|(?:different|another) (?:paper|document|study|article)"
    r"|no (?:mention|information|data|details?|figure|number) (?:of|on|about|for|in)",
)


def is_abstention(text: str) -> bool:
    """True for a "the document does not say" style reply."""
    normal = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    return bool(_ABSTAIN.search(normal))
