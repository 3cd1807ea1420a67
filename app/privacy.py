"""Nothing leaves the machine: the libraries' own network features are off before they load.

ONNX Runtime (1.29 and later, on Linux) keeps a device id and a queue of usage events under
``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and uploads them from native code;
huggingface_hub sends usage pings and looks for updates; pyannote.audio (the optional
workstation diarization) exports traces. Each reads its switch from the environment once,
when first imported, so :func:`apply` runs from ``app/__init__``: every entry point (the
CLI, the window, the frozen bundle, the tests) imports ``app`` before any of them, and child
processes inherit the variables. The installers export the same ones (``OPT_OUTS``).

Once the models the app runs on are on disk nothing needs the hub, so the hub goes offline
too (unless the user set ``HF_HUB_OFFLINE`` either way); ``jarvis models pull`` lifts that
for itself with :func:`allow_hub`.

``import pymupdf`` also imports PyMuPDF's layout analyzer, which starts ONNX Runtime on
its models. The index needs it only for PyMuPDF's table finder, which imports it
explicitly (``import pymupdf.layout``); :func:`guard_layout` stops the implicit import.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
from collections.abc import Callable, MutableMapping, Sequence
from importlib.machinery import ModuleSpec
from types import MappingProxyType, ModuleType

# Switches read by the libraries themselves; each turns a network feature off.
OPT_OUTS = MappingProxyType({
    "ORT_DISABLE_TELEMETRY": "1",  # ONNX Runtime: no device id, no event queue, no upload
    "HF_HUB_DISABLE_TELEMETRY": "1",  # huggingface_hub (and transformers) usage pings
    "HF_HUB_DISABLE_UPDATE_CHECK": "1",  # huggingface_hub's version checks
    "DO_NOT_TRACK": "1",  # the cross-tool convention (huggingface_hub reads it too)
    "PYANNOTE_METRICS_ENABLED": "false",  # pyannote.audio's trace export
})
OFFLINE = "HF_HUB_OFFLINE"
# Set beside HF_HUB_OFFLINE when the app chose offline (not the user), so a child process
# knows it may lift it for a pull.
OFFLINE_BY_APP = "JARVIS_HUB_OFFLINE_BY_APP"
# What ``import pymupdf`` would import by itself; still importable by name. (pymupdf4llm,
# also imported there, is left alone: on import it stops MuPDF printing repair messages.)
ON_REQUEST = frozenset({"pymupdf.layout"})


def apply(
    environ: MutableMapping[str, str] | None = None,
    models_present: Callable[[], bool] | None = None,
) -> None:
    """Set every opt-out, offline mode once the models are here, and the layout guard."""
    env = os.environ if environ is None else environ
    env.update(OPT_OUTS)
    guard_layout()
    present = models_present or required_models_present
    if OFFLINE not in env and present():
        env[OFFLINE] = "1"
        env[OFFLINE_BY_APP] = "1"


def allow_hub(environ: MutableMapping[str, str] | None = None) -> None:
    """Go online for a pull, when it was the app that went offline (the user's word stands)."""
    env = os.environ if environ is None else environ
    if env.pop(OFFLINE_BY_APP, None) != "1":
        return
    env[OFFLINE] = "0"
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:  # read at import: an already imported hub needs telling too
        constants.HF_HUB_OFFLINE = False  # type: ignore[attr-defined]


def required_models_present() -> bool:
    """Every model the default app runs on is on disk (stat only: cheap at import)."""
    try:
        from app.frozen import add_models_path, embedded_models_dir
        from app.models import default_manager
        from app.models.manifest import REQUIRED_MODELS

        add_models_path(embedded_models_dir())  # a bundle's weight packages, as at start
        manager = default_manager()
        return all(manager.present(name) for name in REQUIRED_MODELS)
    except Exception:  # a broken install stays online for `jarvis models pull`
        return False


class _LayoutOnRequest(importlib.abc.MetaPathFinder):
    """Refuses ``ON_REQUEST`` modules while ``pymupdf`` itself is being imported.

    PyMuPDF imports them from its ``__init__`` inside ``try/except ImportError``; an
    explicit ``import pymupdf.layout`` afterwards finds it as usual.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in ON_REQUEST and _initializing(sys.modules.get("pymupdf")):
            raise ImportError(f"{fullname} loads only where the app asks for it")
        return None


def _initializing(module: ModuleType | None) -> bool:
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def guard_layout() -> None:
    if not any(isinstance(f, _LayoutOnRequest) for f in sys.meta_path):
        sys.meta_path.insert(0, _LayoutOnRequest())
