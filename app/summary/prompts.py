"""Prompt text for the summary. A part of the meeting sits in the ``system`` string after
the instructions, so its two calls (points, then action items) share one cached prefix."""

from __future__ import annotations

from collections.abc import Sequence

from app.summary.grounding import Statement

INSTRUCTIONS = """\
You write the minutes of a meeting from its transcript. Each transcript line is
[Turn N] Speaker: words.
Use only what the transcript says: never add a fact, number or name it does not state,
and use the speakers' own words where you can.
Every item cites in "turns" the numbers of the turns that say it (at most {max_turns}).
Every request names one TASK. Do only that task and reply with one JSON object.

TASK points: the main points of this part of the meeting, in the order they came up.
Each is one short sentence (at most 25 words) saying what was said about the subject,
with the speaker's name where it matters. kind is "decided" only for what the group
agreed to do or settled on; otherwise "discussed". At most {max_points} points; skip
greetings and small talk. The reply's form:
{{"points": [{{"kind": "discussed", "text": "<who said what, in one sentence>",
"turns": [<the turn numbers that say it>]}}]}}

TASK actions: tasks someone agreed to do, or was asked to do, after the meeting.
who: the person's name as the transcript gives it ("" when nobody is named); what: the
task in a few words; when: the deadline in the words said ("" when none was said);
turn: the turn where it was said. Reply with an empty list when there are none.

TASK combine: the NOTES were written from consecutive parts of one meeting. Merge them
into a short summary of the whole meeting: at most {max_summary} sentences, what was
discussed and what was decided, in meeting order. Keep each sentence close to the notes
it merges and cite the turns of those notes.
"""

PART_HEADER = "\nTRANSCRIPT (turns {first} to {last}):\n"


def instructions(max_turns: int, max_points: int, max_summary: int) -> str:
    return INSTRUCTIONS.format(max_turns=max_turns, max_points=max_points,
                               max_summary=max_summary)


def part_system(base: str, transcript: str, first: int, last: int) -> str:
    """The shared prefix of a part's calls: instructions, then the part's transcript."""
    return base + PART_HEADER.format(first=first, last=last) + transcript + "\n"


def points_task() -> str:
    return "TASK points\n"


def actions_task(speakers: Sequence[str]) -> str:
    names = ", ".join(speakers) if speakers else "(not known)"
    return f"TASK actions\nParticipants: {names}\n"


def combine_task(notes: Sequence[Statement]) -> str:
    return "NOTES:\n" + "".join(note_line(n) for n in notes) + "TASK combine\n"


def note_line(note: Statement) -> str:
    turns = ", ".join(str(t) for t in note.turns)
    return f"- ({note.kind}; turns {turns}) {note.text}\n"
