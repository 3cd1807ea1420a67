"""Reading the next prompt's opening while the model is idle: the real embedded 0.5B GGUF."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.llm import LLMRequest
from app.llm.llama import CANCEL_CHECK_TOKENS, LlamaBackend
from tests.llm.conftest import SCHEMA, SETTINGS, SYSTEM, gguf
from tests.llm.test_llama_cancel import SetAfter

pytestmark = pytest.mark.slow

HEAD = "".join(f"S{i % 2 + 1}: We talked about item {i} of the agenda and moved on.\n"
               for i in range(12))
QUESTION = "When did Oslo open its opera house?"


@pytest.fixture(scope="module")
def backend() -> Iterator[LlamaBackend]:
    with LlamaBackend(gguf("llm-0.5b"), SETTINGS) as b:
        yield b


def ask(user: str, system: str = SYSTEM) -> LLMRequest:
    return LLMRequest("direct", system, user, SCHEMA, 0.1, 24)


def test_a_prefilled_head_is_not_read_again_and_changes_no_answer(backend: LlamaBackend) -> None:
    system = "Session prefill. " + SYSTEM
    reference = backend.complete(ask(HEAD + QUESTION, system))
    backend.reset()
    backend.complete(ask("When did Lyon open its metro?", system))  # the system is cached
    read = backend.prefill(system, HEAD)
    assert read > 100  # the head's lines, which no call has read yet
    assert backend.prefill(system, HEAD) == 0  # read once: nothing left to read
    after = backend.complete(ask(HEAD + QUESTION, system))
    assert after.prompt_tokens - after.cached_tokens < 25  # the question and the tail only
    assert after.data == reference.data


def test_a_prefill_cut_short_keeps_what_it_read(backend: LlamaBackend) -> None:
    system = "Session prefill-cut. " + SYSTEM
    backend.complete(ask("When did Lyon open its metro?", system))
    cancel = SetAfter(2)  # the first chunk is read, then the reading is cut
    read = backend.prefill(system, HEAD, cancel)
    assert read == CANCEL_CHECK_TOKENS
    rest = backend.prefill(system, HEAD)
    assert rest > 0 and read + rest > 100
