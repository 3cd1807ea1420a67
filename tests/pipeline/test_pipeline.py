from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from app.clock import SimulatedClock
from app.events import (
    AgentState,
    Citation,
    Decision,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    Turn,
)
from app.pipeline import EventHub, HighlightCitation, PendingIntervention, PipelineError
from app.pipeline.backbone_worker import BackboneWorker
from app.pipeline.demo import DemoAssets
from app.pipeline.pipeline import Pipeline
from app.pipeline.scripted import ScriptedTurns, load_turns
from app.session import SessionRecord, read_record
from app.settings import FloorMode, Settings

CITE = Citation(8, 1, "Planted roofs were installed on 48 residential buildings.",
                ((171.7, 312.1, 518.3, 329.7),), "48")
IV = Intervention("iv-1", InterventionKind.PROACTIVE, "It was 48 buildings, not twelve.",
                  citations=(CITE,))


def _pipeline(tmp_path, mode=FloorMode.HAND_RAISE):
    settings = replace(Settings(), floor=replace(Settings().floor, mode=mode))
    clock = SimulatedClock(100.0)
    record = SessionRecord(tmp_path / "s.jsonl")
    pipeline = Pipeline(settings, record=record, clock=clock)
    pipeline.tick_floor = False
    events: list = []
    pipeline.hub.subscribe(events.append)
    pipeline._start_floor()
    return pipeline, clock, events


def _advance(pipeline, clock, seconds):
    for _ in range(int(seconds / 0.1)):
        clock.advance(0.1)
        pipeline._floor.tick()


def _wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_hand_raise_grant_speak_deliver_is_recorded(tmp_path):
    pipeline, clock, events = _pipeline(tmp_path)
    pipeline.feed(Turn("S1", "only twelve buildings", 90.0, 99.0, index=0))
    pipeline._on_intervention(IV, None)
    _advance(pipeline, clock, 0.5)
    assert pipeline.state == AgentState.HAND_RAISED
    assert PendingIntervention(IV) in events
    pipeline.grant_floor()
    _advance(pipeline, clock, 0.6)  # permission wait 0.4 s, nobody speaks
    assert pipeline.state == AgentState.SPEAKING
    shown = [e for e in events if isinstance(e, HighlightCitation) and e.active]
    assert shown and shown[0].citation == CITE and shown[0].intervention_id == "iv-1"
    # the text-only player speaks for the words' duration on the floor's clock
    _advance(pipeline, clock, 5.0)
    assert _wait(lambda: any(isinstance(e, PlaybackReceipt) and e.status == "finished"
                             for e in events))
    _advance(pipeline, clock, 0.3)
    pipeline.stop()
    kinds = [e["kind"] for e in read_record(tmp_path / "s.jsonl")]
    assert "turn" in kinds and "intervention_pending" in kinds
    delivered = [e for e in read_record(tmp_path / "s.jsonl")
                 if e["kind"] == "intervention_delivered"]
    assert delivered and delivered[0]["citations"][0]["page"] == 1
    assert delivered[0]["status"] == "finished"


def test_lower_hand_discards(tmp_path):
    pipeline, clock, events = _pipeline(tmp_path)
    pipeline._on_intervention(IV, None)
    _advance(pipeline, clock, 0.3)
    pipeline.lower_hand()
    _advance(pipeline, clock, 0.5)
    assert pipeline.state != AgentState.HAND_RAISED
    assert events[-1] != PendingIntervention(IV)
    assert PendingIntervention(None) in events
    pipeline.stop()


def test_pause_shows_paused_and_drops(tmp_path):
    pipeline, clock, events = _pipeline(tmp_path)
    pipeline._on_intervention(IV, None)
    pipeline.set_paused(True)
    _advance(pipeline, clock, 0.5)
    assert pipeline.state == AgentState.PAUSED
    assert any(type(e).__name__ == "Dropped" and e.reason == "paused" for e in events)
    pipeline.stop()


def test_rename_applies_to_later_turns(tmp_path):
    pipeline, _clock, events = _pipeline(tmp_path)
    pipeline.rename_speaker("S2", "Maya")
    pipeline.feed(Turn("S2", "twelve is small", 1.0, 2.0))
    assert [e.speaker for e in events if isinstance(e, Turn)] == ["Maya"]
    pipeline.stop()


def test_missing_backbone_is_reported_not_raised(tmp_path):
    pipeline, _clock, events = _pipeline(tmp_path)
    pipeline.start_agent()  # no document open
    assert pipeline.status["backbone"].available is False
    assert pipeline.status["backbone"].reason == "no document is open"
    pipeline.stop()


class _Crashing:
    """A backbone whose first turn fails, to prove the worker survives it."""

    def __init__(self) -> None:
        self.calls = 0

    def on_turn(self, turn):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("model exploded")
        return Decision(turn.index, "silent", "on_progress")

    def answer_direct(self, question, on_delta=None):
        raise NotImplementedError

    def on_delivered(self, intervention, receipt):
        pass


def test_backbone_worker_reports_a_crash_and_keeps_going():
    hub = EventHub()
    events: list = []
    hub.subscribe(events.append)
    worker = BackboneWorker(_Crashing(), hub.publish, lambda iv, d: None)
    worker.start()
    worker.submit_turn(Turn("S1", "first", 0, 1, index=0))
    worker.submit_turn(Turn("S1", "second", 1, 2, index=1))
    assert _wait(lambda: any(isinstance(e, Decision) for e in events))
    assert worker.stop(2.0)
    errors = [e for e in events if isinstance(e, PipelineError)]
    assert len(errors) == 1 and "model exploded" in errors[0].message
    assert [e.turn for e in events if isinstance(e, Decision)] == [1]


def test_hub_keeps_other_subscribers_when_one_fails():
    hub = EventHub()
    got: list = []

    def bad(_event):
        raise ValueError("listener bug")

    hub.subscribe(bad)
    unsubscribe = hub.subscribe(got.append)
    hub.publish("x")
    unsubscribe()
    hub.publish("y")
    assert got == ["x"]


def test_scripted_turns_follow_the_clock():
    turns = load_turns(DemoAssets.bundled().transcript)
    assert len(turns) == 6 and turns[3].speaker == "Ken" and "twelve" in turns[3].text
    clock = SimulatedClock(0.0)
    got: list = []
    done = threading.Event()
    player = ScriptedTurns(turns[:2], lambda t: (got.append((clock.now(), t)), None), clock)
    player.start()
    assert player.done.wait(5.0) or done.is_set()
    assert [t.index for _, t in got] == [0, 1]
    for at, turn in got:
        assert at == pytest.approx(turn.end, abs=0.11)
