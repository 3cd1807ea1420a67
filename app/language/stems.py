"""Stems: the light stemmers that let two wordings of one word meet.

Each caller keeps the stemmer its thresholds were set with: ``stem`` for content words
compared between talk and document (claims, guard, grounding), ``strip_plural_s`` for
what a quantity counts, ``suffix_stem`` for retrieval terms, ``root`` where spelling
varies most ("travelled" / "traveled").
"""

from __future__ import annotations

ROOT_LETTERS = 5  # letters two words share when they are the same word by their root


def stem(word: str) -> str:
    """A very light stemmer: enough to match "models"/"model", "papers"/"paper"."""
    if word[0].isdigit():
        return word
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def strip_plural_s(word: str) -> str:
    """A final plural "s" dropped ("patients" -> "patient"; "class" and "bus" kept)."""
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def suffix_stem(word: str) -> str:
    """A light suffix stripper: enough to match "papers"/"paper", "travelled"/"traveling"."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]  # travell -> travel
    return word


def root(token: str) -> str:
    """The first letters of a word ("travelled" meets "traveled", "analyses" meets
    "analysis"); a number stays whole."""
    return token if token[0].isdigit() else token[:ROOT_LETTERS]
