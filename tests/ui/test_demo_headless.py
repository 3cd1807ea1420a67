"""`jarvis demo --headless` and `jarvis run --audio --headless` end to end: real speech
pipeline, real floor, and a clean stop whatever failed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.pipeline.demo import DemoAssets, cites_page, delivered_interventions
from app.session.record import SESSION_ENDED, read_record

REPO = Path(__file__).resolve().parents[2]
# What a native abort at interpreter exit leaves in the output.
CRASH_MARKS = ("terminate called", "Fatal Python error", "Aborted", "Segmentation fault")
SMALL_MODEL = "llm-0.5b"  # a real agent that loads and answers quickly


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "JARVIS_DATA_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}


def _jarvis(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args], cwd=REPO, env=_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def _record(out: str) -> list[dict]:
    match = re.search(r"Session record: (\S+)", out)
    assert match, out[-3000:]
    return read_record(Path(match.group(1)))


def _interrupt_after_first_turn(proc: subprocess.Popen[str]) -> str:
    """Ctrl-C once the first turn is printed (the speech worker is running); all output."""
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if re.match(r"\[\s*\d+\.\ds\] ", line):
            proc.send_signal(signal.SIGINT)
            break
    rest, _ = proc.communicate(timeout=120)
    return "".join(seen) + rest


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_headless_demo_with_a_broken_model_ends_cleanly(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(bytes(range(256)) * 64)  # not a GGUF
    proc = _jarvis(tmp_path, "demo", "--headless", "--llm", str(broken), "--timeout", "240")
    out, _ = proc.communicate(timeout=280)
    assert proc.returncode == 1, out[-3000:]
    assert "the agent could not start" in out and "broken.gguf" in out
    assert not any(mark in out for mark in CRASH_MARKS), out[-3000:]
    entries = _record(out)
    assert entries[-1]["kind"] == SESSION_ENDED  # the record was closed, not cut off
    assert not any(e["kind"] == "turn" for e in entries)  # it did not play on


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_headless_demo_interrupted_while_listening_ends_cleanly(tmp_path):
    out = _interrupt_after_first_turn(
        _jarvis(tmp_path, "demo", "--headless", "--llm", SMALL_MODEL, "--timeout", "240")
    )
    assert "Demo ended before the agent spoke" in out, out[-3000:]
    assert not any(mark in out for mark in CRASH_MARKS), out[-3000:]
    assert _record(out)[-1]["kind"] == SESSION_ENDED


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_run_plays_a_recording_at_any_rate_headless(tmp_path):
    import numpy as np
    import soundfile as sf

    from app.speech.audio import load_audio

    assets = DemoAssets.bundled()
    clip = load_audio(assets.audio, 44100)[: int(44100 * 8.0)]  # the first turn
    wav = tmp_path / "meeting.flac"
    sf.write(wav, np.asarray(clip), 44100)
    proc = _jarvis(tmp_path, "run", str(assets.pdf), "--audio", str(wav), "--headless",
                   "--llm", SMALL_MODEL, "--timeout", "800")  # fmt: skip
    out, _ = proc.communicate(timeout=880)
    assert proc.returncode == 0, out[-3000:]
    assert "Session ended (audio ended)" in out
    turns = [e for e in _record(out) if e["kind"] == "turn"]
    words = set(re.findall(r"[a-z]+", turns[0]["text"].lower())) if turns else set()
    assert words & {"green", "roof", "pilot", "budget", "year"}, turns  # heard, not noise
    assert not any(mark in out for mark in CRASH_MARKS), out[-3000:]


@pytest.mark.slow
@pytest.mark.timeout(1000)
def test_headless_demo_corrects_the_planted_fact(tmp_path):
    env = {**os.environ, "JARVIS_DATA_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    shot = tmp_path / "demo.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "demo",
            "--headless",
            "--timeout",
            "840",
            "--screenshot",
            str(shot),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=960,
    )
    out = proc.stdout + proc.stderr
    match = re.search(r"Session record: (\S+)", out)
    assert match, out[-3000:]
    record = Path(match.group(1))
    assert record.parent == tmp_path / "sessions"
    planted = DemoAssets.bundled().planted
    delivered = delivered_interventions(record)
    assert proc.returncode == 0, out[-3000:]
    hits = [e for e in delivered if cites_page(e, planted["page"])]
    assert hits, delivered
    assert "48" in hits[0]["text"]  # the document's number, not the planted "twelve"
    assert shot.exists()
