"""The search function the backbone uses: the document's Retriever (MiniLM + lexical),
or, where that is not installed, plain word overlap so the harness still runs."""

from __future__ import annotations

from typing import Any

from app.backbone.context import Search
from app.backbone.text import content_tokens


def default_search(document: Any, embedder: Any | None) -> Search:
    try:
        from app.document.retrieval import Retriever
    except ImportError:
        return lexical_search(document)
    if embedder is None:
        from app.embedding import get_embedder

        embedder = get_embedder()
    retriever = Retriever(document, embedder)
    return lambda query, k: list(retriever.search(query, k))


def lexical_search(document: Any) -> Search:
    """Sentences ranked by shared content words, long sentences slightly discounted."""
    bags = [(s.sid, set(content_tokens(s.text))) for s in document.sentences]

    def search(query: str, k: int) -> list[tuple[int, float]]:
        wanted = set(content_tokens(query))
        scored = [(sid, len(wanted & bag) / (1 + len(bag)) ** 0.3) for sid, bag in bags]
        scored = [x for x in scored if x[1] > 0]
        scored.sort(key=lambda x: -x[1])
        return scored[:k]

    return search
