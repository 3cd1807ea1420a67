"""Whether a transcript addresses the agent by name ("hey Jarvis, ...") or only mentions
it ("the Jarvis demo", "say Jarvis"): the speech worker's text fallback for the wake word,
and the backbone's test for a turn meant for the direct path."""

from __future__ import annotations

import re

# Words that make the following "jarvis" a mention rather than an address.
MENTION_BEFORE = frozenset(
    "the a an say says said saying called named call about of with like this that "
    "his her their our your my".split()
)
ADDRESS_BEFORE = frozenset("hey hi hello ok okay yo excuse".split())
# A turn's first word before "jarvis" that is a greeting as the recognizer may write it
# ("a Jarvis, which ..." for "Hey Jarvis"), or a filler: an address there, not a mention.
OPENING_BEFORE = frozenset("a ah eh uh um oh".split())
_WORD = re.compile(r"[a-z']+")


def text_wake(text: str) -> int | None:
    """Word index of an addressing "jarvis" in a committed transcript, else None.

    Accepted: "hey/ok jarvis ...", a turn that starts with "jarvis" (or "a/uh jarvis"),
    "..., jarvis, ...". Rejected: "the jarvis", "say jarvis", "called jarvis" and other
    mentions.
    """
    words = _WORD.findall(text.lower().replace("-", " "))
    for i, w in enumerate(words):
        if w not in ("jarvis", "jarvis's"):
            continue
        before = words[i - 1] if i > 0 else ""
        if i == 1 and before in OPENING_BEFORE:
            return i
        if before in MENTION_BEFORE:
            continue
        if i == 0 or before in ADDRESS_BEFORE or _comma_before(text, i):
            return i
    return None


def _comma_before(text: str, index: int) -> bool:
    """``..., jarvis`` counts as an address; needs the original punctuation."""
    parts = re.split(r"(?i)\bjarvis\b", text)
    return len(parts) > 1 and parts[0].rstrip().endswith((",", ".", "?", "!"))


def mentions_only(text: str) -> bool:
    """The transcript names Jarvis but never addresses it."""
    return "jarvis" in text.lower() and text_wake(text) is None
