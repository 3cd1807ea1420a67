"""Claim identity: evidence sentences and a normalised key first, embeddings last.

A small model rewords its claim strings from turn to turn, so free-text similarity alone
lets the persistence count fall apart. Two reports are the same point when they cite an
overlapping evidence sentence, or their normalised keys mostly agree; only when neither
says so does the embedding cosine of the claim strings decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.language.words import content_tokens

Similarity = Callable[[str, str], float]

KEY_MATCH = 0.5  # Jaccard overlap of key tokens that makes two keys the same point
# Words that name no particular point ("the number of ...", "what the paper used").
_GENERIC = frozenset(
    "number amount count value total size use used using paper document study author "
    "describe described report reported mention mentioned".split()
)


def claim_key(*texts: str) -> str:
    """Sorted, de-duplicated content tokens of the point's wording."""
    tokens: set[str] = set()
    for text in texts:
        tokens.update(t for t in content_tokens(text) if t not in _GENERIC)
    return " ".join(sorted(tokens))


def key_overlap(a: str, b: str) -> float:
    sa, sb = set(a.split()), set(b.split())
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


@dataclass(frozen=True)
class Identity:
    sids: frozenset[int]
    key: str
    texts: tuple[str, ...]  # every wording seen for the point


def match_score(
    sids: Iterable[int], key: str, text: str, known: Identity, similarity: Similarity,
    match_cosine: float,
) -> tuple[bool, str]:
    """Whether a report is about ``known``, and by which rule."""
    if frozenset(sids) & known.sids:
        return True, "evidence"
    if key and known.key and key_overlap(key, known.key) >= KEY_MATCH:
        return True, "key"
    if text and any(similarity(text, seen) >= match_cosine for seen in known.texts if seen):
        return True, "cosine"
    return False, ""
