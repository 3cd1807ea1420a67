"""Cutting a call short: the llama.cpp cancel hook on the real embedded 0.5B GGUF."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from app.llm import LLMCancelled, LLMRequest
from app.llm.llama import CANCEL_CHECK_TOKENS, LlamaBackend
from tests.llm.conftest import SCHEMA, SETTINGS, SYSTEM, gguf

pytestmark = pytest.mark.slow

LONG = "List every city of the document with its year, one per line, and explain each."


class SetAfter(threading.Event):
    """Reads as set from its ``n``-th look on: a cancel that lands at a chosen point."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.looks, self.n = 0, n

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.n or super().is_set()


@pytest.fixture(scope="module")
def backend() -> Iterator[LlamaBackend]:
    with LlamaBackend(gguf("llm-0.5b"), SETTINGS) as b:
        yield b


def ask(question: str, system: str = SYSTEM, schema: dict | None = SCHEMA, max_tokens: int = 24,
        cancel: threading.Event | None = None) -> LLMRequest:
    return LLMRequest("monitor", system, question, schema, 0.1, max_tokens, cancel)


def test_a_cancel_during_generation_stops_it_after_the_token(backend: LlamaBackend) -> None:
    cancel = threading.Event()
    deltas: list[str] = []

    def on_delta(text: str) -> None:
        deltas.append(text)
        if len(deltas) == 3:
            cancel.set()

    whole = backend.complete(ask(LONG, schema=None, max_tokens=64))
    assert whole.completion_tokens > 20  # the uncancelled call runs long
    with pytest.raises(LLMCancelled) as caught:
        backend.complete(ask(LONG, schema=None, max_tokens=64, cancel=cancel), on_delta)
    assert caught.value.stage == "monitor"
    assert 3 <= len(deltas) <= 5  # stopped at the next token, not at max_tokens


def test_a_cancel_while_the_prompt_is_read_stops_between_chunks(backend: LlamaBackend) -> None:
    system = "Session cut-prompt. " + SYSTEM  # not cached: the whole prompt is read
    reference = backend.complete(ask("When did Porto open its bridge?", system))
    backend.reset()
    cancel = SetAfter(3)  # the pre-check, chunk 1 read, then cut before chunk 2
    with pytest.raises(LLMCancelled):
        backend.complete(ask("When did Porto open its bridge?", system, cancel=cancel))
    assert cancel.looks == 3
    # What was read stays usable: the next call reuses that chunk and answers the same.
    again = backend.complete(ask("When did Porto open its bridge?", system))
    assert again.cached_tokens == CANCEL_CHECK_TOKENS
    assert again.data == reference.data


def test_a_call_cancelled_before_it_starts_reads_nothing(backend: LlamaBackend) -> None:
    cancel = threading.Event()
    cancel.set()
    before = backend.complete(ask("When did Graz open its art museum?"))
    with pytest.raises(LLMCancelled):
        backend.complete(ask("When did Lyon open its metro?", cancel=cancel))
    after = backend.complete(ask("When did Graz open its art museum?"))
    assert after.data == before.data
    assert after.prompt_tokens - after.cached_tokens < 25  # the cached prefix survived


def test_an_unset_cancel_changes_nothing(backend: LlamaBackend) -> None:
    plain = backend.complete(ask("When did Turku open its castle museum?"))
    watched = backend.complete(ask("When did Turku open its castle museum?",
                                   cancel=threading.Event()))
    assert watched.data == plain.data and watched.data is not None
