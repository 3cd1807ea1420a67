"""Candidate evidence for an utterance: dense + BM25 + shared numbers and names, fused.

Sentence vectors are computed once per document and cached on disk under the user cache
dir, keyed by the document hash, the model name and the sentence texts.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np
import platformdirs

from app.document.lexical import name_terms, names, terms
from app.document.model import DocumentIndex
from app.embedding import Embedder, get_embedder
from app.language.numbers import numeric_values

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetrievalSettings:
    dense_weight: float = 1.0
    lexical_weight: float = 0.3  # times BM25 scaled to the best sentence for the query
    number_boost: float = 0.1  # a sentence states a quantity the query mentions
    name_boost: float = 0.15  # times the idf share of the query's names the sentence holds
    # The turn before the utterance (search_many): enough to resolve "which ones?",
    # small enough that the previous topic does not outrank the new question.
    previous_turn_weight: float = 0.2


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("jarvis", appauthor=False)) / "embeddings"


class Retriever:
    """Ranks the document's sentences (table rows included) for a query."""

    def __init__(
        self,
        index: DocumentIndex,
        embedder: Embedder | None = None,
        settings: RetrievalSettings | None = None,
        cache: Path | None = None,
    ) -> None:
        self.index = index
        self.settings = settings or RetrievalSettings()
        self.embedder = embedder or get_embedder()
        texts = [s.text for s in index.sentences]
        self._vectors = _sentence_vectors(index, texts, self.embedder, cache or cache_dir())
        self._bm25 = bm25s.BM25()
        self._bm25.index([terms(t) or ["\u2205"] for t in texts], show_progress=False)
        self._quantities = [numeric_values(t) for t in texts]
        self._words = [name_terms(t) for t in texts]
        df: Counter[str] = Counter(w for words in self._words for w in words)
        n = len(texts)
        self._idf = {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}

    def scores(self, query: str) -> np.ndarray:
        """Fused relevance of every sentence to one query."""
        s = self.settings
        dense = self._vectors @ self.embedder.encode([query])[0]
        lexical = self._bm25.get_scores(terms(query) or ["\u2205"]).astype(np.float32)
        if lexical.max() > 0:
            lexical /= lexical.max()
        fused = s.dense_weight * dense + s.lexical_weight * lexical
        return fused + self._number_bonus(query) + self._name_bonus(query)

    def _number_bonus(self, query: str) -> np.ndarray:
        wanted = numeric_values(query)
        bonus = np.zeros(len(self._quantities), dtype=np.float32)
        if wanted:
            for i, found in enumerate(self._quantities):
                if any(math.isclose(a, b, rel_tol=1e-6) for a in wanted for b in found):
                    bonus[i] = self.settings.number_boost
        return bonus

    def _name_bonus(self, query: str) -> np.ndarray:
        wanted = {n: self._idf[n] for n in names(query) if n in self._idf}
        bonus = np.zeros(len(self._words), dtype=np.float32)
        total = sum(wanted.values())
        if total > 0:
            for i, words in enumerate(self._words):
                hit = sum(w for n, w in wanted.items() if n in words)
                bonus[i] = self.settings.name_boost * hit / total
        return bonus

    def search(self, query: str, k: int = 6) -> list[tuple[int, float]]:
        return _top(self.scores(query), k)

    def search_many(
        self, queries: Sequence[str], k: int = 6, weights: Sequence[float] | None = None
    ) -> list[tuple[int, float]]:
        """Fuse several queries, e.g. ``[utterance, previous_turn]``; empty ones are skipped."""
        if weights is None:
            weights = [1.0] + [self.settings.previous_turn_weight] * (len(queries) - 1)
        total = np.zeros(len(self.index.sentences), dtype=np.float32)
        for query, weight in zip(queries, weights, strict=True):
            if query and query.strip():
                total += weight * self.scores(query)
        return _top(total, k)


def _top(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    k = min(k, len(scores))
    if k <= 0:
        return []
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(int(i), float(scores[i])) for i in best]


def _cache_file(index: DocumentIndex, texts: list[str], model: str, folder: Path) -> Path:
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
    return folder / f"{index.sha256[:24]}-{model}-{digest}.npy"


def _sentence_vectors(
    index: DocumentIndex, texts: list[str], embedder: Embedder, folder: Path
) -> np.ndarray:
    path = _cache_file(index, texts, embedder.name, folder)
    try:
        vectors = np.load(path)
        if vectors.shape == (len(texts), embedder.dim):
            return vectors.astype(np.float32, copy=False)
    except (OSError, ValueError):
        pass
    vectors = embedder.encode(texts, cache=False)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
    except OSError as exc:  # a read-only cache only costs time
        log.warning("cannot cache sentence vectors in %s: %s", folder, exc)
    return vectors
