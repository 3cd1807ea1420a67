"""The meeting summary as Markdown or HTML: one outline of sections and items, written
out in either form, every statement with the turns (and times) it comes from."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.backbone.utterance import clean_text, spoken_numbers
from app.events import Citation, Intent
from app.session.delivery import Delivery
from app.session.export import ExportFormat
from app.summary.grounding import ActionItem, Statement
from app.summary.meeting import Contribution, Meeting
from app.summary.questions import OpenQuestion
from app.summary.summarize import MeetingSummary

MAX_POINT_WORDS = 12  # a claim longer than this is shown by the correction itself

INTENT_LABELS: dict[str, str] = {
    Intent.CORRECT: "Correction",
    Intent.MISSING: "A fact the group was missing",
    Intent.NOT_IN_DOCUMENT: "Not in the document",
    Intent.ANSWER: "Answer",
    Intent.ABSTAIN: "Answer",
}


@dataclass(frozen=True)
class Item:
    lead: str  # shown bold; "" for none
    body: str
    subs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    title: str
    level: int  # 2 or 3
    items: tuple[Item, ...] = ()
    empty: str = ""  # said when there are no items
    paragraphs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outline:
    title: str
    notes: tuple[str, ...]
    sections: tuple[Section, ...]


def clock(seconds: float) -> str:
    s = max(0, int(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60:02d}:{s % 60:02d}"


def turn_refs(meeting: Meeting, turns: Iterable[int]) -> str:
    """'turn 3, 00:19; turn 4, 00:27' for the turns a line comes from."""
    by_index = meeting.by_index
    refs = []
    for index in turns:
        turn = by_index.get(index)
        refs.append(f"turn {index}, {clock(turn.start)}" if turn else f"turn {index}")
    return "; ".join(refs)


def _cited(citation: Citation) -> str:
    """Where a cited sentence is: its document by name when the meeting had several."""
    where = citation.document_title or "The document"
    return f"{where}, page {citation.page}: \u201c{citation.text}\u201d"


def _statement(meeting: Meeting, st: Statement) -> Item:
    return Item("", f"{st.text} ({turn_refs(meeting, st.turns)})")


def _contribution(meeting: Meeting, c: Contribution) -> Item:
    fate = c.fate
    label = INTENT_LABELS.get(c.intent, "Answer" if fate.kind == "direct" else "Remark")
    where = f"after {turn_refs(meeting, [c.decided_turn])}" if c.decided_turn >= 0 else ""
    heard = {Delivery.DELIVERED: "the room heard it in full",
             Delivery.PARTLY: "the room heard only part of it",
             Delivery.NOT_DELIVERED: "the room did not hear it"}[fate.delivery]
    context = "; ".join(p for p in (where, f"{heard} ({fate.detail})") if p)
    subs = [_cited(c) for c in _citations(fate.citations)]
    if c.claim and c.intent != "answer" and len(c.claim.split()) <= MAX_POINT_WORDS:
        subs.insert(0, f"About: {c.claim}")  # a longer claim is the turn's own words
    return Item(label, f"\u201c{fate.text}\u201d ({context})", tuple(subs))


def _citations(raw: Sequence[object]) -> list[Citation]:
    out = []
    for c in raw:
        if isinstance(c, Citation):
            out.append(c)
        elif isinstance(c, dict):
            out.append(Citation(int(c.get("sid") or 0), int(c.get("page") or 0),
                                str(c.get("text") or ""), document=str(c.get("document") or ""),
                                document_title=str(c.get("document_title") or "")))
    return out


def _question(meeting: Meeting, q: OpenQuestion) -> Item:
    turn = q.raised.turn
    body = f"\u201c{q.raised.question}\u201d ({turn_refs(meeting, [turn.index])})"
    subs: tuple[str, ...] = ()
    if q.answered_by_document:
        head = ("The document answers in its own words:" if _in_own_words(q)
                else f"The document answers: {q.answer}")
        subs = (head, *(_cited(c) for c in q.citations))
    return Item(turn.speaker, body, subs)


def _in_own_words(q: OpenQuestion) -> bool:
    """The answer says its cited sentences word for word, as spoken ("38 percent" said as
    "38%"): the citations below say it."""
    return all(spoken_numbers(clean_text(c.text)).rstrip(". ") in q.answer
               for c in q.citations)


def _action(meeting: Meeting, a: ActionItem) -> Item:
    when = f" \u2014 {a.when}" if a.when else ""
    return Item(a.who or "Someone", f"{a.what}{when} ({turn_refs(meeting, [a.turn])})")


def outline(summary: MeetingSummary) -> Outline:
    m = summary.meeting
    sections: list[Section] = []
    if m.document is not None:
        sections.append(Section("", 0, paragraphs=(f"Document: {m.document.name}",)))
    discussed = [p for p in summary.points if p.kind != "decided"]
    decided = [p for p in summary.points if p.kind == "decided"]
    sections += [
        Section("What was discussed", 2, tuple(_statement(m, p) for p in discussed),
                "Nothing the transcript carries could be summarised."),
        Section("What was decided", 2, tuple(_statement(m, p) for p in decided),
                "No decision was recorded."),
        Section("What Jarvis contributed", 2,
                tuple(_contribution(m, c) for c in summary.contributions),
                "Jarvis did not speak up in this meeting."),
        *_question_sections(summary),
        Section("Action items", 2, tuple(_action(m, a) for a in summary.actions),
                "No action items were found."),
        Section("Transcript", 2, tuple(
            Item(t.speaker, f"({clock(t.start)}, turn {t.index}) {t.text}")
            for t in summary.transcript), "The record holds no turns."),
        Section("", 0, paragraphs=_closing(summary)),
    ]
    return Outline(f"Meeting summary: {m.title}", m.notes, tuple(sections))


def _question_sections(summary: MeetingSummary) -> list[Section]:
    m = summary.meeting
    qs = summary.questions
    answered = [q for q in qs if q.answered_by_document]
    unanswered = [q for q in qs if q.looked_up and not q.answered_by_document]
    unchecked = [q for q in qs if not q.looked_up]
    sections = [Section("Open questions", 2, empty="" if qs else
                        "No question was left open.")]
    if answered:
        sections.append(Section("The document answers", 3,
                                tuple(_question(m, q) for q in answered)))
    if unanswered:
        sections.append(Section("The document does not answer", 3,
                                tuple(_question(m, q) for q in unanswered)))
    if unchecked:
        why = "no document" if m.document is None or not any(q.looked_up for q in qs) \
            else "past the number looked up"
        sections.append(Section(f"Not looked up in the document ({why})", 3,
                                tuple(_question(m, q) for q in unchecked)))
    return sections


def _closing(summary: MeetingSummary) -> tuple[str, ...]:
    lines = []
    if summary.written:
        lines.append(
            f"Every statement above was checked against the turns it cites: "
            f"{summary.written - len(summary.dropped)} of the {summary.written} the model "
            f"wrote were kept, {len(summary.dropped)} dropped as not carried by their turns.")
    lines += [f"Problem: {p}" for p in summary.problems]
    return tuple(lines)


def to_markdown(summary: MeetingSummary) -> str:
    o = outline(summary)
    out = [f"# {o.title}", ""]
    out += [f"> {n}" for n in o.notes] + ([""] if o.notes else [])
    for section in o.sections:
        if section.title:
            out += ["#" * section.level + " " + section.title, ""]
        out += [_md(p) for p in section.paragraphs] + ([""] if section.paragraphs else [])
        for item in section.items:
            lead = f"**{_md(item.lead)}**: " if item.lead else ""
            out.append(f"- {lead}{_md(item.body)}")
            out += [f"  - {_md(s)}" for s in item.subs]
        if section.items:
            out.append("")
        elif section.empty:
            out += [f"_{section.empty}_", ""]
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    """Spoken text as Markdown text: no accidental emphasis, links or headings."""
    for mark in ("\\", "*", "_", "`", "[", "]", "<", ">", "#"):
        text = text.replace(mark, "\\" + mark)
    return text


def to_html(summary: MeetingSummary) -> str:
    o = outline(summary)
    body = [f"<h1>{html.escape(o.title)}</h1>"]
    body += [f"<p class='note'>{html.escape(n)}</p>" for n in o.notes]
    for section in o.sections:
        if section.title:
            body.append(f"<h{section.level}>{html.escape(section.title)}</h{section.level}>")
        body += [f"<p>{html.escape(p)}</p>" for p in section.paragraphs]
        if section.items:
            body.append("<ul>" + "".join(_html_item(i) for i in section.items) + "</ul>")
        elif section.empty:
            body.append(f"<p class='empty'>{html.escape(section.empty)}</p>")
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto}"
             ".empty{color:#666;font-style:italic}"
             ".note{background:#fff8c5;border:1px solid #d4a72c;padding:4px}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
            f"{html.escape(o.title)}</title><style>{style}</style></head><body>"
            f"{''.join(body)}</body></html>\n")


def _html_item(item: Item) -> str:
    lead = f"<b>{html.escape(item.lead)}</b>: " if item.lead else ""
    subs = "".join(f"<li>{html.escape(s)}</li>" for s in item.subs)
    return f"<li>{lead}{html.escape(item.body)}{f'<ul>{subs}</ul>' if subs else ''}</li>"


def render(summary: MeetingSummary, fmt: ExportFormat) -> str:
    return to_html(summary) if fmt is ExportFormat.HTML else to_markdown(summary)
