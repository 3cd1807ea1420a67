"""Jarvis for the room: a careful meeting participant grounded in a shared PDF."""

__version__ = "0.1.0"
