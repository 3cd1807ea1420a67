"""The sentence splitter for talk, answers and document text.

A sentence ends at . ! or ? (a closing quote or bracket may follow) before whitespace,
unless the period belongs to an abbreviation that leads into more text ("e.g.", "et al.",
"Dr."), or to "No." before a number ("No. 5"). The voice and the floor count sentences
with it, the checks judge an answer a sentence at a time with it, the detectors find the
sentence of a turn that says something with it: all agree on where a sentence ends.
"""

from __future__ import annotations

import re

_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'”’)\]]))\s+(?=\S)")
# Periods after these lead into more text; matched as whole words.
ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "cf.", "vs.", "fig.", "dr.", "mr.", "mrs.",
                 "ms.", "prof.")
# Abbreviations only before a number ("No. 5"); a spoken "No." ends a sentence.
BEFORE_NUMBER = ("no.", "nos.", "pp.")


def sentences(text: str) -> list[str]:
    """``text`` split into its sentences, each stripped; none for blank text."""
    pieces = [p.strip() for p in _END.split(text.strip())]
    parts: list[str] = []
    pending = ""
    for n, piece in enumerate(pieces):
        pending = f"{pending} {piece}" if pending else piece
        following = pieces[n + 1] if n + 1 < len(pieces) else ""
        if not following or not _leads_on(pending, following):
            parts.append(pending)
            pending = ""
    return [p for p in parts if p]


def brackets_paired(text: str, pair: str = "()") -> bool:
    """Every bracket of ``pair`` (round by default) in ``text`` has its mate (no piece cut
    out of a bracket)."""
    return text.count(pair[0]) == text.count(pair[1])


def _leads_on(sentence: str, following: str) -> bool:
    """The sentence's last word is an abbreviation that leads into ``following``."""
    last = sentence.lower()
    if _ends_with_word(last, ABBREVIATIONS):
        return True
    return _ends_with_word(last, BEFORE_NUMBER) and following[:1].isdigit()


def _ends_with_word(text: str, words: tuple[str, ...]) -> bool:
    return any(text.endswith(w) and not text[: -len(w)][-1:].isalpha() for w in words)
