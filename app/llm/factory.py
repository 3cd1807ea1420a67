"""``open_backend``: one entry point from a spec string to a running backend."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.cores import offline_model_threads
from app.llm.types import LLMBackend, LLMError
from app.settings import LLMSettings

DEFAULT_MODEL = "llm-1.5b"


def open_backend(spec: str | None = None, settings: LLMSettings | None = None) -> LLMBackend:
    """None -> the embedded default GGUF; a .gguf path; a manifest name; or an http(s) URL."""
    settings = settings or LLMSettings()
    if spec is not None and spec.startswith(("http://", "https://")):
        from app.llm.http import HttpBackend

        return HttpBackend(spec, settings)
    from app.llm.llama import LlamaBackend

    return LlamaBackend(resolve_model_path(spec), settings)


def offline_settings(settings: LLMSettings) -> LLMSettings:
    """The settings for a run with no recognition beside it: every core goes to the model
    unless the settings name a thread count."""
    if settings.threads is not None:
        return settings
    return dataclasses.replace(settings, threads=offline_model_threads())


def resolve_model_path(spec: str | None) -> Path:
    """The GGUF for a path or manifest name (None: the default model)."""
    if spec is not None and (spec.endswith(".gguf") or Path(spec).is_file()):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise LLMError(f"The language model file {path} does not exist.")
        return path
    from app.models import ModelError, default_manager

    manager = default_manager()
    try:
        if manager.entry(spec or DEFAULT_MODEL).role != "llm":
            raise LLMError(f"'{spec}' is not a language model; see `jarvis models list`.")
        return manager.resolve(spec or DEFAULT_MODEL)
    except ModelError as exc:
        raise LLMError(exc.user_message) from exc
