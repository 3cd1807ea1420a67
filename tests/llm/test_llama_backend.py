"""The in-process llama.cpp backend on the real embedded 0.5B GGUF (small prompts)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

import pytest

from app.llm import LLMError, LLMOutputError, LLMRequest, open_backend
from app.llm.llama import LlamaBackend
from app.settings import LLMSettings
from tests.llm.conftest import SCHEMA, SETTINGS, SYSTEM, gguf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def backend() -> Iterator[LlamaBackend]:
    with LlamaBackend(gguf("llm-0.5b"), SETTINGS) as b:
        yield b


def ask(question: str, system: str = SYSTEM, schema: dict | None = SCHEMA,
        max_tokens: int = 24) -> LLMRequest:
    return LLMRequest("monitor", system, question, schema, 0.1, max_tokens)


def session(tag: str) -> str:
    """A system prefix no earlier test has put in the cache (the tag comes first)."""
    return f"Session {tag}. " + SYSTEM


def test_schema_output_streams_and_the_prefix_is_reused(backend: LlamaBackend) -> None:
    system = session("reuse")
    deltas: list[str] = []
    cold = backend.complete(ask("When did Porto open its bridge?", system), deltas.append)
    warm = backend.complete(ask("When did Graz open its art museum?", system))

    assert cold.data is not None and set(cold.data) == {"sid", "year"}
    assert 0 <= cold.data["sid"] <= 4
    assert len(deltas) > 1 and "".join(deltas) == cold.text
    assert cold.completion_tokens >= len(deltas)
    assert 0 < cold.ttft_ms <= cold.total_ms
    assert cold.prompt_tokens > 100 and cold.cached_tokens < 10
    assert warm.cached_tokens > 0.8 * warm.prompt_tokens
    assert warm.prompt_tokens - warm.cached_tokens < 25  # only the question was evaluated


def conversation(first: int, last: int) -> str:
    talk = ["the budget meeting moved to the small room on the second floor",
            "someone asked whether the slides from last week were sent around",
            "we agreed to keep the notes short and share them after lunch"]
    return "Conversation:\n" + "".join(
        f"[Turn {i}] Speaker {i % 3}: {talk[i % 3]}, as turn {i} said.\n"
        for i in range(first, last + 1))


def test_a_window_without_its_oldest_lines_is_shifted_not_read_again(
        backend: LlamaBackend) -> None:
    """The transcript window slides: its oldest lines leave, and the lines that stay are
    moved down in the cache. The moved lines still carry what they saw of the lines that
    left, so the 0.5B may pick another sentence number; the fact read is the same."""
    system = session("shift")
    question = "\nWhen did Porto open its bridge?"
    backend.complete(ask(conversation(0, 9) + question, system))
    slid = backend.complete(ask(conversation(4, 10) + question, system))
    with LlamaBackend(gguf("llm-0.5b"), dataclasses.replace(SETTINGS, reuse_min_tokens=0)) as b:
        b.complete(ask(conversation(0, 9) + question, system))
        read = b.complete(ask(conversation(4, 10) + question, system))

    kept_lines = 6 * 20  # turns 4-9, about 20 tokens each
    assert read.prompt_tokens == slid.prompt_tokens
    assert slid.cached_tokens > read.cached_tokens + kept_lines
    assert slid.data is not None and read.data is not None
    assert slid.data["year"] == read.data["year"] == 1886


def test_alternating_systems_restore_the_prefix(backend: LlamaBackend) -> None:
    system = session("alternate")
    other = "Reply with JSON only. You answer trivia about numbers."
    backend.warm(system)
    away = backend.complete(ask("Give sid 1 and the year 1999.", other))
    back = backend.complete(ask("When did Turku open its castle museum?", system))
    assert away.cached_tokens < 10
    assert back.prompt_tokens - back.cached_tokens < 25  # restored from the snapshot


def test_truncated_json_is_an_output_error(backend: LlamaBackend) -> None:
    with pytest.raises(LLMOutputError) as caught:
        backend.complete(ask("When did Porto open its bridge?", max_tokens=3))
    assert caught.value.raw.startswith("{")
    assert "cut off" in caught.value.user_message


def test_free_text_has_no_data(backend: LlamaBackend) -> None:
    r = backend.complete(ask("Which city has the metro? One word.", schema=None, max_tokens=12))
    assert r.data is None and "Lyon" in r.text


def test_calls_from_many_threads_serialize_on_the_owner(backend: LlamaBackend) -> None:
    seen_on: set[str] = set()
    results: list[dict] = []
    errors: list[BaseException] = []

    def worker(question: str) -> None:
        try:
            r = backend.complete(ask(question, max_tokens=20),
                                 on_delta=lambda _: seen_on.add(threading.current_thread().name))
            results.append(r.data or {})
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    questions = ["When did Oslo open its opera house?", "When did Lyon open its metro?"]
    threads = [threading.Thread(target=worker, args=(q,)) for q in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 2
    assert seen_on == {f"llm:{backend.model_path.name}"}


def test_failures_leave_the_worker_alive(backend: LlamaBackend) -> None:
    with pytest.raises(LLMError) as caught:
        backend.complete(ask("x " * 1200))
    assert "context" in caught.value.user_message
    with pytest.raises(LLMError):
        backend.warm("x " * 1200)

    def explode(_: str) -> None:
        raise RuntimeError("display went away")

    with pytest.raises(RuntimeError):
        backend.complete(ask("When did Lyon open its metro?"), on_delta=explode)
    assert backend.complete(ask("When did Lyon open its metro?")).data == {"sid": 1, "year": 1978}


def test_open_backend_errors_are_typed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LLMError):
        open_backend(str(tmp_path / "absent.gguf"), SETTINGS)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF not really")
    with pytest.raises(LLMError):
        open_backend(str(bad), SETTINGS)
    with pytest.raises(LLMError) as caught:
        open_backend("llm-qwen3-4b", SETTINGS)  # pull-only: not on this machine
    assert "jarvis models pull llm-qwen3-4b" in caught.value.user_message


def test_closed_backend_refuses_politely() -> None:
    b = LlamaBackend(gguf("llm-0.5b"), SETTINGS)
    b.close()
    with pytest.raises(LLMError):
        b.complete(ask("When did Lyon open its metro?"))


def test_default_model_gives_schema_valid_json() -> None:
    """The 1.5B default on one small request."""
    path = gguf("llm-1.5b")
    with LlamaBackend(path, SETTINGS) as b:
        r = b.complete(ask("When did Graz open its art museum?"))
    assert r.data == {"sid": 3, "year": 2003}


def test_prompts_are_read_on_physical_cores_not_every_logical_cpu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-cpp-python reads prompts on every logical CPU unless told otherwise;
    hyperthreads only slow llama.cpp down, and an explicit setting wins."""
    from app.cores import physical_cores

    def batch_threads(settings: LLMSettings) -> int:
        with LlamaBackend(gguf("llm-0.5b"), settings) as b:
            return int(b._worker.call(lambda s: s.llm.n_threads_batch).result())

    monkeypatch.delenv("JARVIS_LLM_THREADS", raising=False)
    assert batch_threads(SETTINGS) == physical_cores()  # SETTINGS names 1 model thread
    assert batch_threads(dataclasses.replace(SETTINGS, batch_threads=3)) == 3
    monkeypatch.setenv("JARVIS_LLM_THREADS", "1")
    assert batch_threads(SETTINGS) == 1
