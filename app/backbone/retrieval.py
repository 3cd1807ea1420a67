"""The search function the backbone uses: the document's Retriever (MiniLM + lexical),
or, where that is not installed, plain word overlap so the harness still runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.backbone.context import Search
from app.language.words import content_tokens


def default_search(document: Any, embedder: Any | None) -> Search:
    try:
        from app.document.retrieval import Retriever
    except ImportError:
        return lexical_search(document)
    if embedder is None:
        from app.embedding import get_embedder

        embedder = get_embedder()
    retriever = Retriever(document, embedder)
    return lambda queries, k: list(retriever.search_many(list(queries), k))


def lexical_search(document: Any, previous_weight: float = 0.2) -> Search:
    """Sentences ranked by shared content words, long sentences slightly discounted; later
    queries count ``previous_weight`` as much as the first."""
    bags = [(s.sid, set(content_tokens(s.text))) for s in document.sentences]

    def search(queries: Sequence[str], k: int) -> list[tuple[int, float]]:
        totals = dict.fromkeys((sid for sid, _ in bags), 0.0)
        for n, query in enumerate(queries):
            wanted = set(content_tokens(query))
            weight = 1.0 if n == 0 else previous_weight
            for sid, bag in bags:
                totals[sid] += weight * len(wanted & bag) / (1 + len(bag)) ** 0.3
        scored = sorted(((sid, v) for sid, v in totals.items() if v > 0), key=lambda x: -x[1])
        return scored[:k]

    return search
