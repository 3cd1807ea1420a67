"""Chat template choice and the owner thread (no model weights)."""

from __future__ import annotations

import threading
import time

import pytest

from app.llm.prompt import CHATML, CHATML_NO_THINK, pick_template
from app.llm.types import LLMError
from app.llm.worker import OwnerThread


def test_chatml_prefix_is_identical_for_every_user_part() -> None:
    a = CHATML.prefix("DOC") + CHATML.suffix("first question")
    b = CHATML.prefix("DOC") + CHATML.suffix("second")
    assert a.startswith("<|im_start|>system\nDOC<|im_end|>\n<|im_start|>user\n")
    assert b.startswith(CHATML.prefix("DOC"))
    assert a.endswith("<|im_start|>assistant\n")


def test_template_from_gguf_metadata() -> None:
    qwen25 = {"general.architecture": "qwen2", "tokenizer.chat_template": "<|im_start|>{{...}}"}
    qwen3 = {"general.architecture": "qwen3", "tokenizer.chat_template": "<|im_start|>"}
    assert pick_template(qwen25) is CHATML
    assert pick_template(qwen3) is CHATML_NO_THINK
    assert CHATML_NO_THINK.suffix("q").endswith("<think>\n\n</think>\n\n")


def test_owner_thread_creates_and_uses_the_object_alone() -> None:
    created_on: list[str] = []

    def factory() -> dict[str, int]:
        created_on.append(threading.current_thread().name)
        return {"n": 0}

    def bump(obj: dict[str, int]) -> tuple[str, int]:
        n = obj["n"]
        time.sleep(0.002)  # a race would lose increments
        obj["n"] = n + 1
        return threading.current_thread().name, obj["n"]

    owner = OwnerThread(factory, lambda obj: None, name="owner")
    results: list[tuple[str, int]] = []
    threads = [threading.Thread(target=lambda: results.extend(
        owner.call(bump).result() for _ in range(5))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert created_on == ["owner"]
    assert {name for name, _ in results} == {"owner"}
    assert sorted(n for _, n in results) == list(range(1, 21))
    owner.close()


def test_errors_reach_the_caller_and_the_thread_survives() -> None:
    closed: list[object] = []
    owner = OwnerThread(lambda: [1], closed.append, name="owner")

    def boom(obj: list[int]) -> None:
        raise ValueError("bad request")

    with pytest.raises(ValueError):
        owner.call(boom).result()
    assert owner.call(len).result() == 1
    owner.close()
    assert closed == [[1]]
    with pytest.raises(LLMError):
        owner.call(len)


def test_load_failure_is_raised_by_the_constructor() -> None:
    def factory() -> None:
        raise LLMError("no weights")

    with pytest.raises(LLMError, match="no weights"):
        OwnerThread(factory, lambda obj: None, name="owner")
