"""Where Jarvis keeps its files: one data dir, one cache dir, the bundled resources."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "jarvis"


def data_dir() -> Path:
    """Session records, pulled models and settings (``$JARVIS_DATA_DIR`` overrides)."""
    return Path(os.environ.get("JARVIS_DATA_DIR") or platformdirs.user_data_dir(APP_NAME))


def cache_dir() -> Path:
    """Rebuildable files: joined embedded weights, embeddings (``$JARVIS_CACHE_DIR``)."""
    return Path(os.environ.get("JARVIS_CACHE_DIR") or platformdirs.user_cache_dir(APP_NAME))


def resources_dir() -> Path:
    """Icons, earcons and the demo meeting.

    A checkout (editable install) and a PyInstaller bundle keep ``resources/`` beside
    ``app/``; a regular install puts it under ``<prefix>/share/jarvis/resources``.
    """
    frozen_root = getattr(sys, "_MEIPASS", None)
    candidates = [
        Path(frozen_root) / "resources" if frozen_root else None,
        Path(__file__).resolve().parents[1] / "resources",
        Path(sys.prefix) / "share" / APP_NAME / "resources",
    ]
    for path in candidates:
        if path is not None and path.is_dir():
            return path
    return Path(__file__).resolve().parents[1] / "resources"
