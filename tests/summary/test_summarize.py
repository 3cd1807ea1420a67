"""The summary's flow with scripted model replies: map each part to points and action
items, reduce the notes, and keep only what the cited turns carry."""

from __future__ import annotations

import threading

import pytest

from app.summary.chunking import chunk_turns
from app.summary.grounding import ActionItem
from app.summary.meeting import clean_transcript, read_meeting
from app.summary.settings import SummarySettings
from app.summary.summarize import SummaryCancelled, summarize
from tests.backbone.scripted import ScriptedLLM
from tests.summary.meetings import write_record

POINTS = {"points": [
    {"kind": "discussed", "text": "Maya said top floor flats were about two degrees cooler on "
     "the hottest afternoons.", "turns": [1]},
    {"kind": "discussed", "text": "Ken said planted roofs were only on twelve buildings, a "
     "small sample.", "turns": [3]},
    {"kind": "decided", "text": "The council approved the budget for next year.", "turns": [0]},
]}
ACTIONS = {"actions": [
    {"who": "Maya", "what": "send the cost figures to the council", "when": "by Friday",
     "turn": 6},
    {"who": "Priya", "what": "book a room", "when": "", "turn": 6},
]}


@pytest.fixture
def meeting(tmp_path):
    return read_meeting(write_record(tmp_path))


def test_action_items_are_extracted_with_their_source_turn(meeting):
    llm = ScriptedLLM([POINTS, ACTIONS])
    summary = summarize(meeting, llm)
    assert summary.actions == (
        ActionItem("Maya", "send the cost figures to the council", "by Friday", 6),)
    assert llm.stages() == ["summary_points", "summary_actions"]  # one part: no reduce
    assert "Participants: Alex, Maya, Ken" in llm.requests[1].user
    # Both calls of a part share its transcript as the cached prefix.
    assert llm.requests[0].system == llm.requests[1].system
    assert "[Turn 6] Alex: Maya will send the cost figures" in llm.requests[0].system


def test_only_statements_the_cited_turns_carry_are_kept(meeting):
    summary = summarize(meeting, ScriptedLLM([POINTS, ACTIONS]))
    assert [(p.kind, p.turns) for p in summary.points] == [("discussed", (1,)),
                                                            ("discussed", (3,))]
    assert summary.written == 5
    assert [text for text, _ in summary.dropped] == [
        "The council approved the budget for next year.", "Priya book a room"]
    assert summary.supported_share == pytest.approx(3 / 5)


def test_the_model_reads_the_cleaned_transcript(meeting):
    llm = ScriptedLLM([POINTS, ACTIONS])
    summary = summarize(meeting, llm)
    assert "Yeah." not in llm.requests[0].system  # the backchannel turn
    assert "Um," not in llm.requests[0].system
    assert [t.index for t in summary.transcript] == [0, 1, 3, 4, 5, 6, 7]


def test_a_long_meeting_is_mapped_in_parts_then_reduced(meeting):
    s = SummarySettings(chunk_tokens=60)
    chunks = chunk_turns(clean_transcript(meeting.turns), 60)
    assert [c.turns for c in chunks] == [(0, 1), (3, 4, 5), (6, 7)]
    combined = {"points": [
        {"kind": "discussed", "text": "Top floor flats were about two degrees cooler, but the "
         "sample was small: twelve buildings.", "turns": [1, 3]},
        {"kind": "decided", "text": "The group will install solar panels.", "turns": [3]},
    ]}
    llm = ScriptedLLM([{"points": [POINTS["points"][0]]}, {"actions": []},
                       {"points": [POINTS["points"][1]]}, {"actions": []},
                       {"points": []}, ACTIONS, combined])
    steps: list[tuple[int, int]] = []
    summary = summarize(meeting, llm, s, progress=lambda d, t, _w: steps.append((d, t)))
    assert llm.stages() == ["summary_points", "summary_actions"] * 3 + ["summary_combine"]
    for request, chunk in zip(llm.requests[:6:2], chunks, strict=True):
        assert request.system.endswith(chunk.text + "\n")
    assert llm.requests[-1].user == (
        "NOTES:\n- (discussed; turns 1) Maya said top floor flats were about two degrees "
        "cooler on the hottest afternoons.\n- (discussed; turns 3) Ken said planted roofs were "
        "only on twelve buildings, a small sample.\nTASK combine\n")
    assert [p.turns for p in summary.points] == [(1, 3)]  # the unsupported merge dropped
    assert [d for d, _ in summary.dropped] == ["Priya book a room",
                                                "The group will install solar panels."]
    assert steps == [(n, 7) for n in range(1, 8)]


def test_a_failed_call_costs_its_part_only(meeting):
    from app.llm import LLMError

    summary = summarize(meeting, ScriptedLLM([LLMError("model gone"), ACTIONS]))
    assert summary.points == () and len(summary.actions) == 1
    assert summary.problems == ("summary_points: model error (model gone)",)


def test_a_stopped_summary_raises(meeting):
    stop = threading.Event()
    llm = ScriptedLLM([POINTS, ACTIONS])

    def progress(done: int, _total: int, _what: str) -> None:
        stop.set()

    with pytest.raises(SummaryCancelled):
        summarize(meeting, llm, progress=progress, cancel=stop)
    assert llm.stages() == ["summary_points"]


def test_a_point_the_length_cap_cut_off_keeps_its_whole_sentences_only():
    from app.summary.schemas import MAX_POINT_CHARS
    from app.summary.stages import parse_points

    first = "Maya said top floor flats were two degrees cooler."
    cut = (first + " Alex and Maya then talked about " + "the budget " * 30)[:MAX_POINT_CHARS]
    alone = ("Alex said " + "the budget " * 30)[:MAX_POINT_CHARS]
    short = "Ken thinks the sample is small"  # no full stop, but not cut off
    points = parse_points({"points": [{"kind": "discussed", "text": t, "turns": [1]}
                                      for t in (cut, alone, short)]})
    assert [p.text for p in points] == [first, short]


def test_the_reply_schemas_spell_out_one_line_of_plain_text():
    import jsonschema

    from app.summary.schemas import actions_schema, points_schema

    point = {"kind": "discussed", "text": "Maya said it was cooler.", "turns": [1]}
    jsonschema.validate({"points": [point]}, points_schema(6, 4))
    for bad in ("It will be the same\nas before.", 'He said "no"', "tab\there"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"points": [{**point, "text": bad}]}, points_schema(6, 4))
    item = {"who": "Maya", "what": "send\nfigures", "when": "", "turn": 6}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"actions": [item]}, actions_schema(6))


def test_the_decoder_grammar_has_no_line_break_inside_a_string():
    import json

    from llama_cpp import llama_grammar as grammar

    from app.summary.schemas import points_schema

    gbnf = grammar.json_schema_to_gbnf(json.dumps(points_schema(6, 4)))
    # The GBNF class escapes the backslash and spells \n \r \t: none may be written raw.
    assert r'points-item-text-1 ::= [^"\\\n\r\t]' in gbnf.splitlines()
