"""The re-run's record side: the kept audio found through the record (as the session
hooks write it), the command's words when there is none, and the export with the re-run
turns where the live ones were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from app.events import MeetingAudio, RecordingState, Turn
from app.pipeline.session_hooks import SessionHooks
from app.retranscribe.diarization import DiarizationPipeline, OfflineDiarization
from app.retranscribe.names import NameMatch
from app.retranscribe.run import (
    RetranscribeError,
    Retranscript,
    kept_audio,
    rewritten_entries,
)
from app.session.export import to_markdown
from app.session.record import SessionRecord, read_record


def record_with(tmp_path: Path, *events: object) -> Path:
    with SessionRecord(tmp_path / "session.jsonl") as record:
        record.append("session_started", document="paper.pdf")
        hooks = SessionHooks(record)
        for event in events:
            hooks.on_event(event)
    return record.path


def test_the_kept_audio_is_found_through_the_record(tmp_path: Path) -> None:
    wav = tmp_path / "m.wav"
    wav.write_bytes(b"RIFF")
    path = record_with(
        tmp_path,
        MeetingAudio(str(wav), RecordingState.RECORDING, 0.0),
        Turn("S1", "Hello.", 0.5, 1.0, index=1),
        MeetingAudio(str(wav), RecordingState.STOPPED, 3.0),
    )
    entries = read_record(path)
    assert [e["state"] for e in entries if e["kind"] == "meeting_audio"] == [
        "recording", "stopped"]  # fmt: skip
    assert kept_audio(entries) == wav
    wav.unlink()
    with pytest.raises(RetranscribeError, match="is missing"):
        kept_audio(entries)


def test_the_command_says_why_when_the_session_kept_no_audio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record_with(tmp_path, Turn("S1", "Hello.", 0.5, 1.0, index=1))
    assert main(["retranscribe", str(path)]) == 1
    err = capsys.readouterr().err
    assert "kept no meeting audio" in err and "keep_meeting_audio" in err
    assert not (tmp_path / "session.retranscribed.md").exists()
    assert main(["retranscribe", str(tmp_path / "absent.jsonl")]) == 2
    assert main(["retranscribe", str(path), "--out", str(tmp_path / "x.pdf")]) == 2


def test_the_export_has_the_rerun_turns_where_the_live_ones_were(tmp_path: Path) -> None:
    live: list[dict[str, Any]] = [
        {"kind": "session_started", "document": "paper.pdf"},
        {"kind": "turn", "speaker": "S1", "text": "helo ther", "start": 0.5, "end": 2.0},
        {"kind": "speaker_renamed", "speaker": "S1", "name": "Maya"},
        {"kind": "decision", "turn": 1, "action": "speak", "reason": "wrong value"},
        {"kind": "intervention_delivered", "id": "i1", "text": "Page 4 says 76%.",
         "status": "finished", "delivered_seconds": 2.0},
        {"kind": "turn", "speaker": "S2", "text": "thanks", "start": 6.0, "end": 7.0},
    ]  # fmt: skip
    turns = [
        Turn("Maya", "Hello there.", 0.4, 1.2, index=1),
        Turn("S2", "Is it?", 1.4, 1.9, index=2),
        Turn("S3", "Thanks.", 6.1, 6.9, index=3),
    ]
    diarization = OfflineDiarization([], [], DiarizationPipeline.EMBEDDED)
    result = Retranscript(turns, diarization, {"R1": NameMatch("R1", "Maya", 0.8)},
                          {"R1": "Maya", "R2": "S2", "R3": "S3"}, "whisper-base",
                          tmp_path / "m.wav", 7.0)  # fmt: skip
    entries = rewritten_entries(live, result)
    assert [(e["kind"], e.get("text")) for e in entries] == [
        ("session_started", None),
        ("turn", "Hello there."),
        ("turn", "Is it?"),
        ("speaker_renamed", None),
        ("intervention_delivered", "Page 4 says 76%."),
        ("turn", "Thanks."),
    ]
    text = to_markdown(entries)
    assert "Maya: Hello there." in text and "S3: Thanks." in text
    assert "helo ther" not in text and "Decision on turn" not in text


def test_community_1_is_chosen_once_the_model_store_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gated pipeline only from a verified pulled copy in the local store."""
    import json

    from app.models import default_manager
    from app.models.pull import RECORD_NAME
    from app.models.store import file_record, sha256_file
    from app.retranscribe.diarization import COMMUNITY, pulled_community

    monkeypatch.setenv("JARVIS_DATA_DIR", str(tmp_path))
    assert pulled_community() is None
    manager = default_manager()
    folder = manager.store.pulled_dir(COMMUNITY)
    files = {}
    hub = manager.entry(COMMUNITY).hub
    assert hub is not None
    for spec in hub.files:
        path = folder / spec.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(spec.path.encode())
        files[spec.path] = file_record(path, sha256_file(path))
    assert pulled_community() is None  # files without the pull's record are not trusted
    (folder / RECORD_NAME).write_text(json.dumps({"files": files}))
    assert pulled_community() == folder
