"""``jarvis listen`` from a file and the device listing."""

from __future__ import annotations

import pytest

from app.cli import main
from tests.conftest import shared_path
from tests.speech.test_asr import JFK, wer


@pytest.mark.slow
def test_listen_prints_speaker_attributed_turns(capsys: pytest.CaptureFixture[str]) -> None:
    jfk = shared_path("data/audio_asr/jfk.flac")
    assert main(["listen", "--file", str(jfk), "--fast", "--no-wake"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert lines and all("] S1: " in ln for ln in lines), lines
    text = " ".join(ln.split(": ", 1)[1] for ln in lines)
    assert wer(JFK, text) <= 0.1, text  # and no invented closing phrases


def test_listen_reports_a_bad_file(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    bad = tmp_path / "x.wav"
    bad.write_text("nope")
    assert main(["listen", "--file", str(bad), "--no-wake"]) == 1
    assert "x.wav" in capsys.readouterr().err


def test_list_devices(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["listen", "--list-devices"])
    out = capsys.readouterr()
    if code == 0:
        assert out.out.strip()  # one line per input device
    else:
        assert out.err.strip()  # a message, never a traceback


def test_unknown_microphone_is_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--device", "no-such-mic", "--no-wake"]) == 1
    assert "no-such-mic" in capsys.readouterr().err or "No audio" in capsys.readouterr().err
