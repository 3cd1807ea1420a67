"""Turn a finished generation into data, or an LLMOutputError that keeps the raw text."""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

import jsonschema

from app.llm.types import LLMOutputError

log = logging.getLogger(__name__)


def parse_output(
    text: str, schema: dict[str, Any] | None, finish_reason: str | None, stage: str
) -> dict[str, Any] | None:
    """Validated JSON for a schema request, None for free text; raises LLMOutputError."""
    if finish_reason == "length":
        _fail(f"The {stage or 'model'} answer was cut off at the token limit.", text, stage)
    if schema is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        _fail(f"The {stage or 'model'} answer was not valid JSON ({exc}).", text, stage)
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        _fail(f"The {stage or 'model'} answer broke its schema ({exc.message}).", text, stage)
    if not isinstance(data, dict):
        _fail(f"The {stage or 'model'} answer was not a JSON object.", text, stage)
    return data


def _fail(message: str, raw: str, stage: str) -> NoReturn:
    log.warning("%s raw=%r", message, raw)
    raise LLMOutputError(message, raw=raw, stage=stage)
