"""Grounded generation reply -> something speakable with citations, or a reason not to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.citations import holds_value, valid_sids
from app.backbone.text import content_tokens, negated
from app.backbone.utterance import clean_text, limit_words
from app.settings import UtteranceSettings


@dataclass(frozen=True)
class Generated:
    speak: bool
    text: str = ""
    topic: str = ""
    sids: tuple[int, ...] = ()
    reason: str = ""


def word_limit(intent: str, settings: UtteranceSettings) -> int | None:
    if intent == "correct":
        return settings.max_words_correction
    if intent == "not_in_paper":
        return settings.max_words_misattribution
    return None  # a missing fact is given completely


def parse(
    data: dict[str, Any], intent: str, fallback_sids: Sequence[int], document: Any,
    settings: UtteranceSettings, value: str = "", point: str = "",
) -> Generated:
    """``value``: the document's value checked beforehand (the citation must hold it);
    ``point``: what the claim is about (the topic must be about it)."""
    if data.get("action") != "speak":
        return Generated(False, reason="generate: abstained")
    text = clean_text(str(data.get("text", "")))
    if not text:
        return Generated(False, reason="generate: empty text")
    raw = data.get("quote_sids") or []
    sids = valid_sids(document, raw if isinstance(raw, list) else [])
    if intent == "not_in_paper":
        sids = ()  # nothing in the document states it: nothing to cite
        if not negated(text):
            return Generated(False, reason="generate: does not say the document lacks it")
    else:
        sids = sids or valid_sids(document, fallback_sids)
        sids = _holding(document, value, [*sids, *fallback_sids]) or sids
        if not sids:
            return Generated(False, reason="generate: no resolvable citation")
    limit = word_limit(intent, settings)
    if limit is not None:
        text = limit_words(text, limit)
    topic = clean_text(str(data.get("topic", "")))[:60]
    context = [point, text, *(document.get(s).text for s in sids)]
    return Generated(True, text, topic if _about(topic, context) else "", sids)


def _holding(document: Any, value: str, sids: Sequence[int]) -> tuple[int, ...]:
    """The cited sentences that state the value, in citation order."""
    valid = valid_sids(document, list(dict.fromkeys(sids)))
    return tuple(s for s in valid if holds_value(document, s, value))


# Words of the task itself: a topic made of them ("document value") names nothing.
_TASK_WORDS = frozenset(content_tokens("document value point sentence text"))


def _about(topic: str, context: Sequence[str]) -> bool:
    """A topic shares a content word with the point, the text or the cited sentences (a
    small model otherwise copies the instructions' example topic or a prompt label)."""
    words = set(content_tokens(topic)) - _TASK_WORDS
    return bool(words) and any(words & set(content_tokens(c)) for c in context)
