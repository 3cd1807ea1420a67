"""Spoken-text helpers shared by the backbone, the floor and the voice: tokens, content
words, numbers, sentences, backchannels. Kept free of heavy imports."""

from __future__ import annotations

import re
from collections.abc import Collection

from app.settings import BACKCHANNEL_WORDS, FloorSettings

_NUMBER_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'’][a-z0-9]+)*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# A sentence ends at . ! ? (optionally followed by quotes/brackets) before whitespace.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'”’)\]]))\s+(?=\S)")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "fig.", "dr.", "mr.", "mrs.", "ms.", "no.")

STOPWORDS: frozenset[str] = frozenset(
    "a an the and or but if then of to in on at by for with from as is are was were be been "
    "being it its this that these those there here what which who whom whose when where why "
    "how do does did done have has had i you he she we they me him her us them my your our "
    "their not no so very just also about into than too can could would should will shall may "
    "might must all any some each more most other such only own same both few again further "
    "once over under up down out off above below between through during before after while "
    "because until against among per let lets let's i'm it's that's we're they're you're "
    "jarvis".split()
)


def tokens(text: str) -> list[str]:
    """Lowercased word tokens, punctuation removed; "m-hmm" gives two tokens."""
    text = _NUMBER_COMMA.sub("", text.lower())
    return [t.replace("’", "'") for t in _TOKEN.findall(text)]


def content_tokens(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in STOPWORDS}


def numbers(text: str) -> set[str]:
    """Numbers written with digits, normalised ("1,200" -> "1200", "3.50" -> "3.5")."""
    found = _NUMBER.findall(_NUMBER_COMMA.sub("", text))
    return {n.rstrip("0").rstrip(".") if "." in n else n.lstrip("0") or "0" for n in found}


def split_sentences(text: str) -> list[str]:
    """Split spoken text into sentences; the voice and the floor count them the same way."""
    parts: list[str] = []
    pending = ""
    for piece in _SENTENCE_END.split(text.strip()):
        pending = f"{pending} {piece}".strip() if pending else piece.strip()
        if not pending.lower().endswith(_ABBREVIATIONS):
            parts.append(pending)
            pending = ""
    if pending:
        parts.append(pending)
    return [p for p in parts if p]


def lexical_similarity(a: str, b: str) -> float:
    """Overlap coefficient of content words: shared / size of the smaller set."""
    ta, tb = content_tokens(a), content_tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


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
