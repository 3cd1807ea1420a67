"""Grounded generation replies: the citation must hold a checked value, the topic must be
about the point."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.backbone.generate import parse
from app.document import DocumentIndex, Sentence
from app.settings import UtteranceSettings

DOC = DocumentIndex(
    Path("paper.pdf"), "0" * 64, "Paper", 2,
    [Sentence(0, "Many papers come with incomplete metadata.", 1, ()),
     Sentence(1, "Removing duplicates by metadata similarity leaves 37M unique paper nodes.",
              2, ())],
)
REPLY = {"action": "speak", "text": "Actually, the document says 37M unique paper nodes.",
         "topic": "the paper nodes", "quote_sids": [0]}
POINT = "How many unique paper nodes are left?"


@pytest.mark.parametrize(("quoted", "fallback", "value", "cited"), [
    ([0], [1, 0], "37M unique paper nodes", (1,)),  # the sentence with the value replaces it
    ([1, 0], [1, 0], "37M", (1,)),
    ([0], [1, 0], "", (0,)),                         # nothing checked: the model's choice
    ([0], [0], "37M", (0,)),                         # no sentence holds it: left as cited
    ([], [1], "", (1,)),                             # no citation: the claim's sentences
])
def test_citation_holds_the_checked_value(quoted, fallback, value, cited):
    made = parse({**REPLY, "quote_sids": quoted}, "missing", fallback, DOC,
                 UtteranceSettings(), value, POINT)
    assert made.speak and made.sids == cited


@pytest.mark.parametrize(("topic", "kept"), [
    ("the paper nodes", "the paper nodes"),
    ("unique nodes", "unique nodes"),
    ("the training data", ""),  # copied from the instructions, about nothing here
    ("document value", ""),  # a label of the prompt ("document value: 37M")
    ("", ""),
])
def test_topic_must_be_about_the_point(topic, kept):
    made = parse({**REPLY, "topic": topic}, "missing", [1], DOC, UtteranceSettings(), "", POINT)
    assert made.topic == kept


CUT = "aper nodes left after metadata deduplication, un"  # 48 characters, cut in a word


@pytest.mark.parametrize(("topic", "kept"), [
    (CUT, "aper nodes left after metadata deduplication"),
    # at the limit the last word goes whole or not, and a dangling "the" with it
    ("unique paper nodes after removing the duplicates", "unique paper nodes after removing"),
    ("paper nodes after removing duplicates", "paper nodes after removing duplicates"),
])
def test_a_topic_stopped_at_the_length_limit_loses_its_cut_word(topic, kept):
    made = parse({**REPLY, "topic": topic}, "missing", [1], DOC, UtteranceSettings(), "", POINT)
    assert made.topic == kept


def test_abstention_and_empty_text_are_not_spoken():
    assert not parse({**REPLY, "action": "abstain"}, "missing", [1], DOC,
                     UtteranceSettings()).speak
    assert parse({**REPLY, "text": " "}, "missing", [1], DOC,
                 UtteranceSettings()).reason == "generate: empty text"


@pytest.mark.parametrize(("text", "speaks"), [
    ("The document doesn't report that; I can't find an A/B test anywhere in it.", True),
    ("There is no A/B test in the document.", True),
    ("Yeah, that's a big number for a production system.", False),  # parroted the turn
])
def test_not_in_paper_says_the_document_lacks_it_and_cites_nothing(text, speaks):
    made = parse({"action": "speak", "text": text, "topic": "", "quote_sids": [1]},
                 "not_in_paper", [1], DOC, UtteranceSettings())
    assert made.speak is speaks
    assert made.sids == ()
