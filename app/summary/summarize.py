"""The meeting summary: map the parts of the meeting to grounded notes and action items,
reduce the notes to a short summary, add what the agent contributed, the questions left
open (with the document's answers) and the cleaned transcript.

Every statement the model writes is checked against the turns it cites before it is
kept (``grounding``); one that fails is dropped and counted, never shown uncited.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.backbone.stage import StageReply
from app.settings import LLMSettings
from app.summary import prompts
from app.summary.chunking import TokenCount, chunk_turns, estimate_tokens, pack
from app.summary.grounding import ActionItem, Statement, grounded, grounded_actions
from app.summary.meeting import Contribution, Meeting, SpokenTurn, clean_transcript
from app.summary.questions import Answerer, OpenQuestion, look_up, open_questions
from app.summary.settings import SummarySettings
from app.summary.stages import Stages

# Steps done, steps in all, what is being done now (in words).
Progress = Callable[[int, int, str], None]


class SummaryCancelled(Exception):
    """The summary was stopped before it was finished."""


@dataclass(frozen=True)
class MeetingSummary:
    meeting: Meeting
    points: tuple[Statement, ...]  # the short summary: grounded, in meeting order
    contributions: tuple[Contribution, ...]  # what the agent said or meant to say
    questions: tuple[OpenQuestion, ...]  # raised and never answered
    actions: tuple[ActionItem, ...]  # grounded, by turn
    transcript: tuple[SpokenTurn, ...]  # backchannels and fillers dropped
    written: int  # statements and action items the model wrote, kept or not
    dropped: tuple[tuple[str, str], ...]  # (what was written, why it was dropped)
    drafts: tuple[Statement, ...]  # every point the model wrote (parts, then merges)
    problems: tuple[str, ...]  # model calls that failed, in words
    calls: tuple[StageReply, ...]  # every model call with its timing and token counts
    seconds: float  # wall time the summary took

    @property
    def supported_share(self) -> float:
        """Share of what the model wrote that its cited turns carry (1.0 when nothing)."""
        return 1.0 - len(self.dropped) / self.written if self.written else 1.0


class _Steps:
    def __init__(self, total: int, progress: Progress | None,
                 cancel: threading.Event | None) -> None:
        self.done, self.total, self.progress, self.cancel = 0, total, progress, cancel

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise SummaryCancelled("the summary was stopped")

    def step(self, what: str, more: int = 0) -> None:
        """One step done; ``more``: steps found to be needed after all."""
        self.check()
        self.done, self.total = self.done + 1, self.total + more
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total, what)
        self.check()


def summarize(
    meeting: Meeting,
    llm: object,
    settings: SummarySettings | None = None,
    context_tokens: int = LLMSettings().context_tokens,
    answerer: Answerer | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    count: TokenCount = estimate_tokens,
) -> MeetingSummary:
    """The summary of a meeting; ``answerer`` looks open questions up in the document
    (None: there is no document). Raises SummaryCancelled when ``cancel`` is set."""
    started = time.perf_counter()
    s = settings or SummarySettings()
    readable = clean_transcript(meeting.turns)
    output = max(s.points.max_tokens, s.actions.max_tokens, s.combine.max_tokens)
    chunks = chunk_turns(readable, s.chunk_budget(context_tokens, output), count)
    raised = open_questions(meeting, s.answer_window_turns)
    lookups = min(len(raised), s.max_questions_checked) if answerer is not None else 0
    steps = _Steps(2 * len(chunks) + (len(chunks) > 1) + lookups, progress, cancel)
    steps.check()
    stages = Stages(llm, s)
    turns = meeting.by_index
    notes: list[Statement] = []
    actions: list[ActionItem] = []
    dropped: list[tuple[str, str]] = []
    drafts: list[Statement] = []
    written = 0
    for n, chunk in enumerate(chunks, 1):
        part = stages.part(chunk)
        made = stages.points(part, cancel)
        drafts += made
        kept, lost = grounded(made, turns, s.min_coverage)
        notes += kept
        dropped += [(st.text, why) for st, why in lost]
        steps.step(f"summarised part {n} of {len(chunks)}")
        items = stages.actions(part, meeting.speakers, cancel)
        kept_items, lost_items = grounded_actions(items, turns, s.min_coverage)
        actions += kept_items
        dropped += [(_action_text(a), why) for a, why in lost_items]
        written += len(made) + len(items)
        steps.step(f"found the action items of part {n} of {len(chunks)}")
    points, merges = _reduce(stages, notes, turns, s, steps, count, len(chunks), dropped)
    drafts += merges
    written += len(merges)
    questions = look_up(raised, meeting, answerer, s.max_questions_checked,
                        lambda n: steps.step(f"looked up open question {n} of {lookups}"))
    return MeetingSummary(
        meeting=meeting,
        points=tuple(sorted(points, key=lambda st: min(st.turns))),
        contributions=meeting.contributions,
        questions=tuple(questions),
        actions=tuple(_distinct(actions)),
        transcript=tuple(readable),
        written=written,
        dropped=tuple(dropped),
        drafts=tuple(drafts),
        problems=tuple(dict.fromkeys(stages.errors)),
        calls=tuple(stages.calls),
        seconds=time.perf_counter() - started,
    )


def _reduce(stages: Stages, notes: list[Statement], turns: dict[int, SpokenTurn],
            s: SummarySettings, steps: _Steps, count: TokenCount, parts: int,
            dropped: list[tuple[str, str]]) -> tuple[list[Statement], list[Statement]]:
    """The notes of all parts merged in rounds of what one call can read, until one call
    has read them all; a group whose merge kept nothing keeps its own (grounded) notes.
    Returns the summary and every statement the merges wrote."""
    if parts <= 1:
        return notes, []
    if not notes:
        steps.step("nothing to combine")
        return notes, []
    written: list[Statement] = []
    planned = 1  # one combine step was counted in advance
    while True:
        groups = pack([count(prompts.note_line(n)) for n in notes], s.combine_tokens)
        merged: list[Statement] = []
        for group in groups:
            own = [notes[i] for i in group]
            made = stages.combine(own, steps.cancel)
            written += made
            kept, lost = grounded(made, turns, s.min_coverage)
            dropped += [(st.text, why) for st, why in lost]
            merged += kept or own
            steps.step("combined the notes of the parts", more=0 if planned else 1)
            planned = 0
        if len(groups) == 1 or len(merged) >= len(notes):
            return merged, written
        notes = merged


def _distinct(items: list[ActionItem]) -> list[ActionItem]:
    seen: set[tuple[str, int]] = set()
    out = []
    for item in sorted(items, key=lambda a: a.turn):
        key = (item.what.lower(), item.turn)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _action_text(item: ActionItem) -> str:
    return " ".join(p for p in (item.who, item.what, item.when) if p)
