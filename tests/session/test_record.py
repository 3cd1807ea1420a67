from __future__ import annotations

import json

import pytest

from app.events import Citation, Intervention, InterventionKind, PlaybackReceipt, Turn
from app.session import SessionRecord, export_record, read_record, to_html, to_markdown


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
    with pytest.raises(ValueError):
        record.append("turn", {})


def test_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    with SessionRecord(path) as record:
        record.append("turn", {"text": "a"})
    with path.open("a") as f:
        f.write('{"kind": "turn", "te')  # crash mid-write
    assert [e["text"] for e in read_record(path)] == ["a"]


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
    assert "page 1, [S8]" in md and "finished, 4.2 s" in md
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
