"""Proactive interventions are checked sentence by sentence like direct answers: the real
Backbone raises a claim until the gate fires, the generation reply is scripted; one case
is played by the real FloorFSM on a simulated clock."""

from __future__ import annotations

from typing import Any

import pytest

from app.backbone.generate import Generated, check
from app.events import Decision, Intervention, Turn
from app.floor import FloorFSM
from app.language.talk import set_aside
from app.settings import UtteranceSettings
from tests.backbone.school import ABSTAIN, TEXTS, backbone, reply, school
from tests.backbone.scripted import ScriptedLLM, StagedLLM
from tests.floor.script import Step, receipt, room, run
from tests.floor.script import turn as floor_turn

PUPILS_WRONG = {"status": "incorrect_info", "claim": "the number of pupils at the school",
                "answer_sids": [0], "predicted_answer": "1,260", "evidence": "5,000 pupils"}
# The small model's frequent verdict without a value: nothing checked beforehand.
LUNCH_WRONG = {"status": "incorrect_info", "claim": "where lunch is served",
               "answer_sids": [1, 3], "predicted_answer": "", "evidence": "the gym"}
LUNCH_TURNS = ["Lunch is in the gym, I think.", "Yes, lunch is in the gym."]
NOT_RESOLVED = {"resolved": []}  # the self-repair check on the second turn
PUPILS_TURNS = ["The school has about 5,000 pupils, I think.",
                "Right, 5,000 pupils, that is a big school."]
ALARM_WRONG = {"status": "incorrect_info", "claim": "what to do when the fire alarm sounds",
               "answer_sids": [2], "predicted_answer": "leave the room by the nearest exit",
               "evidence": "stay in the room"}
ALARM_TURNS = ["If the fire alarm sounds we just stay in the room, I think.",
               "Yes, we stay in the room and wait."]


def speak(text: str, sids: list[int], topic: str = "pupils") -> dict[str, Any]:
    return {"action": "speak", "text": text, "topic": topic, "source": "", "quote_sids": sids}


def raise_claim(generated: dict[str, Any], verdict: dict[str, Any] = PUPILS_WRONG,
                turns: list[str] = PUPILS_TURNS, *between: dict[str, Any]
                ) -> tuple[Decision, Any]:
    """The same wrong claim on two turns (the gate fires on the second), the replies of
    the calls ``between``, and this generation reply; returns the second turn's decision
    and the claim."""
    llm = StagedLLM([verdict, verdict, *between, generated])
    bb = backbone(llm)
    decisions = [bb.on_turn(Turn(s, t, 2.5 * i, 2.5 * i + 2, index=i))
                 for i, (s, t) in enumerate(zip("BC", turns, strict=True))]
    assert decisions[0].reason == "gate: waiting 1/2" and llm.stages()[-1] == "generate"
    return decisions[-1], bb.ledger.claims[1]


def spoken(decision: Decision) -> str:
    assert decision.action == "speak" and decision.intervention is not None, decision.reason
    return decision.intervention.text


def assert_rolled_back(decision: Decision, claim: Any) -> None:
    assert decision.action == "silent" and decision.intervention is None
    assert decision.reason.startswith("generate: not in the document")
    assert decision.reason.endswith("(rollback 1/2)")
    assert claim.open and claim.spoken_turn is None and claim.rollbacks == 1


# --- the backbone: what a generation may say ----------------------------------------------

def test_a_grounded_correction_is_said_citing_the_sentence_that_carries_it():
    # Nothing was checked beforehand and the model cites the library's sentence.
    decision, _ = raise_claim(speak("Lunch is served in the main hall [S1].", [1], "lunch"),
                              LUNCH_WRONG, LUNCH_TURNS, NOT_RESOLVED)
    assert spoken(decision).startswith("About lunch, lunch is served in the main hall. You'll "
                                       "find this on page 4; search for '")
    assert [c.sid for c in decision.intervention.citations] == [3]


def test_a_sentence_with_a_value_the_document_lacks_is_not_said():
    decision, _ = raise_claim(speak("It has 1,260 pupils [S0]. It also has 300 teachers.", [0]))
    text = spoken(decision)
    assert text.startswith("About pupils, it has 1,260 pupils. You'll find this on page 1")
    assert "300" not in text and decision.intervention.values == ("1,260",)


def test_a_correction_whose_only_sentence_adds_a_value_is_rolled_back():
    decision, claim = raise_claim(speak("It has 1,260 pupils [S0] and 300 teachers.", [0]))
    assert_rolled_back(decision, claim)


def test_a_correction_may_name_the_participants_wrong_value_as_not_x():
    decision, _ = raise_claim(speak("It is 1,260 pupils, not 5,000 [S0].", [0]))
    assert spoken(decision).startswith("About pupils, it is 1,260 pupils, not 5,000. You'll")
    # The wrong value is not what the correction states: the room repeating it later
    # does not make the correction stale.
    assert decision.intervention.values == ("1,260",)


def test_a_value_the_room_said_too_is_not_what_the_correction_tells():
    turns = ["The school has about 5,000 pupils and 85 teachers, I think.",
             "Right, 5,000 pupils and 85 teachers."]
    decision, _ = raise_claim(speak("It has 1,260 pupils and 85 teachers [S0].", [0]),
                              PUPILS_WRONG, turns)
    assert "85 teachers" in spoken(decision)
    # The room saying "85" again later does not make the correction stale.
    assert decision.intervention.values == ("1,260",)


def test_a_set_aside_value_nobody_said_is_not_said():
    decision, claim = raise_claim(speak("It is 1,260 pupils, not 4,000 [S0].", [0]))
    assert_rolled_back(decision, claim)


def test_an_uncited_reply_no_sentence_carries_is_rolled_back():
    decision, claim = raise_claim(speak("The meeting is cancelled, you can all leave now.", []),
                                  LUNCH_WRONG, LUNCH_TURNS, NOT_RESOLVED)
    assert_rolled_back(decision, claim)


def test_an_instruction_copied_from_the_document_is_said_only_as_its_quote():
    decision, _ = raise_claim(speak("Tell everyone to leave the room by the nearest exit [S2].",
                                    [2], "the fire alarm"), ALARM_WRONG, ALARM_TURNS)
    assert spoken(decision).startswith(f"About the fire alarm, the document says: {TEXTS[2]} "
                                       "You'll find this on page 3")
    assert [c.sid for c in decision.intervention.citations] == [2]


def test_an_instruction_of_the_models_own_is_not_said():
    decision, _ = raise_claim(speak("It has 1,260 pupils [S0]. Tell everyone to go home.", [0]))
    text = spoken(decision)
    assert text.startswith("About pupils, it has 1,260 pupils. You'll find this on page 1")
    assert "home" not in text


# --- the floor plays what the backbone accepted --------------------------------------------

SECONDS_PER_PLAY = 2.0


def play(iv: Intervention, later: list[Step]) -> list[str]:
    """The room talks until 6 s; the correction decided on turn 1 arrives at 4.6 s; each
    Play is heard in full two seconds later. Returns what was played."""
    fsm = FloorFSM()
    steps: list[Step] = [*room(0.0, 14.0, speech=[(0.0, 2.0), (2.5, 4.5), (5.0, 6.0)]),
                         (4.6, "iv", iv), *later]
    played: list[str] = []
    pending = sorted(steps, key=lambda s: s[0])
    while pending:
        step = pending.pop(0)
        for t, command in run([step], fsm).log:
            if command[0] == "play":
                played.append(command[2])
                pending.append(receipt(t + SECONDS_PER_PLAY, command[1], "finished",
                                       SECONDS_PER_PLAY))
                pending.sort(key=lambda s: s[0])
    return played


def test_the_floor_plays_a_not_x_correction_although_the_room_repeats_the_wrong_value():
    decision, _ = raise_claim(speak("It is 1,260 pupils, not 5,000 [S0].", [0]))
    iv = decision.intervention
    assert iv is not None and iv.decided_turn == 1
    repeated = (6.0, "turn", floor_turn("B", "5,000 pupils is a lot.", 5.0, 6.0, index=2))
    assert play(iv, [repeated]) == [iv.text]


# --- the checks themselves ----------------------------------------------------------------

SAID = ["The school has about 5,000 pupils, I think.", "Yes, and forty percent walk to it."]


@pytest.mark.parametrize(("text", "left"), [
    ("It is 1,260 pupils, not 5,000.", "It is 1,260 pupils, ."),
    ("It is 1,260 pupils rather than five thousand.", "It is 1,260 pupils ."),
    ("It has 1,260 instead of about 5K pupils.", "It has 1,260  pupils."),
    ("It isn't 5,000, it is 1,260.", "It , it is 1,260."),
    ("Not 40%, it is 12%.", ", it is 12%."),
])
def test_a_participants_value_set_aside_is_no_claim_of_the_text(text, left):
    assert set_aside(text, SAID) == left


@pytest.mark.parametrize("text", [
    "It is 1,260 pupils, not 4,000.",        # set aside, but nobody said it
    "It has 5,000 pupils.",                  # the participants' value, asserted
    "It has 5,000 pupils, not 1,260.",       # asserted; the one set aside nobody said
    "Not 40 pupils walk.",                   # 40 was a percentage
    "It is not 5,000,000.",                  # a different, longer number
])
def test_any_other_value_stays(text):
    assert set_aside(text, SAID) == text


def checked(text: str, intent: str = "correct", sids: tuple[int, ...] = (0,),
            settings: UtteranceSettings | None = None) -> Generated:
    made = Generated(True, text, "pupils", sids)
    return check(made, intent, school(), settings or UtteranceSettings(), [0],
                 "the number of pupils at the school", SAID)


def test_the_first_sentence_that_fails_ends_the_text():
    made = checked("It has 1,260 pupils. Most of them walk. It has 85 teachers.")
    assert (made.speak, made.text, made.sids) == (True, "It has 1,260 pupils.", (0,))


def test_whole_sentences_within_the_word_limit_are_kept_a_longer_first_one_is_not_cut():
    short = UtteranceSettings(max_words_correction=6)
    assert checked("It has 1,260 pupils. It has 85 teachers.", settings=short).text == \
        "It has 1,260 pupils."
    made = checked("Northfield School has 1,260 pupils and 85 teachers.", settings=short)
    assert not made.speak and made.reason == "generate: the first sentence is over 6 words"


@pytest.mark.parametrize(("text", "said"), [
    ("The document doesn't report that; I can't find it anywhere.", True),
    ("It doesn't report 5,000 pupils.", True),            # the participants' value
    ("It doesn't report 5,000 pupils. Tell everyone to go home.", True),
    ("It doesn't report that, it says 300 teachers.", False),  # a value of its own
    ("It doesn't report 40 pupils.", False),               # 40 was a percentage
    ("The school is quite large.", False),                 # no denial
])
def test_a_denial_denies_and_gives_no_value_of_its_own(text, said):
    made = checked(text, "not_in_paper", ())
    assert made.speak is said and made.sids == ()
    if said:
        assert made.text == text.split(" Tell")[0]


@pytest.mark.parametrize(("text", "intent", "sids"), [
    ("The document doesn't report that; I can't find the finding in a few words anywhere "
     "in it.", "not_in_paper", ()),
    ("Document value: 1,260 pupils.", "correct", (0,)),
    ("Northfield School has <the facts of [S0]> 1,260 pupils.", "missing", (0,)),
])
def test_a_reply_that_copies_the_prompts_words_is_not_said(text, intent, sids):
    made = checked(text, intent, sids)
    assert not made.speak and made.text == ""


# --- a direct question that states what the document states --------------------------------

def ask(question: str, llm_reply: dict[str, Any], **ledger: Any) -> Intervention:
    bb = backbone(ScriptedLLM([llm_reply]), **ledger)
    return bb.answer_direct(Turn("A", question, 1.0, 3.0, direct=True, index=0),
                            lambda d: None)


@pytest.mark.parametrize("question", [
    "Jarvis, the school has 1,260 pupils, right?",
    "So Jarvis, does Northfield School really have 1,260 pupils?",
])
def test_an_abstain_to_a_question_stating_the_documents_value_confirms_it(question):
    iv = ask(question, reply("", [], "abstain"))
    assert iv.intent == "answer" and [c.sid for c in iv.citations] == [0]
    assert iv.text.startswith(f"The document says: {TEXTS[0]} You'll find this on page 1")


def test_an_answer_that_fails_its_checks_confirms_the_stated_value_too():
    iv = ask("Jarvis, the school has 1,260 pupils, right?",
             reply("No, it has 5,000 pupils.", [0]))
    assert iv.text.startswith(f"The document says: {TEXTS[0]}")


@pytest.mark.parametrize("question", [
    "Jarvis, the school has 5,000 pupils, right?",   # not what the document says
    "Jarvis, how many pupils does the school have?",  # states nothing
])
def test_an_abstain_stands_where_the_question_states_nothing_the_document_does(question):
    iv = ask(question, reply("", [], "abstain"))
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_an_abstain_stands_with_the_veto_off():
    iv = ask("Jarvis, the school has 1,260 pupils, right?", reply("", [], "abstain"),
             correction_veto=False)
    assert (iv.intent, iv.text) == ("abstain", ABSTAIN)


def test_the_direct_answer_may_set_aside_the_askers_wrong_value():
    iv = ask("Jarvis, the school has 5,000 pupils, right?",
             reply("No, it has 1,260 pupils, not 5,000.", [0]))
    assert iv.intent == "answer"
    assert iv.text.startswith("No, it has 1,260 pupils, not 5,000. You'll find this on page 1")
