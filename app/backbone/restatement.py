"""A turn that restates a document sentence with one of its names or terms swapped.

"Tom Hanks plays Buzz Lightyear, a space ranger ..." against the sentence "Tim Allen as
Buzz Lightyear, a space ranger ...": the two align word by word except for one short
span, and on both sides that span holds a name or term (a capitalised word, an acronym,
a code like "S3"). The detector proposes the sentence's term as the document's value; the
monitor still has to confirm it. Spans that only differ in spelling ("Schneider" for
"Scheider": a mishearing), spans of bare numbers (the number detector's) and turns that
change more than one term (a paraphrase, not a restatement) propose nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from app.language.words import FOOTNOTED, STOPWORDS, cased_words

MIN_ALIGNED_WORDS = 6  # words the turn and the sentence share in order
MIN_ALIGNED_SHARE = 0.6  # of the turn's words
MAX_SPAN_WORDS = 3  # words on either side of the swap
SAME_SPELLING = 0.75  # difflib ratio above which two terms are one misheard


@dataclass(frozen=True)
class Swap:
    said: str  # the turn's term, as spoken
    document: str  # the sentence's term, as written
    aligned: int  # words aligned around the swap


def swapped_term(utterance: str, sentence: str) -> Swap | None:
    """The one term ``utterance`` swaps in its restatement of ``sentence``, if it is one."""
    swaps = _swaps(utterance, sentence)
    return swaps[0] if swaps is not None and len(swaps) == 1 else None


def restates(utterance: str, sentence: str) -> bool:
    """``utterance`` restates ``sentence`` with none of its names or terms swapped."""
    return _swaps(utterance, sentence) == []


def _swaps(utterance: str, sentence: str) -> list[Swap] | None:
    """The terms ``utterance`` swaps where it restates ``sentence``; None where it does not
    restate it (too few words aligned)."""
    said, written = cased_words(utterance), cased_words(sentence)
    matcher = SequenceMatcher(None, _keys(said), _keys(written), autojunk=False)
    aligned = sum(block.size for block in matcher.get_matching_blocks())
    if aligned < MIN_ALIGNED_WORDS or aligned < MIN_ALIGNED_SHARE * len(said):
        return None
    swaps = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        ours, theirs = _term(said[i1:i2], i1 == 0), _term(written[j1:j2], j1 == 0)
        if op != "replace" or ours is None or theirs is None:
            continue
        if max(i2 - i1, j2 - j1) > MAX_SPAN_WORDS or _same_term(ours, theirs, sentence):
            continue
        swaps.append(Swap(ours, theirs, aligned))
    return swaps


def _keys(words: Sequence[str]) -> list[str]:
    """Words as compared: lower case, one apostrophe, no footnote mark."""
    keys = [w.lower().replace("’", "'") for w in words]
    return [k.rstrip("0123456789") if FOOTNOTED.match(k) else k for k in keys]


def _term(words: Sequence[str], initial: bool) -> str | None:
    """The span's name or term: its words from the first to the last that looks like one."""
    marks = [i for i, w in enumerate(words) if _looks_like_term(w, initial and i == 0)]
    if not marks:
        return None
    return " ".join(words[marks[0] : marks[-1] + 1])


def _looks_like_term(word: str, initial: bool) -> bool:
    """Capitalised (where a sentence does not start, or longer than one letter), with a
    capital inside ("anti-TNF", "NumPy"), or letters with digits ("S3")."""
    if word.lower() in STOPWORDS or not any(c.isalpha() for c in word):
        return False
    coded = any(c.isdigit() for c in word) and not FOOTNOTED.match(word)
    inner = any(c.isupper() for c in word[1:])
    capital = word[:1].isupper() and (not initial or len(word) > 1)
    return coded or inner or capital


def _same_term(ours: str, theirs: str, sentence: str) -> bool:
    """One term spelled two ways, or a term the sentence itself also gives."""
    a, b = ours.lower(), theirs.lower()
    return (SequenceMatcher(None, a, b).ratio() >= SAME_SPELLING
            or a in sentence.lower())
