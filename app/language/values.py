"""Does a text carry a value? The checks that decide it, from strictest to loosest.

- ``verbatim``: the value's characters, case aside (a citation that must hold the value
  the model is handed);
- ``contains_value``: the value's words in order, each number expression compared by
  value ("12M" = "twelve million"; the evaluator's gold values);
- ``value_present``: every number of the value, compared by value and written either
  way ("3.5" = "3.50", "12" = "twelve"), and a share of its stemmed content words (a turn
  or a reply that states the value: the guard, the veto, a generated correction and the
  floor's freshness).
"""

from __future__ import annotations

from collections.abc import Iterable

from app.language.numbers import canonical_tokens
from app.language.words import content_tokens, is_number_token


def verbatim(text: str, value: str) -> bool:
    """``text`` holds ``value`` character for character (case aside); no value, no."""
    value = value.strip().lower()
    return bool(value) and value in text.lower()


def value_present(value: str, text: str, min_share: float) -> bool:
    """At least ``min_share`` of the value's content tokens are in ``text``; every number
    of the value must be there, by value."""
    wanted = content_tokens(value)
    if not wanted:
        return False
    have = set(content_tokens(text))
    have_numbers = {_by_value(h) for h in have if is_number_token(h)}
    if any(_by_value(t) not in have_numbers for t in wanted if is_number_token(t)):
        return False
    # Every number is there by now; the share counts them with the words that are.
    share = sum(is_number_token(t) or t in have for t in wanted) / len(wanted)
    return share >= min_share


def _by_value(token: str) -> str:
    """A number token's value as one spelling ("3.50" and "3.5" alike; "%" aside)."""
    bare = token.rstrip("%")
    try:
        return repr(float(bare))
    except ValueError:
        return bare


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
