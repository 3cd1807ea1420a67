"""The summary's tunable parameters."""

from __future__ import annotations

from dataclasses import dataclass

from app.settings import LLMStageSettings


@dataclass(frozen=True)
class SummarySettings:
    # Transcript tokens (estimated, see ``chunking.estimate_tokens``) one map call reads.
    # Small on purpose: a 1.5B model keeps track of a few minutes of talk, not an hour.
    chunk_tokens: int = 1500
    # Tokens of notes one combine (reduce) call reads; more notes are combined in rounds.
    combine_tokens: int = 1200
    # Share (0..1) of a statement's content words its cited turns must hold; below it the
    # statement is dropped. The same share the guard asks of a spoken fix.
    min_coverage: float = 0.6
    max_points: int = 6  # statements one map call may return
    max_summary: int = 8  # statements the combined summary may hold
    max_actions: int = 6  # action items one call may return
    max_cited_turns: int = 4  # turns one statement may cite
    # Turns after a question (backchannels aside) in which a reply counts as its answer.
    answer_window_turns: int = 3
    # Open questions looked up in the document (one model call each); later ones are
    # listed as not looked up.
    max_questions_checked: int = 10
    points: LLMStageSettings = LLMStageSettings(0.1, 512)  # temperature, output tokens
    actions: LLMStageSettings = LLMStageSettings(0.1, 384)
    combine: LLMStageSettings = LLMStageSettings(0.1, 640)
    # Tokens kept free beside a chunk for the instructions and the reply's task line.
    prompt_reserve_tokens: int = 700

    def chunk_budget(self, context_tokens: int, output_tokens: int) -> int:
        """Transcript tokens per call that the model's context can hold beside the
        instructions and the reply; never more than ``chunk_tokens``."""
        room = context_tokens - self.prompt_reserve_tokens - output_tokens
        if room < 64:
            raise ValueError(f"a context of {context_tokens} tokens is too small to summarise in")
        return min(self.chunk_tokens, room)
