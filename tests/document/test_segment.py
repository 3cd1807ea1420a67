"""Sentence splitting edge cases, table-driven."""

from __future__ import annotations

import pytest

from app.document.assemble import Assembly, Unit, number_sentences
from app.document.segment import (
    Word,
    dehyphenate,
    sentence_rects,
    split_sentences,
    vocabulary,
    words_from_text,
)


def split(text: str) -> list[str]:
    raw = words_from_text(text)
    words = dehyphenate(raw, vocabulary(raw))
    return [" ".join(w.text for w in group) for group in split_sentences(words)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # abbreviations never end a sentence
        (
            "Models differ, e.g. in size. They also differ i.e. in speed.",
            ["Models differ, e.g. in size.", "They also differ i.e. in speed."],
        ),
        (
            "As shown in Fig. 2 the error drops. See Eq. 3 for the loss.",
            ["As shown in Fig. 2 the error drops.", "See Eq. 3 for the loss."],
        ),
        (
            "Dr. Smith led the study. Prof. Lee wrote it up.",
            ["Dr. Smith led the study.", "Prof. Lee wrote it up."],
        ),
        (
            "Smith et al. reported gains. The gains held.",
            ["Smith et al. reported gains.", "The gains held."],
        ),
        (
            "This was proposed by Smith et al. The idea spread.",
            ["This was proposed by Smith et al.", "The idea spread."],
        ),
        (
            "Cases rose in the U.S. and Canada. Travel stopped.",
            ["Cases rose in the U.S. and Canada.", "Travel stopped."],
        ),
        (
            "The data came from the U.S. The rest came from Europe.",
            ["The data came from the U.S.", "The rest came from Europe."],
        ),
        (
            "It was written by J. R. Smith in Boston. It sold well.",
            ["It was written by J. R. Smith in Boston.", "It sold well."],
        ),
        (
            "Over 1,000 died as of Feb. 10, 2020. Cases kept rising.",
            ["Over 1,000 died as of Feb. 10, 2020.", "Cases kept rising."],
        ),
        (
            "See No. 5 in the list. It is long.",
            ["See No. 5 in the list.", "It is long."],
        ),
        # decimals
        (
            "The score rose from 3.5 to 4.25 points. Version 1.1.2 was used.",
            ["The score rose from 3.5 to 4.25 points.", "Version 1.1.2 was used."],
        ),
        (
            "Accuracy reached 91.5. The baseline reached 88.0.",
            ["Accuracy reached 91.5.", "The baseline reached 88.0."],
        ),
        # citations stay with their sentence
        (
            "SARS infected about 8000 people [11] . MERS followed later [3, 10] .",
            ["SARS infected about 8000 people [11] .", "MERS followed later [3, 10] ."],
        ),
        (
            "This was reported to the WHO on 31 December [1]. Cases grew.",
            ["This was reported to the WHO on 31 December [1].", "Cases grew."],
        ),
        (
            "The method works well (Smith et al., 2019). It is cheap.",
            ["The method works well (Smith et al., 2019).", "It is cheap."],
        ),
        (
            "Deaths reached ten percent. [11] Later studies agreed.",
            ["Deaths reached ten percent. [11]", "Later studies agreed."],
        ),
        (
            "We used recurrent networks (RNNs).2 For each paper we parse it.",
            ["We used recurrent networks (RNNs).2", "For each paper we parse it."],
        ),
        # question and exclamation marks, quotes
        (
            "Which of my co-authors wrote it? Nobody knows! It was “done”. Then it ended.",
            [
                "Which of my co-authors wrote it?",
                "Nobody knows!",
                "It was “done”.",
                "Then it ended.",
            ],
        ),
        # an unknown abbreviation followed by lower case does not split
        ("The approx. value is small. Fine.", ["The approx. value is small.", "Fine."]),
        ("The est. value is small and fine.", ["The est. value is small and fine."]),
    ],
)
def test_split(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We de-\nterministically remove duplicates.", "We deterministically remove duplicates."),
        ("Both SARS-\nCoV and MERS-CoV spread.", "Both SARS-CoV and MERS-CoV spread."),
        ("A state-of-the-\nart model was used.", "A state-of-the-art model was used."),
        ("Coverage was 260-\nfold for the genome.", "Coverage was 260-fold for the genome."),
        ("See pages 84–\n91 of the volume.", "See pages 84–91 of the volume."),
        ("A pre- and post-test design.", "A pre- and post-test design."),
        # the document's own spelling decides: "citation-informed" appears unbroken
        (
            "Citation-informed models help. We train citation-\ninformed models.",
            "Citation-informed models help. We train citation-informed models.",
        ),
    ],
)
def test_hyphenation(text: str, expected: str) -> None:
    assert " ".join(split(text)) == expected


def test_ligatures_and_compatibility_forms_are_normalised() -> None:
    assert split("The e\ufb00ect was signi\ufb01cant in the \ufb01nal tests.") == [
        "The effect was significant in the final tests."
    ]


def test_control_and_private_use_characters_are_dropped() -> None:
    assert split("\uf0b7 What is the share of female subjects\x00?") == [
        "What is the share of female subjects?"
    ]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Model. The input tokens are passed through one layer.", 1),
        ("Results are good for all of us. Short one. This sentence has enough words.", 2),
        ("1 Introduction", 0),
        ("0.5 0.7 0.9 1.1 1.3 1.5 2.0", 0),  # numbers without words are not prose
    ],
)
def test_fragments_under_five_tokens_are_dropped(text: str, kept: int) -> None:
    units = [Unit(words_from_text(text), 0)]
    sentences = number_sentences(Assembly(units=units), min_tokens=5)
    assert len(sentences) == kept
    assert [s.sid for s in sentences] == list(range(kept))


def test_min_tokens_setting_is_honoured() -> None:
    units = [Unit(words_from_text("Short one here. A much longer sentence follows it."), 0)]
    assert len(number_sentences(Assembly(units=units), min_tokens=3)) == 2
    assert len(number_sentences(Assembly(units=units), min_tokens=6)) == 1


def test_rects_merge_per_line_and_stay_on_the_first_page() -> None:
    def word(text: str, page: int, line: int, x0: float, y0: float) -> Word:
        return Word(text, page, (((page, 0, line), (x0, y0, x0 + 20, y0 + 10)),))

    words = [
        word("Heading.", 1, 0, 10, 100),
        word("We", 1, 1, 40, 100),  # same baseline, next PyMuPDF line: one rectangle
        word("split", 1, 1, 65, 100),
        word("each", 1, 2, 10, 112),
        word("page", 2, 0, 10, 50),  # continues on the next page: not highlighted there
    ]
    assert sentence_rects(words) == ((10, 100, 85, 110), (10, 112, 30, 122))
