"""The live benchmark's yielding room: participants wait for the agent they hear speaking."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from app.clock import SimulatedClock
from app.events import PlaybackReceipt, ReceiptStatus

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from live.render import Line, Rendering  # noqa: E402
from live.yielding import AgentVoice, Hold, YieldingRoom, as_played, hold_points  # noqa: E402

BLOCK = 512
RATE = 16000


def _line(start: float, end: float, speaker: str = "S1", turn: int | None = 0) -> Line:
    return Line(speaker, "words", start, end, turn)


def test_only_turns_begun_in_silence_can_be_held_back() -> None:
    lines = [
        _line(0.5, 4.0),
        _line(2.0, 2.6, "S2", None),  # a backchannel inside the first turn
        _line(3.7, 6.0, "S2", 1),  # an overlap over its last words
        _line(7.0, 9.0, "S1", 2),  # after a silence
        _line(9.0, 10.0, "S2", 3),  # right as the last one ends
    ]
    assert hold_points(lines) == [0.5, 7.0, 9.0]


def test_lines_move_by_the_silence_inserted_at_or_before_them() -> None:
    rendering = Rendering(Path("x.flac"), (_line(0.5, 4.0), _line(7.0, 9.0, turn=1),
                                           _line(12.0, 13.0, turn=2)), {"S1": "v"})  # fmt: skip
    played = as_played(rendering, [Hold(7.0, 3.0), Hold(12.0, 1.5)])
    assert [(x.start, x.end) for x in played.lines] == [(0.5, 4.0), (10.0, 12.0), (16.5, 17.5)]
    assert played.duration == 17.5
    assert as_played(rendering, []) == rendering


def test_the_agent_holds_the_room_while_it_plays_and_a_beat_after() -> None:
    clock = SimulatedClock(100.0)
    voice = AgentVoice(clock)
    assert not voice.holds_the_room(0.7)
    voice.observe(PlaybackReceipt("p1", ReceiptStatus.STARTED))
    clock.advance(5.0)
    assert voice.holds_the_room(0.7)
    voice.observe(PlaybackReceipt("p1", ReceiptStatus.STOPPED, 5.0))
    clock.advance(0.6)
    assert voice.holds_the_room(0.7)
    clock.advance(0.2)
    assert not voice.holds_the_room(0.7)
    # a receipt for a playback never heard to start changes nothing
    voice.observe(PlaybackReceipt("p2", ReceiptStatus.FAILED))
    assert not voice.holds_the_room(0.7)


def test_a_turn_waits_with_silence_while_the_agent_speaks_then_plays_whole() -> None:
    clock = SimulatedClock()
    voice = AgentVoice(clock)
    samples = np.arange(1, BLOCK * 6 + 1, dtype=np.float32)  # no zero: silence shows
    lines = [_line(0.0, 2 * BLOCK / RATE), _line(4 * BLOCK / RATE, 6 * BLOCK / RATE, turn=1)]
    room = YieldingRoom(samples, lines, voice, beat=0.5, clock=clock)
    feed = room.blocks()
    stamps = [next(feed)[0] for _ in range(4)]  # up to the second turn: nothing waits
    assert stamps == [0, BLOCK, 2 * BLOCK, 3 * BLOCK]
    voice.observe(PlaybackReceipt("p1", ReceiptStatus.STARTED))
    held = []
    for _ in range(3):  # the agent speaks for three blocks' time
        pos, chunk = next(feed)
        held.append(pos)
        assert not chunk.any()
        clock.advance(BLOCK / RATE)
    voice.observe(PlaybackReceipt("p1", ReceiptStatus.FINISHED, 1.0))
    pos, chunk = next(feed)  # still within the beat after it stopped
    assert not chunk.any()
    clock.advance(0.5)
    rest = list(feed)
    assert held == [4 * BLOCK, 5 * BLOCK, 6 * BLOCK] and pos == 7 * BLOCK
    assert [p for p, _ in rest] == [8 * BLOCK, 9 * BLOCK]
    # the turn that waited plays whole, from its first sample
    assert np.concatenate([c for _, c in rest]).tolist() == samples[4 * BLOCK:].tolist()
    assert room.holds == [Hold(4 * BLOCK / RATE, pytest.approx(4 * BLOCK / RATE))]


def test_a_turn_under_way_goes_on_over_the_agent() -> None:
    clock = SimulatedClock()
    voice = AgentVoice(clock)
    samples = np.ones(BLOCK * 4, dtype=np.float32)
    room = YieldingRoom(samples, [_line(0.0, 4 * BLOCK / RATE)], voice, clock=clock)
    feed = room.blocks()
    next(feed)
    voice.observe(PlaybackReceipt("p1", ReceiptStatus.STARTED))
    assert [p for p, _ in feed] == [BLOCK, 2 * BLOCK, 3 * BLOCK] and room.holds == []
