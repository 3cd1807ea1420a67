"""The per-turn harness around the model, driven by scripted replies."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.backbone.harness import Backbone, Screened
from app.backbone.retrieval import lexical_search
from app.document import DocumentIndex, Sentence
from app.events import InterventionKind, PlaybackReceipt, Turn
from app.settings import (
    ContextMode,
    Detector,
    LedgerSettings,
    LLMSettings,
    Patience,
    Settings,
    UtteranceSettings,
)
from tests.backbone.scripted import ScriptedLLM, WordOverlap, malformed

TEXTS = [
    "We split each PDF into pages and feed each page to Apache's PDFBox library to get tokens.",
    "This labeling process succeeds for 76% of the documents in the training corpus.",
    "Deduplication on metadata string similarity results in 37M unique paper nodes.",
    "The model is a two-layer bidirectional LSTM with a conditional random field on top.",
]


def paper() -> DocumentIndex:
    """The four-sentence paper the flow tests talk about."""
    sentences = [Sentence(i, t, page=2 + i, rects=((10.0, 20.0 * i, 300.0, 20.0 * i + 12),))
                 for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("paper.pdf"), "0" * 64, "Paper", 6, sentences)


@pytest.fixture
def document() -> DocumentIndex:
    return paper()


def make(document, llm, mode=ContextMode.FOCUSED, quote_direct=False, **ledger) -> Backbone:
    """``quote_direct``: a question may be answered and a correction said with a document
    sentence, no model call, and the model only picks a direct answer's sentences (off
    unless a test asks: most tests are about the model's replies)."""
    ledger.setdefault("screen_turns", False)
    utterance = UtteranceSettings() if quote_direct else UtteranceSettings(
        quote_direct_coverage=0.0, quote_any_coverage=0.0, quote_corrections=False,
        quote_covering_answers=False, quote_model_picks=False)
    settings = Settings(llm=LLMSettings(context_mode=mode), utterance=utterance,
                        ledger=dataclasses.replace(LedgerSettings(), **ledger))
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


def turn(i, text, speaker="S1") -> Turn:
    return Turn(speaker, text, float(i), float(i) + 1, False, i)


WRONG = {"status": "incorrect_info", "claim": "the library used to parse PDF pages",
         "answer_sids": [0], "predicted_answer": "PDFBox", "evidence": "Apache Tika"}
QUIET = {"status": "on_progress", "claim": ""}
SPEAK = {"action": "speak", "text": "They use Apache's PDFBox [S0], not Tika.",
         "topic": "the PDF parser", "source": "", "quote_sids": [0]}


def test_backchannel_never_reaches_the_monitor(document):
    llm = ScriptedLLM()
    decision = make(document, llm).on_turn(turn(0, "Mm-hm."))
    assert decision.action == "silent" and "backchannel" in decision.reason
    assert llm.requests == []


def test_wrong_claim_adopted_twice_is_corrected_with_a_citation(document):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK])
    bb = make(document, llm)
    first = bb.on_turn(turn(19, "They run every page through Apache Tika to get tokens."))
    second = bb.on_turn(turn(20, "Right, Tika, and the font features get normalised.", "S2"))
    assert (first.action, first.reason) == ("silent", "gate: waiting 1/2")
    assert second.action == "speak" and second.reason == "gate fired: persistence 2"
    assert first.claim_id == second.claim_id == 1
    assert first.answer == second.answer == "PDFBox"  # the session record keeps it
    iv = second.intervention
    assert iv.kind is InterventionKind.PROACTIVE and iv.intent == "correct"
    assert iv.decided_turn == 20 and iv.citations[0].sid == 0 and iv.citations[0].page == 2
    assert iv.text.startswith("About the PDF parser, they use Apache's PDFBox, not Tika.")
    assert "You'll find this on page 2; search for '" in iv.text and "[S0]" not in iv.text
    assert iv.citations[0].keyword in TEXTS[0]
    assert llm.stages() == ["monitor", "monitor", "generate"]


def test_one_shared_system_prefix_for_every_stage_and_turn(document):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK])
    bb = make(document, llm)
    bb.on_turn(turn(0, "They run every page through Apache Tika."))
    bb.on_turn(turn(1, "Yes, Apache Tika, with font features."))
    assert len({r.system for r in llm.requests}) == 1
    assert llm.warmed == [llm.requests[0].system]
    assert "[S0]" not in llm.requests[0].system  # focused: no document in the prefix
    assert "[S0]" in llm.requests[0].user  # ... the retrieved sentences come with the turn


def test_full_mode_puts_the_whole_numbered_document_in_the_prefix(document):
    llm = ScriptedLLM([QUIET])
    bb = make(document, llm, mode=ContextMode.FULL)
    bb.on_turn(turn(0, "So the model is a BiLSTM with a CRF."))
    assert document.numbered_block() in llm.requests[0].system
    assert "[S3]" not in llm.requests[0].user


def test_conversation_block_only_grows_between_calls(document):
    llm = ScriptedLLM([QUIET, QUIET, QUIET])
    bb = make(document, llm)
    for i, text in enumerate(["The model is a BiLSTM.", "With a CRF on top.", "And GloVe."]):
        bb.on_turn(turn(i, text))
    blocks = [r.user.split("TASK")[0] for r in llm.requests]
    assert blocks[1].startswith(blocks[0]) and blocks[2].startswith(blocks[1])


def test_a_sentence_is_shown_once_while_its_turn_is_in_the_window(document):
    """Focused context lists a sentence under the turn it was first found for; later
    calls that need it point to it there, until that turn leaves the window."""
    llm = ScriptedLLM([QUIET] * 20)
    bb = make(document, llm)
    texts = ["The model is a BiLSTM.", "With a CRF on top, the BiLSTM.",
             "The BiLSTM has two layers."]
    for i, text in enumerate(texts):
        bb.on_turn(turn(i, text))
    users = [r.user for r in llm.requests]
    assert [u.count("  [S3] ") for u in users] == [1, 1, 1]
    assert "[Turn 0] S1: The model is a BiLSTM.\n  [S3] " in users[2]
    assert all("Relevant sentences: S3" in u or "S3," in u for u in users)
    window = bb.settings.ledger.transcript_window
    for i in range(3, 3 + window + 4):  # the first turns leave the window
        bb.on_turn(turn(i, f"Point {i}: the bidirectional LSTM with a random field on top."))
    last = llm.requests[-1].user
    assert "[Turn 0]" not in last and last.count("  [S3] ") == 1
    assert last.index("  [S3] ") > last.index("[Turn 4]")  # shown again under a later turn


def test_unresolvable_generation_ids_fall_back_to_the_monitors(document):
    bad = dict(SPEAK, quote_sids=[99, -1])
    llm = ScriptedLLM([WRONG, WRONG, bad])
    bb = make(document, llm)
    bb.on_turn(turn(0, "Apache Tika parses the pages."))
    decision = bb.on_turn(turn(1, "Tika, yes."))
    assert decision.action == "speak" and [c.sid for c in decision.intervention.citations] == [0]


def test_answer_with_no_resolvable_citation_is_never_spoken(document):
    vague = dict(WRONG, answer_sids=[42])
    llm = ScriptedLLM([vague, vague, dict(SPEAK, quote_sids=[77])])
    bb = make(document, llm)
    bb.on_turn(turn(0, "Apache Tika parses the pages."))
    decision = bb.on_turn(turn(1, "Tika, yes."))
    assert decision.action == "silent"
    assert decision.reason == "generate: no resolvable citation (rollback 1/2)"


def test_malformed_model_output_is_a_silent_reason_not_a_crash(document):
    llm = ScriptedLLM([malformed()])
    decision = make(document, llm).on_turn(turn(0, "Apache Tika parses the pages."))
    assert decision.action == "silent" and decision.reason.startswith("monitor: malformed output")


def test_self_correction_closes_the_claim_and_stays_silent(document):
    llm = ScriptedLLM([
        WRONG,
        QUIET, {"resolved": [{"cid": 1, "by": "S2", "by_sids": [0]}]},
        WRONG,
    ])
    bb = make(document, llm, guard_closes_corrections=False)  # the model's path
    assert bb.on_turn(turn(0, "They run every page through Apache Tika.", "S2")).action == "silent"
    assert "backchannel" in bb.on_turn(turn(1, "Okay.", "S1")).reason
    repair = bb.on_turn(turn(2, "Wait, no, sorry: it's Apache's PDFBox library, not Tika.", "S2"))
    assert repair.action == "silent" and "self-repair closed C1" in repair.reason
    again = bb.on_turn(turn(3, "Hm, I still think it was Tika.", "S1"))
    assert again.action == "silent" and again.reason == "gate: waiting 1/2"
    assert llm.stages() == ["monitor", "monitor", "self_repair", "monitor"]


def test_a_repair_the_monitor_flags_again_closes_without_asking_the_model(document):
    """The repair names the wrong value to reject it, so the monitor reports the claim
    once more; the guard sees the document's value stated and closes it."""
    llm = ScriptedLLM([WRONG, WRONG])
    bb = make(document, llm)
    bb.on_turn(turn(0, "They run every page through Apache Tika.", "S2"))
    repair = bb.on_turn(turn(1, "Actually, no, the paper says Apache's PDFBox library. "
                                "Not Tika.", "S2"))
    assert repair.action == "silent" and "the room fixed C1" in repair.reason
    assert bb.ledger.claims[1].closed_by == "S2"
    assert llm.stages() == ["monitor", "monitor"]


def repaired(document, first: dict, reread: dict, claim: str, repair: str):
    """The turn that raises a claim and the repair turn after it, each read by the
    monitor: the first with ``first``, the repair with ``reread``."""
    llm = ScriptedLLM([first, reread, SPEAK])
    bb = make(document, llm)
    bb.on_turn(turn(0, claim, "S2"))
    return bb, llm, bb.on_turn(turn(1, repair, "S2"))


def test_a_repair_read_with_another_answer_still_fixes_the_claims_first_answer(document):
    """The repair's own verdict rewrites the claim's answer (a value misheard or cut in
    the repair turn); the room stated the answer the claim was opened for, so it is
    fixed: correcting it with the new answer would contradict a correct speaker."""
    reread = dict(WRONG, predicted_answer="conditional random field", answer_sids=[3])
    bb, llm, repair = repaired(document, WRONG, reread,
                               "They run every page through Apache Tika.",
                               "No, sorry, it's Apache's PDFBox library, and Tika for the figures.")
    assert repair.action == "silent" and "the room fixed C1" in repair.reason
    assert bb.ledger.claims[1].answers == ["PDFBox", "conditional random field"]
    assert llm.stages() == ["monitor", "monitor"]


SHARE = ("Membership grew by 12% in the first 2 years of the scheme, and by 30% "
         "once it had run for five years.")


def test_a_repair_to_one_value_of_a_two_value_answer_fixes_the_claim():
    """The first verdict's answer spans both values of the sentence; the repair states
    the one the claim got wrong and mishears the other: the speaker said what the
    document says, so nothing corrects them."""
    document = DocumentIndex(Path("share.pdf"), "1" * 64, "Share", 3,
                             [Sentence(0, SHARE, page=1, rects=((0.0, 0.0, 9.0, 9.0),))])
    wrong = {"status": "incorrect_info", "claim": "membership growth in the first 2 years",
             "answer_sids": [0], "evidence": "grew by 12% in the first 2 years",
             "predicted_answer": "12% in the first 2 years of the scheme, and by 30%"}
    _, _, repair = repaired(document, wrong, dict(wrong, predicted_answer="30%"),
                            "Membership grew by 21% in the first two years, I think.",
                            "No wait, 12%. It grew 12% in the first two years and three. 0% "
                            "by year five.")
    assert repair.action == "silent" and "the room fixed C1" in repair.reason


def test_without_the_setting_the_model_must_propose_the_closure(document):
    llm = ScriptedLLM([WRONG, WRONG, {"resolved": [{"cid": 1, "by": "S2"}]}])
    bb = make(document, llm, guard_closes_corrections=False)
    bb.on_turn(turn(0, "They run every page through Apache Tika.", "S2"))
    repair = bb.on_turn(turn(1, "Actually, no, the paper says Apache's PDFBox library. "
                                "Not Tika.", "S2"))
    assert "self-repair closed C1" in repair.reason
    assert llm.stages() == ["monitor", "monitor", "self_repair"]


def test_a_question_with_the_value_is_no_fix_and_asks_the_model_nothing(document):
    llm = ScriptedLLM([WRONG, WRONG])
    bb = make(document, llm)
    bb.on_turn(turn(0, "They run every page through Apache Tika.", "S2"))
    doubt = bb.on_turn(turn(1, "Or was it Apache's PDFBox library? No, Tika.", "S1"))
    assert doubt.action == "speak"
    assert llm.stages() == ["monitor", "monitor"]


def test_no_self_repair_call_when_the_value_was_never_said(document):
    llm = ScriptedLLM([WRONG, QUIET, WRONG, SPEAK])
    bb = make(document, llm)
    bb.on_turn(turn(0, "They run every page through Apache Tika."))
    bb.on_turn(turn(1, "Font size features matter a lot."))
    decision = bb.on_turn(turn(2, "Tika gives them the tokens."))
    assert decision.action == "speak"
    assert llm.stages() == ["monitor", "monitor", "monitor", "generate"]


def test_a_retraction_asked_as_a_question_keeps_the_claim_open_without_a_call(document):
    """A misattribution closes on a retraction only; one asked as a question is none, so
    the model is not asked whether the room fixed it."""
    absent = {"status": "not_in_paper", "claim": "the A/B test", "answer_sids": []}
    llm = ScriptedLLM([absent, QUIET])
    bb = make(document, llm, screen_turns=None, guard_closes_corrections=False)
    bb.on_turn(turn(0, "They also ran an online A/B test with a 46.5 percent gain."))
    bb.on_turn(turn(1, "Hm, is that not from the other paper?", "S2"))
    assert bb.ledger.claims[1].open
    assert llm.stages() == ["monitor", "monitor"]


def test_no_deference_speaks_on_the_first_actionable_verdict(document):
    llm = ScriptedLLM([WRONG, SPEAK])
    bb = make(document, llm, deference=False)
    decision = bb.on_turn(turn(0, "They run every page through Apache Tika."))
    assert decision.action == "speak" and decision.reason.startswith("no deference")


@pytest.mark.parametrize("heard_closes", [True, False])
def test_delivered_correction_joins_the_transcript_and_resolves_the_claim(document, heard_closes):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK, QUIET])
    bb = make(document, llm, close_heard_claims=heard_closes)
    bb.on_turn(turn(0, "Apache Tika parses the pages."))
    spoken = bb.on_turn(turn(1, "Tika, yes.")).intervention
    bb.on_delivered(spoken, PlaybackReceipt(spoken.id, "finished", 4.0))
    bb.on_delivered(spoken, PlaybackReceipt(spoken.id, "finished", 4.0))  # once only
    assert (bb.ledger.claims[1].closed_by == "agent") is heard_closes
    decision = bb.on_turn(turn(2, "Oh, okay then."))
    assert llm.requests[-1].user.count("Jarvis: About the PDF parser") == 1
    # The agent's own correction is what resolves the claim (without the setting, the
    # guard reads it in the transcript and closes the claim there).
    assert ("the room fixed C1" in decision.reason) is not heard_closes
    assert bb.ledger.claims[1].closed_by == "agent"


NODES = {"status": "missing_info", "claim": "how many paper nodes are left",
         "answer_sids": [2], "predicted_answer": "37M unique paper nodes"}


@pytest.mark.parametrize("heard_closes", [True, False])
def test_a_gap_answer_heard_in_full_needs_no_self_repair_call(document, heard_closes):
    """The model is not asked whether the agent's own answer answered the question."""
    llm = ScriptedLLM([NODES, NODES, QUIET])  # the answer quotes its sentence: no generation
    if not heard_closes:
        llm.queue({"resolved": []})
    bb = make(document, llm, close_heard_claims=heard_closes, detectors=())
    bb.on_turn(turn(0, "How many paper nodes are left after deduplication?"))
    spoken = bb.on_turn(turn(1, "Hm, how many paper nodes are left?", "S2")).intervention
    assert spoken is not None and "37M" in spoken.text
    bb.on_delivered(spoken, PlaybackReceipt(spoken.id, "started", 0.0))
    assert bb.ledger.claims[1].open  # not heard to the end yet
    bb.on_delivered(spoken, PlaybackReceipt(spoken.id, "finished", 4.0))
    bb.on_turn(turn(2, "Right, the paper nodes are what the graph is built on.", "S1"))
    expected = ["monitor", "monitor", "monitor"]
    assert llm.stages() == (expected if heard_closes else [*expected, "self_repair"])
    assert (bb.ledger.claims[1].closed_by == "agent") is heard_closes


def test_an_answer_cut_short_leaves_its_claim_open(document):
    llm = ScriptedLLM([NODES, NODES])
    bb = make(document, llm, detectors=())
    bb.on_turn(turn(0, "How many paper nodes are left after deduplication?"))
    spoken = bb.on_turn(turn(1, "Hm, how many paper nodes are left?", "S2")).intervention
    bb.on_delivered(spoken, PlaybackReceipt(spoken.id, "stopped", 0.4))
    assert bb.ledger.claims[1].open


def test_direct_answer_streams_the_text_and_cites(document):
    llm = ScriptedLLM([{"action": "answer", "text": "It is 37M unique paper nodes.",
                        "quote_sids": [2]}])
    deltas = []
    iv = make(document, llm).answer_direct(turn(5, "How many paper nodes are left?"),
                                           deltas.append)
    assert iv.kind is InterventionKind.DIRECT and iv.intent == "answer"
    assert "".join(d.text for d in deltas) == "It is 37M unique paper nodes."
    assert deltas[-1].final and deltas[-1].citations[0].sid == 2
    assert [d.seq for d in deltas] == list(range(len(deltas)))
    assert iv.text.startswith("It is 37M unique paper nodes. You'll find this on page 4")


@pytest.mark.parametrize("text", ["Hey Jarvis, how many paper nodes are left?",
                                  "Jarvis, go ahead."])
def test_a_turn_addressed_to_jarvis_is_for_the_direct_path_not_the_monitor(document, text):
    """Live, the floor sends the question down the direct path; the turn joins the
    transcript once, and the monitor never judges it."""
    answer = {"action": "answer", "text": "It is 37M unique paper nodes.", "quote_sids": [2]}
    llm = ScriptedLLM([answer])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(4, "The labeling succeeds for most documents."))
    decision = bb.on_turn(turn(5, text, "S2"))
    assert decision.reason == Screened.ADDRESSED and bb.ledger.claims == {}
    bb.answer_direct(turn(5, text, "S2"))
    assert [(line.index, line.text) for line in bb.transcript.lines] == [
        (4, "The labeling succeeds for most documents."), (5, text)]
    assert llm.stages() == ["direct"]
    assert "[Turn 4] S1: The labeling succeeds" in llm.requests[0].user


def test_direct_answer_without_citation_abstains_with_the_fixed_text(document):
    llm = ScriptedLLM([{"action": "answer", "text": "About a minute.", "quote_sids": []}])
    iv = make(document, llm).answer_direct(turn(5, "How long does one PDF take?"))
    assert iv.intent == "abstain" and iv.text == "That isn't covered in the document."
    assert iv.citations == ()


def test_a_direct_reply_is_not_generated_past_the_sentence_limit(document):
    text = ("It is 37M unique paper nodes. That is after deduplication on metadata. "
            "The paper nodes are unique. The labeling succeeds for 76% of the documents.")
    llm = ScriptedLLM([{"quote_sids": [2, 1], "text": text, "action": "answer"}])
    bb = make(document, llm)
    bb.settings = dataclasses.replace(
        bb.settings, utterance=dataclasses.replace(bb.settings.utterance,
                                                   max_sentences_direct=2))
    iv = bb.answer_direct(turn(5, "How many paper nodes are left?"), lambda d: None)
    assert iv.intent == "answer" and "76%" not in iv.text
    assert llm.cut == ["direct"]


def test_a_direct_reply_the_document_does_not_carry_is_cut_and_abstains(document):
    llm = ScriptedLLM([{"quote_sids": [2], "text": "About a minute per PDF on a laptop. "
                        + "It depends on the page count. " * 8, "action": "answer"}])
    iv = make(document, llm).answer_direct(turn(5, "How long does one PDF take?"))
    assert iv.intent == "abstain" and iv.text == "That isn't covered in the document."
    assert llm.cut == ["direct"]


def test_a_complete_direct_reply_is_not_cut(document):
    llm = ScriptedLLM([{"quote_sids": [], "text": "", "action": "abstain"}])
    make(document, llm).answer_direct(turn(5, "How long does one PDF take?"))
    assert llm.cut == []


def test_direct_skip_says_nothing(document):
    llm = ScriptedLLM([{"action": "skip", "text": "", "quote_sids": []}])
    iv = make(document, llm).answer_direct(turn(5, "never mind, scroll up"))
    assert iv.intent == "skip" and iv.text == ""


@pytest.mark.parametrize(("asked", "may_skip"), [
    ("never mind, scroll up", True),
    ("Jarvis, what", True),                                   # not a complete question yet
    ("How many unique paper nodes are left?", False),
    ("Going back to the parser. Which library do they use? I forget.", False),
])
def test_a_complete_question_cannot_be_skipped(document, asked, may_skip):
    llm = ScriptedLLM([{"quote_sids": [], "text": "", "action": "abstain"}])
    iv = make(document, llm).answer_direct(turn(5, asked))
    actions = llm.requests[0].schema["properties"]["action"]["enum"]
    assert ("skip" in actions) is may_skip
    assert list(llm.requests[0].schema["properties"])[0] == "quote_sids"
    assert iv.intent == "abstain" and iv.text == "That isn't covered in the document."
    assert "That isn't covered" not in llm.requests[0].user  # the wording is not suggested


def test_screening_skips_the_monitor_only_where_nothing_is_at_stake(document):
    llm = ScriptedLLM([QUIET, QUIET])
    bb = make(document, llm, screen_turns=None)  # auto: on in focused mode
    quiet = bb.on_turn(turn(0, "Fair enough, the part about pages was clear to me."))
    assert quiet.action == "silent" and quiet.reason == Screened.NOTHING_TO_CHECK
    asked = bb.on_turn(turn(1, "How many unique paper nodes are left after deduplication?"))
    assert asked.reason == "monitor: on_progress"
    reply = bb.on_turn(turn(2, "No idea, honestly.", "S2"))  # the turn after a question
    assert reply.reason == "monitor: on_progress"
    assert llm.stages() == ["monitor", "monitor"]


def test_screening_runs_the_monitor_where_an_open_claim_could_be_resolved(document):
    llm = ScriptedLLM([WRONG, QUIET])
    bb = make(document, llm, screen_turns=None, count_standing_turns=False)
    bb.on_turn(turn(0, "They run every page through Apache Tika to get tokens."))
    chat = bb.on_turn(turn(1, "Let's grab lunch after this.", "S2"))
    assert chat.reason == Screened.OFF_DOCUMENT  # the wrong claim is open, unresolved
    fix = bb.on_turn(turn(2, "Sorry, it's PDFBox they feed each page to.", "S2"))
    assert "the room fixed C1" in fix.reason
    answered = bb.on_turn(turn(3, "Anyway, lunch at noon works for everybody.", "S1"))
    assert answered.reason == Screened.OFF_DOCUMENT
    assert llm.stages() == ["monitor", "monitor"]


# A restatement of TEXTS[0] with the name swapped: the name detector proposes PDFBox.
SWAPPED = "We split each PDF into pages and feed each page to Apache's Tika library to get tokens."


def test_a_screened_turn_right_after_a_waiting_claim_lets_it_stand(document):
    llm = ScriptedLLM([WRONG, SPEAK])
    bb = make(document, llm, screen_turns=None)
    first = bb.on_turn(turn(0, SWAPPED))
    assert first.reason == "gate: waiting 1/2"
    assert bb.on_turn(turn(1, "Mm-hm.", "S3")).reason.startswith("backchannel")
    chat = bb.on_turn(turn(2, "Let's grab lunch after this.", "S2"))
    assert chat.action == "speak"
    assert chat.reason == "gate fired: persistence 2 (turn 2 let C1 stand)"
    assert chat.claim_id == 1 and chat.intervention.citations[0].sid == 0
    assert llm.stages() == ["monitor", "generate"]  # no monitor call on the small talk


OPTIMISER = {"status": "missing_info", "claim": "the optimiser used to train the model",
             "answer_sids": [3], "predicted_answer": ""}
SPEAK_MODEL = {"action": "speak", "text": "The model is a two-layer bidirectional LSTM.",
               "topic": "the model", "source": "", "quote_sids": [3]}


@pytest.mark.parametrize("counted", [True, False])
def test_a_question_answered_with_i_dont_know_is_left_open(document, counted):
    llm = ScriptedLLM([OPTIMISER, SPEAK_MODEL])
    bb = make(document, llm, screen_turns=None, detectors=(), count_unanswered=counted)
    asked = bb.on_turn(turn(0, "What kind of bidirectional LSTM model do they train?"))
    assert asked.reason == "gate: waiting 1/2"
    reply = bb.on_turn(turn(1, "No idea, honestly.", "S2"))
    if counted:
        assert reply.action == "speak" and reply.claim_id == 1
        assert reply.reason == "gate fired: persistence 2 (turn 1 let C1 stand)"
        assert llm.stages() == ["monitor", "generate"]
    else:
        assert reply.reason == Screened.OFF_DOCUMENT and llm.stages() == ["monitor"]


def test_a_reply_giving_up_before_the_questions_verdict_came_counts_with_it(document):
    """Live: the reply is screened while the monitor judges the question."""
    llm = ScriptedLLM([OPTIMISER, SPEAK_MODEL])
    bb = make(document, llm, screen_turns=None, detectors=())
    assert bb.admit_turns([turn(0, "What kind of bidirectional LSTM model do they train?")]) == []
    early = bb.admit_turns([turn(1, "No idea, honestly.", "S2")])
    assert [d.reason for d in early] == [Screened.OFF_DOCUMENT]  # no claim yet
    checked = bb.on_turns([])  # counted as soon as the question's verdict opens the claim
    assert [d.reason for d in checked] == ["gate fired: persistence 2 (turn 1 let C1 stand)"]
    assert llm.stages() == ["monitor", "generate"]


NODES = {"status": "missing_info", "claim": "the number of unique paper nodes",
         "answer_sids": [2], "predicted_answer": "37M"}


def test_a_reply_giving_up_counts_though_a_later_turn_waits_for_its_own_check(document):
    """Live: the question's verdict came after the reply was screened and while more
    turns arrived; a later turn still waiting for its check does not hide the reply."""
    llm = ScriptedLLM([NODES])
    bb = make(document, llm, screen_turns=None, detectors=())
    bb.admit_turns([turn(0, "How many unique paper nodes are left after deduplication?"),
                    turn(1, "No idea, honestly.", "S2")])
    asked = bb.on_turns([], newer=lambda: True)  # turns 2 and 3 came during the call
    assert [(d.turn, d.reason) for d in asked] == [(0, "gate: waiting 1/2")]
    later = bb.admit_turns([turn(2, "Do they put a conditional random field on top?", "S1"),
                            turn(3, "Let's grab lunch after this.", "S3")])
    assert later == [] and bb.waiting == 2
    decided = bb.on_turns([])
    assert [(d.turn, d.action, d.reason) for d in decided] == [
        (2, "silent", "coalesced: checked with turn 3"),
        (3, "speak", "gate fired: persistence 2 (turn 3 let C1 stand)")]
    assert "37M unique paper nodes" in decided[1].intervention.text
    assert llm.stages() == ["monitor"]


def test_a_question_left_unanswered_stands_once_the_batchs_check_ends(document):
    """The batch's call judges the newest turn a detector flagged; the question the
    screened turns before it left unanswered stands once the call ends."""
    llm = ScriptedLLM([NODES, QUIET])
    bb = make(document, llm, screen_turns=None, detectors=(Detector.NAME,))
    bb.admit_turns([turn(0, "How many unique paper nodes are left after deduplication?"),
                    turn(1, "No idea, honestly.", "S2")])
    bb.on_turns([], newer=lambda: True)
    bb.admit_turns([turn(2, SWAPPED, "S1"), turn(3, "Let's grab lunch after this.", "S3")])
    decided = bb.on_turns([])
    assert [(d.turn, d.action, d.reason) for d in decided] == [
        (2, "speak", "gate fired: persistence 2 (turn 3 let C1 stand)"),
        (3, "silent", "coalesced: checked with turn 2")]
    assert "37M unique paper nodes" in decided[0].intervention.text
    assert llm.stages() == ["monitor", "monitor"]


def test_a_turn_after_the_reply_that_gives_the_answer_keeps_the_question_from_standing(
        document):
    fixed = {"resolved": [{"cid": 1, "by": "S3", "by_sids": [2]}]}
    llm = ScriptedLLM([NODES, QUIET, fixed])
    bb = make(document, llm, screen_turns=None, detectors=())
    bb.admit_turns([turn(0, "How many unique paper nodes are left after deduplication?"),
                    turn(1, "No idea, honestly.", "S2")])
    bb.on_turns([], newer=lambda: True)
    later = bb.admit_turns([turn(2, "It's 37M unique paper nodes, I just found it.", "S3"),
                            turn(3, "Let's grab lunch after this.", "S1")])
    assert later == [] and all(w.standing is None for w in bb._waiting)
    decided = bb.on_turns([])
    assert [d.action for d in decided] == ["silent", "silent"]
    assert bb.ledger.claims[1].closed_by == "S3"
    assert llm.stages() == ["monitor", "monitor", "self_repair"]


@pytest.mark.parametrize(("counted", "reason", "stages"), [
    (True, "gate fired: persistence 2 (turn 1 let C1 stand)", ["monitor"]),
    (False, "gate fired: persistence 2", ["monitor", "monitor"]),  # the model judges it
])
def test_a_reply_the_open_question_detector_flags_counts_without_the_model(
        document, counted, reason, stages):
    """The detector's hit on the reply ("it leaves the question open") is the reply's
    own report: once the monitor judged the question, no second call is needed."""
    llm = ScriptedLLM([NODES, NODES])
    bb = make(document, llm, screen_turns=None, count_unanswered=counted)
    asked = bb.on_turn(turn(0, "How many unique paper nodes are left after deduplication?"))
    assert asked.reason == "gate: waiting 1/2"
    reply = bb.on_turn(turn(1, "I don't remember the number.", "S2"))
    assert (reply.action, reply.reason, reply.claim_id) == ("speak", reason, 1)
    assert "37M unique paper nodes" in reply.intervention.text  # the sentence, quoted
    assert llm.stages() == stages


def test_a_reply_flagged_before_the_question_was_judged_goes_to_the_model(document):
    llm = ScriptedLLM([QUIET, NODES])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, "How many unique paper nodes are left after deduplication?"))
    reply = bb.on_turn(turn(1, "I don't remember the number.", "S2"))
    assert reply.reason == "gate: waiting 1/2"  # raised by the monitor on the reply
    assert llm.stages() == ["monitor", "monitor"]


def test_a_reply_giving_up_in_the_questions_batch_waits_for_its_verdict(document):
    """Live, the question and its reply queue up behind a call: the reply's give-up is
    no news for the model, and counts as soon as the question's verdict opens the claim."""
    llm = ScriptedLLM([NODES])
    bb = make(document, llm, screen_turns=None)
    early = bb.admit_turns([turn(0, "How many unique paper nodes are left after deduplication?"),
                            turn(1, "I don't remember the number.", "S2")])
    assert [d.reason for d in early] == [Screened.OFF_DOCUMENT]  # no call of its own
    checked = bb.on_turns([])
    assert [(d.turn, d.reason) for d in checked] == [
        (0, "gate fired: persistence 2 (turn 1 let C1 stand)")]
    assert llm.stages() == ["monitor"]  # the covering sentence is quoted


def test_a_reply_giving_up_on_a_question_the_monitor_keeps_open_counts_nothing(document):
    llm = ScriptedLLM([QUIET])
    bb = make(document, llm, screen_turns=None)
    bb.admit_turns([turn(0, "How many unique paper nodes are left after deduplication?"),
                    turn(1, "I don't remember the number.", "S2")])
    assert [d.reason for d in bb.on_turns([])] == ["monitor: on_progress"]
    assert bb.ledger.open_claims() == [] and llm.stages() == ["monitor"]


# The monitor's value lets the guard see that the turns after the question fix nothing.
MODEL_KIND = dict(OPTIMISER, claim="the kind of model trained",
                  predicted_answer="a two-layer bidirectional LSTM")


@pytest.mark.parametrize(("going_on", "reply"), [
    # Endpointing cut the asker's question in two: its second half is no reply.
    ([("S1", "Any idea?")], ["No idea, honestly."]),
    # ... or cut the reply in two, the giving up in its second turn.
    ([], ["Hm, I'd have to check, I", "can't say. Let's keep going."]),
])
def test_a_question_left_open_in_turns_cut_by_endpointing(document, going_on, reply):
    llm = ScriptedLLM([MODEL_KIND, SPEAK_MODEL])
    bb = make(document, llm, screen_turns=None, detectors=())
    bb.on_turn(turn(0, "What kind of bidirectional LSTM model do they train?"))
    lines = [*going_on, *(("S2", text) for text in reply)]
    decisions = [bb.on_turn(turn(i, text, speaker)) for i, (speaker, text)
                 in enumerate(lines, start=1)]
    assert [d.action for d in decisions] == ["silent"] * (len(lines) - 1) + ["speak"]
    assert decisions[-1].reason.endswith(f"(turn {len(lines)} let C1 stand)")
    assert llm.stages() == ["monitor", "generate"]


def test_a_give_up_two_replies_late_leaves_nothing_open(document):
    """Only the reply counts, not a later turn that gives up on something else."""
    llm = ScriptedLLM([MODEL_KIND])
    bb = make(document, llm, screen_turns=None, detectors=())
    bb.on_turn(turn(0, "What kind of bidirectional LSTM model do they train?"))
    for i, text in enumerate(["Let's grab lunch after this.", "Noon works for me.",
                              "No idea, honestly."], start=1):
        assert bb.on_turn(turn(i, text, "S2")).action == "silent"
    assert bb.ledger.claims[1].persistence == 1 and llm.stages() == ["monitor"]


@pytest.mark.parametrize("reply", [
    "Let's grab lunch after this.",  # small talk: no sign the question was heard
    "No idea, do you know?",  # a question back keeps the question going
])
def test_only_a_reply_that_gives_up_leaves_a_question_open(document, reply):
    llm = ScriptedLLM([OPTIMISER, QUIET, {"resolved": []}])
    bb = make(document, llm, screen_turns=None, detectors=())
    bb.on_turn(turn(0, "What kind of bidirectional LSTM model do they train?"))
    decision = bb.on_turn(turn(1, reply, "S2"))
    assert decision.action == "silent" and "stand" not in decision.reason
    assert bb.ledger.claims[1].persistence == 1


@pytest.mark.parametrize(("counted", "reason", "stages"), [
    (True, "gate fired: persistence 2 (turn 1 restated C1)", ["monitor", "generate"]),
    (False, "gate fired: persistence 2", ["monitor", "monitor", "generate"]),
])
def test_a_turn_saying_a_confirmed_claim_again_counts_without_the_model(
        document, counted, reason, stages):
    llm = ScriptedLLM([WRONG, WRONG, SPEAK] if not counted else [WRONG, SPEAK])
    bb = make(document, llm, screen_turns=None, count_restated=counted)
    assert bb.on_turn(turn(0, SWAPPED)).reason == "gate: waiting 1/2"
    again = bb.on_turn(turn(1, "Yes, " + SWAPPED, "S2"))
    assert (again.action, again.reason, again.claim_id) == ("speak", reason, 1)
    assert bb.ledger.claims[1].raised_turns == [0, 1]
    assert llm.stages() == stages


@pytest.mark.parametrize("said", [
    "So do they feed each page to Apache's Tika library to get tokens?",  # asks about it
    "We split each PDF into pages and feed each page to Apache's PDFBox library, not the "
    "Tika library, to get tokens.",  # the fix
])
def test_a_repetition_that_asks_or_fixes_goes_to_the_monitor(document, said):
    llm = ScriptedLLM([WRONG, QUIET, {"resolved": []}])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, SWAPPED))
    decision = bb.on_turn(turn(1, said, "S2"))
    assert "restated" not in decision.reason
    assert llm.stages()[:2] == ["monitor", "monitor"]


def test_only_the_turn_right_after_the_claim_lets_it_stand(document):
    llm = ScriptedLLM([WRONG, SPEAK])
    bb = make(document, llm, screen_turns=None, patience=Patience.DEFERENT)  # tau 3
    bb.on_turn(turn(0, SWAPPED))
    second = bb.on_turn(turn(1, "Let's grab lunch after this.", "S2"))
    assert second.reason == "gate: waiting 2/3 (turn 1 let C1 stand)"
    third = bb.on_turn(turn(2, "Noon works for everybody.", "S1"))
    assert third.reason == "gate fired: persistence 3 (turn 2 let C1 stand)"
    assert llm.stages() == ["monitor", "generate"]


def test_a_monitored_turn_about_something_else_lets_the_claim_stand(document):
    llm = ScriptedLLM([WRONG, QUIET, SPEAK])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, SWAPPED))
    judged = bb.on_turn(turn(1, "The paper says the model is a two-layer LSTM.", "S2"))
    assert judged.reason == "gate fired: persistence 2 (turn 1 let C1 stand)"
    assert judged.claim_id == 1 and judged.intervention.citations[0].sid == 0
    assert llm.stages() == ["monitor", "monitor", "generate"]


def test_a_monitored_turn_that_raises_another_claim_lets_the_first_stand(document):
    other = {"status": "missing_info", "claim": "how many paper nodes are left",
             "answer_sids": [2], "predicted_answer": "37M", "evidence": ""}
    llm = ScriptedLLM([WRONG, other, SPEAK])
    bb = make(document, llm, patience=Patience.DEFERENT)  # tau 3: nothing fires yet
    bb.on_turn(turn(0, SWAPPED))
    asked = bb.on_turn(turn(1, "How many paper nodes are left after deduplication?", "S2"))
    assert asked.reason == "gate: waiting 2/3 (turn 1 let C1 stand)"
    assert bb.ledger.claims[2].persistence == 1 and bb.ledger.claims[1].persistence == 2
    assert llm.stages() == ["monitor", "monitor"]


def test_a_value_the_raising_turn_echoes_does_not_keep_the_claim_from_standing(document):
    """The document's value shares most words with the wrong claim (a swapped name in a
    copied phrase): the turn that raised it carries the value, yet cannot fix it, so the
    next turn lets the claim stand without a self-repair call."""
    echoed = dict(WRONG, predicted_answer="feed each page to Apache's PDFBox library")
    said = dict(SPEAK, text="They feed each page to Apache's PDFBox library [S0], not Tika.")
    llm = ScriptedLLM([echoed, QUIET, said])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, SWAPPED))
    judged = bb.on_turn(turn(1, "The paper says the model is a two-layer LSTM.", "S2"))
    assert judged.reason == "gate fired: persistence 2 (turn 1 let C1 stand)"
    assert llm.stages() == ["monitor", "monitor", "generate"]


def test_a_verdict_on_the_claim_is_not_a_turn_that_lets_it_stand(document):
    settled = dict(WRONG, status="on_progress")  # the monitor now finds nothing wrong
    llm = ScriptedLLM([WRONG, settled])
    bb = make(document, llm)
    bb.on_turn(turn(0, SWAPPED))
    judged = bb.on_turn(turn(1, "The paper says the model is a two-layer LSTM.", "S2"))
    assert judged.reason == "monitor: on_progress" and judged.claim_id == 1
    assert bb.ledger.claims[1].persistence == 0 and llm.stages() == ["monitor", "monitor"]


def test_a_claim_of_the_monitors_alone_is_not_let_stand_by_a_monitored_turn(document):
    llm = ScriptedLLM([WRONG, QUIET])
    bb = make(document, llm)
    bb.on_turn(turn(0, "They run every page through Apache Tika to get tokens."))
    judged = bb.on_turn(turn(1, "The paper says the model is a two-layer LSTM.", "S2"))
    assert judged.reason == "monitor: on_progress"
    assert bb.ledger.claims[1].persistence == 1


def test_turns_screened_before_the_verdict_came_let_the_claim_stand_too(document):
    """Live, small talk arrives while the monitor judges the claim's turn."""
    llm = ScriptedLLM([WRONG, SPEAK])
    bb = make(document, llm, screen_turns=None)
    assert bb.admit_turns([turn(0, SWAPPED)]) == []
    early = bb.admit_turns([turn(1, "Let's grab lunch after this.", "S2"),
                            turn(2, "Noon works for everybody.", "S3")])
    assert [d.reason for d in early] == [Screened.OFF_DOCUMENT] * 2  # no claim yet
    # They count once the verdict opens the claim, not when the next turn comes.
    checked = bb.on_turns([])
    assert [d.reason for d in checked] == ["gate fired: persistence 2 (turn 2 let C1 stand)"]
    assert checked[0].turn == 0 and checked[0].claim_id == 1
    assert bb.ledger.claims[1].stood_turns == [2]
    assert llm.stages() == ["monitor", "generate"]


def test_a_turn_screened_before_the_verdict_that_fixes_the_claim_lets_nothing_stand(document):
    """Screened before the claim was open, the fix is read by the guard once it is."""
    llm = ScriptedLLM([WRONG, QUIET])
    bb = make(document, llm, screen_turns=None)
    bb.admit_turns([turn(0, SWAPPED)])
    early = bb.admit_turns([turn(1, "Oh wait, no, they feed each page to PDFBox.", "S1")])
    assert [d.reason for d in early] == [Screened.NOTHING_TO_CHECK]
    checked = bb.on_turns([])
    assert [d.action for d in checked] == ["silent"] and "stand" not in checked[0].reason
    assert bb.ledger.claims[1].closed_by == "S1"  # the guard closed it instead
    assert llm.stages() == ["monitor"]


def test_turns_screened_before_the_verdict_stand_only_with_standing_counted(document):
    llm = ScriptedLLM([WRONG])
    bb = make(document, llm, screen_turns=None, count_standing_turns=False)
    bb.admit_turns([turn(0, SWAPPED)])
    bb.admit_turns([turn(1, "Let's grab lunch after this.", "S2")])
    assert [d.reason for d in bb.on_turns([])] == ["gate: waiting 1/2"]


def test_a_turn_that_could_fix_the_claim_is_judged_not_counted(document):
    llm = ScriptedLLM([WRONG, QUIET, {"resolved": []}])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, SWAPPED))
    fix = bb.on_turn(turn(1, "Hm, I think it was PDFBox they feed each page to.", "S2"))
    assert "let C1 stand" not in fix.reason and fix.action == "silent"
    assert llm.stages()[:2] == ["monitor", "monitor"]


def test_a_claim_settled_while_its_standing_turn_waited_is_left_alone(document):
    from app.backbone.harness import _Waiting

    llm = ScriptedLLM([WRONG])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(0, SWAPPED))
    claim = bb.ledger.claims[1]
    bb.ledger.close(1, 1, "S2")
    decision = bb._check(_Waiting(2, "Noon works.", [], [], {}, standing=claim))
    assert decision.reason == "C1 settled before turn 2" and claim.persistence == 0
    assert llm.stages() == ["monitor"]


def test_a_claim_of_the_monitors_alone_needs_a_second_verdict(document):
    llm = ScriptedLLM([WRONG])
    bb = make(document, llm, screen_turns=None)
    first = bb.on_turn(turn(0, "They run every page through Apache Tika to get tokens."))
    assert first.reason == "gate: waiting 1/2"  # no detector proposed it
    assert bb.on_turn(turn(1, "Let's grab lunch after this.", "S2")).reason == (
        Screened.OFF_DOCUMENT)
    assert llm.stages() == ["monitor"]


def test_without_the_setting_small_talk_never_counts(document):
    llm = ScriptedLLM([WRONG])
    bb = make(document, llm, screen_turns=None, count_standing_turns=False)
    bb.on_turn(turn(0, SWAPPED))
    assert bb.on_turn(turn(1, "Let's grab lunch after this.", "S2")).reason == (
        Screened.OFF_DOCUMENT)
    assert llm.stages() == ["monitor"]


def test_screening_is_off_in_full_mode(document):
    llm = ScriptedLLM([QUIET])
    bb = make(document, llm, mode=ContextMode.FULL, screen_turns=None)
    assert bb.on_turn(turn(0, "Fair enough, that part was clear.")).reason == "monitor: on_progress"


def test_checked_correction_must_carry_the_documents_value(document):
    # grounded in S0, but without the value the correction is about
    wrong_text = dict(SPEAK, text="They feed each page to a library to get tokens.")
    llm = ScriptedLLM([WRONG, WRONG, wrong_text])
    bb = make(document, llm)
    bb.on_turn(turn(0, "Apache Tika parses the pages."))
    decision = bb.on_turn(turn(1, "Tika, yes."))
    assert decision.action == "silent" and "value is missing" in decision.reason
    # The value was verified in the cited sentence, so the reply could not abstain.
    assert llm.requests[-1].schema["properties"]["action"]["enum"] == ["speak"]


@pytest.mark.parametrize(
    ("question", "reply", "cited"),
    [
        # the model cites the wrong sentence: the one that carries the text is cited
        ("How many paper nodes are left after deduplication?",
         {"action": "answer", "text": "Deduplication leaves 37M unique paper nodes.",
          "quote_sids": [3]}, (2,)),
        # the model's own citation carries it
        ("Which library parses the PDFs?",
         {"action": "answer", "text": "They use Apache's PDFBox library.", "quote_sids": [0]},
         (0,)),
    ],
)
def test_direct_answer_cites_the_sentence_that_carries_it(document, question, reply, cited):
    iv = make(document, ScriptedLLM([reply])).answer_direct(turn(5, question))
    assert iv.intent == "answer"
    assert tuple(c.sid for c in iv.citations) == cited


@pytest.mark.parametrize(
    "text",
    [
        "Deduplication leaves 14M unique paper nodes.",  # a number no sentence gives
        "The incubation period is two weeks.",  # nothing in the document carries it
    ],
)
def test_direct_answer_no_sentence_carries_is_not_spoken(document, text):
    llm = ScriptedLLM([{"action": "answer", "text": text, "quote_sids": [2]}])
    iv = make(document, llm).answer_direct(turn(5, "How many paper nodes are left?"))
    assert iv.intent == "abstain" and iv.text == "That isn't covered in the document."


NODES_Q = ("Right, so they dedupe on string similarity of the metadata. How many unique paper "
           "nodes does that leave them with?")
UNNAMED = {"status": "incorrect_info", "claim": ""}  # the small model's usual gap verdict
SPEAK_GAP = {"action": "speak", "text": "Deduplication leaves 37M unique paper nodes [S2].",
             "topic": "the paper node count", "source": "", "quote_sids": [2]}


def test_question_left_open_by_the_reply_is_answered_with_a_citation(document):
    llm = ScriptedLLM([UNNAMED, QUIET, SPEAK_GAP])
    bb = make(document, llm)
    asked = bb.on_turn(turn(10, NODES_Q))
    reply = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    assert (asked.action, asked.reason) == ("silent", "gate: waiting 1/2")
    assert asked.claim == NODES_Q.split(". ")[1]
    assert (reply.action, reply.reason) == ("speak", "gate fired: persistence 2")
    iv = reply.intervention
    assert iv.intent == "missing" and [c.sid for c in iv.citations] == [2]
    assert "37M" in iv.text
    assert llm.stages() == ["monitor", "monitor", "generate"]
    assert "[S2]" in llm.requests[1].user  # the question's sentence, not the reply's hits


def test_question_answered_by_the_reply_is_closed_not_counted(document):
    llm = ScriptedLLM([UNNAMED, QUIET, {"resolved": [{"cid": 1, "by": "S2", "by_sids": [2]}]}])
    bb = make(document, llm)
    bb.on_turn(turn(10, NODES_Q))
    reply = bb.on_turn(turn(11, "37 million, the deduplication leaves 37M paper nodes.", "S2"))
    assert reply.action == "silent" and "self-repair closed C1" in reply.reason
    assert llm.stages() == ["monitor", "monitor", "self_repair"]


def test_a_gap_whose_generation_abstained_is_tried_once_more_next_turn(document):
    abstain = {"action": "abstain", "text": "", "topic": "", "quote_sids": []}
    unresolved = {"resolved": []}
    llm = ScriptedLLM([UNNAMED, abstain, QUIET, unresolved, SPEAK_GAP, QUIET, unresolved])
    bb = make(document, llm, screen_turns=None)
    bb.on_turn(turn(10, NODES_Q))
    reply = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    assert reply.action == "silent" and "rollback 1/2" in reply.reason
    retry = bb.on_turn(turn(12, "Fair enough, that part was clear to me.", "S1"))
    assert retry.action == "speak" and "37M" in retry.intervention.text
    after = bb.on_turn(turn(13, "Fair enough, the rest was clear to me.", "S1"))
    assert after.action == "silent"  # spoken: nothing left to retry
    # The reply that gives up counts without a monitor call of its own.
    assert llm.stages() == ["monitor", "generate", "monitor", "self_repair", "generate",
                            "monitor", "self_repair"]


def _gap_generation(document, generated: dict, guess: str = "about 40 million",
                    guess_sids: tuple[int, ...] = (), quote: bool = True):
    """The question, a reply that leaves it open (the detector finds S2), the monitor's
    guessed value and this generation reply; returns the reply turn's decision and the
    last request (the generate request, unless the answer was quoted)."""
    verdict = {"status": "incorrect_info", "claim": "", "predicted_answer": guess,
               "answer_sids": list(guess_sids)}
    llm = ScriptedLLM([UNNAMED, verdict, generated])
    bb = make(document, llm)
    bb.intervener.settings = bb.settings = dataclasses.replace(
        bb.settings, utterance=dataclasses.replace(bb.settings.utterance,
                                                   quote_checked_values=quote))
    bb.on_turn(turn(10, NODES_Q))
    decision = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    return decision, llm.requests[-1]


def test_an_open_question_the_detector_answers_cannot_abstain(document):
    decision, request = _gap_generation(document, SPEAK_GAP)
    assert decision.action == "speak" and [c.sid for c in decision.intervention.citations] == [2]
    assert request.stage == "generate"
    assert request.schema["properties"]["action"]["enum"] == ["speak"]
    # the model's guessed value is not in the document: the prompt names the sentence
    assert "about 40 million" not in request.user
    assert "with the facts of S2" in request.user


@pytest.mark.parametrize(("text", "quote"), [
    ("How many unique paper nodes does that leave them with?", ""),  # the question read back
    ("They end up with roughly fifty thousand author clusters.", ""),  # no sentence says it
    # from another sentence the model was shown, cited to it
    ("The labeling process succeeds for 76% of the documents.", ""),
    # from the answer sentence, but not the count asked for: the sentence is said instead
    ("Deduplication relies on metadata string similarity.", "The document says: " + TEXTS[2]),
    # the answer's value wrapped in the model's own guesses: the sentence is said instead
    ("It was 37M nodes, which was probably after a long manual cleaning of the whole "
     "corpus by annotators over several months.", "The document says: " + TEXTS[2]),
])
def test_a_forced_answer_must_come_from_the_answer_sentence(document, text, quote):
    decision, _ = _gap_generation(document, {**SPEAK_GAP, "text": text, "quote_sids": [1, 2]},
                                  guess_sids=(1,))
    if not quote:
        assert decision.action == "silent"
        assert decision.reason.startswith("generate: the answer is not in the answer sentence")
    else:
        iv = decision.intervention
        assert decision.action == "speak" and quote[:-1].lower() in iv.text.lower()
        assert [c.sid for c in iv.citations] == [2] and iv.values == ("37M",)


def test_a_guessed_value_from_another_sentence_is_not_required_of_the_answer(document):
    # "76%" is in S1, a sentence next to the question's topic, not in the answer sentence
    decision, request = _gap_generation(document, SPEAK_GAP, guess="76%", guess_sids=(1,))
    assert decision.action == "speak" and "37M" in decision.intervention.text
    assert "[S1]" in request.user and "76%" not in request.user.split("TASK generate")[1]


def test_a_checked_value_that_is_not_the_count_asked_for_gives_the_whole_sentence(document):
    # The monitor's value is in the answer sentence, but it is not how many nodes.
    reply = {**SPEAK_GAP, "text": "The document says deduplication is on metadata."}
    decision, request = _gap_generation(document, reply, guess="Deduplication on metadata",
                                        guess_sids=(2,), quote=False)
    assert "document value: Deduplication on metadata" in request.user
    assert decision.action == "speak" and "37M unique paper nodes" in decision.intervention.text


def test_a_checked_value_is_said_as_the_answer_sentence_without_the_model(document):
    decision, request = _gap_generation(document, SPEAK_GAP, guess="37M unique paper nodes",
                                        guess_sids=(2,))
    assert request.stage == "monitor"  # no generate call
    assert decision.action == "speak"
    assert decision.intervention.text.startswith(f"The document says: {TEXTS[2]} You'll find")
    assert [c.sid for c in decision.intervention.citations] == [2]


def test_a_checked_value_in_a_sentence_about_something_else_is_written_by_the_model(document):
    """The value sits in the sentence, but the sentence shares no words with the question:
    the model writes the answer, and its checks decide whether it is said."""
    llm = ScriptedLLM([{"status": "missing_info", "claim": "how the pages are split",
                        "predicted_answer": "37M", "answer_sids": [2, 0]}, SPEAK])
    bb = make(document, llm, patience=Patience.ENTHUSIASTIC)
    bb.on_turn(turn(0, "How do they split the pages of each PDF?"))
    assert llm.stages() == ["monitor", "generate"]


def test_an_unchecked_guess_is_still_written_by_the_model(document):
    decision, request = _gap_generation(document, SPEAK_GAP)  # "about 40 million"
    assert request.stage == "generate" and decision.action == "speak"


def test_a_direct_question_lists_only_the_sentences_its_context_lines_lack(document):
    answer = {"action": "answer", "text": "It is 37M unique paper nodes.", "quote_sids": [2]}
    llm = ScriptedLLM([QUIET, answer])
    bb = make(document, llm)
    bb.on_turn(turn(0, "So the dedup leaves 37M unique paper nodes, from the metadata."))
    bb.answer_direct(turn(1, "Jarvis, how many unique paper nodes are left after dedup?"))
    monitor, direct = (r.user for r in llm.requests)
    assert "  [S2] " in monitor
    assert direct.count("  [S2] ") == 1  # under turn 0, where the monitor call showed it
    assert direct.index("  [S2] ") < direct.index("TASK direct")
    assert direct.startswith(monitor.split("TASK")[0])  # the cached text, as it was


@pytest.mark.parametrize("quote", [True, False])
def test_an_open_question_the_answer_sentence_covers_is_answered_by_quote(document, quote):
    verdict = {"status": "incorrect_info", "claim": "", "predicted_answer": "about 40 million"}
    llm = ScriptedLLM([UNNAMED, verdict, *([] if quote else [SPEAK_GAP])])
    bb = make(document, llm, quote_direct=True)
    bb.intervener.settings = bb.settings = dataclasses.replace(
        bb.settings, utterance=dataclasses.replace(bb.settings.utterance,
                                                   quote_open_questions=quote,
                                                   quote_covering_answers=quote))
    bb.on_turn(turn(10, NODES_Q))
    decision = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    assert decision.action == "speak" and [c.sid for c in decision.intervention.citations] == [2]
    if quote:  # the question's words are in S2, which gives a count: no generation call
        assert llm.stages() == ["monitor", "monitor"]
        assert decision.intervention.text.startswith(f"The document says: {TEXTS[2]} You'll")
    else:
        assert llm.stages() == ["monitor", "monitor", "generate"]


@pytest.mark.parametrize(("covering", "stages"), [
    (True, ["monitor", "monitor"]),
    (False, ["monitor", "monitor", "generate"]),
])
def test_an_answer_sentence_that_passes_the_answer_check_is_said_without_the_model(
        document, covering, stages):
    """S3 holds 3 of the 4 words of the question the document uses: under the direct
    path's 0.8 for a "what" question, over the answer check's 0.6; the forced answer
    could only say S3's facts."""
    verdict = {"status": "incorrect_info", "claim": "", "predicted_answer": ""}
    llm = ScriptedLLM([UNNAMED, verdict, SPEAK_MODEL])
    bb = make(document, llm, quote_direct=True)
    bb.intervener.settings = bb.settings = dataclasses.replace(
        bb.settings, utterance=dataclasses.replace(bb.settings.utterance,
                                                   quote_covering_answers=covering))
    bb.on_turn(turn(10, "What kind of bidirectional LSTM model do they train?"))
    decision = bb.on_turn(turn(11, "Oh, um... I honestly don't remember.", "S2"))
    assert llm.stages() == stages
    assert decision.action == "speak" and [c.sid for c in decision.intervention.citations] == [3]
    if covering:
        assert decision.intervention.text.startswith(f"The document says: {TEXTS[3]}")


def test_an_answer_line_without_a_verb_is_put_into_a_sentence_by_the_model(document):
    """S2 counts the paper nodes the question counts (the answer check passes it), but
    reads as a line without a verb: the model says it."""
    verdict = {"status": "incorrect_info", "claim": "", "predicted_answer": "about 40 million"}
    llm = ScriptedLLM([UNNAMED, verdict, SPEAK_GAP])
    bb = make(document, llm, quote_direct=True)
    bb.on_turn(turn(10, "After all that cleaning by hand, how many paper nodes did the team "
                        "end up keeping for the final release?"))
    decision = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    assert llm.stages() == ["monitor", "monitor", "generate"]
    assert decision.action == "speak" and "37M" in decision.intervention.text


def test_an_answer_sentence_the_answer_check_rejects_is_not_quoted(document):
    verdict = {"status": "incorrect_info", "claim": "", "predicted_answer": "about 40 million"}
    llm = ScriptedLLM([UNNAMED, verdict, SPEAK_GAP])
    bb = make(document, llm, quote_direct=True)
    bb.on_turn(turn(10, "After all that cleaning by hand, which paper nodes did the team "
                        "end up keeping for the final release?"))  # no count asked
    decision = bb.on_turn(turn(11, "Oh, um... I honestly don't remember the number.", "S2"))
    assert decision.action == "silent", decision.reason
    assert decision.reason.startswith("answer check: the given sentences hold")


def test_a_checked_correction_is_said_as_the_documents_sentence_without_the_model(document):
    llm = ScriptedLLM([WRONG, WRONG])
    bb = make(document, llm, quote_direct=True)
    bb.on_turn(turn(19, "They run every page through Apache Tika to get tokens."))
    decision = bb.on_turn(turn(20, "Right, Tika, and the font features get normalised.", "S2"))
    assert decision.action == "speak" and llm.stages() == ["monitor", "monitor"]
    assert decision.intervention.text.startswith(f"Actually, the document says: {TEXTS[0]}")
    assert [c.sid for c in decision.intervention.citations] == [0]


STUDY = ("In a carefully designed user study with 40 participants who annotated tweets over "
         "three separate sessions in two weeks, the curricula reduced the annotation time "
         "considerably compared to random orders.")


def test_a_correction_from_a_long_sentence_is_said_as_the_value_set_against_the_rooms():
    sentences = [Sentence(0, STUDY, page=2, rects=((10.0, 20.0, 300.0, 32.0),))]
    study = DocumentIndex(Path("study.pdf"), "1" * 64, "Study", 3, sentences)
    verdict = {"status": "incorrect_info", "claim": "the number of participants",
               "answer_sids": [0], "predicted_answer": "40", "evidence": "60 participants"}
    llm = ScriptedLLM([verdict, SPEAK])
    bb = make(study, llm, quote_direct=True)
    bb.on_turn(turn(0, "Their user study had 60 participants who annotated tweets."))
    decision = bb.on_turn(turn(1, "Yes, 60 participants, over three sessions.", "S2"))
    assert decision.action == "speak" and llm.stages() == ["monitor"]  # restated
    text = decision.intervention.text
    assert text.startswith("Actually, the document says") and "40" in text
    assert len(text.split(" You'll find")[0].split()) <= 25
