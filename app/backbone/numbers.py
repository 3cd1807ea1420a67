"""Kept for the summary, which still imports from here; quantities live in
``app.language.numbers``."""

from app.language.numbers import quantities

__all__ = ["quantities"]
