"""Retrieval ranking on real sentences: dev-set evidence for the trigger + previous turn."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.document import DocumentIndex, open_document
from app.document.retrieval import RetrievalSettings, Retriever
from app.embedding import get_embedder
from tests.conftest import shared_path
from tests.document.conftest import DEV_DOCUMENTS, indexed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vectors")


def _retriever(index: DocumentIndex, cache: Path, **settings: float) -> Retriever:
    return Retriever(index, get_embedder(), RetrievalSettings(**settings), cache=cache)


def _events(name: str) -> list[tuple[dict, str, str]]:
    folder = shared_path(f"benchmark/dev/{name}")
    out = []
    for line in (folder / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] in ("gap", "wrong"):
            turns = (folder / f"{event['conversation']}.jsonl").read_text().splitlines()
            text = {t["turn"]: t["text"] for t in map(json.loads, turns)}
            onset = event["onset_turn"]
            out.append((event, text[onset], text.get(onset - 1, "")))
    return out


def test_dev_evidence_in_top_five_for_trigger_and_previous_turn(cache: Path) -> None:
    ranks = {}
    for name in DEV_DOCUMENTS:
        index = indexed(f"benchmark/dev/{name}/document.pdf")
        retriever = _retriever(index, cache)
        for event, trigger, previous in _events(name):
            gold = {s.sid for s in index.sentences if event["evidence"] in s.text}
            assert gold, event["id"]
            top = [sid for sid, _ in retriever.search_many([trigger, previous], k=5)]
            ranks[event["id"]] = next((i + 1 for i, sid in enumerate(top) if sid in gold), None)
    found = sum(1 for r in ranks.values() if r)
    print(f"gap+wrong evidence in top 5: {found}/{len(ranks)}", ranks)
    assert len(ranks) >= 16
    assert found / len(ranks) >= 0.9


def test_vectors_are_cached_on_disk_and_a_broken_cache_is_rebuilt(cache: Path) -> None:
    index = indexed("benchmark/dev/d04/document.pdf")
    first = _retriever(index, cache)
    files = sorted(cache.glob(f"{index.sha256[:24]}-all-MiniLM-L6-v2-*.npy"))
    assert len(files) == 1
    assert np.load(files[0]).shape == (len(index.sentences), 384)
    query = "Which antivirals were given to patients?"
    files[0].write_bytes(b"not an array")
    rebuilt = _retriever(index, cache)
    assert rebuilt.search(query) == first.search(query)
    assert np.load(files[0]).shape == (len(index.sentences), 384)


def test_table_row_is_retrievable() -> None:
    index = indexed("data/papers_pdf/N18-3011.pdf")
    retriever = Retriever(index, get_embedder())
    top = retriever.search("What precision does ScienceParse reach on bibliography venues?", 5)
    texts = [index.sentences[sid].text for sid, _ in top]
    assert any(t.startswith("Field: bibliography venues;") for t in texts), texts


def _notes(tmp_path: Path, lines: list[str]) -> DocumentIndex:
    path = tmp_path / "notes.txt"
    path.write_text("\n\n".join(lines))
    return open_document(path)


def test_shared_quantity_lifts_the_matching_sentence(tmp_path: Path, cache: Path) -> None:
    index = _notes(
        tmp_path,
        [
            "The pilot study recruited 120 participants from the city.",
            "The main study recruited 150 participants from the villages.",
            "Rooms were booked for two hours at a time.",
        ],
    )
    query = "So that was the study with 150 participants?"
    assert _retriever(index, cache).search(query, 1)[0][0] == 1
    plain = _retriever(index, cache, number_boost=0.0, lexical_weight=0.0)
    scores = plain.scores(query)
    assert abs(scores[0] - scores[1]) < 0.1  # without the boost the two are nearly tied


def test_shared_name_lifts_the_matching_sentence(tmp_path: Path, cache: Path) -> None:
    index = _notes(
        tmp_path,
        [
            "Each page is converted into tokens by a parsing library.",
            "Each page is fed to Apache's PDFBox library for conversion.",
            "The model is trained on a snapshot of PubMed Central.",
        ],
    )
    retriever = _retriever(index, cache, lexical_weight=0.0)
    assert retriever.search("They run every page through Apache Tika.", 1)[0][0] == 1


def test_search_many_uses_the_previous_turn_for_elliptic_questions(
    tmp_path: Path, cache: Path
) -> None:
    index = _notes(
        tmp_path,
        [
            "The main antivirals used were ribavirin, lopinavir and ritonavir.",
            "The main sensors used were cameras, microphones and radar units.",
            "Funding for the work came from two national agencies.",
        ],
    )
    retriever = _retriever(index, cache)
    previous = "Then treatment: no antiviral drugs were clearly effective in trials."
    fused = retriever.search_many(["Which ones did they use, then?", previous], k=3)
    assert fused[0][0] == 0
    assert retriever.search_many(["", previous], k=1)[0][0] == 0
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
