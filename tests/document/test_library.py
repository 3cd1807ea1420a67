"""Several documents of one meeting as one index: IDs, pages, lookup, and the backbone
answering from the second document (real PDFs written with PyMuPDF, scripted replies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.backbone.citations import citations
from app.backbone.utterance import assemble
from app.document import DocumentIndex, open_document
from app.document.library import Library, merge
from app.events import Turn
from app.session.export import export_record
from app.session.record import SessionRecord
from app.settings import UtteranceStyle
from tests.backbone.school import backbone, reply
from tests.backbone.scripted import ScriptedLLM
from tests.document.samples import text_pdf

BUDGET = [
    ["The city budget for the coming year is 84 million euros in total.",
     "Road repairs receive 12 million euros of the budget this year."],
    ["Parks and green spaces receive 3 million euros for new trees.",
     "The council votes on the budget at its March meeting."],
]
ROOFS = [
    ["The survey counted planted roofs on buildings across the city."],
    ["Planted roofs were installed on 48 residential buildings last year.",
     "Each planted roof lowered the indoor summer temperature by two degrees."],
]


def pdf_with_title(path: Path, pages: list[list[str]], title: str) -> Path:
    text_pdf(path, pages)
    import pymupdf

    with pymupdf.open(path) as doc:
        doc.set_metadata({"title": title})
        doc.saveIncr()
    return path


@pytest.fixture
def two(tmp_path: Path) -> tuple[DocumentIndex, DocumentIndex]:
    budget = open_document(pdf_with_title(tmp_path / "budget.pdf", BUDGET, "City budget"))
    roofs = open_document(pdf_with_title(tmp_path / "roofs.pdf", ROOFS, "Roof survey"))
    return budget, roofs


def sid_of(document: DocumentIndex, words: str) -> int:
    return next(s.sid for s in document.sentences if words in s.text)


def test_one_document_is_its_own_index(two):
    budget, _ = two
    assert merge([budget]) is budget
    with pytest.raises(ValueError):
        merge([])


def test_ids_run_on_across_documents_and_keep_their_own_pages(two):
    budget, roofs = two
    library = merge([budget, roofs])
    assert isinstance(library, Library)
    n = len(budget.sentences)
    assert [s.sid for s in library.sentences] == list(range(n + len(roofs.sentences)))
    # The first document keeps its IDs, so what it was cited by still resolves.
    assert all(library.get(s.sid).text == s.text for s in budget.sentences)
    planted = sid_of(library, "48 residential")
    assert planted >= n and library.get(planted).page == 2
    assert library.get(planted).rects == roofs.get(planted - n).rects
    part = library.part_of(planted)
    assert part is not None and part.path == roofs.path and part.name == "Roof survey"
    assert part.local(planted) == sid_of(roofs, "48 residential")
    assert library.part_of(0).path == budget.path
    assert library.part_of(len(library.sentences)) is None
    assert library.part_at(roofs.path) is part
    assert library.page_count == budget.page_count + roofs.page_count


def test_the_numbered_block_heads_each_document(two):
    library = merge(list(two))
    block = library.numbered_block()
    assert block.index("## Document 1: City budget") < block.index("[S0] ")
    roofs_at = block.index("## Document 2: Roof survey")
    assert block.index(f"[S{len(two[0].sentences)}] ") > roofs_at
    assert library.token_estimate() > two[0].token_estimate()


def test_a_citation_from_the_second_document_names_it_and_its_page(two):
    library = merge(list(two))
    planted = sid_of(library, "48 residential")
    (cite,) = citations(library, [planted], "")
    assert (cite.document, cite.document_title, cite.page) == (
        str(two[1].path), "Roof survey", 2)
    text = assemble("", "Planted roofs were installed on 48 buildings.", cite,
                    UtteranceStyle.PAGE_ONLY, preface=False)
    assert text.endswith("You'll find this on page 2 of Roof survey.")
    # One document: the citation and the hint stay as they were.
    (alone,) = citations(two[0], [0], "")
    assert (alone.document, alone.document_title) == ("", "")
    assert assemble("", "x.", alone, UtteranceStyle.PAGE_ONLY, preface=False).endswith(
        "on page 1.")


def test_the_backbone_answers_from_the_second_document(two):
    library = merge(list(two))
    planted = sid_of(library, "48 residential")
    llm = ScriptedLLM([reply("Planted roofs were installed on 48 residential buildings.",
                             [planted])])
    iv = backbone(llm, library).answer_direct(
        Turn("S1", "Jarvis, how many buildings got planted roofs?", 1.0, 3.0, True, 0))
    assert iv.intent == "answer" and iv.citations[0].sid == planted
    assert iv.citations[0].document == str(two[1].path)
    assert "page 2 of Roof survey" in iv.text
    # The model saw the second document's sentence among the candidates.
    assert f"[S{planted}]" in llm.requests[0].user


def test_the_record_and_its_export_keep_the_cited_document(two, tmp_path):
    library = merge(list(two))
    (cite,) = citations(library, [sid_of(library, "48 residential")], "")
    with SessionRecord(tmp_path / "meeting.jsonl") as record:
        record.append("intervention_delivered", id="iv1", text="48 buildings.",
                      citations=[cite], status="finished", delivered_seconds=2.0)
    out = export_record(tmp_path / "meeting.jsonl", tmp_path / "meeting.md")
    assert "Roof survey, page 2, [S" in out.read_text(encoding="utf-8")


def test_the_summary_names_the_document_of_a_citation(tmp_path):
    from dataclasses import replace

    from app.summary.run import summarize_record
    from tests.summary.meetings import correction, write_document, write_record
    from tests.summary.test_render import ACTIONS, ANSWER, POINTS

    iv = correction()
    named = replace(iv.citations[0], document=str(tmp_path / "roofs.pdf"),
                    document_title="Roof survey")
    record = write_record(tmp_path, write_document(tmp_path),
                          intervention=replace(iv, citations=(named,)))
    done = summarize_record(record, tmp_path / "summary.md",
                            llm=ScriptedLLM([POINTS, ACTIONS, ANSWER]))
    text = done.out.read_text(encoding="utf-8")
    assert "Roof survey, page 1: \u201cPlanted roofs were installed on 48" in text
