"""Does a text carry a value? The checks that decide it, from strictest to loosest.

- ``verbatim``: the value's characters, case aside (a citation that must hold the value
  the model is handed);
- ``contains_value``: the value's words in order, each number expression compared by
  value ("12M" = "twelve million"; the evaluator's gold values);
- ``value_present``: every number of the value and a share of its stemmed content words
  (a turn that states the correct value: the guard, the veto, a generated correction);
- ``states_value``: every number written with digits and a share of its other surface
  words (the floor's freshness: someone already said what the agent holds).

The last two differ where their callers were tuned: ``states_value`` reads digits only
("twelve weeks" does not say "12 weeks") and compares "3.50" with "3.5" by value.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.language.numbers import canonical_tokens, written_numbers
from app.language.words import content_tokens, content_words, is_number_token


def verbatim(text: str, value: str) -> bool:
    """``text`` holds ``value`` character for character (case aside); no value, no."""
    value = value.strip().lower()
    return bool(value) and value in text.lower()


def value_present(value: str, text: str, min_share: float) -> bool:
    """At least ``min_share`` of the value's content tokens are in ``text``; every number
    of the value must be there exactly."""
    wanted = content_tokens(value)
    if not wanted:
        return False
    have = set(content_tokens(text))
    numbers = [t for t in wanted if is_number_token(t)]
    if any(n.rstrip("%") not in {h.rstrip("%") for h in have} for n in numbers):
        return False
    share = sum(t in have for t in wanted) / len(wanted)
    return share >= min_share


def states_value(value: str, said: str, min_share: float) -> bool:
    """True when ``said`` carries ``value``: numbers exact, enough of its content words."""
    wanted = written_numbers(value)
    if wanted and not wanted <= written_numbers(said):
        return False
    words = content_words(value) - wanted
    if not words:
        return bool(wanted)
    return len(words & content_words(said)) / len(words) >= min_share


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
