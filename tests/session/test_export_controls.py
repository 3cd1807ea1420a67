"""The export keeps the settings changed and the snoozes asked for during the meeting, in
their place among the turns, with the time of day and what changed: a record written by
the real pipeline and floor on a simulated clock, exported as Markdown and HTML."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from app.clock import SimulatedClock
from app.events import Setting, SettingsChanged, Turn
from app.floor.outputs import SnoozeChanged, SnoozeSource
from app.pipeline.pipeline import Pipeline
from app.session import SessionRecord, read_record
from app.session.export import export_record
from app.settings import Settings


def _at(entry: dict) -> str:
    return f"{datetime.fromisoformat(entry['wall']).astimezone():%H:%M:%S}"


@pytest.fixture
def record_path(tmp_path):
    """A meeting in which the room changes the patience and the floor mode, snoozes
    Jarvis from the window, ends it, and then snoozes it by voice."""
    path = tmp_path / "meeting.jsonl"
    pipeline = Pipeline(Settings(), record=SessionRecord(path), clock=SimulatedClock(100.0))
    pipeline.tick_floor = False
    pipeline._start_floor()
    pipeline.feed(Turn("S1", "Let's look at the budget first.", 100.0, 102.0, index=0))
    pipeline.change_setting(Setting.PATIENCE, "deferent")
    pipeline.change_setting(Setting.MODE, "hand_raise")
    pipeline.snooze(900.0)
    pipeline.feed(Turn("S2", "Roads get twelve million.", 103.0, 105.0, index=1))
    pipeline.snooze(0.0)
    pipeline.change_setting(Setting.PROACTIVE_GAP, 300.0)
    pipeline.feed(Turn("S1", "Jarvis, quiet for ten minutes.", 106.0, 107.0, index=2))
    pipeline.stop()
    pipeline.record.close()
    return path


def _controls(path) -> list[dict]:
    return [e for e in read_record(path) if e["kind"] in ("settings_changed", "snooze_changed")]


def test_the_markdown_export_lists_settings_and_snoozes_in_their_place(record_path, tmp_path):
    entries = _controls(record_path)
    assert [e["kind"] for e in entries] == ["settings_changed", "settings_changed",
                                            "snooze_changed", "snooze_changed",
                                            "settings_changed", "snooze_changed"]
    patience, mode, snoozed, ended, gap, by_voice = entries
    until = datetime.fromisoformat(snoozed["wall"]).astimezone() + timedelta(seconds=900)
    voice_until = datetime.fromisoformat(by_voice["wall"]).astimezone() + timedelta(seconds=600)
    text = export_record(record_path, tmp_path / "meeting.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines == [
        "- [01:40.0] S1: Let's look at the budget first.",
        f"- _{_at(patience)} Setting changed: Patience default \u2192 deferent_",
        f"- _{_at(mode)} Setting changed: Floor mode speak \u2192 hand raise_",
        f"- _{_at(snoozed)} Snoozed for 15 min from the window until {until:%H:%M}: no "
        "proactive remarks, questions still answered_",
        "- [01:43.0] S2: Roads get twelve million.",
        f"- _{_at(ended)} Snooze ended from the window: Jarvis may speak up again_",
        f"- _{_at(gap)} Setting changed: At most one remark every no limit \u2192 5 min_",
        "- [01:46.0] S1: Jarvis, quiet for ten minutes.",
        f"- _{_at(by_voice)} Snoozed for 10 min by voice until {voice_until:%H:%M}: no "
        "proactive remarks, questions still answered_",
    ]


def test_the_html_export_lists_them_too(record_path, tmp_path):
    html = export_record(record_path, tmp_path / "meeting.html").read_text(encoding="utf-8")
    patience = _controls(record_path)[0]
    assert (f'<li class="decision">{_at(patience)} Setting changed: Patience default '
            "\u2192 deferent</li>") in html
    assert html.index("Setting changed: Patience") < html.index("Roads get twelve million")
    assert html.index("Snooze ended from the window") > html.index("Roads get twelve million")
    assert "Snoozed for 10 min by voice" in html


def test_each_setting_reads_in_the_window_s_units(tmp_path):
    path = tmp_path / "settings.jsonl"
    record = SessionRecord(path)
    for change in (
        SettingsChanged(Setting.SPEED, 1.0, 1.5, 5.0),
        SettingsChanged(Setting.OUTPUT_DEVICE, "", "USB speaker", 6.0),
        SettingsChanged(Setting.INPUT_DEVICE, "Desk mic", "", 7.0),
        SettingsChanged(Setting.VOICE_ENGINE, "kokoro", "piper", 8.0),
        SettingsChanged(Setting.VOICE, "af_heart", "en_US-joe-medium", 8.0),
    ):
        record.record(change)
    record.record(SnoozeChanged(None, 0.0, SnoozeSource.EXPIRED))
    record.close()
    text = export_record(path, tmp_path / "settings.md").read_text(encoding="utf-8")
    assert "Setting changed: Speaking rate 1\u00d7 \u2192 1.5\u00d7_" in text
    assert "Setting changed: Loudspeaker system default \u2192 USB speaker_" in text
    assert "Setting changed: Microphone Desk mic \u2192 system default_" in text
    assert "Setting changed: Voice engine kokoro \u2192 piper_" in text
    assert "Setting changed: Voice af_heart \u2192 en_US-joe-medium_" in text
    assert "Snooze over (its time ran out): Jarvis may speak up again_" in text
