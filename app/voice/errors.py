"""Typed voice errors; each carries a message fit for a dialog."""

from __future__ import annotations


class VoiceError(Exception):
    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class VoiceModelError(VoiceError):
    """The speech synthesis model is missing or cannot be loaded."""


class SynthesisError(VoiceError):
    """The engine failed on a piece of text."""


class PlaybackError(VoiceError):
    """The output device refused the audio (unplugged, busy, no device)."""
