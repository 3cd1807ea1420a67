"""Kept for callers outside the backbone, floor and evaluator that still import from here
(the voice, speech, summary and benchmarks); the words live in ``app.language``."""

from app.language.sentences import sentences as split_sentences
from app.language.talk import is_backchannel
from app.language.words import tokens

__all__ = ["is_backchannel", "split_sentences", "tokens"]
