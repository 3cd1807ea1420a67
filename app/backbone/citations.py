"""Sentence IDs from the model, checked against the document and turned into Citations."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from app.backbone.text import STOPWORDS
from app.document.library import part_of
from app.events import Citation

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9%.\-/']*[A-Za-z0-9%]|[A-Za-z0-9]")


def valid_sids(document: Any, sids: Iterable[Any], limit: int | None = None) -> tuple[int, ...]:
    """IDs that resolve to a sentence, in order, without repeats; the rest are dropped."""
    out: list[int] = []
    for sid in sids:
        if isinstance(sid, bool) or not isinstance(sid, int):
            continue
        if sid not in out and document.get(sid) is not None:
            out.append(sid)
    return tuple(out[:limit] if limit is not None else out)


# A word with a footnote number glued on by the PDF's text layer ("library3"): rare, but
# nobody would say it or type it.
_FOOTNOTED = re.compile(r"^[a-z]{3,}\d{1,2}$")


def keyword(sentence_text: str, document_lower: str, max_words: int = 3) -> str:
    """A short verbatim phrase of the sentence that is rare in the document, so a PDF
    search for it lands on the cited passage."""
    tokens = _TOKEN.findall(sentence_text)
    scored = [
        (document_lower.count(t.lower()), -len(t), i)
        for i, t in enumerate(tokens)
        if len(t) >= 4 and t.lower() not in STOPWORDS and not _FOOTNOTED.match(t)
    ]
    if not scored:
        return " ".join(tokens[:max_words])
    _, _, start = min(scored)
    phrase = [tokens[start]]
    for t in tokens[start + 1 : start + max_words]:
        if t.lower() in STOPWORDS or _FOOTNOTED.match(t):
            break
        phrase.append(t)
    # Keep it verbatim: the words must sit next to each other in the sentence.
    candidate = " ".join(phrase)
    return candidate if candidate in sentence_text else tokens[start]


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
                            keyword=keyword(sentence.text, document_lower),
                            document="" if part is None else str(part.path),
                            document_title="" if part is None else part.name))
    return tuple(out)


def holds_value(document: Any, sid: int, value: str) -> bool:
    """Sentence ``sid`` states ``value`` verbatim (case aside)."""
    sentence = document.get(sid)
    value = value.strip().lower()
    return bool(value) and sentence is not None and value in sentence.text.lower()
