"""What kind of value a question asks for, and whether a sentence gives one.

"When was it first identified?" is answered by a date or a time ("in 2002", "two decades
ago"), "How many were enrolled?" by a quantity ("1,200 patients", "about half"), "What
percentage died?" by a share ("10%", "one third", "900 of the 6,300 patients"). A
sentence without one may be about the question, but it does not answer it. Only the
opening of a question decides: "What happens when the cell divides?" asks for no date. A
"when" about the present or the future often asks for a condition ("when is shedding
highest?" - "on the day symptoms begin"), so only a "when" about the past asks for a date.
"""

from __future__ import annotations

import re
from enum import StrEnum

from app.language.numbers import quantities, word_numbers_to_digits
from app.language.talk import asking_sentences, without_address

_I = re.IGNORECASE


class Asked(StrEnum):
    """The kind of value a question asks for."""

    DATE = "date"  # "when was ...?", "in what year ...?"
    SHARE = "share"  # "what percentage ...?", "what proportion ...?"
    QUANTITY = "quantity"  # "how many ...?", "how long ...?"
    ANY = "any"  # no value in particular: "what", "why", "which", yes/no


# Words that may come before the question word: "so, when ...", "and where and when ...".
_OPENING = r"^\W*(?:(?:so|and|but|okay|ok|well|then|also|now|where and),?\s+)*"
_ASKS_DATE = re.compile(
    rf"{_OPENING}(?:since |until )?when (?:was|were|did|had)\b"
    r"|\b(?:what|which) (?:year|date|month|day|decade)\b|\bthe (?:date|year)\b"
    r"|\bhow long ago\b", _I)
_ASKS_SHARE = re.compile(
    r"\b(?:what|which) (?:percentage|percent|proportion|fraction|share)\b|\bhow many percent\b"
    r"|\b(?:what|how) (?:is|was|were|are) the (?:percentage|proportion|fraction)\b", _I)
_ASKS_QUANTITY = re.compile(
    rf"{_OPENING}how (?:many|much|long|often|large|big|far|old)\b"
    r"|\bwhat (?:number|amount|rate|size)\b"
    r"|\b(?:what|how) (?:is|was|were|are) the (?:number|rate|size)\b", _I)

_MONTH = (r"(?:january|february|march|april|june|july|august|september|october|november|"
          r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
# A date or a time: a year, a decade ("the 1960s"), a month (the modal "may" only beside a
# day or a year), a season, a span of time counted back or forward ("two weeks ago"), or a
# numbered day of a course ("day 14").
_DATE = re.compile(
    rf"\b(?:1[5-9]|20)\d\d(?:s|'s)?\b|\b{_MONTH}\b\.?|\bmay\s+\d|\d\s+may\b"
    r"|\b(?:spring|summer|autumn|fall|winter|season|seasonal|annually|yearly|daily|weekly)\b"
    r"|\b(?:\d+|a|an|one|two|three|few|several|many)\s+(?:\w+\s+)?"
    r"(?:centur(?:y|ies)|decades?|years?|y|months?|weeks?|days?|hours?)\s+"
    r"(?:ago|later|earlier|after|before|since)\b"
    r"|\b(?:day|week|month|year)\s+\d", _I)
_FRACTION = r"half|third|thirds|quarter|quarters|majority|minority"
# Quantities said in words: "about half", "a third", "twice", "in triplicate".
_QUANTITY_WORD = re.compile(
    rf"\b(?:{_FRACTION}|halves|twice|thrice|once|double|doubled|triple|tripled|single|"
    r"duplicate|triplicate|quadruplicate|dozens?|hundreds|thousands|millions|billions)\b",
    _I)

# A share said without a percent sign: "one third", "most of them", "900,000 of the 6.3
# million deaths", "1 in 5".
_SHARE_WORDS = re.compile(
    rf"\b(?:{_FRACTION}|fifth|fifths|most)\b"
    r"|(?:\d[\d,.]*|\bone)\s+(?:[\w-]+\s+){0,3}?(?:of|in|out of)\s+"
    r"(?:the\s+)?(?:[\w-]+\s+){0,2}?\d",
    _I)


def asked_for(question: str) -> Asked:
    """The kind of value the question sentences of ``question`` ask for ("When did it
    happen? Do they give the date?" asks for a date)."""
    asks = asking_sentences(question) or [question]
    texts = [without_address(p).replace("\u2019", "'") for p in asks]
    if any(_ASKS_DATE.search(t) for t in texts):
        return Asked.DATE
    if any(_ASKS_SHARE.search(t) for t in texts):
        return Asked.SHARE
    if any(_ASKS_QUANTITY.search(t) for t in texts):
        return Asked.QUANTITY
    return Asked.ANY


def states_date(text: str) -> bool:
    """The text gives a date or a time."""
    return _DATE.search(text.replace("\u2019", "'")) is not None


def gives(text: str, kind: Asked) -> bool:
    """The text gives a value of the kind asked for; a year is no quantity, and a count
    of something else is no share ("two new viruses" answers no "what percentage")."""
    if kind is Asked.DATE:
        return states_date(text)
    if kind is Asked.SHARE:
        found = quantities(text)
        in_digits = word_numbers_to_digits(text)
        return any(q.percent for q in found) or _SHARE_WORDS.search(in_digits) is not None
    if kind is Asked.QUANTITY:
        return (any(not q.year for q in quantities(text))
                or _QUANTITY_WORD.search(text) is not None)
    return True
