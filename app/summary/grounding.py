"""Is a written statement carried by the turns it cites?

The same rule as speech (``app.backbone.grounding``, ``app.backbone.guard.value_present``):
most of the statement's content words must be found in what it cites, and every number
in it exactly. A statement that cites nothing, cites no turn of the meeting, or says
more than its turns is dropped: nothing reaches the summary uncited.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from app.document.segment import cjk_letters
from app.language.words import content_tokens, is_number_token
from app.summary.meeting import SpokenTurn

# How minutes report talk rather than what was said: "the group discussed", "Ken
# suggested". These words need no support in the turns; they claim nothing about content.
REPORTING_WORDS = frozenset(content_tokens(
    "discuss discussed discussing discussion talk talked talking mention mentioned "
    "mentioning agree agreed agreeing agreement decide decided deciding decision decisions "
    "suggest suggested suggesting suggestion propose proposed proposal raise raised note "
    "noted noting point pointed ask asked asking question questioned explain explained "
    "present presented describe described state stated report reported express expressed "
    "concern concerned consider considered considering review reviewed group team meeting "
    "member members participant participants everyone speaker speakers topic topics issue "
    "issues also overall regarding whether idea ideas", drop_question_words=False))
# A word counts as found when a cited word shares its first letters this far
# ("installed"/"installation"); the light stemmer only folds plurals.
SHARED_PREFIX = 5


@dataclass(frozen=True)
class Statement:
    """One line the summary may show, with the turns it comes from."""

    text: str
    turns: tuple[int, ...]
    kind: str = ""  # "discussed" or "decided" for summary points


@dataclass(frozen=True)
class Check:
    kept: bool
    coverage: float  # share of the statement's content words found in its cited turns
    reason: str  # why it was dropped; "" when kept


def turn_words(turns: Sequence[SpokenTurn]) -> set[str]:
    """Content words of the turns, their speakers' names included."""
    words: set[str] = set()
    for turn in turns:
        words.update(content_tokens(f"{turn.speaker} {turn.text}"))
    return words


def check_statement(statement: Statement, turns: Mapping[int, SpokenTurn],
                    min_coverage: float) -> Check:
    """Keep the statement only when its cited turns carry it."""
    if not statement.turns:
        return Check(False, 0.0, "cites no turn")
    cited = [turns[i] for i in statement.turns if i in turns]
    if not cited:
        return Check(False, 0.0, "cites no turn of this meeting")
    if foreign_script(statement.text, cited):
        return Check(False, 0.0, "written partly in a script its turns do not use")
    # Naming who spoke is no support for what the statement says they said.
    speakers = set(content_tokens(" ".join(t.speaker for t in cited)))
    return check_words(statement.text, turn_words(cited), min_coverage, speakers)


def foreign_script(text: str, turns: Sequence[SpokenTurn]) -> bool:
    """Han, kana or Hangul the turns never use (a small model slipping into another
    language); the word check cannot see them, as the tokens leave them out."""
    return cjk_letters(text) > 0 and not any(cjk_letters(t.text) for t in turns)


def check_words(text: str, have: set[str], min_coverage: float,
                besides: Collection[str] = ()) -> Check:
    """The text's content words (reporting words and ``besides`` aside) against the words
    it may use."""
    said = [t for t in content_tokens(text) if t not in REPORTING_WORDS and t not in besides]
    if not said:
        return Check(False, 0.0, "says nothing of substance")
    plain = {h.rstrip("%") for h in have if is_number_token(h)}
    missing = [t for t in said if is_number_token(t) and t.rstrip("%") not in plain]
    found = sum(_found(t, have) for t in said) / len(said)
    if missing:
        return Check(False, found, f"number not in the cited turns: {missing[0]}")
    if found < min_coverage:
        return Check(False, found, f"only {found:.0%} of its words are in the cited turns")
    return Check(True, found, "")


def _found(token: str, have: set[str]) -> bool:
    if token in have:
        return True
    if is_number_token(token) or len(token) < SHARED_PREFIX:
        return False
    head = token[:SHARED_PREFIX]
    return any(len(h) >= SHARED_PREFIX and h.startswith(head) for h in have)


def grounded(statements: Sequence[Statement], turns: Mapping[int, SpokenTurn],
             min_coverage: float) -> tuple[list[Statement], list[tuple[Statement, str]]]:
    """The statements their turns carry, and the others with why they were dropped."""
    kept: list[Statement] = []
    dropped: list[tuple[Statement, str]] = []
    for statement in statements:
        check = check_statement(statement, turns, min_coverage)
        if check.kept:
            kept.append(statement)
        else:
            dropped.append((statement, check.reason))
    return kept, dropped


@dataclass(frozen=True)
class ActionItem:
    """A task someone took on or was given, with the turn where it was said."""

    who: str  # "" when nobody was named
    what: str
    when: str  # the deadline as said; "" when none was
    turn: int


def check_action(item: ActionItem, turns: Mapping[int, SpokenTurn],
                 min_coverage: float) -> Check:
    """The task must be carried by its turn and the reply to it (a request and its
    acceptance); the person must be named there or be one of their speakers ("I'll send
    it"). The deadline is checked apart (``deadline_said``)."""
    source = turns.get(item.turn)
    if source is None:
        return Check(False, 0.0, "cites no turn of this meeting")
    pair = _with_reply(item.turn, turns)
    if foreign_script(f"{item.who} {item.what}", pair):
        return Check(False, 0.0, "written partly in a script its turns do not use")
    have = turn_words(pair)
    who = [t for t in content_tokens(item.who) if t not in REPORTING_WORDS]
    speakers = {" ".join(content_tokens(t.speaker)) for t in pair}
    named = all(_found(t, have) for t in who) or " ".join(who) in speakers
    if not named:
        return Check(False, 0.0, f"{item.who!r} is not named there")
    return check_words(item.what, have, min_coverage)


def deadline_said(item: ActionItem, turns: Mapping[int, SpokenTurn],
                  min_coverage: float) -> bool:
    """A deadline is a claim of its own: few words, each of them counts."""
    if not item.when or item.turn not in turns:
        return not item.when
    pair = _with_reply(item.turn, turns)
    if foreign_script(item.when, pair):
        return False
    return check_words(item.when, turn_words(pair), min_coverage).kept


def _with_reply(index: int, turns: Mapping[int, SpokenTurn]) -> list[SpokenTurn]:
    after = sorted(i for i in turns if i > index)[:1]
    return [turns[index], *(turns[i] for i in after)]


def grounded_actions(items: Sequence[ActionItem], turns: Mapping[int, SpokenTurn],
                     min_coverage: float
                     ) -> tuple[list[ActionItem], list[tuple[ActionItem, str]]]:
    kept: list[ActionItem] = []
    dropped: list[tuple[ActionItem, str]] = []
    for item in items:
        check = check_action(item, turns, min_coverage)
        if not check.kept:
            dropped.append((item, check.reason))
            continue
        if not deadline_said(item, turns, min_coverage):
            # The task stands; a deadline nobody said is left out, never shown.
            dropped.append((item, f"the deadline {item.when!r} is not said there"))
            item = dataclasses.replace(item, when="")
        kept.append(item)
    return kept, dropped
