"""Questions that ask what a term is, and the sentences that define one.

"What is RSV?", "what are viroporins?", "what does curriculum mean?" ask for a definition.
They share one content word with any sentence that uses the term, so word overlap cannot
tell the answer from a passing mention; a document defines a term in a few set ways:
a bracketed short form after the long one ("respiratory syncytial virus (RSV)"), a copula
("X is a ..."), an apposition ("X, a family of ..."), "X refers to ...", "known as X",
or a quoted term with its explanation ("'X' where ..."). A document introduces a term
where it first defines it, so the first defining sentence is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from app.language.talk import asking_sentences
from app.language.words import STOPWORDS

_I = re.IGNORECASE
_TERM = r"(\w[\w-]*(?:\s+[\w-]+){0,3})"
_ASKS_DEFINITION = re.compile(
    rf"\bwhat(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:an?\s+|the\s+)?{_TERM}\W*$"
    rf"|\bwhat\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?{_TERM}\s+(?:mean|stand\s+for)\b", _I)
_QUOTE_OPEN = "['\"‘“]"
_QUOTE_CLOSE = "['\"’”]"
_BRACKETED = r"\s*(?:\([^)]*\)\s*)?"  # "X (Y) is a ...": a short form between term and definition

Line = TypeVar("Line")


def defined_term(question: str) -> str | None:
    """The term a question asks to have defined ("what are the viroporins?" -
    "viroporins"); None for any other question. A term of function words or numbers
    ("what was it in 2013?", "what are they based on?") is not one."""
    for part in reversed(asking_sentences(question) or [question]):
        m = _ASKS_DEFINITION.search(part.strip())
        if m is None:
            continue
        term = m.group(1) or m.group(2)
        words = term.lower().split()
        if any(w in STOPWORDS or w.isdigit() for w in words):
            return None
        return term
    return None


def defines(term: str, sentence: str) -> bool:
    """The sentence defines the term in one of the set ways a text defines one."""
    return _pattern(term).search(sentence) is not None


def first_defining(term: str, sentences: Iterable[tuple[Line, str]]) -> Line | None:
    """The first of ``sentences`` (each an item and its text) that defines the term."""
    pattern = _pattern(term)
    return next((item for item, text in sentences if pattern.search(text)), None)


def _pattern(term: str) -> re.Pattern[str]:
    t = re.escape(term).replace(r"\ ", r"\s+") + r"(?:e?s)?"
    o, c = _QUOTE_OPEN, _QUOTE_CLOSE
    forms = (
        rf"\(\s*{t}\s*[,;)]",  # the short form after its long form
        rf"\b{t}{c}?{_BRACKETED}(?:is|are|was|were)\s+(?:an?|the|one|defined|known|"
        r"considered|thought|termed|called)\b",
        # an apposition: led by "a" ("X, a kind of Y") or closed by a comma; not when the
        # term is itself a list item, nor a clause after it ("given X, the goal is ...")
        rf"\b{t}{c}?{_BRACKETED},\s+(?:an?|one)\s",
        rf"(?<!, )\b{t}{c}?{_BRACKETED},\s+[\w-]+(?:\s+[\w-]+){{0,6}},",
        rf"\b{t}{c}?\s+(?:refers?\s+to|means?|denotes?|describes?|stands?\s+for)\b",
        rf"\b(?:called|termed|known\s+as|named|so-called|defined\s+as)\s+{o}?{t}\b",
        rf"\b{t}{c}?\s+(?:as|being)\s+(?:an?|the|one)\b",
        rf"{o}{t}[^'\"’”]{{0,30}}{c}\s*,?\s*(?:where|when|which|in\s+which|that)\b",
    )
    return re.compile("|".join(f"(?:{f})" for f in forms), _I)
