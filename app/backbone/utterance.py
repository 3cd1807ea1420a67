"""The spoken form: "About {topic}, {text} You'll find this on page N; search for '...'".

With several documents open the page hint names the document ("page N of <title>")."""

from __future__ import annotations

import re

from app.backbone.text import sentences
from app.events import Citation
from app.settings import UtteranceStyle

# "as stated in S27 and S32": a pointer to sentence IDs that means nothing aloud.
_CITED_IN = re.compile(
    r"\s*,?\s*\b(?:as (?:stated|shown|mentioned|described|given) in|according to|see)\s+"
    r"\[?S\d+\]?(?:\s*(?:,|and)\s*\[?S\d+\]?)*",
    re.IGNORECASE,
)
_IDS = re.compile(r"\s*\[(?:S|s)?\d+(?:\s*[,\-–]\s*(?:S|s)?\d+)*\]")


def clean_text(text: str) -> str:
    """Remove sentence IDs and bracketed reference markers; tidy whitespace."""
    text = _IDS.sub("", text)
    text = _CITED_IN.sub("", text)
    text = re.sub(r"\bS\d+\b", "", text)
    return re.sub(r"\s+", " ", text).strip()


def limit_words(text: str, max_words: int) -> str:
    """Whole sentences within the limit; a first sentence that is too long is cut."""
    kept: list[str] = []
    for sentence in sentences(text):
        if len(" ".join([*kept, sentence]).split()) > max_words:
            break
        kept.append(sentence)
    if kept:
        return " ".join(kept)
    words = text.split()[:max_words]
    return " ".join(words).rstrip(",;:") + "."


def limit_sentences(text: str, max_sentences: int) -> str:
    return " ".join(sentences(text)[:max_sentences])


def _lower_first(text: str) -> str:
    """"They used" -> "they used", but "PDFBox is" keeps its capitals."""
    if text[:2] == text[:2].upper():
        return text
    return text[0].lower() + text[1:]


def _end(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def assemble(topic: str, text: str, citation: Citation | None, style: UtteranceStyle,
             preface: bool = True) -> str:
    """Topic preface, the text, and the page hint of the first cited sentence."""
    body = _end(clean_text(text))
    topic = clean_text(topic).strip(" .,").lower()
    if preface and topic:
        body = f"About {topic}, {_lower_first(body)}"
    if citation is None or style is UtteranceStyle.OFF:
        return body
    where = page_hint(citation)
    if style is UtteranceStyle.PAGE_ONLY or not citation.keyword:
        return f"{body} You'll find this on {where}."
    return f"{body} You'll find this on {where}; search for '{citation.keyword}' to confirm."


def page_hint(citation: Citation) -> str:
    """"page 4", or "page 4 of Budget report" when the meeting has several documents."""
    if citation.document_title:
        return f"page {citation.page} of {citation.document_title}"
    return f"page {citation.page}"
