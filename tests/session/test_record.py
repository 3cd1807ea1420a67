from __future__ import annotations

import json

import pytest

from app.eval.dataset import BenchmarkFormatError
from app.eval.records import DecisionRecord, read_decisions
from app.events import Citation, Intervention, InterventionKind, PlaybackReceipt, Turn
from app.session import (
    SessionRecord,
    export_record,
    read_record,
    read_record_contents,
    to_html,
    to_markdown,
)


def _intervention() -> Intervention:
    cite = Citation(8, 1, "Planted roofs were installed on 48 residential buildings.",
                    ((171.7, 312.1, 518.3, 329.7),), "48")
    return Intervention("iv-1", InterventionKind.PROACTIVE, "It was 48 buildings, not twelve.",
                        citations=(cite,))


def test_each_append_is_on_disk_before_close(tmp_path):
    record = SessionRecord(tmp_path / "s.jsonl")
    record.record(Turn("S1", "they used twelve buildings", 1.0, 3.5, index=0))
    # read through a separate handle while the writer is still open
    lines = (tmp_path / "s.jsonl").read_text().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["kind"] == "turn" and entry["text"] == "they used twelve buildings"
    record.append("decision", {"turn": 0, "action": "silent", "reason": "on_progress"})
    assert [e["seq"] for e in read_record(record.path)] == [0, 1]
    record.close()
    assert [e["kind"] for e in read_record(record.path)][-1] == "session_ended"
    with pytest.raises(ValueError):
        record.append("turn", {})


def test_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    with SessionRecord(path) as record:
        record.append("turn", {"text": "a"})
    with path.open("a") as f:
        f.write('{"kind": "turn", "te')  # crash mid-write
    assert [e.get("text") for e in read_record(path)] == ["a", None]  # the turn, the end


def _cut_inside_a_character(tmp_path):
    """A record whose last write stops between the bytes of one character."""
    path = tmp_path / "s.jsonl"
    record = SessionRecord(path)
    record.append("turn", {"speaker": "S1", "text": "Die Stra\u00dfe ist 48 m lang."})
    record.append("turn", {"speaker": "S2", "text": "\u5c4b\u9876\u7eff\u5316\u4e8648\u680b\u3002"})
    record.close()
    data = path.read_bytes()
    cut = data.rindex("\u680b".encode()) + 1  # one byte into a three-byte character
    path.write_bytes(data[:cut])
    return path, data.rindex(b"\n", 0, cut) + 1


def test_a_record_cut_inside_a_multibyte_character_keeps_everything_before(tmp_path, caplog):
    path, torn_at = _cut_inside_a_character(tmp_path)
    with pytest.raises(UnicodeDecodeError):
        path.read_text(encoding="utf-8")  # what a text read of the whole file meets
    contents = read_record_contents(path)
    assert [e["text"] for e in contents.entries] == ["Die Stra\u00dfe ist 48 m lang."]
    (skipped,) = contents.skipped
    assert skipped.torn and skipped.number == 2 and skipped.offset == torn_at
    assert "torn last line" in contents.skipped_note()
    assert f"at byte {torn_at}" in caplog.text


def test_a_damaged_middle_line_is_skipped_and_the_rest_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    with SessionRecord(path) as record:
        record.append("turn", {"text": "first"})
    with path.open("ab") as f:
        f.write('{"kind": "turn", "text": "zw\u00f6'.encode()[:-1])  # torn inside "\u00f6"
    with SessionRecord(path) as record:  # the next session appends to the same file
        record.append("turn", {"text": "after"})
    contents = read_record_contents(path)
    texts = [e.get("text") for e in contents.entries if e["kind"] == "turn"]
    assert texts == ["first", "after"]
    (skipped,) = contents.skipped
    assert not skipped.torn and skipped.number == 3 and "not UTF-8" in skipped.why
    assert "damaged line 3" in contents.skipped_note()


def test_the_end_marker_is_written_once(tmp_path):
    record = SessionRecord(tmp_path / "s.jsonl")
    record.append("session_ended", reason="window closed")
    record.close()
    record.close()
    kinds = [e["kind"] for e in read_record(record.path)]
    assert kinds == ["session_ended"]
    assert read_record_contents(record.path).ended_cleanly


def _decision(turn: int) -> str:
    return json.dumps(DecisionRecord("doc", "c1", turn, "silent", reason="\u00fcber").to_json())


def test_decisions_survive_a_run_killed_mid_write(tmp_path):
    path = tmp_path / "decisions.jsonl"
    torn = _decision(2).encode()[:-12]
    path.write_bytes((_decision(0) + "\n" + _decision(1) + "\n").encode() + torn)
    assert [d.turn for d in read_decisions(path)] == [0, 1]
    path.write_bytes(b"{oops\n" + (_decision(1) + "\n").encode())
    with pytest.raises(BenchmarkFormatError, match="decisions.jsonl:1"):
        read_decisions(path)


def test_create_uses_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JARVIS_DATA_DIR", str(tmp_path))
    first = SessionRecord.create(label="demo")
    second = SessionRecord.create(label="demo")
    assert first.path.parent == tmp_path / "sessions"
    assert first.path != second.path
    first.close()
    second.close()


def _filled(tmp_path):
    record = SessionRecord(tmp_path / "s.jsonl")
    record.append("session_started", document="green_roofs.pdf")
    record.record(Turn("S1", "only twelve buildings", 19.5, 27.0, index=3))
    record.append("speaker_renamed", speaker="S1", name="Ken")
    record.append("decision", {"turn": 4, "action": "speak", "reason": "gate fired",
                               "claim": "buildings"})
    iv = _intervention()
    receipt = PlaybackReceipt("iv-1", "finished", 4.2, 0, 44.0)
    record.append("intervention_delivered", iv, status="finished", delivered_seconds=4.2,
                  receipt=receipt)
    record.close()
    return record.path


def test_markdown_and_html_carry_turns_renames_and_citations(tmp_path):
    entries = read_record(_filled(tmp_path))
    md = to_markdown(entries)
    assert "Ken: only twelve buildings" in md
    assert "[00:19.5]" in md
    assert "**Jarvis: It was 48 buildings, not twelve.**" in md
    assert "page 1, [S8]" in md and "delivered in full (finished, 4.2 s)" in md
    assert "Decision on turn 4: speak (gate fired)" in md
    page = to_html(entries)
    assert page.startswith("<!DOCTYPE html>")
    assert "Ken: only twelve buildings" in page and "page 1, [S8]" in page


def test_export_by_suffix(tmp_path):
    path = _filled(tmp_path)
    assert "# Meeting record" in export_record(path, tmp_path / "m.md").read_text()
    assert "<html>" in export_record(path, tmp_path / "m.html").read_text()
    with pytest.raises(ValueError, match=".md or .html"):
        export_record(path, tmp_path / "m.docx")
