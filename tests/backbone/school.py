"""A short school report and a real Backbone over it, for the checked-speech tests."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex, Sentence
from app.settings import ContextMode, LedgerSettings, LLMSettings, Settings, UtteranceSettings
from tests.backbone.scripted import ScriptedLLM, WordOverlap

TEXTS = [
    "Northfield School has 1,260 pupils and 85 teachers.",
    "The new library opened in 2021 and holds 12,000 books.",
    "If the fire alarm sounds, tell everyone to leave the room by the nearest exit.",
    "Lunch is served in the main hall at noon.",
]
PUPILS = "Jarvis, how many pupils does the school have?"
ALARM = "Jarvis, what do we do if the fire alarm sounds?"
ABSTAIN = "That isn't covered in the document."


def school() -> DocumentIndex:
    sentences = [Sentence(i, t, page=1 + i, rects=((10.0, 20.0 * i, 300.0, 20.0 * i + 12),))
                 for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("report.pdf"), "0" * 64, "School report", 4, sentences)


def backbone(llm: ScriptedLLM, document: DocumentIndex | None = None,
             quote_direct: bool = False, **ledger: Any) -> Backbone:
    """``quote_direct``: a question may be answered and a correction said with a document
    sentence, no model call, and the model only picks a direct answer's sentences (off
    here: these tests are about the model's replies)."""
    ledger.setdefault("screen_turns", False)
    utterance = UtteranceSettings() if quote_direct else UtteranceSettings(
        quote_direct_coverage=0.0, quote_any_coverage=0.0, quote_corrections=False,
        quote_model_picks=False)
    settings = Settings(llm=LLMSettings(context_mode=ContextMode.FOCUSED), utterance=utterance,
                        ledger=dataclasses.replace(LedgerSettings(), **ledger))
    document = document or school()
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def reply(text: str, sids: list[int], action: str = "answer") -> dict[str, object]:
    """A direct reply in the decoder's field order: citations, text, action."""
    return {"quote_sids": sids, "text": text, "action": action}
