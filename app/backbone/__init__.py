"""Proactive backbone: monitor, self-repair with its guard, claim ledger and gate, grounded
generation and direct answering, over one document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.backbone.harness import Backbone

__all__ = ["Backbone"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package for its pure parts must not pull in the LLM runtime.
    if name == "Backbone":
        from app.backbone.harness import Backbone

        return Backbone
    raise AttributeError(name)
