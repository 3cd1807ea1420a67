"""Which session ended without its end marker, and `jarvis export`."""

from __future__ import annotations

import os

import pytest

from app.cli import main
from app.session import SessionRecord
from app.session.recovery import (
    CRASH_OFFER,
    crash_hint,
    ended_unexpectedly,
    newest_record,
    unfinished_session,
)


def test_ended_unexpectedly_needs_a_meeting_and_no_end_marker():
    started = {"kind": "session_started", "document": "a.pdf"}
    turn = {"kind": "turn", "speaker": "S1", "text": "hello"}
    assert ended_unexpectedly([started, turn])
    assert not ended_unexpectedly([started, turn, {"kind": "session_ended"}])
    assert not ended_unexpectedly([started])  # nothing of the meeting to export
    assert not ended_unexpectedly([])


def _session(folder, name, *, closed, mtime):
    record = SessionRecord(folder / name)
    record.append("session_started", document="a.pdf")
    record.append("turn", {"speaker": "S1", "text": f"said in {name}", "start": 1.0})
    if closed:
        record.close()
    else:
        record._file.close()  # the process died: no end marker
    os.utime(record.path, (mtime, mtime))
    return record.path


def test_only_the_newest_session_is_offered(tmp_path):
    assert unfinished_session(tmp_path / "none") is None
    crashed = _session(tmp_path, "20250101-100000-meeting.jsonl", closed=False, mtime=1000)
    assert unfinished_session(tmp_path) == crashed
    clean = _session(tmp_path, "20250101-110000-meeting.jsonl", closed=True, mtime=2000)
    assert newest_record(tmp_path) == clean
    assert unfinished_session(tmp_path) is None  # a later meeting ended cleanly
    assert crash_hint(crashed) == f"{CRASH_OFFER}: jarvis export {crashed}"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("JARVIS_DATA_DIR", str(tmp_path))
    return tmp_path / "sessions"


def test_export_last_writes_markdown_beside_the_newest_record(data, capsys):
    assert main(["export", "--last"]) == 1
    assert "No session records" in capsys.readouterr().err
    _session(data, "20250101-100000-meeting.jsonl", closed=True, mtime=1000)
    newest = _session(data, "20250101-110000-meeting.jsonl", closed=False, mtime=2000)
    with newest.open("ab") as f:
        f.write('{"kind": "turn", "text": "Gr\u00fc'.encode()[:-1])
    assert main(["export", "--last"]) == 0
    captured = capsys.readouterr()
    out = newest.with_suffix(".md")
    assert f"Meeting record written to {out}" in captured.out
    assert "torn last line" in captured.err
    text = out.read_text()
    assert "S1: said in 20250101-110000-meeting.jsonl" in text
    assert "ended unexpectedly" in text and "Damaged record: 1 unreadable line" in text


def test_export_record_as_html_to_a_file_or_stdout(data, tmp_path, capsys):
    record = _session(data, "20250101-100000-meeting.jsonl", closed=True, mtime=1000)
    assert main(["export", str(record), "--format", "html", "--out", str(tmp_path / "m")]) == 0
    assert (tmp_path / "m").read_text().startswith("<!DOCTYPE html>")
    capsys.readouterr()
    assert main(["export", str(record), "--out", "-"]) == 0
    assert capsys.readouterr().out.startswith("# Meeting record 20250101-100000-meeting")
    assert main(["export", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["export", str(record), "--out", str(tmp_path / "m.docx")]) == 2
    assert "choose a .md or .html" in capsys.readouterr().err


def test_a_new_session_names_the_one_that_ended_unexpectedly(data, caplog):
    crashed = _session(data, "20250101-100000-meeting.jsonl", closed=False, mtime=1000)
    record = SessionRecord.create(label="meeting")
    assert record.unfinished_before == crashed
    assert f"{CRASH_OFFER}: jarvis export {crashed}" in caplog.text
    record.append("turn", {"speaker": "S1", "text": "a new meeting"})
    record.close()
    caplog.clear()
    assert SessionRecord.create(label="meeting").unfinished_before is None
    assert CRASH_OFFER not in caplog.text


def test_a_command_takes_the_record_named_else_the_newest(tmp_path, monkeypatch, capsys):
    from app.session import recovery

    monkeypatch.setattr(recovery, "sessions_dir", lambda: tmp_path)
    assert recovery.chosen_record(None, "Exporting") == (None, 1)
    assert "No session records" in capsys.readouterr().err
    (tmp_path / "a.jsonl").write_text("{}\n")
    assert recovery.chosen_record(None, "Exporting") == (tmp_path / "a.jsonl", 0)
    assert "Exporting the newest session record" in capsys.readouterr().err
    assert recovery.chosen_record(tmp_path / "gone.jsonl", "Exporting") == (None, 2)
    assert "No such session record" in capsys.readouterr().err
