"""Jarvis for the room: a careful meeting participant grounded in a shared PDF."""

__version__ = "0.1.0"

# Before anything else of the app, so no library is imported ahead of its network switches.
from app import privacy as _privacy  # noqa: E402

_privacy.apply()
