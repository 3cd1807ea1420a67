"""Utterance defects: deterministic checks on what an intervention said aloud.

Each check is a small, documented heuristic over the spoken text, the sentences it cites
and the text of the cited page (the document index's sentences on that page):

- ``fragment``: a sentence that does not open with a capital letter, a digit or a
  non-Latin letter, that lacks final punctuation or holds a bracket without its pair
  (a piece cut out of a bracket); or a clipped piece of a cited
  sentence: a verbatim run of it (four words or more) that starts or stops inside one of
  its clauses (a word of the cited sentence, not , ; : a dash or a bracket, runs on there);
- ``placeholder``: text of the prompt or the schema said aloud: an angle-bracket or brace
  placeholder, a prompt label ("document value:", "the finding in a few words"), a JSON key
  of the model's schemas, a leftover sentence ID, a topic said as an identifier ("About
  annotation_curricula,");
- ``search_phrase_not_on_page``: the phrase of "search for '...'" is not on the cited page,
  comparing with whitespace, hyphenation at line ends and the space before % normalised;
- ``no_verb``: a sentence of three words or more, in Latin script, with no word that looks
  like a verb (a light check: a list of auxiliaries and common verbs, or an -ed/-ing form
  whose stem has a vowel);
- ``spliced_value``: a sentence that ends with a bare value glued onto another clause: after
  a comma, or right after a plain word that neither links it (is, of, to, about ...) nor
  stands beside it in a cited sentence; or a bare value or name (three words at most)
  after a reporting lead ("the document says NumPy."), unless it is set against the
  participants' one ("the document says NumPy, not SciPy.": it says what replaces what);
- ``spliced_clause``: a whole sentence glued after a reporting verb, its capital kept
  ("the document says There are ...");
- ``repeated``: a sentence that says a run of six words twice (a reply caught in a loop);
- ``doubled_stop``: a sentence that ends twice: a stop, a closing quote or bracket, and
  another stop ("... approaches.'."), or two periods that are not an ellipsis.

A sentence led by "the document says" (with a topic preface or "Actually," before it) is
also checked without its lead: what follows must not be a clipped piece of a cited one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

from app.backbone.prompts import copied_prompt
from app.backbone.utterance import is_clipped, on_page
from app.language.sentences import brackets_paired, sentences
from app.language.verbs import looks_verbless
from app.language.words import repeated_run, spoken_words


class DefectKind(StrEnum):
    FRAGMENT = "fragment"
    PLACEHOLDER = "placeholder"
    SEARCH_PHRASE = "search_phrase_not_on_page"
    NO_VERB = "no_verb"
    SPLICED_VALUE = "spliced_value"
    SPLICED_CLAUSE = "spliced_clause"
    REPEATED = "repeated"
    DOUBLED_STOP = "doubled_stop"


@dataclass(frozen=True)
class Defect:
    kind: DefectKind
    sentence: str  # the spoken sentence (or search phrase) it concerns
    detail: str  # why, in a few words


# The page hint the utterance appends; its search phrase is checked on the page.
_HINT = re.compile(
    r"\s*You'll find this on page \d+(?: of [^;]+?)?"
    r"(?:; search for '(?P<phrase>.*?)' to confirm)?\.\s*$"
)
_QUOTE_LEAD = re.compile(r"^(?:Actually, )?[Tt]he document says: ")
# "About X, the document says ...", "Actually, the document reports that ...".
_REPORTED = re.compile(r"^(?:About [^,]{1,80}, )?(?:Actually, )?the document "
                       r"(?:says|reports|states|mentions|notes|shows)(?: that)?:? ", re.I)
# "STEP, not LAB.": the document's term set against the participants'.
_CONTRAST = re.compile(r"^([^,]+), not ([^,]+?)[.!?]$")
_OPENERS = "There|The|It|This|These|Those|We|They|Our|Its|In|A|An"
_GLUED = re.compile(rf"\b(?:says|said|reports|states|shows|mentions|notes|that) (?:{_OPENERS})"
                    r" [a-z]")
_OPENING_QUOTES = "\"'“‘(«["

_PLACEHOLDER = re.compile(r"<[^<>]{1,60}>|\{[^{}]{0,40}\}|\[S?\d+\]|\bS\d+\b")
_IDENTIFIER_TOPIC = re.compile(r"^About [^,]*?\b(\w+_\w+)")
_DOUBLED_STOP = re.compile(r"[.!?][\"'”’)\]»]+\.|(?<![.])\w\.\.(?!\.)")

_LINK_WORDS = frozenset(
    """is are was were be been being am has have had of to at by in on from than about around
    nearly almost roughly approximately over under above below up down and or nor with
    without per as says said reports reported shows showed gives gave lists states stated
    equals reached reaches totals totalled totaled only just exactly some least most
    the a an its their his her our your this that these those each every all both
    between among within after before since until during into onto like near was not
    """.split()
)
_VALUE_END = re.compile(
    r"(?P<before>\S+)\s+(?P<value>[$€£]?\d[\d,.]*\s?(?:%|percent|per cent)?)\s*[.!?]$"
)


def check_utterance(text: str, cited: Sequence[str] = (), page_text: str | None = None
                    ) -> list[Defect]:
    """Every defect of one spoken text. ``cited``: the cited sentences' text; ``page_text``:
    the cited page's text (None: the search phrase is not checked)."""
    body, phrase = split_hint(text)
    found: list[Defect] = []
    for sentence in spoken_sentences(body):
        found += sentence_defects(sentence, cited)
    if phrase is not None and page_text is not None and not on_page(phrase, page_text):
        found.append(Defect(DefectKind.SEARCH_PHRASE, phrase, "not on the cited page"))
    return found


def split_hint(text: str) -> tuple[str, str | None]:
    """The body and the search phrase of the page hint (None when there is none)."""
    match = _HINT.search(text)
    if match is None:
        return text.strip(), None
    return text[: match.start()].strip(), match.group("phrase")


def spoken_sentences(body: str) -> list[str]:
    return [s for s in sentences(body) if s.strip()]


def sentence_defects(sentence: str, cited: Sequence[str] = ()) -> list[Defect]:
    core = _QUOTE_LEAD.sub("", sentence).strip()
    checks = (_fragment(core, cited), _placeholder(sentence), _no_verb(core),
              _spliced(core, cited), _reported(core, cited), _repeated(core),
              _doubled_stop(sentence))  # fmt: skip
    return [Defect(kind, sentence, why) for kind, why in checks if kind is not None]


def _repeated(sentence: str) -> Check:
    run = repeated_run(sentence)
    return (DefectKind.REPEATED, f"says {run!r} twice") if run else _NONE


def _doubled_stop(sentence: str) -> Check:
    match = _DOUBLED_STOP.search(sentence)
    return (DefectKind.DOUBLED_STOP, f"'{match.group(0)}'") if match else _NONE


def _reported(sentence: str, cited: Sequence[str]) -> Check:
    """What follows a reporting lead: a glued sentence, a bare value, a clipped piece."""
    glued = _GLUED.search(sentence)
    if glued is not None:
        return DefectKind.SPLICED_CLAUSE, f"a sentence glued on: '{glued.group(0)}...'"
    lead = _REPORTED.match(sentence)
    if lead is None:
        return _NONE
    rest = sentence[lead.end():].strip()
    contrast = _CONTRAST.match(rest)
    if contrast is not None and all(len(spoken_words(t)) <= 3 for t in contrast.groups()):
        return _NONE
    if len(spoken_words(rest)) <= 3:
        return DefectKind.SPLICED_VALUE, f"'{rest.rstrip('.!?')}' bare after the lead"
    if any(is_clipped(rest, c) for c in cited):
        return DefectKind.FRAGMENT, ("what it says starts or stops inside a clause of the "
                                     "cited sentence")
    return _NONE


Check = tuple[DefectKind | None, str]
_NONE: Check = (None, "")


def _fragment(sentence: str, cited: Sequence[str]) -> Check:
    opening = sentence.lstrip(_OPENING_QUOTES)
    if not opening:
        return DefectKind.FRAGMENT, "empty"
    first = opening[0]
    if first.isalpha() and first.islower():
        return DefectKind.FRAGMENT, "starts in lower case"
    if not first.isalnum():
        return DefectKind.FRAGMENT, "starts with punctuation"
    if not sentence.rstrip("\"'”’)»]").endswith((".", "!", "?", "。", "！", "？")):
        return DefectKind.FRAGMENT, "no final punctuation"
    if not brackets_paired(sentence):
        return DefectKind.FRAGMENT, "a bracket opened or closed without its pair"
    clipped = next((c for c in cited if is_clipped(sentence, c)), None)
    if clipped is not None:
        return DefectKind.FRAGMENT, "starts or stops inside a clause of the cited sentence"
    return _NONE


def _placeholder(sentence: str) -> Check:
    lower = sentence.lower()
    phrase = copied_prompt(sentence)  # the generation check's own test
    if phrase is not None:
        return DefectKind.PLACEHOLDER, f"prompt text '{phrase}'"
    match = _PLACEHOLDER.search(sentence)
    if match is not None:
        return DefectKind.PLACEHOLDER, f"placeholder '{match.group(0)}'"
    key = next((k for k in schema_keys() if re.search(rf"\b{k}\b", lower)), None)
    if key is not None:
        return DefectKind.PLACEHOLDER, f"schema key '{key}'"
    if re.search(r'"\w+"\s*:', sentence):
        return DefectKind.PLACEHOLDER, "JSON text"
    topic = _IDENTIFIER_TOPIC.match(sentence)
    if topic is not None:
        return DefectKind.PLACEHOLDER, f"topic said as an identifier '{topic.group(1)}'"
    return _NONE


@cache
def schema_keys() -> tuple[str, ...]:
    """Property names of the model's JSON schemas that no sentence would use as a word:
    those joined with an underscore (plain words such as "text" are left alone)."""
    from app.backbone import schemas

    keys: set[str] = set()
    for value in vars(schemas).values():
        keys |= set(_property_names(value))
    return tuple(sorted(k for k in keys if "_" in k))


def _property_names(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in schema.values():
            yield from _property_names(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _property_names(value)


def _no_verb(sentence: str) -> Check:
    if looks_verbless(sentence):
        return DefectKind.NO_VERB, "no word that looks like a verb"
    return _NONE


def _spliced(sentence: str, cited: Sequence[str]) -> Check:
    match = _VALUE_END.search(sentence.strip())
    if match is None:
        return _NONE
    before, value = match.group("before"), match.group("value").strip()
    if before.endswith(","):
        return DefectKind.SPLICED_VALUE, f"'{value}' after a comma"
    word = before.lower().strip("\"'“”‘’()")
    if not word.isalpha() or word in _LINK_WORDS or word.endswith("ed"):
        return _NONE
    pair = f"{word} {value.lower()}"
    if any(pair in " ".join(c.lower().split()) for c in cited):
        return _NONE
    return DefectKind.SPLICED_VALUE, f"'{value}' glued onto '{before}'"
