"""The summary's model calls: points and action items of one part (map), and the notes
of all parts merged (reduce). Each reply is schema-checked by the decoder and parsed here;
what it says is checked against the transcript afterwards (``grounding``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.stage import StageReply, call
from app.language.sentences import sentences
from app.summary import prompts, schemas
from app.summary.chunking import Chunk
from app.summary.grounding import ActionItem, Statement
from app.summary.settings import SummarySettings


@dataclass(frozen=True)
class Part:
    """One part of the meeting as the model is given it."""

    chunk: Chunk
    system: str  # instructions + the part's transcript: the calls' shared prefix


class Stages:
    """The model calls, with the shared instructions and every reply kept for timings."""

    def __init__(self, llm: Any, settings: SummarySettings) -> None:
        self.llm, self.settings = llm, settings
        self.base = prompts.instructions(settings.max_cited_turns, settings.max_points,
                                         settings.max_summary)
        self.calls: list[StageReply] = []
        self.errors: list[str] = []

    def part(self, chunk: Chunk) -> Part:
        turns = chunk.turns
        return Part(chunk, prompts.part_system(self.base, chunk.text, turns[0], turns[-1]))

    def points(self, part: Part, cancel: threading.Event | None = None) -> list[Statement]:
        s = self.settings
        data = self._call("summary_points", part.system, prompts.points_task(),
                          schemas.points_schema(s.max_points, s.max_cited_turns), s.points,
                          cancel)
        return parse_points(data)

    def actions(self, part: Part, speakers: Sequence[str],
                cancel: threading.Event | None = None) -> list[ActionItem]:
        s = self.settings
        data = self._call("summary_actions", part.system, prompts.actions_task(speakers),
                          schemas.actions_schema(s.max_actions), s.actions, cancel)
        return parse_actions(data)

    def combine(self, notes: Sequence[Statement], cancel: threading.Event | None = None
                ) -> list[Statement]:
        s = self.settings
        data = self._call("summary_combine", self.base, prompts.combine_task(notes),
                          schemas.points_schema(s.max_summary, s.max_cited_turns), s.combine,
                          cancel)
        return parse_points(data)

    def _call(self, stage: str, system: str, user: str, schema: dict[str, Any],
              settings: Any, cancel: threading.Event | None) -> dict[str, Any] | None:
        reply = call(self.llm, stage, system, user, schema, settings, cancel=cancel)
        self.calls.append(reply)
        if reply.data is None:
            self.errors.append(reply.error)
        return reply.data


def parse_points(data: dict[str, Any] | None) -> list[Statement]:
    """The statements of a points or combine reply, each with the turns it cites."""
    out = []
    for raw in (data or {}).get("points") or []:
        if not isinstance(raw, dict):
            continue
        text = _complete(" ".join(str(raw.get("text") or "").split()))
        turns = tuple(dict.fromkeys(t for t in raw.get("turns") or []
                                    if isinstance(t, int) and not isinstance(t, bool)))
        if text:
            out.append(Statement(text, turns, str(raw.get("kind") or "discussed")))
    return out


def _complete(text: str) -> str:
    """The text up to its last whole sentence when the length cap cut it off; "" when
    not even its first sentence was finished (half a statement can say the opposite)."""
    if len(text) < schemas.MAX_POINT_CHARS - 2 or text.endswith((".", "!", "?")):
        return text
    return " ".join(sentences(text)[:-1])


def parse_actions(data: dict[str, Any] | None) -> list[ActionItem]:
    out = []
    for raw in (data or {}).get("actions") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("turn"), int):
            continue
        what = " ".join(str(raw.get("what") or "").split())
        if what:
            out.append(ActionItem(_plain(raw.get("who")), what, _plain(raw.get("when")),
                                  int(raw["turn"])))
    return out


def _plain(value: Any) -> str:
    """A name or date field; the words models write for "none" are empty."""
    text = " ".join(str(value or "").split()).strip(" .")
    return "" if text.lower() in ("none", "n/a", "unknown", "nobody", "-", "null") else text
