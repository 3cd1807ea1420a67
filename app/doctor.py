"""``jarvis doctor``: what is installed, what is missing, and what to do about it.

Each check returns ``Check`` rows (ok / warn / fail, a detail, a fix). Fails are things
the app cannot work without; warnings degrade it (no GPU, no microphone).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from app.models.manifest import REQUIRED_MODELS

if TYPE_CHECKING:
    from app.models import ModelManager

OK, WARN, FAIL = "ok", "warn", "fail"

PACKAGES = (
    ("PySide6", "the window", "pip install PySide6-Essentials PySide6-Pdf"),
    ("pymupdf", "reading PDFs", "pip install pymupdf"),
    ("llama_cpp", "the language model", "pip install llama-cpp-python "
     "(CMAKE_ARGS=-DGGML_CUDA=on on a GPU workstation)"),
    ("faster_whisper", "speech recognition", "pip install faster-whisper"),
    ("onnxruntime", "voice activity, wake word and voice", "pip install onnxruntime"),
    ("sounddevice", "microphone and loudspeaker", "pip install sounddevice "
     "(and the PortAudio library: apt install libportaudio2)"),
    ("kokoro_onnx", "the agent's voice", "pip install kokoro-onnx"),
)



# Qt's xcb platform plugin (the window on an X11 desktop) loads these at start; without one
# of them it aborts with "Could not load the Qt platform plugin xcb". Debian/Ubuntu package
# -> the library it carries. The installers install the same list.
XCB_LIBRARIES = (
    ("libxcb-cursor0", "libxcb-cursor.so.0"),
    ("libxcb-icccm4", "libxcb-icccm.so.4"),
    ("libxcb-image0", "libxcb-image.so.0"),
    ("libxcb-keysyms1", "libxcb-keysyms.so.1"),
    ("libxcb-randr0", "libxcb-randr.so.0"),
    ("libxcb-render-util0", "libxcb-render-util.so.0"),
    ("libxcb-shape0", "libxcb-shape.so.0"),
    ("libxcb-xinerama0", "libxcb-xinerama.so.0"),
    ("libxcb-xkb1", "libxcb-xkb.so.1"),
    ("libxkbcommon-x11-0", "libxkbcommon-x11.so.0"),
)


@dataclass(frozen=True)
class Check:
    area: str
    name: str
    status: str
    detail: str
    fix: str = ""


def check_packages() -> list[Check]:
    rows = []
    for module, purpose, fix in PACKAGES:
        try:
            importlib.import_module(module)
            rows.append(Check("packages", module, OK, f"installed ({purpose})"))
        except Exception as exc:
            rows.append(Check("packages", module, FAIL, f"not importable: {exc}", fix))
    return rows


def check_audio() -> list[Check]:
    try:
        import sounddevice as sd
    except Exception as exc:
        return [Check("audio", "PortAudio", FAIL, f"sounddevice unavailable: {exc}",
                      "Install PortAudio (apt install libportaudio2) and sounddevice.")]
    try:
        devices = list(sd.query_devices())
    except Exception as exc:
        return [Check("audio", "devices", FAIL, f"cannot list audio devices: {exc}",
                      "Check that the sound system is running.")]
    rows = []
    for kind, key, what in (("input", "max_input_channels", "microphone"),
                            ("output", "max_output_channels", "loudspeaker")):
        names = [d["name"] for d in devices if d[key] > 0]
        if names:
            rows.append(Check("audio", what, OK, f"{len(names)} {kind} device(s): "
                              + ", ".join(names[:3])))
        else:
            fix = ("Connect a microphone or speakerphone; `jarvis demo` works without one."
                   if kind == "input" else "Connect a loudspeaker; the agent's words still "
                   "appear in the transcript.")
            rows.append(Check("audio", what, WARN, f"no {kind} device found", fix))
    return rows


def loadable(soname: str) -> bool:
    """The dynamic linker finds and loads the library, as Qt's plugin loader would."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def check_window_system(
    libraries: tuple[tuple[str, str], ...] = XCB_LIBRARIES,
    platform: str = sys.platform,
    display: str | None = None,
) -> list[Check]:
    """On Linux: the X11 libraries Qt's xcb plugin needs, each named with its package."""
    if not platform.startswith("linux"):
        return []
    missing = [(pkg, lib) for pkg, lib in libraries if not loadable(lib)]
    if not missing:
        return [Check("window", "Qt xcb libraries", OK, f"all {len(libraries)} present")]
    shown = os.environ.get("DISPLAY") if display is None else display
    packages = " ".join(pkg for pkg, _ in missing)
    detail = "missing " + ", ".join(f"{lib} (package {pkg})" for pkg, lib in missing)
    if not shown:
        detail += "; needed when the window opens on an X11 desktop"
    return [Check("window", "Qt xcb libraries", FAIL if shown else WARN, detail,
                  f"sudo apt-get install {packages}  (or installers/linux/install.sh does it); "
                  "without them `jarvis run` stops with \"Could not load the Qt platform "
                  "plugin xcb\".")]


def check_cuda() -> list[Check]:
    rows = []
    try:
        import ctranslate2

        n = ctranslate2.get_cuda_device_count()
        rows.append(Check("gpu", "speech recognition (CTranslate2)", OK if n else WARN,
                          f"{n} CUDA device(s)" if n else "CPU only",
                          "" if n else "Install an NVIDIA driver and the CUDA build for "
                          "real-time transcription with larger models."))
    except Exception as exc:
        rows.append(Check("gpu", "speech recognition (CTranslate2)", WARN, f"unknown: {exc}"))
    try:
        import llama_cpp

        gpu = bool(llama_cpp.llama_supports_gpu_offload())
        rows.append(Check("gpu", "language model (llama.cpp)", OK if gpu else WARN,
                          "GPU offload built in" if gpu else "CPU build",
                          "" if gpu else "Reinstall llama-cpp-python with "
                          "CMAKE_ARGS=-DGGML_CUDA=on (installers/linux/install.sh does this)."))
    except Exception as exc:
        rows.append(Check("gpu", "language model (llama.cpp)", FAIL, f"not importable: {exc}",
                          "pip install llama-cpp-python"))
    return rows


def check_models(
    manager: ModelManager | None = None, verify: bool = True, stream: TextIO | None = None
) -> list[Check]:
    """Each model: present, and (``verify``) every byte against its sha256.

    Starting the app only compares size and modification time with the record made when a
    file was hashed, so a file damaged in place passes that; the full re-hash finds it.
    Big files get a progress line on ``stream`` (stderr by default).
    """
    if manager is None:
        try:
            from app.models import default_manager
        except Exception as exc:
            return [Check("models", "model manager", FAIL, f"unavailable: {exc}",
                          "Reinstall the app.")]
        manager = default_manager()
    rows = []
    for name in manager.manifest.names():
        try:
            path = manager.resolve(name)
        except Exception as exc:
            message = getattr(exc, "user_message", str(exc))
            needed = name in REQUIRED_MODELS
            rows.append(Check("models", name, FAIL if needed else WARN,
                              "missing" if needed else "optional, not on this computer",
                              message or f"jarvis models pull {name}"))
            continue
        if not verify:
            rows.append(Check("models", name, OK, f"{path} (size and date only)"))
            continue
        rows.append(_verified(manager, name, path, stream))
    if not verify:
        rows.append(Check("models", "checksums", WARN, "not checked (--quick)",
                          "Run `jarvis models verify` to re-hash every model file."))
    return rows


def check_models_quick() -> list[Check]:
    return check_models(verify=False)


def _verified(manager: ModelManager, name: str, path: Path, stream: TextIO | None) -> Check:
    from app.models.commands import ProgressLine

    try:
        results = manager.verify(name, ProgressLine(name, stream))
    except Exception as exc:
        message = getattr(exc, "user_message", str(exc))
        return Check("models", name, FAIL, f"damaged: {message}", message)
    bad = [r for r in results if not r.ok]
    if not bad:
        return Check("models", name, OK, f"{path} (checksum verified)")
    problems = "; ".join(f"{r.source} copy: {p}" for r in bad for p in r.problems)
    fix = " ".join(r.fix for r in bad if r.fix) or f"jarvis models pull {name}"
    return Check("models", name, FAIL, f"damaged: {problems}", fix)


def check_data_dir() -> list[Check]:
    from app.session.record import sessions_dir

    folder = sessions_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
        return [Check("storage", "session records", OK, str(folder))]
    except OSError as exc:
        return [Check("storage", "session records", FAIL, f"{folder} is not writable: {exc}",
                      "Set JARVIS_DATA_DIR to a writable folder.")]


CHECKS: tuple[Callable[[], list[Check]], ...] = (
    check_packages, check_window_system, check_audio, check_cuda, check_models, check_data_dir,
)


def run_checks(checks: tuple[Callable[[], list[Check]], ...] = CHECKS) -> list[Check]:
    rows: list[Check] = []
    for check in checks:
        try:
            rows += check()
        except Exception as exc:  # a broken check is itself a finding
            rows.append(Check("doctor", check.__name__, FAIL, f"check crashed: {exc}"))
    return rows


def report(rows: list[Check]) -> str:
    mark = {OK: "  ok ", WARN: " warn", FAIL: " FAIL"}
    width = max((len(r.name) for r in rows), default=10)
    lines = [f"{mark[r.status]}  {r.area:<8} {r.name:<{width}}  {r.detail}" for r in rows]
    fixes = [f"- {r.name}: {r.fix}" for r in rows if r.status != OK and r.fix]
    if fixes:
        lines += ["", "What to fix:"] + fixes
    else:
        lines += ["", "Everything Jarvis needs is in place."]
    return "\n".join(lines)


def _handler(args: argparse.Namespace) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    checks = CHECKS
    if getattr(args, "quick", False):
        checks = tuple(check_models_quick if c is check_models else c for c in CHECKS)
    rows = run_checks(checks)
    print(report(rows))
    return 1 if any(r.status == FAIL for r in rows) else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("doctor", help="check audio devices, GPU and model files")
    parser.add_argument("--quick", action="store_true",
                        help="skip re-hashing the model files (size and date only)")
    parser.set_defaults(handler=_handler)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_handler(argparse.Namespace()))
