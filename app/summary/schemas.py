"""JSON schemas the decoder enforces for the summary's model calls. Every string has a
length cap and every list a size cap, so a small model cannot loop until the token limit;
the text comes before the turns it cites, so the turns are chosen for what was written."""

from __future__ import annotations

from typing import Any

POINT_KINDS = ("discussed", "decided")
MAX_POINT_CHARS = 180  # one sentence of minutes; a reply that reaches it was cut off


def line(max_chars: int) -> dict[str, Any]:
    """One line of text: the decoder's plain string lets a raw line break or tab through,
    which no JSON parser accepts, so the characters are spelled out (no quotes either)."""
    return {"type": "string", "maxLength": max_chars,
            "pattern": f'^[^"\\\\\\n\\r\\t]{{0,{max_chars}}}$'}


def _turns(max_turns: int) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": max_turns}


def points_schema(max_points: int, max_turns: int) -> dict[str, Any]:
    """The main points of a part of the meeting (also the combined summary's form)."""
    point = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(POINT_KINDS)},
            "text": line(MAX_POINT_CHARS),
            "turns": _turns(max_turns),
        },
        "required": ["kind", "text", "turns"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"points": {"type": "array", "items": point, "maxItems": max_points}},
        "required": ["points"],
        "additionalProperties": False,
    }


def actions_schema(max_actions: int) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {
            "who": line(40),
            "what": line(160),
            "when": line(40),
            "turn": {"type": "integer"},
        },
        "required": ["who", "what", "when", "turn"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"actions": {"type": "array", "items": item, "maxItems": max_actions}},
        "required": ["actions"],
        "additionalProperties": False,
    }
