"""`jarvis summarize` on a record of the demo meeting, with the real embedded model: the
record is made the way the app makes it (the demo's turns through the real backbone, its
decisions and the playback receipts through the session hooks), then summarised."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.events import PlaybackReceipt
from app.floor.outputs import Play
from app.pipeline.demo import DemoAssets
from app.pipeline.scripted import load_turns
from app.pipeline.session_hooks import SessionHooks
from app.session.record import SessionRecord
from app.settings import LLMSettings, Settings

pytestmark = pytest.mark.slow
THREADS = 2  # test machines are shared


def demo_record(folder: Path, assets: DemoAssets) -> Path:
    from app.backbone.harness import Backbone
    from app.document import open_document
    from app.llm import open_backend

    settings = Settings(llm=LLMSettings(context_tokens=4096, threads=THREADS))
    llm = open_backend("llm-1.5b", settings.llm)
    record = SessionRecord(folder / "demo.jsonl")
    hooks = SessionHooks(record)
    record.append("session_started", document=str(assets.pdf), demo=True)
    try:
        backbone = Backbone(open_document(assets.pdf), llm, settings)
        for turn in load_turns(assets.transcript):
            hooks.on_event(turn)
            decision = backbone.on_turn(turn)
            hooks.on_event(decision)
            made = decision.intervention
            if made is None:
                continue
            hooks.on_event(Play(made, made.text))
            for status in ("started", "finished"):
                receipt = PlaybackReceipt(made.id, status, 6.0 if status == "finished" else 0.0)
                hooks.on_event(receipt)
                backbone.on_delivered(made, receipt)
    finally:
        llm.close()
        record.close()
    return record.path


@pytest.mark.timeout(2400)
def test_summarize_names_the_corrected_fact_with_its_page(tmp_path, monkeypatch, capsys):
    from app.cli import main

    monkeypatch.setenv("JARVIS_LLM_THREADS", str(THREADS))
    assets = DemoAssets.bundled()
    record = demo_record(tmp_path, assets)
    out = tmp_path / "demo.summary.md"
    assert main(["summarize", str(record), "--out", str(out)]) == 0
    assert f"Summary written to {out}" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    print(text)
    planted = assets.planted
    jarvis = text.split("## What Jarvis contributed", 1)[1].split("\n## ", 1)[0]
    assert "**Correction**" in jarvis and "48" in jarvis  # the document's number
    assert f"The document, page {planted['page']}: \u201c" in jarvis
    assert "the room heard it in full" in jarvis
    # Every summary statement shown cites turns of the meeting, with their times.
    discussed = text.split("## What was discussed", 1)[1].split("\n## ", 1)[0]
    for line in (ln for ln in discussed.splitlines() if ln.startswith("- ")):
        assert re.search(r"\(turn \d+, \d\d:\d\d(; turn \d+, \d\d:\d\d)*\)$", line), line
    assert "## Transcript" in text and "twelve buildings" in text
