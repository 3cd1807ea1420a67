"""Readers for the benchmark layout and the QA JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.eval.dataset import BenchmarkFormatError, read_qa, read_set
from app.language.talk import is_abstention
from app.language.values import contains_any, contains_value
from tests.conftest import shared_path
from tests.eval import tiny_set


def test_reads_the_tiny_set(tmp_path: Path) -> None:
    bench = read_set(tiny_set.write_set(tmp_path))
    assert bench.name == "tiny"
    (case,) = bench.documents
    assert case.document.name == "document.pdf"
    assert [c.name for c in case.conversations] == ["main", "resolved"]
    assert [len(c.turns) for c in case.conversations] == [52, 18]
    assert len(case.events) == 8
    sc = next(e for e in case.events if e.id == "d01-e03")
    assert (sc.onset_turn, sc.repair_turn, sc.window_start) == (17, 19, 19)
    assert next(e for e in case.events if e.id == "d01-e05").page is None


@pytest.mark.parametrize("name", ["document.txt", "document.md"])
def test_text_documents_are_accepted(tmp_path: Path, name: str) -> None:
    root = tiny_set.write_set(tmp_path)
    (root / "d01" / "document.pdf").rename(root / "d01" / name)
    assert read_set(root).documents[0].document.name == name


def test_document_filter_keeps_manifest_order(tmp_path: Path) -> None:
    root = tiny_set.write_set(tmp_path)
    assert [d.name for d in read_set(root, ["d01"]).documents] == ["d01"]
    with pytest.raises(BenchmarkFormatError, match="d09"):
        read_set(root, ["d09"])


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: (r / "manifest.json").unlink(), "manifest"),
        (lambda r: (r / "d01" / "document.pdf").unlink(), "no document"),
        (lambda r: (r / "d01" / "main.jsonl").write_text("{not json\n"), "main.jsonl:1"),
        (lambda r: (r / "d01" / "main.jsonl").write_text('{"speaker": "S1"}\n'), "'turn'"),
        (lambda r: (r / "d01" / "events.jsonl").write_text(
            json.dumps(tiny_set.EVENTS[0] | {"type": "weird"}) + "\n"), "unknown event type"),
        (lambda r: (r / "d01" / "events.jsonl").write_text(
            json.dumps(tiny_set.EVENTS[0] | {"conversation": "other"}) + "\n"), "other"),
    ],
)  # fmt: skip
def test_bad_sets_raise_typed_errors(tmp_path: Path, mutate, message: str) -> None:
    root = tiny_set.write_set(tmp_path)
    mutate(root)
    with pytest.raises(BenchmarkFormatError, match=message) as info:
        read_set(root)
    assert info.value.user_message


def test_qa_paths_resolve_beside_the_file_or_under_root(tmp_path: Path) -> None:
    root = tiny_set.write_set(tmp_path / "set")
    items = read_qa(root / "qa.jsonl")
    assert [i.id for i in items] == ["q1", "q2", "q3"]
    assert items[0].document == root / "d01" / "document.pdf"
    assert [i.answerable for i in items] == [True, True, False]
    moved = tmp_path / "elsewhere.jsonl"
    moved.write_text((root / "qa.jsonl").read_text())
    with pytest.raises(BenchmarkFormatError, match="--root"):
        read_qa(moved)
    assert read_qa(moved, root=root)[1].document == root / "d01" / "document.pdf"


def test_reads_the_shared_dev_set() -> None:
    bench = read_set(shared_path("benchmark/dev"))
    assert [d.name for d in bench.documents] == ["d01", "d02", "d03", "d04"]
    events = [e for d in bench.documents for e in d.events]
    turns = sum(len(c.turns) for d in bench.documents for c in d.conversations)
    assert (len(events), turns) == (44, 451)
    qa = read_qa(shared_path("benchmark/qa-dev.jsonl"))
    assert len(qa) == 60 and all(i.document.is_file() for i in qa)


def test_dev_set_oracles_agree_with_the_scorer() -> None:
    """Every gold value is found in its evidence and gold answer; only the valueless types'
    gold answers read as "the document does not say"."""
    bench = read_set(shared_path("benchmark/dev"))
    for event in (e for d in bench.documents for e in d.events):
        if event.gold_values:
            assert contains_any(event.evidence, event.gold_values), event.id
            assert contains_any(event.gold_answer, event.gold_values), event.id
        valueless = event.type in ("misattribution", "unanswerable")
        assert is_abstention(event.gold_answer) is valueless, event.id
    for item in read_qa(shared_path("benchmark/qa-dev.jsonl")):
        assert contains_value(item.evidence, item.gold), item.id
