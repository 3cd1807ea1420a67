"""The meeting is cut into parts on turn boundaries, each within its token budget."""

from __future__ import annotations

import pytest

from app.summary.chunking import chunk_turns, estimate_tokens, pack
from app.summary.meeting import SpokenTurn
from app.summary.settings import SummarySettings


def words(text: str) -> int:
    """A token counter the boundaries can be worked out by hand with: one per word."""
    return len(text.split())


def turn(index: int, text: str, speaker: str = "Ana") -> SpokenTurn:
    return SpokenTurn(index, speaker, text, float(index), float(index) + 1)


def test_pack_fills_each_run_up_to_the_budget_in_order():
    assert pack([3, 4, 2, 5, 1], 7) == [range(0, 2), range(2, 4), range(4, 5)]
    assert pack([8, 1], 7) == [range(0, 1), range(1, 2)]  # too big: a run by itself
    assert pack([], 7) == []


def test_parts_end_where_the_next_turn_would_not_fit():
    # "[Turn N] Ana: ..." costs 3 words beside the turn's own.
    turns = [turn(0, "one two three four five"), turn(1, "six seven eight nine"),
             turn(2, "ten eleven twelve thirteen fourteen fifteen"), turn(3, "sixteen")]
    chunks = chunk_turns(turns, 16, count=words)
    assert [c.turns for c in chunks] == [(0, 1), (2, 3)]
    assert [c.tokens for c in chunks] == [15, 13]
    assert chunks[0].text == ("[Turn 0] Ana: one two three four five\n"
                              "[Turn 1] Ana: six seven eight nine")


def test_a_turn_too_long_for_a_part_is_split_at_its_sentences_keeping_its_number():
    long = turn(4, "We looked at roofs. The costs came in late. Then we met the council.")
    chunks = chunk_turns([turn(3, "hello there"), long], 10, count=words)
    assert [c.text for c in chunks] == [
        "[Turn 3] Ana: hello there",
        "[Turn 4] Ana: We looked at roofs.",
        "[Turn 4] Ana: The costs came in late.",
        "[Turn 4] Ana: Then we met the council.",
    ]
    assert all(c.tokens <= 10 for c in chunks)


def test_short_sentences_of_a_long_turn_share_a_line_again():
    long = turn(0, "One two. Three four. Five six. Seven eight nine ten eleven.")
    chunks = chunk_turns([long], 9, count=words)
    assert [c.text for c in chunks] == ["[Turn 0] Ana: One two. Three four. Five six.",
                                        "[Turn 0] Ana: Seven eight nine ten eleven."]


def test_a_sentence_too_long_for_a_part_is_split_at_its_words():
    chunks = chunk_turns([turn(0, "a b c d e f g h")], 6, count=words)
    assert [c.text for c in chunks] == ["[Turn 0] Ana: a b c", "[Turn 0] Ana: d e f",
                                        "[Turn 0] Ana: g h"]


def test_a_long_meeting_fits_every_part_and_keeps_every_word_in_order():
    turns = [turn(i, f"point {i} " + "about the roof budget and the council " * (i % 9 + 1),
                  speaker=("Ana", "Ben")[i % 2]) for i in range(300)]
    budget = 400
    chunks = chunk_turns(turns, budget)
    assert len(chunks) > 10
    assert all(c.tokens <= budget for c in chunks)
    assert all(estimate_tokens(c.text) <= budget for c in chunks)
    seen = [p.turn for c in chunks for p in c.pieces]
    assert seen == list(range(300))  # every turn, once, in order (none needed splitting)


def test_the_budget_leaves_room_for_the_instructions_and_the_reply():
    s = SummarySettings()
    assert s.chunk_budget(16384, 640) == s.chunk_tokens
    assert s.chunk_budget(2048, 640) == 2048 - s.prompt_reserve_tokens - 640
    with pytest.raises(ValueError):
        s.chunk_budget(1024, 640)
