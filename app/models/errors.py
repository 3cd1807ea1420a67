"""Typed model-manager errors; each carries a message fit for a dialog."""

from __future__ import annotations

# Said wherever a model fails to load: a file damaged in place keeps its size and date,
# which is all that the start-up check looks at.
VERIFY_HINT = (
    "If the file may be damaged, run `jarvis models verify` (or `jarvis doctor`) to check "
    "every model against its checksum."
)


class ModelError(Exception):
    """Base class: ``user_message`` says what happened and what fixes it."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class UnknownModelError(ModelError):
    """The name is not in the manifest."""


class ModelMissingError(ModelError):
    """Neither a pulled nor an embedded copy is available."""


class ModelChecksumError(ModelError):
    """A file's size or sha256 differs from the manifest or the recorded value."""


class ModelGatedError(ModelError):
    """The hub refused a gated model: a token (and accepted terms) are needed."""


class ModelPullError(ModelError):
    """A download failed for another reason (offline, not found, network)."""
