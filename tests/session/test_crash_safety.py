"""kill -9 while the record is being written: everything flushed before the kill reads back,
and the export says the session ended unexpectedly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.session import read_record_contents
from app.session.export import export_record
from app.session.recovery import unfinished_session

REPO = Path(__file__).resolve().parents[2]

# Appends turns as fast as it can and prints each seq once append() has returned.
WRITER = """
import sys
from app.session import SessionRecord
record = SessionRecord(sys.argv[1])
n = 0
while True:
    record.append("turn", {"speaker": "S1", "text": f"Stra\\u00dfe {n} \\u5c4b\\u9876" * 40})
    print(n, flush=True)
    n += 1
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_writer_loses_nothing_it_flushed(tmp_path):
    path = tmp_path / "sessions" / "20250101-120000-meeting.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert writer.stdout is not None
    confirmed = -1
    deadline = time.monotonic() + 30
    while confirmed < 50 and time.monotonic() < deadline:
        confirmed = int(writer.stdout.readline())
    os.kill(writer.pid, signal.SIGKILL)  # mid-way: it keeps appending until the signal lands
    writer.wait(10)
    assert writer.returncode == -signal.SIGKILL
    assert confirmed >= 50

    contents = read_record_contents(path)
    seqs = [e["seq"] for e in contents.entries]
    assert seqs == list(range(len(seqs)))  # in order, none missing
    assert len(seqs) > confirmed  # every append that returned is on disk
    assert len(contents.skipped) <= 1 and all(s.torn for s in contents.skipped)
    assert not contents.ended_cleanly
    assert unfinished_session(tmp_path / "sessions") == path
    md = export_record(path, tmp_path / "m.md").read_text()
    assert "The session ended unexpectedly" in md
    assert f"S1: Stra\u00dfe {confirmed} " in md
