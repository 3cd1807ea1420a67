"""The summary as Markdown and HTML: every section, every line with its turns and times,
the agent's correction with the document's sentence, page and what the room heard."""

from __future__ import annotations

import html
import re

import pytest

from app.backbone.utterance import assemble
from app.events import Citation
from app.session.export import ExportFormat
from app.settings import UtteranceStyle
from app.summary.meeting import SpokenTurn, read_meeting
from app.summary.questions import OpenQuestion, RaisedQuestion
from app.summary.render import _question, clock, render, to_html, to_markdown
from app.summary.run import default_out, summarize_record
from tests.backbone.scripted import ScriptedLLM
from tests.summary.meetings import write_document, write_record

POINTS = {"points": [
    {"kind": "discussed", "text": "Maya said top floor flats were about two degrees cooler on "
     "the hottest afternoons.", "turns": [1]},
    {"kind": "decided", "text": "Alex said Maya will send the cost figures to the council.",
     "turns": [6]},
    {"kind": "discussed", "text": "Everyone agreed on a new playground.", "turns": [0]},
]}
ACTIONS = {"actions": [{"who": "Maya", "what": "send the cost figures to the council",
                        "when": "by Friday", "turn": 6}]}
ANSWER = {"quote_sids": [4], "action": "answer"}  # the model picks the answer's sentence


def run(tmp_path, out_name: str, heard: str | None = "finished"):
    """The summary of the meeting with scripted replies; retrieval is the real one."""
    record = write_record(tmp_path, write_document(tmp_path), heard=heard)
    return summarize_record(record, tmp_path / out_name,
                            llm=ScriptedLLM([POINTS, ACTIONS, ANSWER]))


def section(text: str, title: str) -> str:
    """The Markdown section under ``## title`` (up to the next ``## ``)."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, text
    return match.group(1)


def test_markdown_holds_every_section_with_turns_and_times(tmp_path):
    done = run(tmp_path, "summary.md")
    text = done.out.read_text(encoding="utf-8")
    assert text.startswith("# Meeting summary: meeting\n")
    assert "Document: green\\_roofs.txt" in text
    assert section(text, "What was discussed").strip() == (
        "- Maya said top floor flats were about two degrees cooler on the hottest "
        "afternoons. (turn 1, 00:05)")
    assert section(text, "What was decided").strip() == (
        "- Alex said Maya will send the cost figures to the council. (turn 6, 00:30)")
    assert "playground" not in text  # unsupported: dropped, never shown uncited
    jarvis = section(text, "What Jarvis contributed")
    assert "**Correction**: \u201cActually, the document says planted roofs were installed on " \
           "48 residential buildings." in jarvis
    assert "(after turn 3, 00:15; the room heard it in full (4.2 s))" in jarvis
    assert "The document, page 1: \u201cPlanted roofs were installed on 48 residential " \
           "buildings in the pilot district.\u201d" in jarvis
    questions = text.split("## Open questions", 1)[1].split("## Action items", 1)[0]
    assert "### The document answers" in questions
    assert "**Maya**: \u201cHow much did the pilot cost in the end?\u201d (turn 4, 00:20)" \
        in questions
    assert ("The document answers in its own words:\n  - The document, page 1: \u201cThe "
            "pilot cost 2.1 million euros over three years.\u201d") in questions
    assert section(text, "Action items").strip() == (
        "- **Maya**: send the cost figures to the council \u2014 by Friday (turn 6, 00:30)")
    transcript = section(text, "Transcript")
    assert "- **Maya**: (00:05, turn 1) Sure. Top floor flats" in transcript
    assert "Yeah." not in transcript and "Um" not in transcript
    assert "3 of the 4 the model wrote were kept, 1 dropped" in text


def test_a_correction_cut_short_says_the_room_heard_only_part(tmp_path):
    text = run(tmp_path, "summary.md", heard="stopped").out.read_text(encoding="utf-8")
    assert "the room heard only part of it (stopped after 4.2 s heard)" in text


def test_html_holds_the_same_outline_escaped(tmp_path):
    done = run(tmp_path, "summary.html")
    page = done.out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<h2>What Jarvis contributed</h2>" in page
    assert "<b>Correction</b>: " in page
    assert html.escape("The document, page 1: \u201cPlanted roofs") in page
    assert "<h3>The document answers</h3>" in page
    assert to_html(done.summary) == page
    assert render(done.summary, ExportFormat.MARKDOWN) == to_markdown(done.summary)


def test_spoken_text_cannot_inject_markup(tmp_path):
    done = run(tmp_path, "summary.md")
    turns = tuple(t if t.index != 0 else type(t)(0, "Alex", "<script>x</script> *big* [a](b)",
                                                 0.0, 1.0) for t in done.summary.transcript)
    summary = type(done.summary)(**{**done.summary.__dict__, "transcript": turns})
    assert "<script>" not in to_html(summary)
    assert "\\<script\\>x\\</script\\> \\*big\\* \\[a\\](b)" in to_markdown(summary)


@pytest.mark.parametrize(("seconds", "shown"), [(0, "00:00"), (75.9, "01:15"),
                                                (3725, "1:02:05")])
def test_times_are_minutes_and_seconds(seconds, shown):
    assert clock(seconds) == shown


def test_the_summary_goes_beside_the_record_by_default(tmp_path):
    record = tmp_path / "20250101-meeting.jsonl"
    assert default_out(record) == tmp_path / "20250101-meeting.summary.md"
    assert default_out(record, ExportFormat.HTML).suffix == ".html"


def test_an_answer_in_other_words_than_its_citation_is_shown_with_it(tmp_path):
    asked = RaisedQuestion(SpokenTurn(4, "Maya", "How much did it cost?", 20.0, 22.0),
                           "How much did it cost?")
    cite = Citation(4, 1, "The pilot cost 2.1 million euros over three years.")
    meeting = read_meeting(write_record(tmp_path))
    written = _question(meeting, OpenQuestion(asked, "It cost 2.1 million euros.", (cite,),
                                              looked_up=True))
    assert written.subs[0] == "The document answers: It cost 2.1 million euros."
    quoted = _question(meeting, OpenQuestion(
        asked, "The document says: The pilot cost 2.1 million euros over three years.",
        (cite,), looked_up=True))
    assert quoted.subs[0] == "The document answers in its own words:"
    assert len(quoted.subs) == len(written.subs) == 2


def test_an_answer_in_the_documents_words_is_its_citation_also_with_its_numbers_spoken(
        tmp_path):
    sentence = "Energy used for cooling fell by 14 percent over the summer."
    answer = assemble("", f"The document says: {sentence}", None, UtteranceStyle.OFF,
                      preface=False)  # as the summary's direct path says it
    asked = RaisedQuestion(SpokenTurn(4, "Maya", "How much less energy?", 20.0, 22.0),
                           "How much less energy?")
    meeting = read_meeting(write_record(tmp_path))
    item = _question(meeting, OpenQuestion(asked, answer, (Citation(3, 1, sentence),),
                                           looked_up=True))
    assert item.subs[0] == "The document answers in its own words:"

