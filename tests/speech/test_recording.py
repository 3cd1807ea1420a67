"""Kept meeting audio: a WAV that is complete on disk after every frame, readable while
it is written and after the app dies without closing it; the speech worker keeps what it
hears only when the setting says so, and says where."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import wave
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from app.events import MeetingAudio, RecordingState
from app.speech.recording import MeetingAudioWriter, recording_path, to_pcm16

REPO = Path(__file__).resolve().parents[2]


def tone(seconds: float, start: int = 0, rate: int = 16000) -> np.ndarray:
    t = (np.arange(int(seconds * rate)) + start) / rate
    return (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def pcm(x: np.ndarray) -> np.ndarray:
    """What 16-bit PCM keeps of float samples."""
    return np.frombuffer(to_pcm16(x), dtype="<i2").astype(np.float32) / 32768.0


def frames(audio: np.ndarray, n: int = 512) -> list[tuple[np.ndarray, int]]:
    return [(audio[i : i + n], i) for i in range(0, audio.size, n)]


def test_the_file_is_complete_while_it_is_written(tmp_path: Path) -> None:
    audio = tone(1.0)
    writer = MeetingAudioWriter(tmp_path / "m.wav")
    for frame, sample in frames(audio[:8000]):
        writer.write(frame, sample)
    data, rate = sf.read(tmp_path / "m.wav", dtype="float32")
    assert rate == 16000 and data.size == 8000  # the header already counts every frame
    np.testing.assert_allclose(data, pcm(audio[:8000]), atol=1e-4)
    for frame, sample in frames(audio)[len(frames(audio[:8000])) :]:
        writer.write(frame, sample)
    with wave.open(str(tmp_path / "m.wav")) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
        assert w.getnframes() == 16000
    assert writer.seconds == pytest.approx(1.0)
    writer.close()
    writer.close()
    with pytest.raises(ValueError):
        writer.write(audio[:10], 16000)


def test_readable_after_the_writer_is_dropped_without_close(tmp_path: Path) -> None:
    """The process ends without closing the file or running any finaliser (as in a
    crash): everything written before is there, with a right header."""
    path = tmp_path / "crash.wav"
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(REPO)!r})
        import numpy as np
        from app.speech.recording import MeetingAudioWriter
        from tests.speech.test_recording import frames, tone
        writer = MeetingAudioWriter({str(path)!r}, sync_every=60.0)
        for frame, sample in frames(tone(0.75)):
            writer.write(frame, sample)
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    data, rate = sf.read(path, dtype="float32")
    assert rate == 16000 and data.size == 12000
    np.testing.assert_allclose(data, pcm(tone(0.75)), atol=1e-4)


def test_a_gap_is_silence_and_nothing_is_written_twice(tmp_path: Path) -> None:
    writer = MeetingAudioWriter(tmp_path / "g.wav")
    writer.write(np.full(100, 0.5, np.float32), 0)
    writer.write(np.full(100, 0.25, np.float32), 150)  # 50 samples were never heard
    writer.write(np.full(100, -0.5, np.float32), 200)  # its first 50 are already kept
    writer.write(np.array([np.nan, 2.0, -2.0], np.float32), 300)
    writer.close()
    data, _ = sf.read(tmp_path / "g.wav", dtype="float32")
    assert data.size == 303
    np.testing.assert_allclose(data[:100], 0.5, atol=1e-4)
    assert not data[100:150].any()
    np.testing.assert_allclose(data[150:250], 0.25, atol=1e-4)
    np.testing.assert_allclose(data[250:300], -0.5, atol=1e-4)
    np.testing.assert_allclose(data[300:], [0.0, 1.0, -1.0], atol=1e-4)


def test_a_new_recording_never_takes_an_existing_name(tmp_path: Path) -> None:
    when = datetime(2026, 3, 4, 9, 30, 0)
    first = recording_path(when, tmp_path)
    assert first.name == "20260304-093000-meeting.wav"
    MeetingAudioWriter(first).close()
    second = recording_path(when, tmp_path)
    assert second.name == "20260304-093000-meeting-2.wav"
    with pytest.raises(FileExistsError):
        MeetingAudioWriter(first)


@pytest.mark.slow
@pytest.mark.parametrize("keep", [True, False])
def test_the_worker_keeps_what_it_hears_only_when_asked(tmp_path: Path, keep: bool) -> None:
    from app.settings import SpeechSettings
    from app.speech.audio import ArraySource
    from app.speech.worker import SpeechWorker

    audio = np.concatenate([np.zeros(8000, np.float32), tone(1.5), np.zeros(8000, np.float32)])
    settings = replace(SpeechSettings(), keep_meeting_audio=keep)
    path = tmp_path / "kept.wav"
    worker = SpeechWorker(ArraySource(audio), settings, audio_path=path)
    events: list[object] = []
    worker.subscribe(events.append)
    worker.run()
    kept = [e for e in events if isinstance(e, MeetingAudio)]
    if not keep:
        assert kept == [] and not path.exists()
        return
    assert [e.state for e in kept] == [RecordingState.RECORDING, RecordingState.STOPPED]
    assert {e.path for e in kept} == {str(path)}
    data, _ = sf.read(path, dtype="float32")
    assert data.size == -(-audio.size // 512) * 512  # the source pads its last block
    np.testing.assert_allclose(data[: audio.size], pcm(audio), atol=1e-4)
    assert not data[audio.size :].any()
