"""One structured LLM call; a malformed or failed reply becomes a recorded reason."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.llm import LLMError, LLMOutputError, LLMRequest
from app.settings import LLMStageSettings


@dataclass(frozen=True)
class StageReply:
    data: dict[str, Any] | None
    error: str  # "" when ``data`` is usable
    ms: float
    stage: str = ""
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0


def call(
    llm: Any, stage: str, system: str, user: str, schema: dict[str, Any],
    settings: LLMStageSettings, on_delta: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
) -> StageReply:
    """``cancel``: set by another thread to cut the call short (its reply is then an error)."""
    request = LLMRequest(stage=stage, system=system, user=user, schema=schema,
                         temperature=settings.temperature, max_tokens=settings.max_tokens,
                         cancel=cancel)
    started = time.perf_counter()
    try:
        response = llm.complete(request, on_delta) if on_delta else llm.complete(request)
    except LLMOutputError as exc:
        return StageReply(None, f"{stage}: malformed output ({str(exc)[:80]})", _ms(started))
    except LLMError as exc:
        return StageReply(None, f"{stage}: model error ({str(exc)[:80]})", _ms(started))
    counts = (stage, response.prompt_tokens, response.cached_tokens,
              response.completion_tokens)
    if not isinstance(response.data, dict):
        return StageReply(None, f"{stage}: no JSON object", _ms(started), *counts)
    return StageReply(response.data, "", _ms(started), *counts)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
