"""Which document context the stages get, and the retrieved sentences in focused mode.

``full``: the whole numbered document sits in the shared prefix (the paper's way; right
for a 4B+ model on a GPU). ``focused``: the prefix holds only the instructions, and each
turn carries the top-k sentences retrieved for the utterance and the previous turn, with
their real IDs. AUTO picks focused for small models and for documents that do not fit.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.settings import ContextMode, LLMSettings

log = logging.getLogger(__name__)

SMALL_MODEL_B = 4.0  # below this many billion parameters the model gets focused context
RESERVED_TOKENS = 2500  # instructions, transcript window and output beside the document

# Ranked (sentence ID, score) for fused queries; the first query weighs most.
Search = Callable[[Sequence[str], int], list[tuple[int, float]]]


def model_size_b(llm: Any, explicit: float | None = None) -> float | None:
    """Billions of parameters, from an explicit value or the model's file/name."""
    if explicit is not None:
        return explicit
    for attr in ("model_params_b", "params_b"):
        value = getattr(llm, attr, None)
        if isinstance(value, (int, float)):
            return float(value)
    for attr in ("model_path", "model_name", "model", "name", "path", "spec"):
        value = getattr(llm, attr, None)
        if value is None:
            continue
        found = re.search(r"(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", str(value))
        if found:
            return float(found.group(1))
    return None


def choose_mode(
    settings: LLMSettings, document_tokens: int, params_b: float | None
) -> ContextMode:
    """The setting, except that a document the context cannot hold always gets focused
    context (asked for full, every call would fail)."""
    asked = settings.context_mode
    if asked is ContextMode.FOCUSED:
        return asked
    if document_tokens + RESERVED_TOKENS > settings.context_tokens:
        if asked is ContextMode.FULL:
            log.warning("full context asked for, but the document (about %d tokens) does not "
                        "fit in %d; using focused context", document_tokens,
                        settings.context_tokens)
        return ContextMode.FOCUSED
    if asked is ContextMode.FULL or params_b is None or params_b >= SMALL_MODEL_B:
        return ContextMode.FULL
    return ContextMode.FOCUSED


@dataclass
class EvidenceFinder:
    """Top-k sentences for a turn: the utterance's hits first, then the previous turn's."""

    search: Search
    k: int

    def for_turn(self, utterance: str, previous: str = "", extra: Sequence[int] = ()) -> list[int]:
        """``extra`` (sentences of open claims) first, then the fused hits of the utterance
        and, weighted less, the previous turn."""
        hits = [sid for sid, _ in self.search([utterance, previous], self.k)]
        ordered: list[int] = []
        for sid in [*extra, *hits]:
            if sid not in ordered:
                ordered.append(sid)
        return ordered[: max(self.k, len(extra))]
