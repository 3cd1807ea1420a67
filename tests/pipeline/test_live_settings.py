"""Settings changed on the running agent change what it does, and each change is recorded.

A real pipeline, floor and backbone (scripted model replies) on a simulated clock: turns
in, decisions, floor commands and record entries out.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.clock import SimulatedClock
from app.document import DocumentIndex, Sentence
from app.events import (
    Decision,
    InputLevel,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    Setting,
    SettingsChanged,
    Turn,
    VadEvent,
    VadKind,
)
from app.floor.outputs import Dropped, Play, SnoozeChanged, SnoozeSource
from app.llm import LLMError
from app.pipeline.events import AgentProgress, InputState, InputStatus, WarmStage
from app.pipeline.pipeline import Pipeline
from app.pipeline.playback import VoicePlayer
from app.session import SessionRecord, read_record
from app.settings import FloorMode, LLMSettings, Patience, Settings, VoiceSettings
from tests.backbone.scripted import ScriptedLLM, WordOverlap
from tests.backbone.test_harness_flow import QUIET, SPEAK, TEXTS, WRONG


def _wait(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def _pipeline(tmp_path: Path, mode: FloorMode = FloorMode.SPEAK, patience=Patience.DEFAULT):
    base = Settings()
    settings = dataclasses.replace(
        base, floor=dataclasses.replace(base.floor, mode=mode),
        ledger=dataclasses.replace(base.ledger, patience=patience, screen_turns=False),
    )
    pipeline = Pipeline(settings, record=SessionRecord(tmp_path / "s.jsonl"),
                        clock=SimulatedClock(100.0))
    pipeline.tick_floor = False
    events: list = []
    pipeline.hub.subscribe(events.append)
    pipeline._start_floor()
    return pipeline, events


def _advance(pipeline: Pipeline, seconds: float) -> None:
    """The room stays quiet (long silence, a low input level) while the clock advances."""
    for _ in range(int(round(seconds / 0.1))):
        pipeline.clock.advance(0.1)  # type: ignore[attr-defined]
        now = pipeline.clock.now()
        pipeline.feed(InputLevel(now, 0.001, False))
        pipeline.feed(VadEvent(VadKind.LONG_SILENCE, now, 0.001))


def _until(pipeline: Pipeline, events: list, iid: str, status: str = "finished") -> None:
    """Advance the quiet room until ``iid``'s playback reports ``status``."""
    def seen() -> bool:
        return any(isinstance(e, PlaybackReceipt) and e.intervention_id == iid
                   and e.status == status for e in events)

    for _ in range(200):
        if _wait(seen, timeout=0.1):
            return
        _advance(pipeline, 0.1)
    raise AssertionError(f"{iid} never reported {status}")


def _record(tmp_path: Path, kind: str) -> list[dict]:
    return [e for e in read_record(tmp_path / "s.jsonl") if e["kind"] == kind]


def _changes(tmp_path: Path) -> list[tuple[str, Any, Any]]:
    return [(e["setting"], e["old"], e["new"]) for e in _record(tmp_path, "settings_changed")]


def _drops(events: list) -> list[tuple[str, str]]:
    return [(e.intervention_id, e.reason) for e in events if isinstance(e, Dropped)]


def _iv(iid: str) -> Intervention:
    return Intervention(iid, InterventionKind.PROACTIVE, "It was 48 buildings, not twelve.")


# --- patience: the ledger's gate ---------------------------------------------------------


@pytest.fixture
def document() -> DocumentIndex:
    sentences = [Sentence(i, t, page=2 + i, rects=((10.0, 20.0 * i, 300.0, 20.0 * i + 12),))
                 for i, t in enumerate(TEXTS)]
    return DocumentIndex(Path("paper.pdf"), "0" * 64, "Paper", 6, sentences)


def _backbone(pipeline: Pipeline, document: DocumentIndex, llm: ScriptedLLM) -> Backbone:
    backbone = Backbone(document, llm, pipeline.settings, WordOverlap(),
                        search=lexical_search(document))
    pipeline.attach_backbone(backbone)
    return backbone


def _decide(pipeline: Pipeline, events: list, turn: Turn) -> Decision:
    pipeline.feed(turn)
    assert _wait(lambda: any(isinstance(e, Decision) and e.turn == turn.index for e in events))
    return next(e for e in events if isinstance(e, Decision) and e.turn == turn.index)


TURNS = [
    Turn("S1", "So the model is a BiLSTM with a CRF on top.", 0.0, 2.0, index=0),
    Turn("S2", "They run every page through Apache Tika to get tokens.", 3.0, 5.0, index=1),
]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(None, ("silent", "gate: waiting 1/3"), id="deferent-waits"),
        pytest.param(Patience.ENTHUSIASTIC, ("speak", "gate fired: persistence 1"),
                     id="changed-to-enthusiastic-fires-on-the-first-report"),
    ],
)
def test_patience_changed_mid_meeting_moves_the_gate(tmp_path, document, change, expected):
    pipeline, events = _pipeline(tmp_path, patience=Patience.DEFERENT)
    llm = ScriptedLLM([QUIET, WRONG, SPEAK])
    backbone = _backbone(pipeline, document, llm)
    assert _decide(pipeline, events, TURNS[0]).action == "silent"
    if change is not None:
        pipeline.set_patience(change)
    decision = _decide(pipeline, events, TURNS[1])
    assert (decision.action, decision.reason) == expected
    assert backbone.ledger.settings.tau == (1 if change else 3)
    assert not llm.closed
    pipeline.stop()
    assert llm.closed  # the model is let go with the meeting
    assert _changes(tmp_path) == ([("patience", "deferent", "enthusiastic")] if change else [])


def test_the_change_reaches_the_floor_and_the_window_as_one_event(tmp_path):
    pipeline, events = _pipeline(tmp_path)
    assert pipeline.change_setting(Setting.PATIENCE, Patience.DEFERENT) is not None
    assert pipeline.change_setting(Setting.PATIENCE, "deferent") is None  # unchanged
    changes = [e for e in events if isinstance(e, SettingsChanged)]
    assert changes == [SettingsChanged(Setting.PATIENCE, "default", "deferent", 100.0)]
    assert pipeline.settings.ledger.tau == 3
    assert pipeline._floor is not None and pipeline._floor.fsm.patience is Patience.DEFERENT
    after = events[events.index(changes[0]) + 1:]
    assert [e.patience for e in after if type(e).__name__ == "PatienceChanged"] == [
        Patience.DEFERENT
    ]
    pipeline.stop()


# --- mode: the floor ---------------------------------------------------------------------


def test_mode_changed_mid_queue_raises_the_hand(tmp_path):
    pipeline, events = _pipeline(tmp_path, mode=FloorMode.SPEAK)
    pipeline.feed(Turn("S1", "only twelve buildings", 90.0, 99.0, index=0))
    pipeline._on_intervention(_iv("iv-1"), None)  # queued for the next pause
    pipeline.set_mode(FloorMode.HAND_RAISE)
    _advance(pipeline, 4.0)  # a pause long enough to speak in
    assert not any(isinstance(e, Play) for e in events)
    assert pipeline.state.value == "hand_raised"
    pipeline.grant_floor()
    _advance(pipeline, 0.6)
    assert [e.intervention.id for e in events if isinstance(e, Play)] == ["iv-1"]
    pipeline.stop()
    assert _changes(tmp_path) == [("mode", "speak", "hand_raise")]
    assert [e["id"] for e in _record(tmp_path, "intervention_pending")] == ["iv-1"]


# --- proactivity limits --------------------------------------------------------------------


def _speak_and_finish(pipeline: Pipeline, events: list, iid: str) -> None:
    pipeline._on_intervention(_iv(iid), None)
    _until(pipeline, events, iid)


def test_rate_limit_drops_the_second_inside_the_gap_and_allows_it_after(tmp_path):
    pipeline, events = _pipeline(tmp_path)
    pipeline.change_setting(Setting.PROACTIVE_GAP, 120.0)
    _advance(pipeline, 0.5)  # a real pause: the first one is said at once
    _speak_and_finish(pipeline, events, "iv-1")
    pipeline._on_intervention(_iv("iv-2"), None)
    assert _drops(events) == [("iv-2", "rate_limited")]
    pipeline.clock.advance(120.0)  # type: ignore[attr-defined]
    _speak_and_finish(pipeline, events, "iv-3")
    pipeline.stop()
    assert [e.intervention.id for e in events if isinstance(e, Play)] == ["iv-1", "iv-3"]
    assert _changes(tmp_path) == [("proactive_gap", 0.0, 120.0)]
    dropped = _record(tmp_path, "intervention_dropped")
    assert [(e["intervention_id"], e["reason"]) for e in dropped] == [("iv-2", "rate_limited")]


def test_snooze_from_the_window_and_its_end_are_recorded(tmp_path):
    pipeline, events = _pipeline(tmp_path)
    pipeline.snooze(300.0)
    pipeline._on_intervention(_iv("iv-1"), None)
    pipeline.snooze(0.0)
    pipeline._on_intervention(_iv("iv-2"), None)
    _until(pipeline, events, "iv-2", "started")
    pipeline.stop()
    assert _drops(events) == [("iv-1", "snoozed")]
    assert [e.intervention.id for e in events if isinstance(e, Play)] == ["iv-2"]
    snoozes = [(e["until"], e["seconds"], e["source"]) for e in _record(tmp_path, "snooze_changed")]
    assert snoozes == [(400.0, 300.0, "window"), (None, 0.0, "window")]


def test_snooze_by_voice_is_recorded_and_direct_answers_still_work(tmp_path):
    pipeline, events = _pipeline(tmp_path)
    pipeline.feed(Turn("S1", "Jarvis, quiet for ten minutes.", 98.0, 99.0, index=0))
    pipeline._on_intervention(_iv("iv-1"), None)
    assert [e for e in events if isinstance(e, SnoozeChanged)] == [
        SnoozeChanged(700.0, 600.0, SnoozeSource.VOICE)
    ]
    assert _drops(events) == [("iv-1", "snoozed")]
    _advance(pipeline, 1.0)
    assert not any(type(e).__name__ == "RequestDirectAnswer" for e in events)
    pipeline.feed(Turn("S1", "Jarvis, how many buildings were planted?", 99.5, 100.5,
                       direct=True, index=1))
    _advance(pipeline, 1.0)
    assert any(type(e).__name__ == "RequestDirectAnswer" for e in events)
    pipeline.stop()
    assert [e["source"] for e in _record(tmp_path, "snooze_changed")] == ["voice"]


# --- voice and devices: the player is built again -----------------------------------------


class ToneEngine:
    """A scripted voice: each word is 0.2 s of a tone, shortened by the speed."""

    name, sample_rate, note = "tone", 16000, ""

    def __init__(self, settings: VoiceSettings) -> None:
        self.settings = settings

    def synthesize_sentences(self, text: str) -> Iterator[tuple[str, np.ndarray, int]]:
        seconds = 0.2 * len(text.split()) / self.settings.speed
        yield text, np.full(int(seconds * self.sample_rate), 0.1, np.float32), self.sample_rate


def _voice_factory(pipeline: Pipeline, built: list, engine: Any, paced: bool):
    from app import voice
    from app.clock import RealClock

    def build(settings: Settings) -> tuple[Any, str | None]:
        sink = voice.MemorySink(pace=RealClock() if paced else None)
        player = voice.Player(engine(settings.voice), sink, settings.voice,
                              on_receipt=pipeline.feed, clock=pipeline.clock)
        built.append((settings.voice, pipeline.voice_device, sink))
        return VoicePlayer(player), None

    return build


def _played_seconds(pipeline: Pipeline, events: list, iid: str, sink: Any) -> float:
    before = sink.seconds
    pipeline._on_intervention(_iv(iid), None)
    _until(pipeline, events, iid)
    _advance(pipeline, 0.1)
    return sink.seconds - before


def _voice_pipeline(tmp_path: Path, engine: Any = ToneEngine, paced: bool = False):
    """A pipeline whose voice is built by ``engine`` into a memory sink (``paced``: in
    real time, as a loudspeaker plays)."""
    pipeline, events = _pipeline(tmp_path)
    pipeline.stop()  # rebuilt with a voice below
    pipeline = Pipeline(pipeline.settings, record=SessionRecord(tmp_path / "s.jsonl"),
                        clock=SimulatedClock(100.0))
    pipeline.tick_floor = False
    events = []
    pipeline.hub.subscribe(events.append)
    built: list = []
    pipeline.voice_factory = _voice_factory(pipeline, built, engine, paced)
    pipeline._start_floor()
    return pipeline, events, built


def test_voice_and_speed_changes_reach_the_player(tmp_path):
    pipeline, events, built = _voice_pipeline(tmp_path)
    normal = _played_seconds(pipeline, events, "iv-1", built[0][2])
    pipeline.change_setting(Setting.SPEED, 2.0)
    pipeline.change_setting(Setting.VOICE, "am_adam")
    assert _wait(lambda: built[-1][0].voice == "am_adam"
                 and pipeline._floor.player.player.sink is built[-1][2])  # type: ignore
    settings, _, sink = built[-1]
    assert (settings.speed, settings.voice) == (2.0, "am_adam")
    fast = _played_seconds(pipeline, events, "iv-2", sink)
    assert fast == pytest.approx(normal / 2, rel=0.05)
    pipeline.stop()
    assert _changes(tmp_path) == [("speed", 1.0, 2.0), ("voice", "af_heart", "am_adam")]


def test_output_device_change_builds_the_player_on_the_new_device(tmp_path):
    pipeline, events, built = _voice_pipeline(tmp_path)
    pipeline.change_setting(Setting.OUTPUT_DEVICE, "USB speaker")
    assert _wait(lambda: len(built) == 2)
    assert [device for _, device, _ in built] == [None, "USB speaker"]
    assert _wait(lambda: pipeline._floor is not None
                 and pipeline._floor.player.player.sink is built[1][2])
    pipeline.stop()
    assert _changes(tmp_path) == [("output_device", "", "USB speaker")]


def test_a_voice_change_waits_for_the_intervention_being_said(tmp_path):
    pipeline, events, built = _voice_pipeline(tmp_path, paced=True)
    pipeline._on_intervention(_iv("iv-1"), None)
    _until(pipeline, events, "iv-1", "started")
    first = pipeline._floor.player  # type: ignore[union-attr]
    pipeline.change_setting(Setting.SPEED, 1.5)
    assert _wait(lambda: len(built) == 2)
    assert pipeline._floor.player is first  # type: ignore[union-attr]
    _until(pipeline, events, "iv-1")
    _advance(pipeline, 0.1)
    assert pipeline._floor.player is not first  # type: ignore[union-attr]
    pipeline.stop()


@pytest.mark.slow
def test_piper_speaks_faster_after_a_speed_change(tmp_path):
    """The real English voice: twice the speed, about half the audio."""
    from app import voice

    try:
        voice.PiperEngine(VoiceSettings(engine="piper"))
    except voice.VoiceModelError as exc:
        pytest.skip(f"the Piper voice is not installed: {exc.user_message}")
    pipeline, events, built = _voice_pipeline(tmp_path, engine=voice.open_engine)
    pipeline.change_setting(Setting.VOICE_ENGINE, "piper")
    assert _wait(lambda: len(built) == 2, timeout=30.0)
    assert _wait(lambda: pipeline._floor.player.player.sink is built[1][2])  # type: ignore
    normal = _played_seconds(pipeline, events, "iv-1", built[1][2])
    pipeline.change_setting(Setting.SPEED, 2.0)
    assert _wait(lambda: len(built) == 3, timeout=30.0)
    assert _wait(lambda: pipeline._floor.player.player.sink is built[2][2])  # type: ignore
    fast = _played_seconds(pipeline, events, "iv-2", built[2][2])
    assert 0.35 * normal < fast < 0.7 * normal
    pipeline.stop()


class RoomMicrophone:
    """A capture device as the speech worker sees one: it can be stopped and started on
    another ``device``; a stopped one fails the next read, as a microphone does."""

    def __init__(self, device: str | None = None) -> None:
        self.device = device
        self.opened: list[str | None] = []
        self.state = "idle"
        self._t = 0

    def start(self) -> None:
        self.opened.append(self.device)
        self.state = "running"

    def read(self, timeout: float) -> Any:
        from app.speech.audio import AudioBlock, DeviceLostError

        if self.state != "running":
            raise DeviceLostError("The microphone is not running.")
        time.sleep(0.01)
        block = AudioBlock(np.zeros(512, np.float32), self._t / 16000, self._t)
        self._t += 512
        return block

    @property
    def finished(self) -> bool:
        return False

    def stop(self) -> None:
        self.state = "idle"


def test_input_device_change_restarts_capture_on_the_new_device(tmp_path):
    from app.speech.worker import SpeechTuning, SpeechWorker

    pipeline, events = _pipeline(tmp_path)
    mic = RoomMicrophone()
    worker = SpeechWorker(mic, pipeline.settings.speech, transcriber=object(),
                          vad=lambda frame: 0.0, tuning=SpeechTuning(device_retry=0.05))
    pipeline.attach_speech(worker)
    worker.start()
    assert _wait(lambda: InputStatus(InputState.LISTENING, "") in events)
    pipeline.change_setting(Setting.INPUT_DEVICE, "USB microphone")
    assert _wait(lambda: mic.opened == [None, "USB microphone"])
    listening = InputStatus(InputState.LISTENING, "USB microphone")
    assert _wait(lambda: listening in events)
    worker.stop()
    pipeline.stop()
    inputs = [e for e in events if isinstance(e, InputStatus)]
    assert inputs[:3] == [InputStatus(InputState.LISTENING, ""),
                          InputStatus(InputState.SWITCHING, "USB microphone"), listening]
    assert not [e for e in events if type(e).__name__ == "PipelineError"]  # no "lost"
    assert _changes(tmp_path) == [("input_device", "", "USB microphone")]


# --- warming up ----------------------------------------------------------------------------


class ReadingLLM(ScriptedLLM):
    """A scripted model that reports reading its prefix in five pieces, as llama.cpp does."""

    warm_progress: Any = None

    def warm(self, system: str) -> None:
        super().warm(system)
        for done in (100, 200, 300, 400, 500):
            if self.warm_progress is not None:
                self.warm_progress(done, 500)


def test_warm_progress_reaches_the_window(tmp_path, document):
    pipeline, events = _pipeline(tmp_path)
    llm = ReadingLLM()
    llm.warm_progress = pipeline._reading
    _backbone(pipeline, document, llm)
    fractions = [e.fraction for e in events if isinstance(e, AgentProgress)]
    assert fractions == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert AgentProgress(WarmStage.READING, 0.4).text == "Reading the document\u2026 40%"
    pipeline.stop()


@pytest.mark.slow
def test_llama_reports_reading_the_document_prefix():
    from app.llm.factory import open_backend

    try:
        llm = open_backend(None, LLMSettings(context_tokens=2048))
    except Exception as exc:  # no embedded model here
        pytest.skip(f"no embedded language model: {exc}")
    seen: list[tuple[int, int]] = []
    llm.warm_progress = lambda done, total: seen.append((done, total))  # type: ignore
    try:
        llm.warm(" ".join(TEXTS * 10))
        again = len(seen)
        llm.warm(" ".join(TEXTS * 10))  # already read: one report, complete
    finally:
        llm.close()
    total = seen[0][1]
    assert total > 2 * 256 and len(seen) - 1 == again
    assert [d for d, _ in seen[:again]] == sorted(d for d, _ in seen[:again])
    assert seen[again - 1] == (total, total) and seen[-1] == (total, total)


def test_back_to_the_default_microphone_from_the_one_capture_started_on(tmp_path):
    """The running capture's device is the current value, whatever the pipeline was told."""
    from app.speech.worker import SpeechTuning, SpeechWorker

    pipeline, events = _pipeline(tmp_path)
    mic = RoomMicrophone("Desk mic")
    worker = SpeechWorker(mic, pipeline.settings.speech, transcriber=object(),
                          vad=lambda frame: 0.0, tuning=SpeechTuning(device_retry=0.05))
    pipeline.attach_speech(worker)
    worker.start()
    assert pipeline.setting(Setting.INPUT_DEVICE) == "Desk mic"
    pipeline.change_setting(Setting.INPUT_DEVICE, "")
    assert _wait(lambda: mic.opened == ["Desk mic", None])
    worker.stop()
    pipeline.stop()
    assert _changes(tmp_path) == [("input_device", "Desk mic", "")]


class _TooLongLLM(ScriptedLLM):
    """A model whose context cannot hold the document (what warming raises then)."""

    def warm(self, system: str) -> None:
        raise LLMError("The document prefix needs 20000 tokens but the context holds 16384; "
                       "raise the context size or shorten the document.")


def test_a_backbone_that_cannot_start_lets_its_model_go(document):
    from app.pipeline import components

    llm = _TooLongLLM()
    build = functools.partial(Backbone, embedder=WordOverlap(), search=lexical_search(document))
    backbone, why = components.backbone_owning(build, document, llm, Settings())
    assert backbone is None and why is not None and why.startswith("The document prefix needs")
    assert llm.closed
