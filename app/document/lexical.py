"""Word-level features for retrieval: stemmed terms and names (the values a text
states are ``app.language.numbers.numeric_values``)."""

from __future__ import annotations

import re

from app.language.sentences import sentences
from app.language.stems import suffix_stem
from app.language.words import RETRIEVAL_STOPWORDS as STOPWORDS

# Capitalised words that open spoken sentences without naming anything.
_NOT_NAMES = STOPWORDS | frozenset(
    "so and but or yeah okay right wait sure hmm well then now also was were did does do "
    "is are how what which who why where when they we you it i that this there".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|\d+(?:[.,]\d+)*")


def terms(text: str) -> list[str]:
    """Stemmed content words (and numbers) for lexical scoring."""
    out = []
    for token in _WORD.findall(text.replace("’", "'")):
        lower = token.lower().removesuffix("'s")
        if lower not in STOPWORDS:
            out.append(suffix_stem(lower) if lower[0].isalpha() else lower.replace(",", ""))
    return out


def names(text: str) -> set[str]:
    """Capitalised terms and acronyms (tools, datasets, places), lower-cased.

    The first word of a sentence counts only when it looks like a name on its own
    (an acronym or mixed case such as "NumPy"), not a capitalised opener.
    """
    found: set[str] = set()
    for sentence in sentences(text):
        for i, token in enumerate(_WORD.findall(sentence.replace("’", "'"))):
            token = token.removesuffix("'s")
            if not token[0].isupper() or token.lower() in _NOT_NAMES:
                continue
            marked = sum(ch.isupper() or ch.isdigit() for ch in token) >= 2
            if i > 0 or marked:
                found.add(token.lower())
    return found


def name_terms(text: str) -> set[str]:
    """All word forms of a text, lower-cased, for matching names case-insensitively."""
    return {t.lower().removesuffix("'s") for t in _WORD.findall(text.replace("’", "'"))}
