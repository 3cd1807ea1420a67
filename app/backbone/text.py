"""Word-level text normalisation shared by the guard, detectors and claim identity."""

from __future__ import annotations

import re

from app.backbone.numbers import SCALES, word_numbers_to_digits

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*%?|%")

STOPWORDS = frozenset(
    """a an the of to in on for and or but nor so yet at by with from into onto over under
    about above below between through during before after as than then that this these those
    it its it's is are was were be been being am do does did done doing have has had having
    i me my we our us you your he him his she her they them their there here what which who
    whom whose when where why how whether if not no yes just only also very really quite
    some any all each every both either neither more most much many such same other another
    can could would should will shall may might must one ones like um uh oh okay ok yeah
    right well so mm hm hmm actually basically kind sort thing things stuff bit lot lots
    get got go going gonna say said says think thought know knew mean guess
    """.split()
)

QUESTION_WORDS = frozenset("what which who whom whose when where why how many much".split())


_PERCENT = re.compile(r"(\d)\s*(?:percent|per cent)\b")
_SCALED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(thousand|million|billion|mio|bn|k|m|b)\b")


def _unscale(match: re.Match[str]) -> str:
    value = float(match.group(1)) * SCALES[match.group(2)]
    return f"{value:.0f}" if value.is_integer() else f"{value:g}"


def normalise(text: str) -> str:
    """Lowercase, unify apostrophes and dashes, spell number words as digits, write
    "76 percent" as "76%" and "37M" / "37 million" as "37000000"."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u2013", "-")
    text = word_numbers_to_digits(text.lower())
    text = _PERCENT.sub(r"\1%", text)
    return _SCALED.sub(_unscale, text)


def words(text: str) -> list[str]:
    """Word tokens of normalised text; numbers keep decimals and a trailing %."""
    return [w.replace(",", "") for w in _WORD.findall(normalise(text))]


def stem(word: str) -> str:
    """A very light stemmer: enough to match "models"/"model", "papers"/"paper"."""
    if word[0].isdigit():
        return word
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def content_tokens(text: str, drop_question_words: bool = True) -> list[str]:
    """Stemmed content tokens: stopwords (and question words) removed, numbers kept."""
    out = []
    for w in words(text):
        if w in STOPWORDS or (drop_question_words and w in QUESTION_WORDS):
            continue
        if len(w) < 2 and not w[0].isdigit():
            continue
        out.append(stem(w))
    return out


def is_number_token(token: str) -> bool:
    return bool(token) and token[0].isdigit()


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


def sentences(text: str) -> list[str]:
    """The turn split after each . ! or ? (spoken text: no abbreviations to mind)."""
    return re.split(r"(?<=[.!?])\s+", text.strip())


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
