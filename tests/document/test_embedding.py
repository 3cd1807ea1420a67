"""The MiniLM embedder on the real weights from the installed package."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from app.embedding import Embedder, get_embedder, model_path

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder()


def test_model_path_is_a_sentence_transformers_folder() -> None:
    path = model_path()
    assert (path / "config.json").exists()
    assert (path / "modules.json").exists()


def test_encode_is_normalised_float32(embedder: Embedder) -> None:
    vectors = embedder.encode(["The room has four microphones.", "Budget was 12,000 euros."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_cosine_ranks_paraphrase_above_unrelated(embedder: Embedder) -> None:
    claim = "They recruited 120 participants for the study."
    paraphrase = "The study enrolled one hundred and twenty people."
    unrelated = "The antivirals used were ribavirin and lopinavir."
    assert embedder.cosine(claim, paraphrase) > embedder.cosine(claim, unrelated) + 0.2
    assert embedder.cosine(claim, claim) == pytest.approx(1.0, abs=1e-5)


def test_cache_returns_the_same_vectors_and_stays_bounded() -> None:
    small = Embedder(cache_size=3)
    first = small.encode(["alpha claim", "beta claim"])
    again = small.encode(["beta claim", "alpha claim"])
    np.testing.assert_array_equal(first[::-1], again)
    small.encode(["gamma claim", "delta claim", "epsilon claim"])
    assert len(small._cache) == 3
    uncached = small.encode(["zeta claim"], cache=False)
    assert "zeta claim" not in small._cache
    np.testing.assert_allclose(uncached[0], small.encode(["zeta claim"])[0], atol=1e-6)


def test_singleton_is_shared_across_threads(embedder: Embedder) -> None:
    seen: list[int] = []
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        e = get_embedder()
        seen.append(id(e))
        results[i] = e.encode([f"claim number {i % 2}"])[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(seen) == {id(embedder)}
    np.testing.assert_allclose(results[0], results[2], atol=1e-6)
    assert not np.allclose(results[0], results[1])
