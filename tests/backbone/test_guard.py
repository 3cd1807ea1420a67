"""The deterministic self-repair guard (SPEC §4), one rule at a time."""

from __future__ import annotations

import pytest

from app.backbone import guard
from app.backbone.guard import check
from app.language.values import value_present

SHARE = 0.6
RAISED = ["Yeah, and averaging twelve of those models buys them roughly another point on top."]


def closes(recent, value="an ensemble of 15 models", status="incorrect_info", raised=RAISED):
    return check(status, value, recent, raised, SHARE).closes


def test_correct_value_in_the_last_turns_closes():
    repair = "Sorry, fifteen models, not twelve. It's an ensemble of 15, and that adds 1.1 F1."
    assert closes([RAISED[0], "Mm, okay.", repair])


def test_numbers_must_match_exactly():
    assert not closes(["It's an ensemble of 16 models actually."])
    assert not value_present("76% of the documents", "works on about 72 percent of documents",
                             SHARE)
    assert value_present("76% of the documents", "it's 76 percent of the documents", SHARE)


def test_number_words_count_as_numbers():
    assert value_present("15 models", "they average fifteen models", SHARE)


def test_below_sixty_percent_of_content_tokens_does_not_close():
    value = "title and abstract of each paper only"
    assert not closes(["They use the title, I think."], value)
    assert closes(["No wait, they only use the title and abstract of each paper."], value)


def test_a_question_does_not_close():
    assert not closes(["Was it an ensemble of 15 models?"])


def test_failure_to_recall_does_not_close():
    assert not closes(["I don't remember if it was an ensemble of 15 models or not"])


def test_must_add_words_absent_from_the_raising_turns():
    raised = ["They averaged an ensemble of 15 models, right"]
    assert not closes(["an ensemble of 15 models"], raised=raised)


def test_only_the_last_three_turns_are_read():
    # The caller passes the guard window; an older statement is outside it.
    assert not closes(["Okay.", "Right.", "Let's move on to linking."])


def test_misattribution_closes_on_a_retraction_only():
    status = "not_in_paper"
    assert check(status, "", ["Oh wait, that A/B test is not from this paper, it's SPECTER."],
                 [], SHARE).closes
    assert check(status, "", ["Sorry, I'm mixing it up with the other paper."], [], SHARE).closes
    assert not check(status, "", ["Yeah, a 46.5 percent gain, huge."], [], SHARE).closes
    assert not check(status, "", ["Is that not from this paper?"], [], SHARE).closes


def test_valueless_claim_keeps_the_model_verdict():
    assert check("missing_info", "", ["Anything."], [], SHARE).closes


@pytest.mark.parametrize("recent,expected", [
    (["They average fifteen models."], True),
    (["They average twelve models."], False),
])
def test_precheck_skips_the_model_call_when_nothing_could_close(recent, expected):
    assert check("incorrect_info", "15 models", recent, [], SHARE).closes is expected


@pytest.mark.parametrize(("last", "closes"), [
    ("37 million, the deduplication leaves 37M nodes.", True),
    ("Oh, I honestly don't remember the number.", False),
    ("Hm, no idea. Does it matter?", False),
    ("Is it in section two?", False),
])
def test_question_without_a_value_closes_only_on_a_reply_that_answers(last, closes):
    recent = ["How many unique paper nodes are left?", last]
    assert check("missing_info", "", recent, [recent[0]], SHARE).closes is closes


def test_precheck_is_the_guard_s_own_test_for_a_value():
    """A value said only by the turn that raised the claim, or only inside a question,
    could not close it: no model call is worth making."""
    value = "Tim Allen as Buzz Lightyear, a space ranger"
    raised = "Tom Hanks plays Buzz Lightyear, a space ranger action figure."
    assert not check("incorrect_info", value, [raised, "Yes I am."], [raised], SHARE).closes
    asked = "Wasn't it Tim Allen as Buzz Lightyear, the space ranger?"
    assert not check("incorrect_info", value, [raised, asked], [raised], SHARE).closes
    fixed = "No wait, Tim Allen voices Buzz Lightyear, the space ranger."
    assert check("incorrect_info", value, [raised, fixed], [raised], SHARE).closes


def test_each_value_of_a_two_value_answer_fixes_a_claim_of_its_kind():
    answer = "12% of the members in the first 2 years, to 30% of them by the fifth"
    raised = ["They say 40% of the members in the first two years, didn't they?"]
    assert guard.fix_values(answer, raised) == ["12%", "30%"]


def test_a_value_the_raising_turn_stated_or_of_another_kind_fixes_nothing():
    answer = "12% of the members in the first 2 years, to 30% of them by the fifth"
    # 30% is what was raised; the 2 years agree with the raising turn's own two years
    assert guard.fix_values(answer, ["30% of the members in the first two years."]) == ["12%"]
    assert guard.fix_values(answer, ["It took them five months."]) == []


def test_a_one_value_answer_has_no_separate_values():
    assert guard.fix_values("12% of the members", ["It was 40%."]) == []
