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


def test_drafted_tokens_give_a_valid_reply_in_fewer_steps() -> None:
    """Speculative decoding on a copy (the answer repeats the document's words): fewer
    model steps than tokens, and a reply the schema accepts, as without drafts."""
    from dataclasses import replace

    schema = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 80}},
              "required": ["text"], "additionalProperties": False}
    request = LLMRequest("direct", SYSTEM, "Repeat sentence S0 word for word.", schema, 0.1, 40)
    with LlamaBackend(gguf("llm-0.5b"), replace(SETTINGS, draft_tokens=4)) as drafting:
        drafting.complete(request)  # the stage's first reply: later ones draft its keys too
        session = drafting._worker.call(lambda s: s).result()
        reply = drafting.complete(request)
        steps = list(session.evals)  # tokens of each eval the reply took
    assert reply.data is not None and "Oslo" in reply.data["text"]
    # one eval reads the prompt; one token a step would take completion_tokens - 1 more
    assert len(steps) - 1 < 0.8 * (reply.completion_tokens - 1)
