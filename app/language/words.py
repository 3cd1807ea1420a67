"""Words: tokens, stopword lists and content words of talk and document text.

Two token forms serve two kinds of comparison. ``tokens`` keeps the surface words (the
floor's backchannels and permissions, the voice's words); ``words`` reads numbers as
numbers first (number words as digits, "64 percent" as "64%", "12M" as 12000000), so
``content_tokens`` of a turn and of a document sentence meet on their values.

Each stopword list belongs to the comparison its thresholds were set with: ``STOPWORDS``
(talk against the document: fillers and vague verbs are no content), ``PLAIN_STOPWORDS``
(function words only, for the floor's lexical similarity), ``RETRIEVAL_STOPWORDS`` (the
lexical retriever's terms) and ``FUNCTION_WORDS`` (the evaluator's overlap).
"""

from __future__ import annotations

import re

from app.language.numbers import SCALES, THOUSANDS_COMMA, word_numbers_to_digits
from app.language.stems import stem

AGENT_NAME = "Jarvis"  # how the room calls the agent

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
# Words that frame a question rather than name what it asks for: "do they give a number?",
# "which ones do they list?", "what do they put on top of it?", "what type of test?".
ASKING_FRAME = frozenset("give gives list lists listed mention mentions mentioned tell put "
                         "make made number total use used type".split())

PLAIN_STOPWORDS: frozenset[str] = frozenset(
    "a an the and or but if then of to in on at by for with from as is are was were be been "
    "being it its this that these those there here what which who whom whose when where why "
    "how do does did done have has had i you he she we they me him her us them my your our "
    "their not no so very just also about into than too can could would should will shall may "
    "might must all any some each more most other such only own same both few again further "
    "once over under up down out off above below between through during before after while "
    "because until against among per let lets let's i'm it's that's we're they're you're "
    "jarvis".split()
)

RETRIEVAL_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could did do does doing don down during each
    few for from further had has have having he her here hers him his how i if in into is it
    its itself just let me more most my no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yeah okay ok right like um uh oh well actually
    really think thing things guess mean kind sort know yes just so got get gets""".split()
)

FUNCTION_WORDS = frozenset(
    "of to in on for and or by with from at as is are was were be been this that these those "
    "it its their there which who".split()
)

# --- surface tokens -----------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+(?:[.'’][a-z0-9]+)*")


def tokens(text: str) -> list[str]:
    """Lowercased word tokens, punctuation removed; "m-hmm" gives two tokens."""
    text = THOUSANDS_COMMA.sub("", text.lower())
    return [t.replace("’", "'") for t in _TOKEN.findall(text)]


# A word with a footnote number glued on by the PDF's text layer ("method2"): rare, but
# nobody would say it or type it.
FOOTNOTED = re.compile(r"^[a-z]{3,}\d{1,2}$")
_CASED = re.compile(r"\w+(?:['’\-.]\w+)*")


def cased_words(text: str) -> list[str]:
    """Words as written, case kept, hyphenated and dotted words whole ("Wi-Fi", "v2.1"):
    for aligning a turn with a sentence word by word."""
    return _CASED.findall(text)


_SPOKEN = re.compile(r"\w+(?:[.,'’%]\w+)*%?")


def spoken_words(text: str) -> list[str]:
    """Lowercased words with the marks a number keeps ("1,200", "76%", "3.5")."""
    return _SPOKEN.findall(text.lower())


REPEATED_RUN_WORDS = 6  # a run this long said twice in one sentence is a loop


def repeated_run(text: str, length: int = REPEATED_RUN_WORDS) -> str:
    """The first run of ``length`` words that ``text`` says twice, or "": a small model
    caught in a loop repeats a stretch of its own sentence; a person's sentence, or a
    document's, does not."""
    said = tokens(text)
    seen: set[tuple[str, ...]] = set()
    for at in range(len(said) - length + 1):
        run = tuple(said[at : at + length])
        if run in seen:
            return " ".join(run)
        seen.add(run)
    return ""


def content_words(text: str) -> set[str]:
    """The surface tokens that are not function words (no stemming, numbers as written)."""
    return {t for t in tokens(text) if t not in PLAIN_STOPWORDS}


def lexical_similarity(a: str, b: str) -> float:
    """Overlap coefficient of content words: shared / size of the smaller set."""
    ta, tb = content_words(a), content_words(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


# --- words with numbers read as numbers ---------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*%?|%")
_PERCENT = re.compile(r"(\d)\s*(?:percent|per cent)\b")
_SCALED = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?(" + "|".join(sorted(SCALES, key=len, reverse=True))
    + r")\b")


def _unscale(match: re.Match[str]) -> str:
    value = float(match.group(1)) * SCALES[match.group(2)]
    return f"{value:.0f}" if value.is_integer() else f"{value:g}"


def normalise(text: str) -> str:
    """Lowercase, unify apostrophes and dashes, spell number words as digits, write
    "64 percent" as "64%" and "12M" / "12 million" as "12000000"."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u2013", "-")
    text = word_numbers_to_digits(text.lower())
    text = _PERCENT.sub(r"\1%", text)
    return _SCALED.sub(_unscale, text)


def words(text: str) -> list[str]:
    """Word tokens of normalised text; numbers keep decimals and a trailing %."""
    return [w.replace(",", "") for w in _WORD.findall(normalise(text))]


# A stopword written in capitals is a name ("reported to the WHO", "the US", "an OR of 2").
_ACRONYM = re.compile(r"\b[A-Z]{2,}\b")


def content_tokens(text: str, drop_question_words: bool = True) -> list[str]:
    """Stemmed content tokens: stopwords (and question words) removed unless written in
    capitals as a name, numbers kept."""
    names = {a.lower() for a in _ACRONYM.findall(text)}
    out = []
    for w in words(text):
        if w not in names and (w in STOPWORDS or (drop_question_words and w in QUESTION_WORDS)):
            continue
        if len(w) < 2 and not w[0].isdigit():
            continue
        out.append(stem(w))
    return out


def is_number_token(token: str) -> bool:
    return bool(token) and token[0].isdigit()
