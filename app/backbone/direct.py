"""Direct answering: reply parsing and the streamed "text" field of the JSON reply."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.citations import valid_sids
from app.backbone.grounding import grounded_sids
from app.backbone.utterance import clean_text, limit_sentences
from app.settings import UtteranceSettings


@dataclass(frozen=True)
class DirectAnswer:
    action: str  # "answer", "abstain", "skip"
    text: str
    sids: tuple[int, ...]


def parse(
    data: dict[str, Any], document: Any, settings: UtteranceSettings,
    candidates: Sequence[int] = (), question: str = "",
) -> DirectAnswer:
    action = data.get("action")
    if action == "skip":
        return DirectAnswer("skip", "", ())
    raw = data.get("quote_sids") or []
    cited = valid_sids(document, raw if isinstance(raw, list) else [])
    text = limit_sentences(clean_text(str(data.get("text", ""))), settings.max_sentences_direct)
    sids = (grounded_sids(document, text, cited, candidates, question=question)
            if action == "answer" else ())
    if not sids or not text:
        # An answer no document sentence carries is never spoken as the document's.
        return DirectAnswer("abstain", settings.abstain_text, ())
    return DirectAnswer("answer", text, sids)


class TextFieldStream:
    """Pulls the growing value of ``"text"`` out of a JSON reply streamed in chunks."""

    def __init__(self, field: str = "text") -> None:
        self._marker = f'"{field}"'
        self._buffer = ""
        self._emitted = 0
        self._done = False

    def feed(self, chunk: str) -> str:
        if self._done:
            return ""
        self._buffer += chunk
        at = self._buffer.find(self._marker)
        if at < 0:
            return ""
        rest = self._buffer[at + len(self._marker) :].lstrip()
        if not rest.startswith(":"):
            return ""
        rest = rest[1:].lstrip()
        if not rest.startswith('"'):
            return ""
        value, closed = _decode_partial(rest[1:])
        self._done = closed
        new, self._emitted = value[self._emitted :], len(value)
        return new


def _decode_partial(body: str) -> tuple[str, bool]:
    """Decode a JSON string body up to its closing quote (or as far as it goes)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            return "".join(out), True
        if ch == "\\":
            if i + 1 >= len(body):
                break
            if body[i + 1] == "u":
                if i + 6 > len(body):
                    break
                out.append(json.loads(f'"{body[i:i + 6]}"'))
                i += 6
                continue
            out.append(json.loads(f'"{body[i:i + 2]}"'))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out), False
