"""How many threads llama.cpp and speech recognition get."""

from __future__ import annotations

import pytest

from app.cores import (
    model_threads,
    offline_model_threads,
    physical_cores,
    prompt_threads,
    speech_threads,
    thread_split,
)
from app.llm.factory import offline_settings
from app.settings import LLMSettings


def test_thread_override_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_LLM_THREADS", "3")
    monkeypatch.setenv("JARVIS_ASR_THREADS", "2")
    assert model_threads() == 3
    assert speech_threads() == 2


@pytest.mark.parametrize("value", ["", "0", "many", "-2"])
def test_bad_override_falls_back_to_the_split(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.delenv("JARVIS_LLM_THREADS", raising=False)
    monkeypatch.delenv("JARVIS_ASR_THREADS", raising=False)
    shares = model_threads(), speech_threads()
    monkeypatch.setenv("JARVIS_LLM_THREADS", value)
    monkeypatch.setenv("JARVIS_ASR_THREADS", value)
    assert (model_threads(), speech_threads()) == shares == thread_split(physical_cores())


@pytest.mark.parametrize("cores", [1, 2, 3, 4, 6, 8, 16, 64])
def test_the_split_gives_each_side_a_core_and_never_oversubscribes(cores: int) -> None:
    model, speech = thread_split(cores)
    assert model >= 1 and speech >= 1
    assert model + speech <= max(cores, 2)
    assert model >= speech  # the model is the larger job


def test_offline_runs_give_the_model_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JARVIS_LLM_THREADS", raising=False)
    assert offline_model_threads() == physical_cores()
    assert offline_settings(LLMSettings()).threads == physical_cores()
    assert offline_settings(LLMSettings(threads=1)).threads == 1  # named in the settings
    monkeypatch.setenv("JARVIS_LLM_THREADS", "3")
    assert offline_settings(LLMSettings()).threads == 3


def test_prompts_are_read_on_every_physical_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JARVIS_LLM_THREADS", raising=False)
    assert prompt_threads() == physical_cores() >= model_threads()
    monkeypatch.setenv("JARVIS_LLM_THREADS", "1")
    assert prompt_threads() == 1
