"""How the machine's cores are split between speech recognition and the model.

Both run at once in a meeting: llama.cpp threads spin at barriers, so when the two
together ask for more threads than there are cores, the model slows down many times over
and recognition falls behind the microphone. Each side gets its own share instead
(``benchmarks/thread_split.py`` measures the splits on a machine): recognition keeps a
quarter of the physical cores, at least one, and the model gets the rest. Reading a
prompt is the exception: those short bursts take every physical core, since recognition
still keeps up beside them and a direct answer waits on them.
"""

from __future__ import annotations

import os

SPEECH_CORES_PER = 4  # recognition gets one core in this many (at least one)


def physical_cores() -> int:
    """Physical cores (hyperthreads only slow llama.cpp's decoding down)."""
    try:
        import psutil

        return int(psutil.cpu_count(logical=False) or os.cpu_count() or 1)
    except ImportError:
        return os.cpu_count() or 1


def thread_split(cores: int) -> tuple[int, int]:
    """(model threads, recognition threads) for ``cores`` physical cores; on one core
    both get one (nothing to split)."""
    speech = max(1, cores // SPEECH_CORES_PER)
    return max(1, cores - speech), speech


def _override(variable: str) -> int | None:
    """A positive thread count from the environment, else None."""
    value = os.environ.get(variable, "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def model_threads() -> int:
    """llama.cpp threads when the settings name none: ``$JARVIS_LLM_THREADS``, else the
    model's share of the physical cores."""
    return _override("JARVIS_LLM_THREADS") or thread_split(physical_cores())[0]


def speech_threads() -> int:
    """Recognition threads when the settings name none: ``$JARVIS_ASR_THREADS``, else
    speech's share of the physical cores."""
    return _override("JARVIS_ASR_THREADS") or thread_split(physical_cores())[1]


def offline_model_threads() -> int:
    """llama.cpp threads for work with no recognition beside it (a replay, a QA run, a
    summary from the command line): ``$JARVIS_LLM_THREADS``, else every physical core."""
    return _override("JARVIS_LLM_THREADS") or physical_cores()


def prompt_threads() -> int:
    """llama.cpp threads for a batch of tokens (a prompt, a draft check) when the settings
    name none: ``$JARVIS_LLM_THREADS``, else every physical core. Measured on 2 cores
    (benchmarks/thread_split.py, benchmarks/live_meeting.py): with the model's share alone
    a direct answer's first audio came 10 s later, while with every core recognition's
    decodes still fit their one-second slot."""
    return offline_model_threads()
