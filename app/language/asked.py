"""What kind of value a question asks for, and whether a sentence gives one.

"When was it first identified?" is answered by a date or a time ("in 2002", "two decades
ago"), "How many were enrolled?" by a quantity ("1,200 patients", "about half"). A
sentence without one may be about the question, but it does not answer it. Only the
opening of a question decides: "What happens when the cell divides?" asks for no date. A
"when" about the present or the future often asks for a condition ("when is shedding
highest?" - "on the day symptoms begin"), so only a "when" about the past asks for a date.
"""

from __future__ import annotations

import re
from enum import StrEnum

from app.language.numbers import quantities
from app.language.sentences import sentences
from app.language.talk import PHRASES, Talk

_I = re.IGNORECASE


class Asked(StrEnum):
    """The kind of value a question asks for."""

    DATE = "date"  # "when was ...?", "in what year ...?"
    QUANTITY = "quantity"  # "how many ...?", "what percentage ...?"
    ANY = "any"  # no value in particular: "what", "why", "which", yes/no


# Words that may come before the question word: "so, when ...", "and where and when ...".
_OPENING = r"^\W*(?:(?:so|and|but|okay|ok|well|then|also|now|where and|where),?\s+)*"
_ASKS_DATE = re.compile(
    rf"{_OPENING}(?:since |until )?when (?:was|were|did|had)\b"
    r"|\b(?:what|which) (?:year|date|month|day|decade)\b|\bthe (?:date|year)\b"
    r"|\bhow long ago\b", _I)
_ASKS_QUANTITY = re.compile(
    rf"{_OPENING}how (?:many|much|long|often|large|big|far|old)\b"
    r"|\bwhat (?:percentage|proportion|fraction|share|number|amount|rate|size)\b"
    r"|\b(?:what|how) (?:is|was|were|are) the (?:percentage|proportion|number|rate|size)\b",
    _I)

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
# Quantities said in words: "about half", "a third", "twice", "in triplicate".
_QUANTITY_WORD = re.compile(
    r"\b(?:half|halves|third|thirds|quarter|quarters|twice|thrice|once|double|doubled|"
    r"triple|tripled|single|duplicate|triplicate|quadruplicate|dozens?|hundreds|thousands|"
    r"millions|billions|majority|minority)\b",
    _I)


def asked_for(question: str) -> Asked:
    """The kind of value the question sentences of ``question`` ask for ("When did it
    happen? Do they give the date?" asks for a date)."""
    asks = [p for p in sentences(question) if p.rstrip().endswith("?")] or [question]
    texts = [PHRASES[Talk.ADDRESS].sub("", p).replace("\u2019", "'") for p in asks]
    if any(_ASKS_DATE.search(t) for t in texts):
        return Asked.DATE
    if any(_ASKS_QUANTITY.search(t) for t in texts):
        return Asked.QUANTITY
    return Asked.ANY


def states_date(text: str) -> bool:
    """The text gives a date or a time."""
    return _DATE.search(text.replace("\u2019", "'")) is not None


def gives(text: str, kind: Asked) -> bool:
    """The text gives a value of the kind asked for; a year is no quantity."""
    if kind is Asked.DATE:
        return states_date(text)
    if kind is Asked.QUANTITY:
        return (any(not q.year for q in quantities(text))
                or _QUANTITY_WORD.search(text) is not None)
    return True
