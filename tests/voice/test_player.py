"""The player on real Piper audio: receipts, stop within one block, tap, device errors."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from app.clock import RealClock
from app.events import Intervention, InterventionKind, PlaybackReceipt
from app.floor.fsm import spoken_text
from app.voice import CachingEngine, MemorySink, PlaybackError, Player, SoundDeviceSink, VoiceError
from app.voice.player import first_pieces

pytestmark = pytest.mark.slow

TEXT = "The trial enrolled a small group. It ran for twelve weeks. The report gives the details."


class Record:
    def __init__(self) -> None:
        self.receipts: list[PlaybackReceipt] = []
        self.errors: list[VoiceError] = []
        self.tapped: list[tuple[int, int, float]] = []
        self.done = threading.Event()

    def receipt(self, r: PlaybackReceipt) -> None:
        self.receipts.append(r)
        if r.status != "started":
            self.done.set()

    def tap(self, samples: np.ndarray, rate: int, at: float) -> None:
        self.tapped.append((len(samples), rate, at))


def _player(engine: CachingEngine, sink: MemorySink, rec: Record) -> Player:
    return Player(engine, sink, tap=rec.tap, on_receipt=rec.receipt, on_error=rec.errors.append)


def _audio(engine: CachingEngine, text: str) -> np.ndarray:
    return np.concatenate([a for _, a, _ in engine.synthesize_sentences(text)])


def test_full_playback_is_delivered_and_tapped(piper: CachingEngine) -> None:
    rec, sink = Record(), MemorySink()
    player = _player(piper, sink, rec)
    player.play("p1", TEXT)
    assert rec.done.wait(60)
    expected = _audio(piper, TEXT)
    seconds = len(expected) / 22050
    assert [r.status for r in rec.receipts] == ["started", "finished"]
    assert rec.receipts[-1].delivered_seconds == pytest.approx(seconds, abs=1e-3)
    assert rec.receipts[-1].sentence_index == 2
    assert np.array_equal(sink.audio(), expected)
    assert sum(n for n, _, _ in rec.tapped) == len(expected)
    assert all(n <= 441 for n, _, _ in rec.tapped)  # 20 ms blocks
    starts = [at for _, _, at in rec.tapped]
    assert starts == sorted(starts) and starts[1] == pytest.approx(441 / 22050)
    player.close()


def test_stop_within_one_block(piper: CachingEngine) -> None:
    _audio(piper, TEXT)  # synthesized ahead, so only playback is timed
    rec = Record()
    sink = MemorySink(pace=RealClock())
    player = _player(piper, sink, rec)
    player.play("p1", TEXT)
    while player.position().seconds < 1.2:
        time.sleep(0.005)
    player.stop()
    assert rec.done.wait(10)
    last = rec.receipts[-1]
    assert last.status == "stopped"
    assert player.last_blocks_after_stop <= 1
    assert player.last_stop_latency is not None and player.last_stop_latency < 0.05
    assert sink.aborts == 1
    assert last.delivered_seconds == pytest.approx(sink.seconds, abs=1e-3)
    assert 1.2 <= last.delivered_seconds < 1.3
    assert last.sentence_index == player.position().sentence_index
    player.close()


def test_resumed_playback_counts_from_the_resume_text(piper: CachingEngine) -> None:
    iv = Intervention("p1", InterventionKind.PROACTIVE, TEXT)
    resumed = spoken_text(iv, 1, "To finish my response,")
    rec, sink = Record(), MemorySink()
    player = _player(piper, sink, rec)
    player.play("p1", resumed)
    assert rec.done.wait(60)
    assert [r.status for r in rec.receipts] == ["started", "finished"]
    assert rec.receipts[-1].sentence_index == 1  # + resume_sentence 1 = the third sentence
    assert rec.receipts[-1].delivered_seconds == pytest.approx(sink.seconds, abs=1e-3)
    # the first sentence is spoken as two clauses so audio starts early
    head = _audio(piper, "To finish my response,")
    assert np.array_equal(sink.audio()[: len(head)], head)
    player.close()


def test_device_error_is_typed_and_the_player_survives(piper: CachingEngine) -> None:
    failures = {"left": 1}

    def unplug_once(sink: MemorySink, block: np.ndarray) -> None:
        if len(sink.blocks) == 5 and failures["left"]:
            failures["left"] -= 1
            raise PlaybackError("The speaker stopped working: unplugged")

    rec, sink = Record(), MemorySink(on_write=unplug_once)
    player = _player(piper, sink, rec)
    player.play("p1", TEXT)
    assert rec.done.wait(60)
    assert [r.status for r in rec.receipts] == ["started", "failed"]
    assert isinstance(rec.errors[0], PlaybackError)
    rec.done.clear()
    player.play("p2", "It ran for twelve weeks.")
    assert rec.done.wait(60)
    assert rec.receipts[-1].intervention_id == "p2" and rec.receipts[-1].status == "finished"
    player.close()


def test_missing_device_fails_with_a_message(piper: CachingEngine) -> None:
    rec = Record()
    player = Player(
        piper, SoundDeviceSink(device=999), on_receipt=rec.receipt, on_error=rec.errors.append
    )
    player.play("p1", "It ran for twelve weeks.")
    assert rec.done.wait(60)
    assert rec.receipts[-1].status == "failed"
    assert rec.errors and "speaker" in rec.errors[0].user_message
    player.close()


def test_sounddevice_sink_plays_on_the_default_device(piper: CachingEngine) -> None:
    rec = Record()
    player = Player(piper, SoundDeviceSink(), on_receipt=rec.receipt, on_error=rec.errors.append)
    player.play("p1", "It ran for twelve weeks.")
    assert rec.done.wait(60)
    assert rec.receipts[-1].status == "finished", rec.errors
    player.close()


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Actually, the trial enrolled 120 patients.",
            ["Actually, the trial enrolled 120 patients."],
        ),
        (
            "In the second study, the sample was larger.",
            ["In the second study,", "the sample was larger."],
        ),
        ("In the second study, larger.", ["In the second study, larger."]),
    ],
)
def test_first_clause_split(sentence: str, expected: list[str]) -> None:
    assert first_pieces(sentence, 3) == expected


def test_a_paced_null_sink_is_tapped_on_the_players_clock(piper: CachingEngine) -> None:
    from app.clock import SimulatedClock
    from app.voice import NullSink

    clock = SimulatedClock(500.0)  # a meeting clock far from the stream's own zero
    rec = Record()
    sink = NullSink(pace=clock)  # each block "plays" for its length on the clock
    player = Player(piper, sink, tap=rec.tap, on_receipt=rec.receipt, clock=clock)
    player.play("p1", "It ran for twelve weeks.")
    assert rec.done.wait(60)
    starts = [at for _, _, at in rec.tapped]
    assert starts[0] >= 500.0 and starts == sorted(starts)
    # the echo reference sees each block when the clock says it was heard
    assert starts[-1] - starts[0] == pytest.approx(sum(n for n, _, _ in rec.tapped[:-1]) / 22050,
                                                   abs=0.05)  # fmt: skip
