"""`jarvis demo --headless` end to end: real speech pipeline, real model, real floor."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.pipeline.demo import DemoAssets, cites_page, delivered_interventions

REPO = Path(__file__).resolve().parents[2]


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
