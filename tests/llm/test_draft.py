"""The draft lookup: ids in, the guessed continuation out."""

from __future__ import annotations

import numpy as np

from app.llm.draft import PromptLookup


def draft(lookup: PromptLookup, ids: list[int]) -> list[int]:
    return [int(t) for t in lookup(np.array(ids, dtype=np.intc))]


def test_the_longest_earlier_match_drafts_what_followed_it() -> None:
    # suffix 7 8 9 occurs at 1..3 (followed by 4 5 6 1); 9 alone also at 10 (followed by 0)
    ids = [2, 7, 8, 9, 4, 5, 6, 1, 2, 3, 9, 0, 7, 8, 9]
    assert draft(PromptLookup(4), ids) == [4, 5, 6]  # a 3-token match drafts 3


def test_a_match_drafts_no_more_than_its_length_nor_the_limit() -> None:
    ids = [5, 1, 2, 3, 4, 6, 7, 8, 9, 5]
    assert draft(PromptLookup(4), ids) == [1]  # only "5" matched
    long = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5]
    assert draft(PromptLookup(2), long) == [6, 7]
    assert draft(PromptLookup(4), long) == [6, 7, 8, 9]


def test_of_two_matches_as_long_the_latest_wins() -> None:
    assert draft(PromptLookup(4), [3, 1, 3, 2, 3]) == [2]


def test_nothing_is_drafted_for_a_new_token_or_when_off() -> None:
    assert draft(PromptLookup(4), [1, 2, 3]) == []
    assert draft(PromptLookup(0), [1, 2, 1]) == []
    assert draft(PromptLookup(4), [1]) == []


def test_an_earlier_reply_counts_between_the_prompt_and_the_reply() -> None:
    prompt, reply = [9, 1, 5, 8], [1]
    # "1" follows in the prompt by 5, in the earlier reply by 2: the reply's is later
    assert draft(PromptLookup(4, history=(1, 2), prompt_tokens=len(prompt)),
                 prompt + reply) == [2]
    assert draft(PromptLookup(4), prompt + reply) == [5]
