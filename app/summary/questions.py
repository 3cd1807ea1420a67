"""Questions the meeting raised and never answered, and whether the document answers them.

A question is found the way the agent finds one during the meeting (``app.language.talk``:
a question about something, not a call for the room's attention). It stays open when no
reply by someone else in the next few turns answers it (the first that does not ask back
decides, by the detectors' test of a reply that leaves a question open) and the agent's
answer was not heard. The document is then
asked through the agent's own direct-answer path: retrieval, the model, and the check
that every sentence of the answer is carried by the sentences it cites.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.detectors import _leaves_open, question_point
from app.events import Citation, Intent, Turn
from app.language.numbers import quantities
from app.language.talk import (
    asks_about_document,
    contains_question,
    is_backchannel,
    reports_failed_recall,
)
from app.language.words import QUESTION_WORDS, content_tokens, words
from app.session.delivery import Delivery
from app.settings import Settings, UtteranceStyle
from app.summary.meeting import Contribution, Meeting, SpokenTurn

# The intents of an agent intervention that gives a fact someone asked for.
ANSWERING_INTENTS = (Intent.ANSWER, Intent.MISSING)
CONTEXT_TURNS = 2  # turns before a question the answer path sees ("which one was that?")


@dataclass(frozen=True)
class RaisedQuestion:
    turn: SpokenTurn
    question: str  # the question as asked, with the sentence before it when it is short


@dataclass(frozen=True)
class OpenQuestion:
    raised: RaisedQuestion
    answer: str  # the document's answer, checked against its citations; "" when none
    citations: tuple[Citation, ...]
    looked_up: bool  # False: no document, or past the number of questions looked up

    @property
    def answered_by_document(self) -> bool:
        return bool(self.answer) and bool(self.citations)


def asks(text: str) -> bool:
    """The turn asks for something worth a line of the minutes."""
    if is_backchannel(text) or not (contains_question(text) and asks_about_document(text)):
        return False
    return substantive(question_point(text))


def substantive(question: str) -> bool:
    """It asks about a thing: a question word and a content word ("How many buildings?"),
    or two content words ("Twenty five euros?"); "A rat?", "So we can start?" and "You
    know your job?" are talk, not open questions."""
    named = len(content_tokens(question))
    return named >= 2 or (named == 1 and any(w in QUESTION_WORDS for w in words(question)))


def answers(reply: str, question: str) -> bool:
    """The reply answers: it reports no failure to recall, and says enough the question
    did not (the detectors' test of a reply that leaves a question open) or states a
    value ("Forty-eight.")."""
    if reports_failed_recall(reply):
        return False
    return not _leaves_open(reply, question) or bool(quantities(reply))


def answered_in_talk(question: str, replies: Sequence[SpokenTurn]) -> bool:
    """The first reply that does not ask back decides ("You mean in total?" leaves it
    to the next one); no reply at all leaves the question open."""
    for reply in replies:
        if not contains_question(reply.text):
            return answers(reply.text, question)
    return False


def open_questions(meeting: Meeting, window: int) -> list[RaisedQuestion]:
    """Questions no one (the agent included) answered within ``window`` turns."""
    turns = [t for t in meeting.turns if not is_backchannel(t.text)]
    out = []
    for n, turn in enumerate(turns):
        if not asks(turn.text):
            continue
        question = question_point(turn.text)
        replies = [r for r in turns[n + 1 : n + 1 + window] if r.speaker != turn.speaker]
        if answered_in_talk(question, replies):
            continue
        if _agent_answered(meeting.contributions, turn.index, window):
            continue
        out.append(RaisedQuestion(turn, question))
    return out


def _agent_answered(contributions: Sequence[Contribution], index: int, window: int) -> bool:
    return any(c.intent in ANSWERING_INTENTS and index <= c.decided_turn <= index + window
               and c.fate.delivery is not Delivery.NOT_DELIVERED for c in contributions)


Answerer = Callable[[RaisedQuestion, Sequence[SpokenTurn]], tuple[str, tuple[Citation, ...]]]


class DocumentAnswers:
    """The document's answer to a question, by the backbone's direct-answer path (the
    spoken page hint left off: the summary shows the citation itself)."""

    def __init__(self, document: Any, llm: Any, settings: Settings | None = None,
                 embedder: Any | None = None, search: Any | None = None) -> None:
        from app.backbone.harness import Backbone

        base = settings or Settings()
        quiet = dataclasses.replace(
            base, utterance=dataclasses.replace(base.utterance, style=UtteranceStyle.OFF))
        self.backbone = Backbone(document, llm, quiet, embedder, search=search)

    def __call__(self, raised: RaisedQuestion, before: Sequence[SpokenTurn]
                 ) -> tuple[str, tuple[Citation, ...]]:
        backbone = self.backbone
        # Each question is asked after the turns that led to it, not after other questions.
        backbone.transcript.clear()
        for turn in before[-CONTEXT_TURNS:]:
            backbone.transcript.append(turn.index, turn.speaker, turn.text)
        t = raised.turn
        made = backbone.answer_direct(Turn(t.speaker, raised.question, t.start, t.end,
                                           direct=True, index=t.index))
        if made.intent != "answer" or not made.citations:
            return "", ()
        return made.text, made.citations


def look_up(questions: Sequence[RaisedQuestion], meeting: Meeting, answerer: Answerer | None,
            limit: int, on_each: Callable[[int], None] | None = None) -> list[OpenQuestion]:
    """Each open question with the document's answer (the first ``limit`` looked up)."""
    out = []
    for n, raised in enumerate(questions):
        if answerer is None or n >= limit:
            out.append(OpenQuestion(raised, "", (), looked_up=False))
            continue
        before = [t for t in meeting.turns if t.index < raised.turn.index]
        answer, cites = answerer(raised, before)
        out.append(OpenQuestion(raised, answer, cites, looked_up=True))
        if on_each is not None:
            on_each(n + 1)
    return out
