"""Text comparison for scoring: token F1 and overlap (abstention is a kind of talk,
``app.language.talk``).

Text is compared as ``app.language.numbers.canonical_tokens``: lower case, punctuation and
articles dropped, every number expression merged into one token holding its value, so
"120" and "one hundred twenty" compare equal.
"""

from __future__ import annotations

from collections import Counter

from app.language.numbers import canonical_tokens
from app.language.words import FUNCTION_WORDS


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


def overlap_coefficient(a: str, b: str) -> float:
    """|A ∩ B| / min(|A|, |B|) over canonical content-token sets."""
    sa = set(canonical_tokens(a)) - FUNCTION_WORDS
    sb = set(canonical_tokens(b)) - FUNCTION_WORDS
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))
