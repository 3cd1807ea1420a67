"""Shared test configuration: offline hub, offscreen Qt, and the shared data folder."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("JARVIS_SHARED", REPO.parent / "shared"))


@pytest.fixture(autouse=True, scope="module")
def _free_native_objects_between_modules() -> Iterator[None]:
    """Collect a module's garbage on the main thread once it is done. Left to a later
    collection, native objects (ONNX Runtime sessions, torch models, Qt wrappers) can be
    freed in the middle of another module's test, while its synthesis thread and the Qt
    loop run, and that crashed the quick suite in the voice picker's tests."""
    yield
    gc.collect()


def shared_path(relative: str) -> Path:
    """A path under the shared data folder, or skip the test when it is absent."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(reason=f"needs ../shared data: {relative} is absent")
    return path


@pytest.fixture
def shared() -> type:
    class _Shared:
        root = SHARED
        path = staticmethod(shared_path)

    return _Shared
