"""The broad-set generator (benchmarks/make_set.py): format, determinism, coverage,
reserved articles, and the small sample shipped in the repository.

The generation tests read ../shared/data and skip without it; the unit tests of the
generator's text handling run anywhere.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.eval.dataset import read_qa, read_set
from benchmarks.sets import check
from benchmarks.sets.sources import RESERVED_COVIDQA, Source, SourceDocument
from benchmarks.sets.talk import clean_utterance, lead_into
from benchmarks.sets.values import (
    MAX_CLAIM_WORDS,
    DocumentValues,
    Value,
    ValueKind,
    claim_from_finding,
    claim_from_question,
    names_in,
    perturb_number,
    states,
    swap_value,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
SAMPLE = REPO / "benchmarks" / "sets" / "sample"
SAMPLE_ARGS = ("--seed", "0", "--documents", "4")
needs_data = pytest.mark.skipif(not (DATA / "covid_qa").is_dir(), reason="no ../shared/data")


def _make(out: Path, hash_seed: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONHASHSEED": hash_seed}
    command = [sys.executable, str(REPO / "benchmarks" / "make_set.py"), "--out", str(out),
               "--data", str(DATA), *args]  # fmt: skip
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}  # fmt: skip


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample's set made twice, in processes with different string hashing."""
    if not (DATA / "covid_qa").is_dir():
        pytest.skip("no ../shared/data")
    base = tmp_path_factory.mktemp("broad")
    runs = []
    for hash_seed in ("1", "2"):
        out = base / f"run{hash_seed}"
        done = _make(out, hash_seed, *SAMPLE_ARGS)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(out)
    return runs[0], runs[1]


# --- generation ---------------------------------------------------------------------------


@needs_data
def test_same_seed_writes_the_same_bytes(generated: tuple[Path, Path]) -> None:
    first, second = generated
    files = _files(first)
    assert files == _files(second)
    assert {"manifest.json", "tune.txt", "check.txt", "quick.txt", "qa.jsonl",
            "summary.json"} <= set(files)  # fmt: skip


@needs_data
def test_the_set_loads_and_keeps_the_format(generated: tuple[Path, Path]) -> None:
    root = generated[0]
    benchmark = read_set(root)
    assert len(benchmark.documents) == 4
    for case in benchmark.documents:
        assert case.document.name == "document.pdf" and case.events
        assert {c.name for c in case.conversations} >= {"main"}
    assert len(benchmark.off_document) == 1
    ((document, conversation),) = benchmark.off_document
    case = next(c for c in benchmark.documents if c.name == document)
    assert all(e.conversation != conversation for e in case.events)
    assert check.problems(root, DATA) == []
    items = read_qa(root / "qa.jsonl")
    assert items and all(i.document.is_file() for i in items)
    # Answerable items have their gold; unanswerable ones are the events' questions.
    assert any(i.answerable for i in items) and any(not i.answerable for i in items)
    assert all(i.answerable or (not i.evidence and i.page is None) for i in items)


@needs_data
def test_every_event_type_is_planted(generated: tuple[Path, Path]) -> None:
    summary = json.loads((generated[0] / "summary.json").read_text())
    assert all(n > 0 for n in summary["by_type"].values()), summary["by_type"]
    assert summary["events"] == sum(summary["by_type"].values())
    assert summary["diversity"]["trigger_3grams_per_event"] > 5
    assert summary["problems"] == []


@needs_data
def test_halves_split_the_documents(generated: tuple[Path, Path]) -> None:
    root = generated[0]
    names = [c.name for c in read_set(root).documents]
    tune, check_half, quick = ((root / f"{n}.txt").read_text().split()
                               for n in ("tune", "check", "quick"))  # fmt: skip
    assert sorted(tune + check_half) == sorted(names) and not set(tune) & set(check_half)
    assert quick and set(quick) <= set(check_half)
    assert len(read_set(root, check_half).documents) == len(check_half)


@needs_data
def test_reserved_articles_never_enter(generated: tuple[Path, Path]) -> None:
    from benchmarks.sets.build import check_reserved
    from benchmarks.sets.sources import covidqa_documents

    articles = covidqa_documents(DATA)
    used = {int(d.id.rsplit("-", 1)[1]) for d in articles}
    assert not used & RESERVED_COVIDQA and len(used) == 98 - len(RESERVED_COVIDQA)
    raw = json.loads((DATA / "covid_qa" / "200423_covidQA.json").read_text())["data"]
    reserved_questions = {q["question"].strip() for i in RESERVED_COVIDQA
                          for q in raw[i]["paragraphs"][0]["qas"]}  # fmt: skip
    reserved_ids = {f"covidqa-{q['id']}" for i in RESERVED_COVIDQA
                    for q in raw[i]["paragraphs"][0]["qas"]}  # fmt: skip
    root = generated[0]
    said = " ".join(p.read_text() for p in root.rglob("*.jsonl"))
    assert not any(question in said for question in reserved_questions)
    assert not {i.id for i in read_qa(root / "qa.jsonl")} & reserved_ids
    with pytest.raises(ValueError, match="reserved"):
        check_reserved([SourceDocument("covidqa-006", Source.COVIDQA, "x")], DATA)


@needs_data
def test_the_shipped_sample_is_the_generators(generated: tuple[Path, Path]) -> None:
    assert _files(SAMPLE) == _files(generated[0]), "regenerate: python benchmarks/make_set.py " \
        f"--out benchmarks/sets/sample {' '.join(SAMPLE_ARGS)}"  # fmt: skip


def test_the_shipped_sample_is_small_and_loads() -> None:
    files = _files(SAMPLE)
    assert sum(len(b) for b in files.values()) < 2_000_000
    benchmark = read_set(SAMPLE)
    assert benchmark.off_document and benchmark.documents
    assert check.problems(SAMPLE, DATA if DATA.is_dir() else None) == []


# --- the generator's text handling --------------------------------------------------------


def test_transcript_markup_and_spacing_are_cleaned() -> None:
    raw = "Um , we {disfmarker} we seem to have uh , a reliable way , right ?"
    assert clean_utterance(raw) == "Um, we seem to have uh, a reliable way, right?"
    assert clean_utterance("{vocalsound}") == ""
    assert clean_utterance("it 's the radio - mikes") == "It's the radio-mikes."


def test_swaps_keep_the_kind_of_value() -> None:
    rng = random.Random(4)
    for original in ("400,000", "76%", "3.6", "2004"):
        planted = perturb_number(original, rng, set())
        assert planted and planted != original and not states(planted, original)
        assert ("%" in planted) == ("%" in original) and ("," in planted) == ("," in original)
    text = ("The valve was designed by Ada Novak in Lyon. Later Brook Hale tested it with the "
            "team of Ada Novak.")
    values = DocumentValues.of(text)
    swap = swap_value(Value("Brook Hale", ValueKind.NAME), "Brook Hale tested the valve.",
                      "Later Brook Hale tested it.", "Who tested it?", values, rng)  # fmt: skip
    assert swap is not None and swap.statement == "Ada Novak tested the valve."


def test_names_are_runs_of_capitalised_words_the_text_never_lowers() -> None:
    text = "Table 2 lists it. The team met Ada Novak at CERN. However the table was late."
    assert names_in(text, DocumentValues.of(text).lowercase_words) == ["Ada Novak", "CERN"]


def test_claims_name_the_point_without_the_answer() -> None:
    assert claim_from_question("Hi! What is the main cause of the delay?") == \
        "the main cause of the delay"  # fmt: skip
    assert claim_from_question("How many samples were taken in May?") == \
        "the number of samples were taken in May"  # fmt: skip
    assert claim_from_question("Why did the pump fail?") == "why did the pump fail"


def test_a_finding_is_named_by_what_it_states() -> None:
    assert claim_from_finding("Okay, then they found that the pump failed twice in May. "
                              "It was old.") == "the pump failed twice in May"
    assert claim_from_finding("Moreover, Ada Novak ran the trial at CERN.") == \
        "Ada Novak ran the trial at CERN"  # fmt: skip
    long = " ".join(f"w{i}" for i in range(30)) + "."
    assert len(claim_from_finding(long).split()) == MAX_CLAIM_WORDS


def test_leads_keep_names_capitalised() -> None:
    assert lead_into("So", "The pump failed.") == "So the pump failed."
    assert lead_into("So", "Novak fixed it.") == "So Novak fixed it."
    assert lead_into("Sorry", "Pumps fail.", frozenset({"pumps"})) == "Sorry, pumps fail."
