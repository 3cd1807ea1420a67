"""Does a sentence look like it has a verb? A light check for what is said aloud.

A list of auxiliaries and common verbs, an -ed / -ing form whose stem has a vowel
("lasted", "using"; not "spring", "red", nor "vector-based"), or a content word right
after a subject pronoun or "to" ("we propose", "which activates", "to implicitly train"):
a verb in its plain or -s form that no list holds. Only sentences of three words or more
in Latin script are judged; others always pass.
"""

from __future__ import annotations

import re

from app.language.words import STOPWORDS

VERBS = frozenset(
    """is are was were be been being am isn't aren't wasn't weren't 's 're 'm has have had
    hasn't haven't hadn't do does did don't doesn't didn't can can't cannot could couldn't
    will won't would wouldn't may might must shall should shouldn't 'll 'd 've
    say says said report reports show shows showed shown give gives gave given list lists
    state states find finds found make makes made take takes took get gets got give
    include includes describe describes mention mentions note notes use uses contain
    contains remain remains mean means suggest suggests need needs depend depends appear
    appears seem seems provide provides require requires cause causes lead leads led
    grow grows grew fall falls fell rise rises rose begin begins began come comes came
    go goes went keep keeps kept leave leaves left meet meets met pay pays paid put puts
    run runs ran send sends sent set sets tell tells told win wins won write writes wrote
    build builds built bring brings brought hold holds held know knows knew become
    becomes became think thinks thought feel feels felt lose loses lost see sees saw
    cover covers compare compares measure measures estimate estimates range ranges
    affect affects occur occurs exist exists differ differs vary varies look looks
    """.split()
)
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
# Words a verb follows: subject pronouns, relative pronouns, and "to" of an infinitive.
_BEFORE_VERB = frozenset("i you we they he she it who which that to".split())


def looks_verbless(sentence: str) -> bool:
    """A Latin-script sentence of three words or more with no word that looks like a verb.
    An -ed / -ing form inside a hyphenated compound ("vector-based", "well-being") is an
    adjective or a noun, not a verb."""
    found = list(LATIN_WORD.finditer(sentence))
    if len(found) < 3 or not _latin(sentence):
        return False
    before = ""  # the last word that is not an -ly adverb
    for match in found:
        word = match.group(0).lower().replace("’", "'")
        if {word, *re.findall(r"'\w+$", word)} & VERBS:
            return False
        compound = "-" in word or sentence[max(0, match.start() - 1):match.start()] == "-"
        if not compound and _verb_form(word):
            return False
        if before in _BEFORE_VERB and word not in STOPWORDS and len(word) > 2:
            return False
        if not word.endswith("ly"):
            before = word
    return True


def _latin(sentence: str) -> bool:
    letters = [c for c in sentence if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) >= 0.8 * len(letters)


def _verb_form(word: str) -> bool:
    for ending in ("ed", "ing"):
        stem = word.removesuffix(ending)
        if stem != word and len(stem) >= 3 and re.search(r"[aeiouy]", stem):
            return True
    return False
