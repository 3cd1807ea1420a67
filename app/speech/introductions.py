"""Self-introductions: "Hi, I'm Maya", "my name is Maya", "this is Maya speaking".

A turn that introduces its speaker offers the name (the window asks before using it).
The phrases are a small table of patterns over one sentence at a time; the name is one
or two capitalized words (a lower-case name only after "my name is"). Questions ("Is this
Maya?") and words that often follow "I'm" ("I'm Sorry", "I'm Not sure") introduce no one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.language.sentences import sentences

_WORD = r"[A-Z][a-zA-Z'\-]+"
_NAME = rf"(?P<name>{_WORD}(?: {_WORD})?)"
_ANY_NAME = r"(?P<name>[a-zA-Z][a-zA-Z'\-]+(?: [A-Z][a-zA-Z'\-]+)?)"
_GREETING = (
    r"(?i:(?:hi|hello|hey|good (?:morning|afternoon|evening)|morning|ok(?:ay)?|so|yeah|yes|"
    r"and|well)(?: everyone| everybody| all| there| folks| guys)?[,.!]?\s+)*"
)

# Words that follow "I'm" or "this is" without being a name.
NOT_NAMES = frozenset(
    """
    a an the not just here there so very really sorry glad happy fine good great sure
    okay ok going gonna trying done back ready afraid new still also only all always
    speaking jarvis everyone everybody someone nobody it that this what which me
    """.split()
)


@dataclass(frozen=True)
class Introduction:
    """One way of saying one's name."""

    phrase: str  # the phrase, for the reader
    pattern: re.Pattern[str]


INTRODUCTIONS: tuple[Introduction, ...] = (
    Introduction("my name is NAME", re.compile(rf"\b(?i:my name(?:'s| is))\s+{_ANY_NAME}")),
    Introduction("I'm NAME, first in a sentence",
                 re.compile(rf"^{_GREETING}(?i:i'm|i am)\s+{_NAME}")),
    Introduction(", I'm NAME", re.compile(rf",\s*(?i:i'm|i am)\s+{_NAME}")),
    Introduction("this is NAME speaking",
                 re.compile(rf"\b(?i:this is)\s+{_NAME}\s+(?i:speaking)\b")),
    Introduction("call me NAME", re.compile(rf"\b(?i:call me)\s+{_NAME}")),
)  # fmt: skip


def _clean(name: str) -> str | None:
    """The name without trailing non-name words; None when nothing name-like is left."""
    words = name.split()
    while words and words[-1].casefold() in NOT_NAMES:
        words.pop()
    if not words or words[0].casefold() in NOT_NAMES:
        return None
    return " ".join(w[:1].upper() + w[1:] for w in words)


def introduced_name(text: str) -> str | None:
    """The name a turn's speaker gives for themself, or None."""
    for sentence in sentences(text):
        if sentence.endswith("?"):
            continue
        for intro in INTRODUCTIONS:
            match = intro.pattern.search(sentence)
            if match is not None and (name := _clean(match.group("name"))) is not None:
                return name
    return None
