"""The index of real PDFs: IDs resolve to text, page and rectangles; dev evidence is found."""

from __future__ import annotations

import json
import re
import unicodedata

import pymupdf
import pytest

from app.document import DocumentIndex, open_document
from tests.conftest import shared_path
from tests.document.conftest import DEV_DOCUMENTS, indexed


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _find(index: DocumentIndex, fragment: str) -> int:
    hits = [s.sid for s in index.sentences if fragment in s.text]
    assert len(hits) == 1, f"{fragment!r} found in {hits}"
    return hits[0]


def test_ids_are_dense_and_in_reading_order(paper: DocumentIndex) -> None:
    assert [s.sid for s in paper.sentences] == list(range(len(paper.sentences)))
    pages = [s.page for s in paper.sentences]
    assert pages == sorted(pages)
    assert paper.get(0) is paper.sentences[0]
    assert paper.get(len(paper.sentences)) is None
    assert paper.get(-1) is None


def test_summary_fields(paper: DocumentIndex) -> None:
    data = paper.path.read_bytes()
    import hashlib

    assert paper.sha256 == hashlib.sha256(data).hexdigest()
    assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
    assert paper.page_count == 8
    assert 150 < len(paper.sentences) < 400
    assert 5000 < paper.token_estimate() < 12000


def test_numbered_block_is_built_once(paper: DocumentIndex) -> None:
    block = paper.numbered_block()
    assert block is paper.numbered_block()
    lines = block.split("\n")
    assert len(lines) == len(paper.sentences)
    assert lines[5] == f"[S5] {paper.sentences[5].text}"


@pytest.mark.parametrize(
    ("fragment", "page"),
    [
        ("resulting in 37M unique paper nodes.", 2),
        ("This labeling process succeeds for 76% of the documents.", 3),
        ("Table 2 shows the results based on 500 papers", 4),
    ],
)
def test_sentence_resolves_to_page_and_rects_holding_its_words(
    paper: DocumentIndex, fragment: str, page: int
) -> None:
    sentence = paper.sentences[_find(paper, fragment)]
    assert sentence.page == page
    assert sentence.rects
    with pymupdf.open(paper.path) as doc:
        pdf_page = doc[page - 1]
        for word in sentence.text.split():
            if len(word) < 4:
                continue
            found = pdf_page.search_for(word.rstrip(".,;:"))
            assert any(
                any(pymupdf.Rect(r).intersects(hit) for r in sentence.rects) for hit in found
            ), f"{word!r} is not inside the sentence's rectangles"
        text_in_rects = " ".join(pdf_page.get_textbox(pymupdf.Rect(r)) for r in sentence.rects)
        assert "37M" in text_in_rects or "76%" in text_in_rects or "500 papers" in text_in_rects


def test_rects_merge_per_line(paper: DocumentIndex) -> None:
    """A sentence over three lines of a column gets three rectangles, not one per word."""
    sentence = paper.sentences[_find(paper, "We deterministically remove duplicate papers")]
    words = len(sentence.text.split())
    assert 2 <= len(sentence.rects) <= 4 < words
    tops = [r[1] for r in sentence.rects]
    assert tops == sorted(tops)


def test_hyphenated_line_breaks_are_joined(paper: DocumentIndex) -> None:
    text = paper.numbered_block()
    assert "We deterministically remove" in text  # "de-\nterministically" in the PDF
    assert "sequence of tokens" in text  # "se-\nquence"
    assert "de- terministically" not in text


def test_figure_caption_kept_and_sentence_runs_around_it(paper: DocumentIndex) -> None:
    """On page 1 a sentence is interrupted by the Figure 1 caption in the content stream."""
    _find(paper, "Figure 1: Part of the literature graph.")
    sid = _find(paper, "improve ranking of results in academic search (e.g., Xiong et al., 2017).")
    assert paper.sentences[sid].page == 1


def test_page_numbers_and_footer_lines_are_gone(paper: DocumentIndex) -> None:
    for s in paper.sentences:
        assert not re.fullmatch(r"\d+", s.text)
        assert not re.search(r"\b8[4-9]$|\b9[01]$", s.text), s.text  # printed page numbers 84-91


def test_table_rows_are_citable_and_cells_are_not_prose(paper: DocumentIndex) -> None:
    rows = [s for s in paper.sentences if s.kind == "table_row"]
    assert len(rows) >= 10
    sid = _find(paper, "Field: authors; Precision: 92.1; Recall: 92.1; F1: 92.1")
    row = paper.sentences[sid]
    assert row.kind == "table_row" and row.page == 3 and len(row.rects) == 1
    prose = [s.text for s in paper.sentences if s.kind == "text"]
    assert not any("92.1 92.1" in t for t in prose)


def test_dev_evidence_is_found_in_sentences() -> None:
    """The dev-set evidence (normalised PyMuPDF text) lies within one sentence each."""
    hits = total = 0
    qa = shared_path("benchmark/qa-dev.jsonl").read_text().splitlines()
    for name in DEV_DOCUMENTS:
        index = indexed(f"benchmark/dev/{name}/document.pdf")
        sentences = [_norm(s.text) for s in index.sentences]
        events = shared_path(f"benchmark/dev/{name}/events.jsonl").read_text().splitlines()
        evidence = {json.loads(line)["evidence"] for line in events}
        evidence |= {
            q["evidence"] for q in map(json.loads, qa) if q["document"].endswith(f"/{name}.pdf")
        }
        for text in filter(None, evidence):
            total += 1
            hits += any(_norm(text) in s for s in sentences)
    assert total >= 30
    share = hits / total
    print(f"dev evidence found: {hits}/{total} = {share:.1%}")
    assert share >= 0.95


def test_text_document_pages_by_form_feed(tmp_path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Meeting notes on the room\n\nThe array has seven microphones in a ring.\n"
        "It samples fast.\fThe second page says the budget was 12,000 euros in total.\n"
        "- Each chair gets its own small lamp for reading.\n"
    )
    index = open_document(path)
    assert index.title == "Meeting notes on the room"
    assert index.page_count == 2
    assert [(s.page, s.text) for s in index.sentences] == [
        (1, "Meeting notes on the room"),
        (1, "The array has seven microphones in a ring."),
        (2, "The second page says the budget was 12,000 euros in total."),
        (2, "Each chair gets its own small lamp for reading."),
    ]
    assert all(s.rects == () for s in index.sentences)


def test_text_twin_of_a_dev_document_matches_the_pdf() -> None:
    pdf = indexed("data/documents/d04.pdf")
    txt = indexed("data/documents/d04.txt")
    pdf_texts = {s.text for s in pdf.sentences}
    same = sum(1 for s in txt.sentences if s.text in pdf_texts)
    assert same >= 0.9 * len(txt.sentences)
