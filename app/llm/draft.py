"""Draft tokens for speculative decoding, looked up in the text the model already has.

Much of what the stages write is copied: a direct answer or a correction repeats a
document sentence, a claim repeats the speaker's words, and JSON repeats its own
punctuation. When the last tokens written also occur earlier in the prompt or the reply,
the tokens that followed them there are a good guess at what comes next. llama.cpp checks
a guess for the price of one batched step (on a CPU, a batch of two tokens costs about
what one does, four about a fifth more), and the sampler keeps only the tokens it would
have drawn anyway, so the reply is the same and arrives sooner.

The lookup is pure: token ids in, draft ids out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class PromptLookup:
    """Drafts the tokens that followed the latest earlier occurrence of the longest
    suffix (at most ``max_tokens`` tokens long) of the ids so far. A match of n tokens
    drafts at most n tokens: a short match is a weak guess, and a wrong guess costs a
    larger batch. ``max_tokens`` 0 drafts nothing."""

    max_tokens: int = 4  # tokens drafted at most, and the longest suffix looked for
    # An earlier reply of the same stage, looked in as if it stood between the prompt and
    # the reply being written: replies share their JSON keys and punctuation, which the
    # prompt rarely spells out, so of two matches as long the reply's own comes first,
    # then the earlier reply's, then the prompt's.
    history: tuple[int, ...] = ()
    prompt_tokens: int = 0  # where the reply being written begins in the ids

    def __call__(self, input_ids: npt.NDArray[np.intc] | Sequence[int], /,
                 **_: object) -> npt.NDArray[np.intc]:
        given = np.asarray(input_ids, dtype=np.intc)
        at = min(self.prompt_tokens, len(given))
        ids = np.concatenate([given[:at], np.asarray(self.history, dtype=np.intc), given[at:]])
        found = self.match(ids)
        if found is None:
            return np.array([], dtype=np.intc)
        end, length = found  # the match ends at ids[end]
        return ids[end + 1 : end + 1 + min(length, self.max_tokens)].copy()

    def match(self, ids: npt.NDArray[np.intc]) -> tuple[int, int] | None:
        """(where the longest earlier match of the ids' suffix ends, its length); the
        latest such match when several are as long; None when the last id is new."""
        if self.max_tokens <= 0 or len(ids) < 2:
            return None
        ends = np.flatnonzero(ids[:-1] == ids[-1])
        if len(ends) == 0:
            return None
        length = 1
        for n in range(2, self.max_tokens + 1):
            longer = ends[ends >= n - 1]
            longer = longer[ids[longer - (n - 1)] == ids[-n]] if len(longer) else longer
            if len(longer) == 0:
                break
            ends, length = longer, n
        return int(ends[-1]), length
