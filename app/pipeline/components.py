"""Build each part of the pipeline from whatever is installed, saying what is missing.

Every loader returns ``(part, None)`` or ``(None, reason)``; the reason is fit for the
window's status line ("Speech pipeline not available: <reason>").
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.settings import Settings

log = logging.getLogger(__name__)

Loaded = tuple[Any, str | None]


def _module(name: str) -> tuple[Any, str | None]:
    try:
        return importlib.import_module(name), None
    except ImportError as exc:
        return None, f"{name} is not installed ({exc})"
    except Exception as exc:  # a half-built package must not take the app down
        log.exception("importing %s failed", name)
        return None, f"{name} failed to load ({exc})"


def _attr(module_name: str, attr: str) -> tuple[Any, str | None]:
    module, why = _module(module_name)
    if module is None:
        return None, why
    try:
        value = getattr(module, attr, None)
    except Exception as exc:  # lazy attributes import more modules
        log.exception("loading %s.%s failed", module_name, attr)
        return None, f"{module_name}.{attr} failed to load ({exc})"
    if value is None:
        return None, f"{module_name}.{attr} is not built yet"
    return value, None


def load_document(path: Path, settings: Settings) -> Loaded:
    """A DocumentIndex, or the user message of the DocumentError."""
    open_document, why = _attr("app.document", "open_document")
    if open_document is None:
        return None, why
    try:
        return open_document(Path(path), settings.document), None
    except Exception as exc:
        return None, getattr(
            exc, "user_message", None
        ) or f"Could not open {Path(path).name}: {exc}"


def load_backbone(
    document: Any,
    settings: Settings,
    llm_spec: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Loaded:
    """``progress(done, total)`` hears how far the model has read the document prefix,
    where the backend reports it."""
    backbone_cls, why = _attr("app.backbone", "Backbone")
    if backbone_cls is None:
        return None, why
    open_backend, why = _attr("app.llm", "open_backend")
    if open_backend is None:
        return None, why
    try:
        llm = open_backend(llm_spec, settings.llm)
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or f"language model: {exc}"
    if progress is not None and hasattr(llm, "warm_progress"):
        llm.warm_progress = progress
    return backbone_owning(backbone_cls, document, llm, settings)


def backbone_owning(backbone_cls: Any, document: Any, llm: Any, settings: Settings) -> Loaded:
    """A backbone on a model opened for it; when it cannot be built the model is closed
    (nothing else holds it, and a retry would load a second copy)."""
    try:
        return backbone_cls(document, llm, settings), None
    except Exception as exc:
        log.exception("backbone construction failed")
        llm.close()
        return None, getattr(exc, "user_message", None) or f"backbone: {exc}"


def backbone_on(document: Any, llm: Any, settings: Settings) -> Loaded:
    """A backbone over ``document`` on a model already loaded (another set of documents)."""
    backbone_cls, why = _attr("app.backbone", "Backbone")
    if backbone_cls is None:
        return None, why
    try:
        return backbone_cls(document, llm, settings), None
    except Exception as exc:
        log.exception("backbone construction failed")
        return None, f"backbone: {exc}"


def load_floor(settings: Settings) -> Loaded:
    fsm_cls, why = _attr("app.floor", "FloorFSM")
    if fsm_cls is None:
        return None, why
    try:
        return fsm_cls(settings.floor), None
    except Exception as exc:
        return None, f"floor: {exc}"
