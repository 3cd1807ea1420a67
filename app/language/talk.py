"""Kinds of talk: questions, questions to the room, failed recall, negation, backchannels."""

from __future__ import annotations

import re
from collections.abc import Collection

from app.language.sentences import sentences
from app.language.words import QUESTION_WORDS, content_tokens, tokens, words
from app.settings import BACKCHANNEL_WORDS, FloorSettings


def is_question(text: str) -> bool:
    """A question by punctuation, or by an opening question word when ASR drops the mark."""
    stripped = text.strip()
    if stripped.endswith("?"):
        return True
    first = words(stripped)[:1]
    return bool(first) and first[0] in QUESTION_WORDS - {"many", "much"}


def contains_question(text: str) -> bool:
    """Some sentence of the turn asks: "How many were there? I forget." counts."""
    return is_question(text) or re.search(r"\w[\w'\")]*\s*\?", text) is not None


# A question to the people in the room, not about the document: "can I ask you ...",
# "should we move on?", "are you ready?" ("do you remember how many ..." still counts).
_META = re.compile(
    r"(?:^|[,;:]\s*)\W*(?:(?:so|okay|ok|and|but|well|oh|hey|alright|right),?\s+)*"
    r"(?:can|could|may|shall|should|would|will|do|did|are|have|want)\s+(?:i|we|you)\b"
    r"(?!\s+(?:\w+\s+)?(?:remember|recall|know|see|find|catch|get|note|think))",
    re.IGNORECASE,
)
# Subject-first checks on the listener: "you got through it?", "we're done?"
_TO_LISTENER = re.compile(r"^\W*(?:you|we)(?:'re| are| got| read| saw| finished| had| have)\b",
                          re.IGNORECASE)
_SMALL_TALK = re.compile(r"^\W*(?:anything else|any (?:other )?questions|all good|"
                         r"everyone|ready|done|next|okay|ok|right)\W*$", re.IGNORECASE)


def asks_about_document(text: str) -> bool:
    """Some question in the turn asks for something, not for the room's attention."""
    parts = [p for p in sentences(text) if p.endswith("?")]
    if not parts:
        return is_question(text) and not _META.search(text)
    # "Which one was that?" asks about the sentence before it.
    asking = any(not _META.search(p) and not _SMALL_TALK.match(p)
                 and not _TO_LISTENER.match(p) for p in parts)
    return asking and bool(content_tokens(text))


_FAILED_RECALL = re.compile(
    r"\b(don'?t|do not|can'?t|cannot|couldn'?t|didn'?t) (really |actually |honestly )?"
    r"(remember|recall|know|note|find|see|say)\b|\bno (idea|clue)\b|\bnot sure\b|"
    r"\bforg[oe]t\b|\bforgotten\b|\bi'?m not certain\b|\bdoesn'?t matter\b|\bno idea\b",
    re.IGNORECASE,
)


_NEGATION = re.compile(r"n't\b|\b(not|no|never|nothing|without|lacks?|lacking|missing|"
                       r"absent|cannot|fail(s|ed)?|doesnt|dont|isnt|wasnt)\b", re.IGNORECASE)


def negated(text: str) -> bool:
    """The text denies or says something is missing ("doesn't cover", "lacks coverage")."""
    return _NEGATION.search(text.replace("\u2019", "'")) is not None


def reports_failed_recall(text: str) -> bool:
    return bool(_FAILED_RECALL.search(text.replace("\u2019", "'")))


# Other ways ASR spells listed words ("Yup.", "Mhm.").
_SPELLINGS = {"yup": "yep", "mhm": "hm", "uhuh": "uhhuh", "umhm": "umhum", "yea": "yeah"}


def _backchannel_word(token: str, words: Collection[str]) -> bool:
    # ASR spells hums with any number of letters: "mm" and "mmm" are the listed "m".
    squeezed = re.sub(r"(.)\1+", r"\1", token)
    return any(t in words or _SPELLINGS.get(t) in words for t in (token, squeezed))


def is_backchannel(
    text: str,
    words: Collection[str] = BACKCHANNEL_WORDS,
    max_words: int = FloorSettings.backchannel_max_words,
) -> bool:
    """SPEC §5: a turn of at most ``max_words`` tokens, every one a backchannel word
    ("yeah", "m-hmm", "okay right"); such turns neither take the floor nor reach the monitor."""
    toks = tokens(text)
    return 0 < len(toks) <= max_words and all(_backchannel_word(t, words) for t in toks)
