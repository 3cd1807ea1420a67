"""How many threads llama.cpp gets."""

from __future__ import annotations

import pytest

from app.llm.llama import physical_cores


def test_thread_override_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_LLM_THREADS", "3")
    assert physical_cores() == 3


@pytest.mark.parametrize("value", ["", "0", "many", "-2"])
def test_bad_override_falls_back_to_the_cores(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.delenv("JARVIS_LLM_THREADS", raising=False)
    cores = physical_cores()
    monkeypatch.setenv("JARVIS_LLM_THREADS", value)
    assert physical_cores() == cores >= 1
