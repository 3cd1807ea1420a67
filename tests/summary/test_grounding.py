"""Only statements their cited turns carry reach the summary."""

from __future__ import annotations

from app.summary.grounding import (
    ActionItem,
    Statement,
    check_action,
    check_statement,
    deadline_said,
    grounded,
    grounded_actions,
)
from app.summary.meeting import SpokenTurn

TURNS = {
    1: SpokenTurn(1, "Maya", "Top floor flats were about two degrees cooler on the hottest "
                  "afternoons.", 6.0, 13.0),
    2: SpokenTurn(2, "Alex", "And the energy used for cooling went down as well, by fourteen "
                  "percent over the summer.", 14.0, 18.6),
    3: SpokenTurn(3, "Ken", "They only put planted roofs on twelve buildings, so it is a "
                  "really small sample.", 19.5, 27.0),
    6: SpokenTurn(6, "Alex", "Maya, can you send the cost figures to the council?", 40.0, 44.0),
    7: SpokenTurn(7, "Maya", "Sure, I will do it by Friday.", 45.0, 47.0),
}
MIN = 0.6


def test_a_statement_its_turns_carry_is_kept_in_the_minutes_own_words():
    said = Statement("Maya noted that top floor flats were two degrees cooler on the "
                     "hottest afternoons.", (1,))
    check = check_statement(said, TURNS, MIN)
    assert check.kept and check.coverage == 1.0


def test_numbers_are_the_same_however_they_are_written():
    assert check_statement(Statement("Cooling energy fell by 14% over the summer.", (2,)),
                           TURNS, MIN).kept


def test_an_uncited_statement_is_dropped():
    check = check_statement(Statement("Top floor flats were two degrees cooler.", ()), TURNS, MIN)
    assert not check.kept and check.reason == "cites no turn"


def test_a_statement_citing_turns_the_meeting_does_not_have_is_dropped():
    check = check_statement(Statement("Top floor flats were two degrees cooler.", (40,)),
                            TURNS, MIN)
    assert not check.kept and "of this meeting" in check.reason


def test_a_statement_saying_more_than_its_turns_is_dropped():
    invented = Statement("The council approved funding for solar panels on every school.", (3,))
    check = check_statement(invented, TURNS, MIN)
    assert not check.kept and check.coverage < MIN


def test_a_statement_citing_the_wrong_turn_is_dropped():
    assert not check_statement(Statement("Top floor flats were two degrees cooler.", (3,)),
                               TURNS, MIN).kept


def test_a_number_not_in_the_cited_turns_drops_the_statement():
    check = check_statement(Statement("Planted roofs were put on 48 buildings.", (3,)),
                            TURNS, MIN)
    assert not check.kept and check.reason == "number not in the cited turns: 48"


def test_a_statement_of_reporting_words_only_says_nothing():
    assert not check_statement(Statement("The group discussed the issue.", (1,)),
                               TURNS, MIN).kept


def test_grounded_splits_kept_from_dropped_with_the_reasons():
    kept, dropped = grounded([Statement("Ken said it is a really small sample of twelve "
                                        "buildings.", (3,)),
                              Statement("Roofs cost nothing.", ())], TURNS, MIN)
    assert [s.turns for s in kept] == [(3,)]
    assert dropped == [(Statement("Roofs cost nothing.", ()), "cites no turn")]


def test_an_action_item_is_carried_by_its_turn_and_the_reply_to_it():
    item = ActionItem("Maya", "send the cost figures to the council", "by Friday", 6)
    assert check_action(item, TURNS, MIN).kept  # "by Friday" is in the reply, turn 7


def test_an_action_item_for_someone_never_named_there_is_dropped():
    item = ActionItem("Priya", "send the cost figures to the council", "", 6)
    kept, dropped = grounded_actions([item], TURNS, MIN)
    assert kept == [] and dropped[0][1] == "'Priya' is not named there"


def test_a_deadline_nobody_said_is_left_out_and_the_task_stands():
    item = ActionItem("Maya", "send the cost figures to the council", "next March", 6)
    assert check_action(item, TURNS, MIN).kept and not deadline_said(item, TURNS, MIN)
    kept, dropped = grounded_actions([item], TURNS, MIN)
    assert kept == [ActionItem("Maya", "send the cost figures to the council", "", 6)]
    assert dropped == [(item, "the deadline 'next March' is not said there")]
    said = ActionItem("Maya", "send the cost figures to the council", "by Friday", 6)
    assert grounded_actions([said], TURNS, MIN) == ([said], [])


def test_the_owner_may_be_the_speaker_who_takes_the_task_on():
    turns = {4: SpokenTurn(4, "Industrial Designer", "I will sketch the call button tonight.",
                           0.0, 2.0),
             5: SpokenTurn(5, "Project Manager", "Great, thanks.", 2.0, 3.0)}  # fmt: skip
    mine = ActionItem("Industrial Designer", "sketch the call button", "tonight", 4)
    assert grounded_actions([mine], turns, MIN) == ([mine], [])
    thanked = ActionItem("Project Manager", "sketch the call button", "", 4)
    assert check_action(thanked, turns, MIN).kept  # the reply's speaker: a request answered
    other = ActionItem("Marketing", "sketch the call button", "", 4)
    assert check_action(other, turns, MIN).reason == "'Marketing' is not named there"


def test_naming_the_speakers_is_no_support_for_what_they_said():
    # Two speaker names would carry half the words of this invention by themselves.
    turns = {202: SpokenTurn(202, "Marketing", "That's a fish? I drew a fish.", 0.0, 1.0),
             203: SpokenTurn(203, "Industrial Designer", "Yes, a fish with chips.", 1.0, 2.0)}
    said = Statement("Marketing and Industrial Designer chose fish and chips as the main "
                     "product.", (202, 203))
    assert not check_statement(said, turns, MIN).kept
    assert check_statement(Statement("Industrial Designer drew a fish with chips.", (202, 203)),
                           turns, MIN).kept


def test_a_deadline_in_part_in_another_script_is_not_said():
    turns = {8: SpokenTurn(8, "Project Manager", "The next meeting starts in thirty minutes.",
                           0.0, 2.0)}  # fmt: skip
    mixed = ActionItem("Project Manager", "start the meeting", "the next meeting\u5206\u949f", 8)
    plain = ActionItem("Project Manager", "start the meeting", "the next meeting", 8)
    assert not deadline_said(mixed, turns, MIN) and deadline_said(plain, turns, MIN)


def test_a_statement_in_part_in_another_script_is_dropped():
    said = Statement("Ken said it is a small sample of twelve buildings \u6837\u672c.", (3,))
    assert check_statement(said, TURNS, MIN).reason == \
        "written partly in a script its turns do not use"  # fmt: skip
    assert check_statement(Statement("Ken said it is a small sample of twelve buildings.",
                                     (3,)), TURNS, MIN).kept  # fmt: skip
