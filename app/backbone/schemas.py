"""JSON schemas the decoder enforces for each stage (SPEC §4), kept as small as the gate
allows: short outputs are what a CPU can afford per turn."""

from __future__ import annotations

from typing import Any

from app.backbone.verdict import STATUSES

MAX_SIDS = 3

_SIDS: dict[str, Any] = {"type": "array", "items": {"type": "integer"}, "maxItems": MAX_SIDS}

MONITOR: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": list(STATUSES)},
        "claim": {"type": "string"},
        "answer_sids": _SIDS,
        "predicted_answer": {"type": "string"},
        "evidence": {"type": "string"},
    },
    "required": ["status", "claim"],
    "additionalProperties": False,
}

SELF_REPAIR: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resolved": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "cid": {"type": "integer"},
                    "by": {"type": "string"},
                    "by_sids": _SIDS,
                },
                "required": ["cid", "by"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["resolved"],
    "additionalProperties": False,
}

GENERATE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["speak", "abstain"]},
        "text": {"type": "string"},
        "topic": {"type": "string"},
        "source": {"type": "string"},
        "quote_sids": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
    },
    "required": ["action", "text", "topic", "quote_sids"],
    "additionalProperties": False,
}

DIRECT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["answer", "abstain", "skip"]},
        "text": {"type": "string"},
        "quote_sids": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
    },
    "required": ["action", "text", "quote_sids"],
    "additionalProperties": False,
}
