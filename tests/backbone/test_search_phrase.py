"""The search phrase of the spoken page hint and numbers said as a person would, on made-up
sentences (Latin with accents, Chinese, numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.backbone.citations import citations
from app.backbone.utterance import (
    assemble,
    on_page,
    page_text,
    search_phrase,
    spoken_numbers,
)
from app.document.model import DocumentIndex, Sentence
from app.events import Citation
from app.settings import UtteranceStyle


def test_accented_words_are_kept_whole() -> None:
    sentence = "The office in Zürich café naïve opened in 1998."
    document = sentence.lower() + " the office again. opened again."
    phrase = search_phrase(sentence, document)
    assert phrase == "Zürich café naïve"
    assert phrase in sentence


@pytest.mark.parametrize("word", ["Zürich", "café", "naïve", "Ångström", "Łódź", "São"])
def test_a_phrase_never_cuts_a_word_at_a_non_ascii_letter(word: str) -> None:
    sentence = f"Samples from {word} were counted twice."
    phrase = search_phrase(sentence, sentence.lower() + " samples counted twice")
    assert word in phrase.split()


def test_decomposed_accents_stay_with_their_letter() -> None:
    sentence = "The cafe\u0301 closed early."  # "café" with a combining acute accent
    assert "cafe\u0301" in search_phrase(sentence, sentence.lower() + " closed early").split()


def test_chinese_text_gives_the_start_of_a_clause() -> None:
    sentence = "研究人员在春季试验中发现效果显著。"
    phrase = search_phrase(sentence, sentence)
    assert phrase == "研究人员在春" and phrase in sentence


def test_the_phrase_is_on_the_page_text() -> None:
    sentence = "The lowest dose reduced fever within two days."
    # The page's text layer breaks "reduced" at a line end and doubles a space.
    page = "Results. The lowest dose re-\nduced fever  within two days. Other text."
    phrase = search_phrase(sentence, "the lowest dose. fever. dose.", page)
    assert phrase and on_page(phrase, page) and phrase in sentence
    # A phrase the page does not hold is never chosen; none at all gives "".
    assert search_phrase(sentence, "", "A different page entirely.") == ""


def test_the_rarest_meaningful_words_win_and_stopwords_do_not_edge_a_phrase() -> None:
    sentence = "The model is a bidirectional LSTM with attention."
    document = sentence.lower() + " the model. the model. attention. attention."
    phrase = search_phrase(sentence, document)
    assert "LSTM" in phrase.split() and phrase in sentence
    assert phrase.split()[0] not in ("The", "is", "a") and phrase.split()[-1] != "with"
    assert not search_phrase("It was 46.5 in all of them.", "").strip()  # no content word


def test_numbers_are_said_as_a_person_would() -> None:
    assert spoken_numbers("The rate was 46.5 % overall.") == "The rate was 46.5% overall."
    assert spoken_numbers("It rose 12 percent.") == "It rose 12%."
    assert spoken_numbers("They counted 4\u2009113 clicks.") == "They counted 4,113 clicks."
    assert spoken_numbers("In 2019 2020 they met.") == "In 2019 2020 they met."
    cite = Citation(sid=1, page=2, text="", rects=(), keyword="")
    said = assemble("", "The rate was 46.5 % overall.", cite, UtteranceStyle.PAGE_ONLY)
    assert said == "The rate was 46.5% overall. You'll find this on page 2."


def test_citations_search_their_own_page() -> None:
    sentences = [
        Sentence(0, "Fever fell in the treated group.", 1, ()),
        Sentence(1, "The treated group was small.", 2, ()),
        Sentence(2, "Fever fell in Zürich.", 2, ()),
    ]
    doc = DocumentIndex(Path("x.pdf"), "0", "x", 2, sentences)
    assert page_text(doc, 2) == "The treated group was small. " + sentences[2].text
    [cite] = citations(doc, [2], doc.numbered_block().lower())
    assert cite.keyword == "Zürich"  # the only word of it the rest of the document lacks
    assert on_page(cite.keyword, page_text(doc, 2))
