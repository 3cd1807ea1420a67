"""Only checked speech reaches the loudspeaker: the real Backbone answers with scripted
model replies, the real FloorFSM plays what it streams, on a simulated clock."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.events import AnswerDelta, Intervention, InterventionKind, Turn
from app.floor import FloorFSM
from tests.backbone.school import ABSTAIN, ALARM, PUPILS, TEXTS, backbone, reply
from tests.backbone.scripted import CutOff, ScriptedLLM, StagedLLM
from tests.floor.script import Step, answer, delta, heard, receipt, room, run, turn, wake
from tests.floor.script import iv as proactive_iv

SECONDS_PER_PLAY = 2.0


def conversation(question: str, *answers: Any) -> list[tuple[float, tuple[Any, ...]]]:
    """Ask by wake word; the backbone answers (streamed) as the floor's worker would; each
    Play finishes after two seconds. Returns the floor's log."""
    fsm = FloorFSM()
    log = run([wake(1.1), (3.0, "turn", turn("A", question, 1.0, 2.5))], fsm).log
    generation = next(c[3] for _, c in log if c[0] == "request")
    deltas: list[AnswerDelta] = []
    iv = backbone(ScriptedLLM(list(answers))).answer_direct(
        Turn("A", question, 3.0, 3.0, direct=True), deltas.append)
    steps: list[Step] = [(3.5 + 0.1 * i, "delta", dataclasses.replace(d, generation=generation))
                         for i, d in enumerate(deltas)]
    steps.append((3.6 + 0.1 * len(deltas), "iv", dataclasses.replace(iv, generation=generation)))
    return log + play_out(fsm, steps)


def play_out(fsm: FloorFSM, steps: list[Step]) -> list[tuple[float, tuple[Any, ...]]]:
    """Feed the steps in time order; every Play is heard in full two seconds later."""
    log: list[tuple[float, tuple[Any, ...]]] = []
    pending = sorted(steps, key=lambda s: s[0])
    while pending:
        step = pending.pop(0)
        for t, command in run([step], fsm).log:
            log.append((t, command))
            if command[0] == "play":
                pending.append(receipt(t + SECONDS_PER_PLAY, command[1], "finished",
                                       SECONDS_PER_PLAY))
                pending.sort(key=lambda s: s[0])
    return log


def spoken(log: list[tuple[float, tuple[Any, ...]]]) -> list[str]:
    return [c[2] for _, c in log if c[0] == "play"]


def test_a_grounded_answer_is_played_as_checked_then_its_page_hint():
    log = conversation(PUPILS, reply("Northfield School has 1,260 pupils.", [0]))
    said = spoken(log)
    assert said[0] == "Northfield School has 1,260 pupils."  # played before the answer ended
    assert len(said) == 2 and said[1].startswith("You'll find this on page 1; search for '")
    first_play = next(t for t, c in log if c[0] == "play")
    assert first_play < next(t for t, c in log if c[0] == "delivered")
    delivered = [c for _, c in log if c[0] == "delivered"]
    assert len(delivered) == 1 and delivered[0][2] is True  # one answer, heard in full


def test_a_value_not_in_the_document_is_not_played_the_abstain_text_is():
    log = conversation(PUPILS, reply("Northfield School has 5,000 pupils.", [0]))
    assert spoken(log) == [ABSTAIN]


def test_an_uncited_reply_is_not_played():
    log = conversation("Jarvis, what happens now?",
                       reply("The meeting is cancelled, you can all leave now.", []))
    assert spoken(log) == [ABSTAIN]


def test_a_fragment_cut_off_at_the_token_limit_is_never_played():
    log = conversation(PUPILS, CutOff('{"quote_sids": [0], "text": "Northfield School has '
                                      '1,260 pupils and the m'))
    assert spoken(log) == []
    assert [c for _, c in log if c[0] == "drop"] == [("drop", "d1", "nothing_to_say")]


def test_a_reply_cut_off_after_a_sentence_plays_that_sentence_only():
    log = conversation(PUPILS, CutOff('{"quote_sids": [0], "text": "Northfield School has '
                                      '1,260 pupils. It also has 85 teach'))
    said = spoken(log)
    assert said[0] == "Northfield School has 1,260 pupils."
    assert not any("teach" in s for s in said)


def test_an_instruction_from_the_document_is_only_said_as_its_quote():
    log = conversation(ALARM, reply("Tell everyone to leave the room by the nearest exit.", [2]))
    said = spoken(log)
    assert said[0] == f"The document says: {TEXTS[2]}"
    assert not any(s.startswith("Tell everyone") for s in said)


def test_an_answer_checked_while_something_else_plays_is_played_once_whole():
    deltas: list[AnswerDelta] = []
    iv = backbone(ScriptedLLM([reply("Northfield School has 1,260 pupils.", [0])])).answer_direct(
        Turn("A", PUPILS, 3.0, 3.0, direct=True), deltas.append)
    other = Intervention("p9", InterventionKind.PROACTIVE, "Something else first.")
    steps: list[Step] = [*room(0.0, 3.0), (0.1, "iv", other), wake(1.1),
                         (3.0, "turn", turn("A", PUPILS, 1.0, 2.5))]
    steps += [(3.5 + 0.1 * i, "delta", dataclasses.replace(d, generation=1))
              for i, d in enumerate(deltas)]
    steps.append((3.8, "iv", dataclasses.replace(iv, generation=1)))
    log = play_out(FloorFSM(), steps)
    assert [(t, c[1]) for t, c in log if c[0] == "play"] == [(2.0, "p9"), (4.0, iv.id)]
    assert spoken(log) == ["Something else first.", iv.text]  # the final one, once, whole


WRONG = {"status": "incorrect_info", "claim": "the number of pupils at the school",
         "answer_sids": [0], "predicted_answer": "1,260", "evidence": "5,000 pupils"}
TURNS = [turn("B", "The school has about 5,000 pupils, I think.", 0.0, 2.0, index=0),
         turn("C", "Right, 5,000 pupils, that is a big school.", 2.5, 4.5, index=1)]


def proactive(generated: dict[str, object]) -> tuple[Intervention | None, list[str]]:
    """Two wrong turns and the correction the backbone decides on, played by the floor."""
    bb = backbone(StagedLLM([WRONG, WRONG, generated]))
    decisions = [bb.on_turn(t) for t in TURNS]
    iv = decisions[-1].intervention
    steps: list[Step] = room(0.0, 12.0, speech=[(0.0, 2.0), (2.5, 4.5)])
    if iv is not None:
        steps.append((5.0, "iv", iv))
    return iv, spoken(play_out(FloorFSM(), steps))


def test_a_proactive_correction_is_played_exactly_as_the_backbone_accepted_it():
    iv, said = proactive({"action": "speak", "text": "It has 1,260 pupils [S0].",
                          "topic": "pupils", "source": "", "quote_sids": [0]})
    assert iv is not None and said == [iv.text]
    assert said[0].startswith("About pupils, it has 1,260 pupils. You'll find this on page 1")


def test_a_proactive_correction_without_the_documents_value_is_not_played():
    iv, said = proactive({"action": "speak", "text": "It has 5,000 pupils [S0].",
                          "topic": "pupils", "source": "", "quote_sids": [0]})
    assert iv is None and said == []


# --- the floor's side, scripted: checked pieces, the final answer, interruptions ----------

SAMPLE = "what sample size did they use"
ASKED = [wake(1.1), (3.0, "turn", turn("A", SAMPLE, 1.0, 2.5))]
FIRST = "They used 120 patients. They were adults."
WHOLE = f"{FIRST} It ran for a year. See page 2."


def streamed_then_interrupted(seconds: float, sentence: int) -> list[Step]:
    return ASKED + [
        delta(3.5, 1, 0, FIRST, checked=True),
        *room(3.5, 14, speech=[(4.0, 6.0)]),
        heard(4.9, 4.0, "wait a moment please"),
        receipt(5.05, "direct-1", "stopped", seconds, sentence),
        delta(5.2, 1, 1, "It ran for a year.", checked=True),
        delta(5.3, 1, 2, "", final=True),
        (5.4, "iv", answer(1, WHOLE)),
    ]


def test_a_streamed_answer_interrupted_early_is_said_again_whole_as_checked_by_then():
    log = run(streamed_then_interrupted(1.1, 0)).of("play", "stop", "delivered", "drop")
    assert log == [
        (3.5, ("play", "direct-1", FIRST, 0)),
        (4.9, ("stop", "barge_in")),
        (5.05, ("delivered", "direct-1", False, 1.1)),
        (8.0, ("play", "a1", WHOLE, 0)),
    ]


def test_a_streamed_answer_interrupted_midway_resumes_with_the_rest_of_the_final_answer():
    log = run(streamed_then_interrupted(3.0, 1)).of("play")
    assert log[-1] == (8.0, ("play", "a1", "To finish my response, they were adults. "
                                         "It ran for a year. See page 2.", 1))


def test_a_streamed_answer_interrupted_late_drops_the_rest_and_its_final_answer():
    log = run(streamed_then_interrupted(6.0, 1)).of("play", "drop")
    assert log == [
        (3.5, ("play", "direct-1", FIRST, 0)),
        (5.05, ("drop", "direct-1", "interrupted")),
        (5.4, ("drop", "a1", "interrupted")),
    ]


DROPOUT = proactive_iv("p1", "Actually, one patient in ten dropped out. That is on page 2.",
                       values=("one patient in ten",), topic="dropout rate")


def test_nothing_else_is_said_between_the_sentences_of_an_answer():
    steps = ASKED + [
        delta(3.5, 1, 0, "They used 120 patients.", checked=True),
        *room(3.0, 14),
        receipt(5.0, "direct-1", "finished", 1.5),
        (5.1, "iv", DROPOUT),  # an opening comes at 7.0; the answer is not over
        delta(9.0, 1, 1, "It ran for a year.", checked=True),
        receipt(10.0, "direct-1", "finished", 1.0),
        (10.5, "iv", answer(1, "They used 120 patients. It ran for a year.")),
    ]
    assert run(steps).of("play", "delivered") == [
        (3.5, ("play", "direct-1", "They used 120 patients.", 0)),
        (9.0, ("play", "direct-1", "It ran for a year.", 1)),
        (10.5, ("delivered", "a1", True, 1.0)),
        (12.0, ("play", "p1", DROPOUT.text, 0)),
    ]


def test_a_new_question_ends_an_answer_waiting_for_its_next_sentence():
    steps = ASKED + [
        delta(3.5, 1, 0, "They used 120 patients.", checked=True),
        receipt(5.0, "direct-1", "finished", 1.5),
        wake(5.5, "B"),
        (7.5, "turn", turn("B", "Jarvis, what was the dropout rate?", 5.5, 7.0)),
        delta(7.6, 1, 1, "It ran for a year.", checked=True),
        (7.7, "iv", answer(1, "They used 120 patients. It ran for a year.")),
    ]
    assert run(steps).of("play", "delivered", "drop", "cancel") == [
        (3.5, ("play", "direct-1", "They used 120 patients.", 0)),
        (7.5, ("cancel", 1)),
        (7.5, ("delivered", "direct-1", False, 1.5)),  # what was heard of it
        (7.6, ("drop", "direct-1", "superseded")),
        (7.7, ("drop", "a1", "superseded")),
    ]


def test_a_final_answer_that_does_not_continue_what_was_said_is_not_played():
    steps = ASKED + [
        delta(3.5, 1, 0, "They used 120 patients.", checked=True),
        (3.7, "iv", answer(1, "That isn't covered in the document.")),
        receipt(5.0, "direct-1", "finished", 1.5),
    ]
    assert run(steps).of("play", "delivered", "drop") == [
        (3.5, ("play", "direct-1", "They used 120 patients.", 0)),
        (3.7, ("drop", "a1", "inconsistent")),
        (5.0, ("delivered", "direct-1", True, 1.5)),
    ]
