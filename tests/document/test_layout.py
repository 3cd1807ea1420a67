"""Page furniture and figure apparatus are stripped; tables become rows; jarvis index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from app.document import open_document
from app.document.tables import looks_like_table
from app.settings import DocumentSettings
from tests.conftest import shared_path
from tests.document import samples

PAGES = [
    ["The first page explains why the room needs a careful listener."],
    ["The second page describes the microphones and their placement."],
    ["The third page reports how often the agent spoke up unprompted."],
    ["The fourth page lists the open problems that remain for later work."],
]


def test_running_heads_feet_and_page_numbers_are_removed(tmp_path: Path) -> None:
    path = samples.with_running_heads(tmp_path / "heads.pdf", PAGES)
    with pymupdf.open(path) as doc:  # the furniture really is in the PDF's text
        assert samples.HEAD in doc[2].get_text() and samples.FOOT in doc[2].get_text()
    index = open_document(path)
    assert [(s.page, s.text) for s in index.sentences] == [
        (n, lines[0]) for n, lines in enumerate(PAGES, start=1)
    ]


def test_a_line_on_few_pages_is_not_a_running_head(tmp_path: Path) -> None:
    """A margin line on only one page of four stays (the share threshold decides)."""
    pages = [list(p) for p in PAGES]
    path = tmp_path / "once.pdf"
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines):
            page.insert_text((72, 100 + 16 * i), line, fontsize=samples.BODY)
    doc[0].insert_text((72, 40), "Only the first page carries this margin sentence.", fontsize=11)
    doc.save(path)
    texts = [s.text for s in open_document(path).sentences]
    assert "Only the first page carries this margin sentence." in texts
    strict = open_document(path, DocumentSettings(running_line_min_share=0.25))
    assert len(strict.sentences) == len(texts)  # a single page never counts as running


def test_figure_labels_go_caption_stays(tmp_path: Path) -> None:
    index = open_document(samples.figure_page(tmp_path / "figure.pdf"))
    texts = [s.text for s in index.sentences]
    assert texts == [
        "The microphone array was placed at the centre of the table.",
        "Figure 3: Level of the room signal over one meeting.",
        "We recorded twelve meetings in four different rooms.",
    ]
    block = index.numbered_block()
    assert not any(label in block for label in samples.FIGURE_TEXT)


def test_ruled_table_becomes_rows_in_place(tmp_path: Path) -> None:
    index = open_document(samples.ruled_table(tmp_path / "table.pdf"))
    assert [(s.kind, s.text) for s in index.sentences] == [
        ("text", "Table 1 lists the word error rate of each recogniser."),
        ("table_row", "System: Whisper tiny; WER: 14.2; Latency: 0.3 s"),
        ("table_row", "System: Whisper base; WER: 10.8; Latency: 0.6 s"),
        ("text", "The smaller model is faster but makes more errors overall."),
    ]
    row = index.sentences[1]
    with pymupdf.open(index.path) as doc:
        assert "Whisper tiny" in doc[0].get_textbox(pymupdf.Rect(row.rects[0]))
    assert index.table_rows == 2


def test_borderless_table_becomes_rows_in_place(tmp_path: Path) -> None:
    index = open_document(samples.borderless_table(tmp_path / "table.pdf"))
    assert [(s.kind, s.text) for s in index.sentences] == [
        ("text", "Table 2 lists the word error rate of each recogniser."),
        ("table_row", "System: Whisper tiny; WER: 14.2; Latency: 0.3 s; Memory: 75 MB"),
        ("table_row", "System: Whisper base; WER: 10.8; Latency: 0.6 s; Memory: 142 MB"),
        ("table_row", "System: Whisper small; WER: 7.9; Latency: 1.4 s; Memory: 466 MB"),
        ("text", "The smaller model is faster but makes more errors."),
    ]
    row = index.sentences[2]
    with pymupdf.open(index.path) as doc:
        assert not doc[0].get_drawings()  # no rule to find it by
        assert "Whisper base" in doc[0].get_textbox(pymupdf.Rect(row.rects[0]))


@pytest.mark.parametrize("columns", [1, 2])
def test_prose_is_not_turned_into_rows(tmp_path: Path, columns: int) -> None:
    index = open_document(samples.prose_columns(tmp_path / "prose.pdf", columns))
    assert index.table_rows == 0
    assert len(index.sentences) >= 15 * columns
    assert all(s.text.endswith(".") for s in index.sentences)


def _words(rows: list[tuple[str, ...]], xs: tuple[float, ...]) -> list[tuple]:
    """Word boxes of rows set at the given column positions (6 pt per character)."""
    words = []
    for r, row in enumerate(rows):
        for x, cell in zip(xs, row, strict=False):
            for token in cell.split():
                words.append((x, 100 + 18 * r, x + 6 * len(token), 111 + 18 * r, token))
                x += 6 * len(token) + 3
    return words


def test_looks_like_table_wants_columns_rows_and_consistency() -> None:
    xs = (80.0, 240.0, 330.0, 430.0)
    assert looks_like_table(_words(samples.BORDERLESS, xs))
    assert not looks_like_table(_words(samples.BORDERLESS[:2], xs))  # one row under the header
    assert not looks_like_table(_words([(r[0],) for r in samples.BORDERLESS], xs))  # one column
    ragged = [samples.BORDERLESS[0], ("a", "1"), ("b",), ("c", "2", "x"), ("d",)]
    assert not looks_like_table(_words(ragged, xs))  # rows fill different columns
    long_cells = [(row, row) for row in ["the room has four microphones on the table"] * 4]
    assert not looks_like_table(_words(long_cells, (72.0, 320.0)))  # sentences side by side


def test_jarvis_index_summary_and_dump() -> None:
    pdf = shared_path("data/papers_pdf/N18-3011.pdf")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "index", str(pdf), "--json", "--dump"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    summary_end = done.stdout.index("\n}\n") + 2
    summary = json.loads(done.stdout[:summary_end])
    assert summary["pages"] == 8
    assert summary["table_rows"] >= 10
    dump = done.stdout[summary_end + 1 :].splitlines()
    assert len(dump) == summary["sentences"]
    assert dump[0].startswith("[S0] ") and dump[-1].startswith(f"[S{len(dump) - 1}] ")
