"""JSON schemas the decoder enforces for each stage (SPEC §4), kept as small as the gate
allows: short outputs are what a CPU can afford per turn. Every string has a length cap,
so a small model cannot loop inside one until the token limit."""

from __future__ import annotations

from typing import Any

from app.backbone.verdict import STATUSES

MAX_SIDS = 3
# The value the monitor reads from the document; the decoder ends the string here, so a
# value this long may stop inside a word.
VALUE_MAX_CHARS = 80

_SIDS: dict[str, Any] = {"type": "array", "items": {"type": "integer"}, "maxItems": MAX_SIDS}

MONITOR: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": list(STATUSES)},
        "claim": {"type": "string", "maxLength": 56},
        "answer_sids": _SIDS,
        "predicted_answer": {"type": "string", "maxLength": VALUE_MAX_CHARS},
        "evidence": {"type": "string", "maxLength": 80},
    },
    # Only status is required: a decoder that orders required fields first then writes
    # the verdict before the details, whatever order it puts the rest in.
    "required": ["status"],
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
                    "by": {"type": "string", "maxLength": 24},
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

TOPIC_MAX_CHARS = 48  # the grammar stops a longer topic here, even inside a word

GENERATE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["speak", "abstain"]},
        "text": {"type": "string", "maxLength": 600},
        "topic": {"type": "string", "maxLength": TOPIC_MAX_CHARS},
        "source": {"type": "string", "maxLength": 48},
        "quote_sids": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
    },
    "required": ["action", "text", "topic", "quote_sids"],
    "additionalProperties": False,
}

DIRECT: dict[str, Any] = {
    "type": "object",
    "properties": {
        # Sentences first, then the answer from them, the action last: deciding to abstain
        # before reading the sentences again made small models abstain on questions the
        # document answers.
        "quote_sids": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
        "text": {"type": "string", "maxLength": 600},
        "action": {"type": "string", "enum": ["answer", "abstain", "skip"]},
    },
    "required": ["quote_sids", "text", "action"],
    "additionalProperties": False,
}


def direct_schema(allow_skip: bool) -> dict[str, Any]:
    """A complete question may not be skipped (small models skipped plain questions)."""
    if allow_skip:
        return DIRECT
    action = {"type": "string", "enum": ["answer", "abstain"]}
    return {**DIRECT, "properties": {**DIRECT["properties"], "action": action}}


def direct_pick_schema(allow_skip: bool, limit: int) -> dict[str, Any]:
    """A direct answer said in the document's words: the model only picks the sentences
    (at most ``limit``), then says whether they answer the question."""
    direct = direct_schema(allow_skip)
    sids = {**DIRECT["properties"]["quote_sids"], "maxItems": limit}
    properties = {"quote_sids": sids, "action": direct["properties"]["action"]}
    return {**DIRECT, "properties": properties, "required": ["quote_sids", "action"]}


def monitor_schema(with_evidence: bool) -> dict[str, Any]:
    """Focused mode drops ``evidence`` (the harness keeps the utterance itself): fewer
    tokens to decode on a CPU, nothing the gate needs."""
    if with_evidence:
        return MONITOR
    properties = {k: v for k, v in MONITOR["properties"].items() if k != "evidence"}
    return {**MONITOR, "properties": properties}


def generate_schema(allow_abstain: bool) -> dict[str, Any]:
    """When the claim's value was checked against a cited sentence deterministically, the
    reply must speak (the harness still verifies text and citation before it is said)."""
    if allow_abstain:
        return GENERATE
    action = {"type": "string", "enum": ["speak"]}
    return {**GENERATE, "properties": {**GENERATE["properties"], "action": action}}
