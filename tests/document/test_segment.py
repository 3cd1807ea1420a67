"""Sentence splitting edge cases, table-driven."""

from __future__ import annotations

import pytest

from app.document import open_document
from app.document.assemble import Assembly, Unit, number_sentences
from app.document.segment import (
    Word,
    dehyphenate,
    sentence_rects,
    sentence_text,
    split_sentences,
    token_count,
    vocabulary,
    word_pieces,
    words_from_text,
)
from tests.document import samples


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Chinese: no spaces, the sentence ends at 。！？ (NFKC folds ！？ to !?)
        (
            "会议在三楼举行。请大家准时到场！你有问题吗？有的。",
            ["会议在三楼举行。", "请大家准时到场!", "你有问题吗?", "有的。"],
        ),
        # Japanese, with the full-width period of technical writing
        (
            "今日は晴れです．明日は雨でしょう！本当ですか？",
            ["今日は晴れです.", "明日は雨でしょう!", "本当ですか?"],
        ),
        # a decimal point or a number before the stop is not a sentence end
        ("收入增长了3.5%。其余见表1。", ["收入增长了3.5%。", "其余见表1。"]),
        # a quotation closed on its stop runs on in the sentence that quotes it
        ("他说：“好。”然后走了。", ["他说:“好。”然后走了。"]),
        ("「はい。」と答えた。次に進んだ。", ["「はい。」と答えた。", "次に進んだ。"]),
        ("「はい。」\nと答えた。", ["「はい。」と答えた。"]),
        ("「本当に？」\n次の日。", ["「本当に?」次の日。"]),
        ("他走了。”\nThe next day.", ["他走了。”", "The next day."]),
        # a semicolon joins clauses, as in English
        ("前者较快；后者较准。", ["前者较快;后者较准。"]),
        # a sentence broken across lines is joined without a space
        (
            "研究表明，绿色屋顶能降低\n温度。共有48栋建筑。",
            ["研究表明,绿色屋顶能降低温度。", "共有48栋建筑。"],
        ),
        # English around it keeps its abbreviation rules
        (
            "Models differ, e.g. in size. 中文句子在这里。 See Fig. 2 for more.",
            ["Models differ, e.g. in size.", "中文句子在这里。", "See Fig. 2 for more."],
        ),
    ],
)
def test_cjk_sentence_punctuation_splits(text: str, expected: list[str]) -> None:
    groups = split_sentences(words_from_text(text))
    assert [sentence_text(g) for g in groups] == expected


def test_a_cjk_word_cut_in_two_shares_its_box_by_characters() -> None:
    word = Word("会议在三楼举行。请大家", 1, (((1, 0, 0), (100.0, 10.0, 210.0, 20.0)),), True)
    first, second = word_pieces(word)
    assert (first.text, second.text) == ("会议在三楼举行。", "请大家")
    assert first.boxes == (((1, 0, 0), (100.0, 10.0, 180.0, 20.0)),)
    assert second.boxes == (((1, 0, 0), (180.0, 10.0, 210.0, 20.0)),)
    assert (first.line_end, second.line_end) == (False, True)  # only the line's end joins


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("会议在三楼举行。", 7), ("有的。", 2), ("版本3.5已经发布。", 7), ("Fine.", 1)],
)
def test_cjk_characters_count_as_tokens(text: str, tokens: int) -> None:
    assert token_count(words_from_text(text)) == tokens


def test_chinese_pdf_splits_into_sentences_with_their_rectangles(tmp_path) -> None:
    lines = [
        "绿色屋顶计划在年底前覆盖了区内四十八栋建筑。每个屋顶都种植了景天",
        "植物，几乎不需要浇水！市议会用气候预算支付了第一轮种植的费用吗？是",
        "的，费用为三百万元。项目还包括2.5公顷的公园。",
    ]
    index = open_document(samples.chinese(tmp_path / "roofs.pdf", lines))
    assert [s.text for s in index.sentences] == [
        "绿色屋顶计划在年底前覆盖了区内四十八栋建筑。",
        "每个屋顶都种植了景天植物,几乎不需要浇水!",
        "市议会用气候预算支付了第一轮种植的费用吗?",
        "是的,费用为三百万元。",
        "项目还包括2.5公顷的公园。",
    ]
    first, second = index.sentences[0], index.sentences[1]
    assert len(first.rects) == 1 and len(second.rects) == 2  # the second runs onto line two
    assert first.rects[0][0] == pytest.approx(72, abs=1)
    assert second.rects[0][0] == pytest.approx(first.rects[0][2], abs=1)  # starts where S0 ends
    assert index.token_estimate() >= sum(len(s.text) for s in index.sentences) * 0.8


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a sentence end the extraction glued to the next sentence's first word
        ("The model is a fast one.In this work we test it.",
         ["The model is a fast one.", "In this work we test it."]),
        ("Nobody was present.At noon they left!Then it rained.",
         ["Nobody was present.", "At noon they left!", "Then it rained."]),
        # not a sentence end: a name with a period, an abbreviation, initials, a decimal
        ("We used Node.js for it. Then e.g.The tool ran.",
         ["We used Node.js for it.", "Then e.g.The tool ran."]),
        ("The U.S.A. grew by 3.5 percent.", ["The U.S.A. grew by 3.5 percent."]),
        ("It is shown in Fig.Two later.", ["It is shown in Fig.Two later."]),
    ],
)
def test_glued_sentence_ends_split(text: str, expected: list[str]) -> None:
    assert split(text) == expected
