"""Named voices in the window: a self-introduction offers the name, a rename is kept in
the transcript, the record and the export, remembered voices are listed and forgotten in
the settings, and a speaker renamed in the window is remembered by voice."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.clock import SimulatedClock
from app.events import Turn
from app.pipeline.pipeline import Pipeline
from app.session.export import to_markdown
from app.session.record import SessionRecord, read_record
from app.settings import Settings
from app.speech.voiceprints import VoiceprintStore, voiceprint
from app.ui.settings_store import Preferences
from tests.conftest import shared_path

RATE = 16000


def plain(html_text: str) -> str:
    return re.sub(r"<[^>]+>", "", html_text)


@pytest.fixture
def meeting(qtbot, tmp_path):
    from app.ui.window import MainWindow

    record = SessionRecord(tmp_path / "meeting.jsonl")
    pipeline = Pipeline(Settings(), record=record, clock=SimulatedClock(0.0))
    pipeline.tick_floor = False
    win = MainWindow(pipeline, Preferences(), save_prefs=False)
    qtbot.addWidget(win)
    win.show()
    yield win, record
    pipeline.stop()
    record.close()


def test_an_introduction_offers_the_name_and_yes_names_the_speaker(meeting, qtbot) -> None:
    win, record = meeting
    pipeline = win.pipeline
    pipeline.feed(Turn("S1", "Let's start with the survey.", 1.0, 2.5, index=1))
    pipeline.feed(Turn("S2", "Hi, I'm Maya, I ran the survey.", 3.0, 5.0, index=2))
    qtbot.waitUntil(lambda: win.name_offer.isVisible(), timeout=2000)
    assert plain(win.name_offer.label.text()).startswith("Name S2 as Maya?")
    assert "S2:" in win.transcript.toPlainText()  # nothing is named before the answer
    qtbot.mouseClick(win.name_offer.yes, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Maya:" in win.transcript.toPlainText(), timeout=2000)
    assert not win.name_offer.isVisible()
    pipeline.feed(Turn("S2", "As I said, I'm Maya. The response rate was low.", 6.0, 9.0, index=3))
    qtbot.waitUntil(lambda: len(win.transcript.rows) == 3, timeout=2000)
    assert not win.name_offer.isVisible()  # the name it has is not offered again
    assert [r.speaker for r in win.transcript.rows] == ["S1", "S2", "S2"]  # rows keep labels
    win.transcript.renameRequested.emit("S2", "Maya Lopez")  # renamed again from a row
    qtbot.waitUntil(lambda: win.transcript.toPlainText().count("Maya Lopez:") == 2, timeout=2000)
    pipeline.stop()
    record.close()
    entries = read_record(record.path)
    named = [(e["speaker"], e["name"], e["source"]) for e in entries
             if e["kind"] == "speaker_renamed"]  # fmt: skip
    assert named == [("S2", "Maya", "introduction"), ("S2", "Maya Lopez", "user")]
    turns = [e["speaker"] for e in entries if e["kind"] == "turn"]
    assert turns == ["S1", "S2", "Maya"]  # a turn after a rename carries the name it had
    text = to_markdown(entries)
    assert "S2 named Maya (introduced themself)" in text
    assert "] Maya Lopez: Hi, I'm Maya" in text and "] Maya Lopez: As I said" in text
    assert "] S1: Let's start" in text


def test_no_keeps_the_label_and_offers_wait_their_turn(meeting, qtbot) -> None:
    win, _ = meeting
    pipeline = win.pipeline
    pipeline.feed(Turn("S1", "Hello everyone, I am Tom.", 1.0, 2.0, index=1))
    pipeline.feed(Turn("S3", "My name is Ana.", 2.5, 3.5, index=2))
    qtbot.waitUntil(lambda: len(win.name_offer.queue) == 2, timeout=2000)
    assert plain(win.name_offer.label.text()).startswith("Name S1 as Tom?")
    qtbot.mouseClick(win.name_offer.no, Qt.MouseButton.LeftButton)
    assert plain(win.name_offer.label.text()).startswith("Name S3 as Ana?")
    qtbot.mouseClick(win.name_offer.yes, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Ana:" in win.transcript.toPlainText(), timeout=2000)
    assert "S1:" in win.transcript.toPlainText() and not win.name_offer.isVisible()
    assert pipeline.speaker_names == {"S3": "Ana"}
    pipeline.feed(Turn("S1", "I'm Tom, as I said.", 4.0, 5.0, index=3))
    qtbot.wait(50)
    assert not win.name_offer.isVisible()  # declined once: not asked again


def test_settings_list_and_forget_remembered_voices(qtbot, tmp_path) -> None:
    from app.ui.settings_dialog import SettingsDialog

    store = VoiceprintStore(tmp_path / "voices.json")
    vector = np.eye(8, dtype=np.float32)
    store.remember(voiceprint("Maya", [vector[0]], [42.0], now=1_700_000_000.0))
    store.remember(voiceprint("Bo", [vector[1]], [8.0], now=1_700_000_000.0))
    dialog = SettingsDialog(Preferences(), voiceprints=store)
    qtbot.addWidget(dialog)
    voices = dialog.voices
    assert voices is not None and voices.names() == ["Bo", "Maya"]
    assert voices.list.item(1).text().startswith("Maya \u2014 42 s of speech")
    voices.list.setCurrentRow(1)
    with qtbot.waitSignal(voices.changed):
        qtbot.mouseClick(voices.forget_button, Qt.MouseButton.LeftButton)
    assert voices.names() == ["Bo"] and [p.name for p in store.voices()] == ["Bo"]
    assert "Maya's voice is forgotten" in voices.status.text()
    assert SettingsDialog(Preferences()).voices is None  # voices not kept: no section


@pytest.fixture(scope="module")
def sample():
    import soundfile as sf

    from tests.speech.scoring import read_rttm

    audio, _ = sf.read(
        shared_path("data/audio_diarization/pyannote_sample/sample.wav"), dtype="float32"
    )
    rows = read_rttm(shared_path("data/audio_diarization/pyannote_sample/sample.rttm"))
    return audio, rows


@pytest.mark.slow
def test_a_speaker_renamed_in_the_window_is_remembered_and_named_next_time(
    meeting, qtbot, tmp_path, sample
) -> None:
    from app.speech.audio import ArraySource
    from app.speech.diarization import Diarizer
    from app.speech.worker import SpeechWorker

    audio, rows = sample
    win, _ = meeting
    pipeline = win.pipeline
    pipeline.voiceprints = VoiceprintStore(tmp_path / "voices.json")
    diarizer = Diarizer()
    worker = SpeechWorker(
        ArraySource(np.zeros(RATE, np.float32)), transcriber=object(), diarizer=diarizer,
        vad=lambda frame: 0.0,
    )  # fmt: skip
    pipeline.attach_speech(worker)  # not started: turns are diarized here
    one = [(a, b) for s, a, b in rows if s == "speaker90" and b - a > 1.0]
    for a, b in one[:2]:
        speaker, _ = diarizer.assign(audio[int(a * RATE) : int(b * RATE)], a)
    pipeline.feed(Turn(speaker, "The sample was small.", 10.0, 14.0, index=1))
    qtbot.waitUntil(lambda: len(win.transcript.rows) == 1, timeout=2000)
    win.transcript.renameRequested.emit(speaker, "Ana")
    qtbot.waitUntil(lambda: "Ana:" in win.transcript.toPlainText(), timeout=2000)
    kept = pipeline.voiceprints.get("Ana")
    assert kept is not None and kept.seconds >= 2.0
    # the next meeting: a new diarizer knows the voice and names its speaker by itself
    later = Diarizer(diarizer.embedder, segmenter=diarizer.segmenter)
    later.know(pipeline.voiceprints.voices(), Settings().speech.voiceprint_match_cosine)
    for a, b in one[2:]:
        speaker, _ = later.assign(audio[int(a * RATE) : int(b * RATE)], a)
    assert later.clusters.display(speaker) == "Ana"


def test_names_found_by_voice_and_merges_keep_rows_with_their_speaker(meeting, qtbot) -> None:
    from app.events import NameSource, SpeakerRenamed

    win, _ = meeting
    pipeline = win.pipeline
    pipeline.feed(Turn("S1", "First point.", 1.0, 2.0, index=1))
    pipeline.feed(SpeakerRenamed("S1", "Maya", NameSource.VOICE, 0.71))  # as the worker says
    pipeline.feed(Turn("S1", "Second point.", 3.0, 4.0, index=2))
    pipeline.feed(SpeakerRenamed("S3", "Maya"))  # S3 merged into S1
    pipeline.feed(Turn("S1", "Third point.", 5.0, 6.0, index=3))
    qtbot.waitUntil(lambda: len(win.transcript.rows) == 3, timeout=2000)
    assert [r.speaker for r in win.transcript.rows] == ["S1", "S1", "S1"]
    assert win.transcript.toPlainText().count("Maya:") == 3
    win.transcript.renameRequested.emit("S1", "Maya Lopez")
    qtbot.waitUntil(lambda: win.transcript.toPlainText().count("Maya Lopez:") == 3, timeout=2000)
    pipeline.feed(SpeakerRenamed("S4", "Maya"))  # the old name given to someone else
    pipeline.feed(Turn("S4", "A new voice.", 7.0, 8.0, index=4))
    qtbot.waitUntil(lambda: len(win.transcript.rows) == 4, timeout=2000)
    assert win.transcript.rows[-1].speaker == "S4"


@pytest.mark.slow
def test_a_rename_reaches_merged_labels_and_keeps_the_voice(meeting, qtbot, tmp_path) -> None:
    """A real diarizer (voices placed by hand): renaming either label of two merged
    speakers names both, and the voice is remembered once, under the new name."""
    from app.speech.audio import ArraySource
    from app.speech.diarization import ClusteringTuning, Diarizer
    from app.speech.worker import SpeechWorker

    win, _ = meeting
    pipeline = win.pipeline
    pipeline.voiceprints = VoiceprintStore(tmp_path / "voices.json")
    diarizer = Diarizer(tuning=ClusteringTuning(merge_above=0.85))
    worker = SpeechWorker(
        ArraySource(np.zeros(RATE, np.float32)), transcriber=object(), diarizer=diarizer,
        vad=lambda frame: 0.0,
    )  # fmt: skip
    pipeline.attach_speech(worker)
    eye = np.eye(192, dtype=np.float32)

    def voice(x: float, y: float) -> np.ndarray:
        v = x * eye[0] + y * eye[1]
        return v / np.linalg.norm(v)

    clusters = diarizer.clusters
    clusters.place(voice(1, 0), 3.0)
    clusters.place(voice(0.5, 1), 3.0)
    pipeline.feed(Turn("S1", "One.", 1.0, 2.0, index=1))
    pipeline.feed(Turn("S2", "Two.", 3.0, 4.0, index=2))
    for _ in range(6):  # S2 keeps hearing S1's voice until the two are one
        clusters.place(voice(1, 0.45), 5.0, exclude={0})
    assert clusters.merged == {"S2": "S1"}
    qtbot.waitUntil(lambda: len(win.transcript.rows) == 2, timeout=2000)
    win.transcript.renameRequested.emit("S2", "Ken")  # the absorbed label's row
    qtbot.waitUntil(lambda: win.transcript.toPlainText().count("Ken:") == 2, timeout=2000)
    assert clusters.display("S1") == clusters.display("S2") == "Ken"
    assert pipeline.speaker_names == {"S1": "Ken", "S2": "Ken"}
    assert [p.name for p in pipeline.voiceprints.voices()] == ["Ken"]


@pytest.mark.slow
def test_enrolment_from_the_settings_records_a_sentence(qtbot, tmp_path, sample) -> None:
    from app.speech.audio import ArraySource
    from app.ui.voices import VoicesSection

    audio, _ = sample
    store = VoiceprintStore(tmp_path / "voices.json")
    sentence = audio[int(10.6 * RATE) : int(14.4 * RATE)]  # one speaker alone, 3.8 s
    voices = VoicesSection(store, source=lambda: ArraySource(sentence))
    qtbot.addWidget(voices)
    with qtbot.waitSignal(voices.changed, timeout=120_000):
        voices.record("Ana")
    assert voices.names() == ["Ana"] and "Ana's voice is remembered" in voices.status.text()
    silent = VoicesSection(store, source=lambda: ArraySource(np.zeros(5 * RATE, np.float32)))
    qtbot.addWidget(silent)
    silent.record("Bo")
    qtbot.waitUntil(lambda: silent.record_button.isEnabled(), timeout=120_000)
    assert "say a longer sentence" in silent.status.text() and store.get("Bo") is None


def test_the_export_names_speakers_by_their_last_name() -> None:
    from app.session.export import speaker_names

    entries = [
        {"kind": "turn", "speaker": "S1", "text": "a", "start": 0.0},
        {"kind": "speaker_renamed", "speaker": "S2", "name": "Maya", "source": "voice",
         "score": 0.71},
        {"kind": "turn", "speaker": "Maya", "text": "b", "start": 1.0},
        {"kind": "speaker_renamed", "speaker": "S3", "name": "S1"},  # S3 merged into S1
        {"kind": "speaker_renamed", "speaker": "S1", "name": "Bo"},
        {"kind": "speaker_renamed", "speaker": "S2", "name": "Maya L"},
        {"kind": "turn", "speaker": "S3", "text": "c", "start": 2.0},
    ]  # fmt: skip
    assert speaker_names(entries) == {"S1": "Bo", "S2": "Maya L", "S3": "Bo", "Maya": "Maya L"}
    text = to_markdown(entries)
    assert "S2 recognised as Maya by voice (0.71)" in text
    assert [line.split("] ")[1] for line in text.splitlines() if "] " in line] == [
        "Bo: a", "Maya L: b", "Bo: c",
    ]
