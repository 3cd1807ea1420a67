"""The LLM runtime: one interface, an in-process llama.cpp backend and an HTTP one.

>>> backend = open_backend()            # embedded default GGUF   # doctest: +SKIP
>>> backend = open_backend("llm-0.5b")  # a manifest name         # doctest: +SKIP
>>> backend = open_backend("http://box:8080/v1")                  # doctest: +SKIP
"""

from app.llm.factory import open_backend
from app.llm.prompt import CHATML, CHATML_NO_THINK, ChatTemplate, pick_template
from app.llm.types import (
    DeltaCallback,
    LLMBackend,
    LLMCancelled,
    LLMError,
    LLMOutputError,
    LLMRequest,
    LLMResponse,
)

__all__ = [
    "CHATML",
    "CHATML_NO_THINK",
    "ChatTemplate",
    "DeltaCallback",
    "LLMBackend",
    "LLMCancelled",
    "LLMError",
    "LLMOutputError",
    "LLMRequest",
    "LLMResponse",
    "open_backend",
    "pick_template",
]
