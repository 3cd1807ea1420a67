"""Deterministic self-repair guard: a model's "resolved" closes a claim only if it holds.

Rules (SPEC §4): the correct value appears in the last 3 turns with at least 60% of its
content tokens (question words removed, numbers exactly); the closing utterance is not a
question and not a report of failing to recall; it adds words absent from the turns that
raised the claim. A misattribution has no value: a retraction closes it instead. Any
other valueless claim keeps the model's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.backbone.verdict import Status
from app.language.numbers import quantities
from app.language.sentences import sentences
from app.language.talk import Talk, contains_question, is_question, reports_failed_recall, says
from app.language.values import value_present
from app.language.words import content_tokens


@dataclass(frozen=True)
class GuardResult:
    closes: bool
    reason: str
    line: int = -1  # index (within ``recent``) of the closing utterance
    shown: bool = False  # the turns themselves show the fix (a value stated, a retraction)


def _adds_words(text: str, raising: Sequence[str]) -> bool:
    raised: set[str] = set()
    for line in raising:
        raised.update(content_tokens(line))
    return any(t not in raised for t in content_tokens(text))


def check(
    status: Status,
    value: str,
    recent: Sequence[str],
    raising: Sequence[str],
    min_share: float,
) -> GuardResult:
    """Decide whether the last turns (``recent``, oldest first) really resolve the claim."""
    if status == Status.NOT_IN_DOCUMENT:
        for i in range(len(recent) - 1, -1, -1):
            text = recent[i]
            if says(Talk.RETRACTION, text) and not is_question(text):
                return GuardResult(True, "retraction", i, shown=True)
        return GuardResult(False, "guard: no retraction in the last turns")
    if not value.strip():
        if recent and _leaves_open(recent[-1]):
            return GuardResult(False, "guard: the last turn answers nothing")
        return GuardResult(True, "no value to check: model verdict stands")
    for i in range(len(recent) - 1, -1, -1):
        text = recent[i]
        if not value_present(value, text, min_share):
            continue
        # Judge the sentence that carries the value: "Was it X? I think it's Y." asks.
        carrier = next((s for s in sentences(text) if value_present(value, s, min_share)),
                       text)
        if is_question(carrier) or reports_failed_recall(text):
            continue
        if not _adds_words(text, raising):
            continue
        return GuardResult(True, "value stated", i, shown=True)
    return GuardResult(False, "guard: correct value not stated in the last turns")


def fix_values(answer: str, raising: Sequence[str]) -> list[str]:
    """The values of an answer that holds several which each fix the claim on its own:
    those of the kind the raising turns stated with another value ("40%" raised, answer
    "12% in the first year, to 30%": 12% and 30%). A speaker who repairs to one of them
    says what the document says; asking for every number of the answer would correct
    that speaker over the other value, left unsaid or misheard."""
    given = quantities(answer)
    if len(given) < 2:
        return []
    said = [q for text in raising for q in quantities(text)]
    return [q.raw for q in given
            if any(q.compatible(r) for r in said) and not any(q.same_value(r) for r in said)]


def _leaves_open(text: str) -> bool:
    """A turn that asks or admits not knowing resolves no valueless claim."""
    return contains_question(text) or reports_failed_recall(text)
