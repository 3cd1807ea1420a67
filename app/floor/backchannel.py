"""Backchannel detection (SPEC §5): "yeah", "m-hmm", "okay right" do not take the floor.

Import-light on purpose: the backbone uses it on every turn.
"""

from __future__ import annotations

from collections.abc import Collection

from app.floor.text import tokens
from app.settings import BACKCHANNEL_WORDS, FloorSettings

_MAX_WORDS = FloorSettings.backchannel_max_words


def is_backchannel(
    text: str, words: Collection[str] = BACKCHANNEL_WORDS, max_words: int = _MAX_WORDS
) -> bool:
    """True for a turn of at most ``max_words`` tokens, every one of them a backchannel word."""
    toks = tokens(text)
    return 0 < len(toks) <= max_words and all(t in words for t in toks)
