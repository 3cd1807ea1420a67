"""Builds real backbones for the evaluator: one LLM and embedder per run, one per turn stream.

The LLM backend and the embedder are loaded once and shared; each document is opened
once; each conversation (or QA item) gets a fresh ``Backbone`` so no ledger state leaks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings import Settings


class ModelBackboneFactory:
    def __init__(self, model: str | None, settings: Settings) -> None:
        from app.embedding import get_embedder
        from app.llm import open_backend
        from app.llm.factory import offline_settings

        self.settings = settings
        self.llm = open_backend(model, offline_settings(settings.llm))
        self.embedder = get_embedder()
        self._documents: dict[Path, Any] = {}

    def document(self, path: Path) -> Any:
        from app.document import open_document

        if path not in self._documents:
            self._documents[path] = open_document(path, self.settings.document)
        return self._documents[path]

    def __call__(self, path: Path) -> Any:
        from app.backbone import Backbone

        return Backbone(self.document(path), self.llm, self.settings, self.embedder)

    def close(self) -> None:
        self.llm.close()
