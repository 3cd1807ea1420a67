"""The export names every intervention with what the room heard of it: in full, in part,
or nothing (still waiting, dropped), from records the real pipeline and floor write."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from app.clock import SimulatedClock
from app.events import Citation, Decision, Intervention, InterventionKind, PlaybackReceipt, Turn
from app.pipeline.pipeline import Pipeline
from app.session import (
    Delivery,
    SessionRecord,
    export_record,
    intervention_fates,
    read_record,
)
from app.settings import FloorMode, Settings

CITE = Citation(8, 1, "Planted roofs were installed on 48 residential buildings.", (), "48")
IV = Intervention("iv-1", InterventionKind.PROACTIVE, "It was 48 buildings, not twelve.",
                  citations=(CITE,))  # fmt: skip


def _pipeline(tmp_path, mode: FloorMode) -> tuple[Pipeline, SimulatedClock, list]:
    settings = replace(Settings(), floor=replace(Settings().floor, mode=mode))
    clock = SimulatedClock(100.0)
    pipeline = Pipeline(settings, record=SessionRecord(tmp_path / "s.jsonl"), clock=clock)
    pipeline.tick_floor = False
    events: list = []
    pipeline.hub.subscribe(events.append)
    pipeline._start_floor()
    return pipeline, clock, events


def _advance(pipeline: Pipeline, clock: SimulatedClock, seconds: float) -> None:
    for _ in range(round(seconds / 0.1)):
        clock.advance(0.1)
        assert pipeline._floor is not None
        pipeline._floor.tick()


def _wait_for(events: list, status: str, timeout: float = 5.0) -> PlaybackReceipt:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for e in events:
            if isinstance(e, PlaybackReceipt) and e.status == status:
                return e
        time.sleep(0.02)
    raise AssertionError(f"no {status} receipt")


def _decided(pipeline: Pipeline) -> None:
    pipeline.feed(Turn("S1", "only twelve buildings got green roofs", 90.0, 99.0, index=0))
    decision = Decision(0, "speak", "gate fired", intervention=IV, claim="buildings")
    pipeline._route(decision)  # what the backbone worker does with a verdict
    pipeline._on_intervention(IV, decision)


def test_an_intervention_still_under_a_raised_hand_is_exported_as_not_delivered(tmp_path):
    pipeline, clock, _events = _pipeline(tmp_path, FloorMode.HAND_RAISE)
    _decided(pipeline)
    _advance(pipeline, clock, 0.5)
    # the process dies here: no grant, no receipt, no clean end
    (fate,) = intervention_fates(read_record(tmp_path / "s.jsonl"), ended_cleanly=False)
    assert fate.delivery == Delivery.NOT_DELIVERED and fate.heard_seconds == 0
    assert "when the record ended unexpectedly" in fate.detail
    md = export_record(tmp_path / "s.jsonl", tmp_path / "m.md").read_text()
    assert "_Jarvis (not delivered): It was 48 buildings, not twelve._" in md
    assert "page 1, [S8]" in md
    assert "The session ended unexpectedly" in md
    assert "## Interventions" in md
    pipeline.stop()


def test_an_intervention_stopped_midway_is_exported_as_partly_delivered(tmp_path):
    pipeline, clock, events = _pipeline(tmp_path, FloorMode.HAND_RAISE)
    _decided(pipeline)
    _advance(pipeline, clock, 0.5)
    pipeline.grant_floor()
    _advance(pipeline, clock, 0.6)  # permission wait, nobody speaks: the agent speaks
    _wait_for(events, "started")
    _advance(pipeline, clock, 1.0)
    pipeline.lower_hand()  # stopped mid-sentence by the user
    stopped = _wait_for(events, "stopped")
    pipeline.stop()
    assert pipeline.record is not None
    pipeline.record.close()
    entries = read_record(tmp_path / "s.jsonl")
    (fate,) = intervention_fates(entries)
    assert fate.delivery == Delivery.PARTLY
    assert fate.heard_seconds == pytest.approx(stopped.delivered_seconds)
    assert 0.5 < fate.heard_seconds < 2.0
    md = export_record(tmp_path / "s.jsonl", tmp_path / "m.md").read_text()
    heard = f"{stopped.delivered_seconds:.1f}"
    assert f"partly delivered (stopped after {heard} s heard)" in md
    assert "ended unexpectedly" not in md


def test_a_replaced_intervention_is_exported_as_dropped(tmp_path):
    pipeline, clock, _events = _pipeline(tmp_path, FloorMode.HAND_RAISE)
    _decided(pipeline)
    newer = replace(IV, id="iv-2", text="The roofs cover 48 buildings.")
    pipeline._on_intervention(newer, None)
    _advance(pipeline, clock, 0.5)
    pipeline.stop()
    assert pipeline.record is not None
    pipeline.record.close()
    entries = read_record(tmp_path / "s.jsonl")
    assert any(e["kind"] == "intervention_dropped" for e in entries)
    fates = {f.id: f for f in intervention_fates(entries)}
    assert fates["iv-1"].delivery == Delivery.NOT_DELIVERED
    assert fates["iv-1"].detail == "dropped: replaced"
    # the newer one still waited under the hand when the meeting was closed
    assert fates["iv-2"].detail == "still waiting for the floor when the session ended"
    page = export_record(tmp_path / "s.jsonl", tmp_path / "m.html").read_text()
    assert "not delivered: \u201cIt was 48 buildings, not twelve.\u201d (dropped: replaced)" in page


def _entry(kind: str, **fields) -> dict:
    return {"kind": kind, **fields}


def test_playback_cut_off_by_the_end_of_the_record_counts_as_partly_delivered():
    entries = [
        _entry("intervention_playing", id="d-1", subtype="direct", text="Page 3 says 48."),
        _entry("playback_receipt", intervention_id="d-1", status="started"),
    ]
    (fate,) = intervention_fates(entries, ended_cleanly=False)
    assert fate.delivery == Delivery.PARTLY and fate.kind == "direct"
    assert fate.detail == "it was being spoken when the record ended"


def test_a_stream_known_by_id_only_is_not_listed():
    entries = [_entry("intervention_dropped", intervention_id="direct-3", reason="superseded")]
    assert intervention_fates(entries) == []


def test_a_direct_answer_the_floor_never_plays_is_still_in_the_record(tmp_path):
    pipeline, clock, _events = _pipeline(tmp_path, FloorMode.SPEAK)
    pipeline.set_paused(True)  # the floor drops what it is offered
    answer = Intervention("direct-1", InterventionKind.DIRECT, "Page 1 says 48 buildings.",
                          citations=(CITE,), generation=1)  # fmt: skip
    pipeline._on_intervention(answer, None)  # what the backbone worker does with an answer
    _advance(pipeline, clock, 0.3)
    # the process dies here
    (fate,) = intervention_fates(read_record(tmp_path / "s.jsonl"), ended_cleanly=False)
    assert (fate.id, fate.kind, fate.text) == ("direct-1", "direct", answer.text)
    assert fate.delivery == Delivery.NOT_DELIVERED
    assert fate.citations and fate.citations[0]["sid"] == 8
    pipeline.stop()
