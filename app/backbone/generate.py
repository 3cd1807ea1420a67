"""Grounded generation reply -> something speakable with citations, or a reason not to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.citations import valid_sids
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
    settings: UtteranceSettings,
) -> Generated:
    if data.get("action") != "speak":
        return Generated(False, reason="generate: abstained")
    text = clean_text(str(data.get("text", "")))
    if not text:
        return Generated(False, reason="generate: empty text")
    topic = clean_text(str(data.get("topic", "")))[:60]
    raw = data.get("quote_sids") or []
    sids = valid_sids(document, raw if isinstance(raw, list) else [])
    if intent != "not_in_paper":
        sids = sids or valid_sids(document, fallback_sids)
        if not sids:
            return Generated(False, reason="generate: no resolvable citation")
    limit = word_limit(intent, settings)
    if limit is not None:
        text = limit_words(text, limit)
    return Generated(True, text, topic, sids)
