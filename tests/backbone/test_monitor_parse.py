"""Monitor replies that name no claim still count when the turn or a detector does."""

from __future__ import annotations

from pathlib import Path

from app.backbone.detectors import Proposal
from app.backbone.monitor import parse
from app.document import DocumentIndex, Sentence

DOC = DocumentIndex(
    Path("paper.pdf"), "0" * 64, "Paper", 2,
    [Sentence(0, "Deduplication on metadata results in 37M unique paper nodes.", 1, ()),
     Sentence(1, "We split each PDF into pages and feed each page to PDFBox.", 2, ())],
)
NUMBER = Proposal("number", "incorrect_info", "paper node count", "37M", (0,), "num:paper node",
                  "CHECK: 12M vs 37M", said="12M")
OPEN = Proposal("open_question", "missing_info", "how many paper nodes remain", "37M", (0,),
                "q:paper node", "CHECK: unanswered question")


def test_unnamed_problem_takes_the_detectors_verdict() -> None:
    v = parse({"status": "incorrect_info", "claim": ""}, DOC, [OPEN], "I honestly forget.")
    assert (v.status, v.claim, v.sids, v.key) == ("missing_info", OPEN.claim, (0,), OPEN.key)


def test_unnamed_problem_in_a_bare_question_asks_for_a_fact() -> None:
    v = parse({"status": "incorrect_info", "claim": ""}, DOC, [],
              "Okay. How many paper nodes were left after deduplication?")
    assert v.status == "missing_info"
    assert v.claim == "How many paper nodes were left after deduplication?"


def test_a_named_claim_and_a_matching_detector_are_kept_as_they_are() -> None:
    v = parse({"status": "incorrect_info", "claim": "paper node count",
               "predicted_answer": "37M", "answer_sids": [0]}, DOC, [NUMBER],
              "So they ended up with 12M nodes?")
    assert v.status == "incorrect_info" and v.source == "monitor+number"


def test_unnamed_problem_in_a_statement_without_detectors_stays_unnamed() -> None:
    v = parse({"status": "incorrect_info", "claim": ""}, DOC, [], "That part was long.")
    assert v.status == "incorrect_info" and v.claim == ""


def test_non_actionable_status_never_borrows_a_detector_verdict() -> None:
    v = parse({"status": "on_progress", "claim": ""}, DOC, [NUMBER], "Sounds right.")
    assert v.status == "on_progress" and v.sids == ()


def test_a_question_gets_the_key_the_open_question_detector_will_use() -> None:
    from app.backbone.detectors import question_key

    asked = "Right. Which system said it was struggling to assimilate it all? I forget."
    named = parse({"status": "missing_info", "claim": "the overwhelmed reporting system"},
                  DOC, [], asked)
    unnamed = parse({"status": "incorrect_info", "claim": ""}, DOC, [], asked)
    assert named.key == unnamed.key == question_key(asked) != ""
    assert named.claim == "the overwhelmed reporting system"
    assert unnamed.claim == "Which system said it was struggling to assimilate it all?"
    statement = parse({"status": "missing_info", "claim": "x"}, DOC, [], "They used PDFBox.")
    assert statement.key == ""


def test_a_question_the_model_calls_incorrect_asks_for_a_fact() -> None:
    from app.backbone.detectors import question_key

    asked = "And which domains did they say the graph doesn't cover yet?"
    v = parse({"status": "incorrect_info", "claim": "the graph is still missing"}, DOC, [],
              asked)
    assert (v.status, v.claim, v.key) == ("missing_info", "the graph is still missing",
                                          question_key(asked))
    misread = parse({"status": "not_in_paper", "claim": "the graph is still missing"}, DOC,
                    [], asked)
    assert (misread.status, misread.key) == ("missing_info", question_key(asked))
    confirmed = parse({"status": "incorrect_info", "claim": "paper node count"}, DOC,
                      [NUMBER], "So they ended up with 12M nodes, right?")
    assert confirmed.status == "incorrect_info"  # a detector's swap stays a correction


def test_reference_markers_are_not_part_of_the_value() -> None:
    v = parse({"status": "incorrect_info", "claim": "the parser",
               "predicted_answer": "feed each page to PDFBox [12, 14] ,"}, DOC, [],
              "They use Tika for the pages.")
    assert v.predicted_answer == "feed each page to PDFBox"


def test_a_value_the_length_cap_ended_loses_its_last_word() -> None:
    from app.backbone.schemas import VALUE_MAX_CHARS

    whole = "We split each PDF into pages and feed each page to PDFBox for the text, then"
    cut = (whole + " tokeni")[:VALUE_MAX_CHARS]  # the decoder stopped inside a word
    assert len(cut) == VALUE_MAX_CHARS
    v = parse({"status": "incorrect_info", "claim": "the parser", "predicted_answer": cut},
              DOC, [], "They use Tika for the pages.")
    assert v.predicted_answer == whole  # "tok" of "tokenize" dropped
    short = parse({"status": "incorrect_info", "claim": "the parser",
                   "predicted_answer": "PDFBox"}, DOC, [], "They use Tika for the pages.")
    assert short.predicted_answer == "PDFBox"  # under the cap: kept whole
