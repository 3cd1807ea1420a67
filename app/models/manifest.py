"""The model manifest: named models, where to pull them and where they come embedded.

The canonical copy is ``app/models/manifest.json`` so that it ships inside the package
(editable installs and wheels both find it next to this module).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.models.errors import UnknownModelError

MANIFEST_PATH = Path(__file__).with_name("manifest.json")
ROLES = ("llm", "asr", "tts", "vad", "wake", "diarization", "embedding")
# What the default app runs on; the rest of the manifest is optional upgrades.
REQUIRED_MODELS = frozenset(
    {"llm-1.5b", "whisper-tiny.en", "kokoro", "minilm", "silero-vad", "oww-hey-jarvis"}
)
_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class HubFile:
    path: str  # path inside the hub repository
    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class HubSource:
    repo_id: str
    revision: str
    files: tuple[HubFile, ...]
    gated: bool = False
    entrypoints: Mapping[str, str] = field(default_factory=lambda: _EMPTY)

    @property
    def url(self) -> str:
        return f"https://huggingface.co/{self.repo_id}"


@dataclass(frozen=True)
class EmbeddedFile:
    """One file of an embedded model: ``parts`` are ``package/relative/path`` joined in order."""

    name: str
    parts: tuple[str, ...]
    sha256: str | None = None
    size: int | None = None

    @property
    def joined(self) -> bool:
        return len(self.parts) > 1


@dataclass(frozen=True)
class EmbeddedSource:
    packages: tuple[str, ...]  # pip requirements that carry the files
    files: tuple[EmbeddedFile, ...]
    directory: str | None = None  # a package folder used in place (dir models)
    entrypoints: Mapping[str, str] = field(default_factory=lambda: _EMPTY)

    @property
    def needs_assembly(self) -> bool:
        """True when the model must be built in the cache (joined parts or a gathered dir)."""
        if any(f.joined for f in self.files):
            return True
        return self.directory is None and len(self.files) > 1


@dataclass(frozen=True)
class ModelEntry:
    name: str
    role: str
    kind: str  # "file" or "dir"
    size: int
    licence: str
    description: str
    size_exact: bool = True
    default: bool = False
    hub: HubSource | None = None
    embedded: EmbeddedSource | None = None


@dataclass(frozen=True)
class Manifest:
    entries: tuple[ModelEntry, ...]

    def get(self, name: str) -> ModelEntry:
        for entry in self.entries:
            if entry.name == name:
                return entry
        known = ", ".join(e.name for e in self.entries)
        raise UnknownModelError(f"There is no model called '{name}'. Known models: {known}.")

    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def default(self, role: str) -> ModelEntry:
        picks = [e for e in self.entries if e.role == role]
        return next((e for e in picks if e.default), picks[0])


def _hub(raw: dict[str, Any] | None) -> HubSource | None:
    if raw is None:
        return None
    files = tuple(HubFile(f["path"], f.get("sha256"), f.get("size")) for f in raw["files"])
    return HubSource(
        repo_id=raw["repo_id"],
        revision=raw.get("revision", "main"),
        files=files,
        gated=bool(raw.get("gated", False)),
        entrypoints=MappingProxyType(dict(raw.get("entrypoints", {}))),
    )


def _embedded(raw: dict[str, Any] | None) -> EmbeddedSource | None:
    if raw is None:
        return None
    files = tuple(
        EmbeddedFile(f["name"], tuple(f["parts"]), f.get("sha256"), f.get("size"))
        for f in raw.get("files", [])
    )
    return EmbeddedSource(
        packages=tuple(raw["packages"]),
        files=files,
        directory=raw.get("directory"),
        entrypoints=MappingProxyType(dict(raw.get("entrypoints", {}))),
    )


def parse_manifest(data: dict[str, Any]) -> Manifest:
    entries = []
    for raw in data["models"]:
        if raw["role"] not in ROLES or raw["kind"] not in ("file", "dir"):
            raise ValueError(f"bad manifest entry {raw['name']!r}: role/kind")
        entries.append(
            ModelEntry(
                name=raw["name"],
                role=raw["role"],
                kind=raw["kind"],
                size=int(raw["size"]),
                size_exact=bool(raw.get("size_exact", True)),
                licence=raw["licence"],
                description=raw.get("description", ""),
                default=bool(raw.get("default", False)),
                hub=_hub(raw.get("hub")),
                embedded=_embedded(raw.get("embedded")),
            )
        )
    return Manifest(tuple(entries))


def load_manifest(path: Path | None = None) -> Manifest:
    if path is None:
        return _default_manifest()
    return parse_manifest(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _default_manifest() -> Manifest:
    return parse_manifest(json.loads(MANIFEST_PATH.read_text(encoding="utf-8")))
