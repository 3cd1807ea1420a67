"""Model manager: named models from the manifest, pulled from the hub or embedded in PyPI packages.

>>> from app.models import resolve
>>> resolve("llm-1.5b")  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from app.models.errors import (
    ModelChecksumError,
    ModelError,
    ModelGatedError,
    ModelMissingError,
    ModelPullError,
    UnknownModelError,
)
from app.models.manager import ModelManager, Verification
from app.models.manifest import Manifest, ModelEntry, load_manifest
from app.models.pull import Progress
from app.models.store import ModelStore

__all__ = [
    "Manifest",
    "ModelChecksumError",
    "ModelEntry",
    "ModelError",
    "ModelGatedError",
    "ModelManager",
    "ModelMissingError",
    "ModelPullError",
    "ModelStore",
    "UnknownModelError",
    "Verification",
    "default_manager",
    "load_manifest",
    "pull",
    "resolve",
    "resolve_file",
    "verify",
]


def default_manager() -> ModelManager:
    """A manager over the shipped manifest and the user's dirs (env read on each call)."""
    return ModelManager(load_manifest(), ModelStore.default())


def resolve(name: str) -> Path:
    return default_manager().resolve(name)


def resolve_file(name: str, key: str) -> Path:
    return default_manager().resolve_file(name, key)


def pull(name: str, progress: Progress | None = None, token: str | None = None) -> Path:
    return default_manager().pull(name, progress=progress, token=token)


def verify(name: str) -> list[Verification]:
    return default_manager().verify(name)
