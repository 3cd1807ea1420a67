"""Sentence IDs from the model, checked against the document and turned into Citations."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app.backbone.utterance import page_text, search_phrase
from app.document.library import part_of
from app.events import Citation
from app.language.values import verbatim


def valid_sids(document: Any, sids: Iterable[Any], limit: int | None = None) -> tuple[int, ...]:
    """IDs that resolve to a sentence, in order, without repeats; the rest are dropped."""
    out: list[int] = []
    for sid in sids:
        if isinstance(sid, bool) or not isinstance(sid, int):
            continue
        if sid not in out and document.get(sid) is not None:
            out.append(sid)
    return tuple(out[:limit] if limit is not None else out)


def keyword(sentence_text: str, document_lower: str, max_words: int = 3) -> str:
    """A short verbatim phrase of the sentence that is rare in the document, so a PDF
    search for it lands on the cited passage (utterance.search_phrase)."""
    return search_phrase(sentence_text, document_lower, max_words=max_words)


def citations(document: Any, sids: Sequence[int], document_lower: str) -> tuple[Citation, ...]:
    """The sentences as Citations; in a meeting with several documents each names its own
    (the page is that document's page)."""
    out = []
    for sid in sids:
        sentence = document.get(sid)
        if sentence is None:
            continue
        part = part_of(document, sid)
        out.append(Citation(sid=sid, page=sentence.page, text=sentence.text,
                            rects=tuple(sentence.rects),
                            keyword=search_phrase(sentence.text, document_lower,
                                                  page_text(document, sid)),
                            document="" if part is None else str(part.path),
                            document_title="" if part is None else part.name))
    return tuple(out)


def holds_value(document: Any, sid: int, value: str) -> bool:
    """Sentence ``sid`` states ``value`` verbatim (case aside)."""
    sentence = document.get(sid)
    return sentence is not None and verbatim(sentence.text, value)
