"""Word-level features for retrieval: stemmed terms, quantities and names."""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could did do does doing don down during each
    few for from further had has have having he her here hers him his how i if in into is it
    its itself just let me more most my no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yeah okay ok right like um uh oh well actually
    really think thing things guess mean kind sort know yes just so got get gets""".split()
)
# Capitalised words that open spoken sentences without naming anything.
_NOT_NAMES = STOPWORDS | frozenset(
    "so and but or yeah okay right wait sure hmm well then now also was were did does do "
    "is are how what which who why where when they we you it i that this there".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)\s*"
    r"(%|percent|per cent|[kKmMbB]\b|thousand|million|billion)?"
)
_CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
_SCALE = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
}  # fmt: skip
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split()
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORDS = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_MULTIPLIERS = {"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9}


def stem(word: str) -> str:
    """A light suffix stripper: enough to match "papers"/"paper", "labelled"/"labeling"."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]  # labell -> label
    return word


def terms(text: str) -> list[str]:
    """Stemmed content words (and numbers) for lexical scoring."""
    out = []
    for token in _WORD.findall(text.replace("’", "'")):
        lower = token.lower().removesuffix("'s")
        if lower not in STOPWORDS:
            out.append(stem(lower) if lower[0].isalpha() else lower.replace(",", ""))
    return out


def quantities(text: str) -> set[float]:
    """Numbers in digits or words, with k/M/B/million scales applied ("37M" = 37 million).

    Bare "one" is left out: in talk it is a pronoun far more often than a count.
    """
    found: set[float] = set()
    text = _CITATION.sub(" ", text)
    for digits, scale in _NUMBER.findall(text):
        value = float(digits.replace(",", ""))
        found.add(value * _SCALE.get(scale.lower(), 1.0) if scale else value)
    found |= _word_numbers(text)
    return found


def _word_numbers(text: str) -> set[float]:
    found: set[float] = set()
    value: float | None = None
    for token in re.findall(r"[a-z]+|[^a-z\s-]", text.lower()):
        if token in _NUMBER_WORDS:
            value = (value or 0) + _NUMBER_WORDS[token]
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


def names(text: str) -> set[str]:
    """Capitalised terms and acronyms (tools, datasets, places), lower-cased.

    The first word of a sentence counts only when it looks like a name on its own
    (an acronym or mixed case such as "PDFBox"), not a capitalised opener.
    """
    found: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", text):
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
