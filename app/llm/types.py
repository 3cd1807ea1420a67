"""The LLM interface every stage talks to, independent of where the model runs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

DeltaCallback = Callable[[str], None]


@dataclass(frozen=True)
class LLMRequest:
    stage: str  # monitor / self_repair / generate / direct; used for logs
    system: str  # the identical shared prefix: instructions + document block
    user: str  # the stage task: ledger, recent transcript, question
    schema: dict[str, Any] | None
    temperature: float
    max_tokens: int
    # Set by another thread to cut the call short (a direct question preempts the
    # monitor); the backend then raises LLMCancelled. None: the call always runs to its end.
    cancel: threading.Event | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LLMResponse:
    text: str
    data: dict[str, Any] | None  # parsed and schema-valid when the request had a schema
    prompt_tokens: int
    cached_tokens: int  # prompt tokens reused from the cached prefix, not evaluated again
    completion_tokens: int
    ttft_ms: float
    total_ms: float


@runtime_checkable
class LLMBackend(Protocol):
    def complete(self, request: LLMRequest, on_delta: DeltaCallback | None = None) -> LLMResponse:
        """Thread-safe; parses and validates JSON when the request has a schema."""
        ...

    def warm(self, system: str) -> None:
        """Compute the shared prefix's state ahead of the first request."""
        ...

    def close(self) -> None: ...


class LLMError(Exception):
    """The model could not answer (not loaded, unreachable, prompt too long, closed)."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class LLMOutputError(LLMError):
    """The model answered, but the text is malformed, truncated or violates the schema."""

    def __init__(self, user_message: str, raw: str, stage: str = "") -> None:
        super().__init__(user_message)
        self.raw = raw
        self.stage = stage


class LLMCancelled(LLMError):
    """The call was cut short because its request's ``cancel`` event was set."""

    def __init__(self, stage: str = "") -> None:
        super().__init__(f"The {stage or 'model'} call was cut short.")
        self.stage = stage
