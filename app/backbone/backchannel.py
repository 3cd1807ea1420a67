"""Backchannels ("yeah", "mm-hm") are acknowledgements, not content: they skip the monitor."""

from __future__ import annotations

import re

from app.settings import BACKCHANNEL_WORDS

MAX_WORDS = 4  # SPEC §5: a turn of at most four words, every one of them in the list


def _known(token: str) -> bool:
    # ASR spells hums with any number of letters: "mm" and "mmm" are the listed "m".
    return token in BACKCHANNEL_WORDS or re.sub(r"(.)\1+", r"\1", token) in BACKCHANNEL_WORDS


def is_backchannel(text: str, max_words: int = MAX_WORDS) -> bool:
    tokens = re.findall(r"[a-z]+", text.lower().replace("\u2019", "'"))
    return 0 < len(tokens) <= max_words and all(_known(t) for t in tokens)
