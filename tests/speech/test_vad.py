"""VAD segmenter on synthetic probability sequences (exact event times), Silero on audio."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from app.events import VadKind
from app.settings import SpeechSettings
from app.speech.vad import SileroVad, VadSegmenter, rms
from tests.conftest import shared_path

ON, SHORT, LONG, SUST = (
    VadKind.SPEECH_ONSET,
    VadKind.SHORT_SILENCE,
    VadKind.LONG_SILENCE,
    VadKind.SUSTAINED_SPEECH,
)


def run(pattern: str, frame: float = 0.1, settings: SpeechSettings | None = None):
    """'1' voiced frame (p=0.9), '0' unvoiced (p=0.01); returns [(kind, time)]."""
    seg = VadSegmenter(settings)
    out = []
    for ch in pattern:
        for ev in seg.update(frame, 0.9 if ch == "1" else 0.01, 0.01):
            out.append((ev.kind, round(ev.time, 6)))
    return out


def test_speech_then_silence_exact_times() -> None:
    assert run("1" * 10 + "0" * 25) == [(ON, 0.1), (SUST, 0.5), (SHORT, 1.5), (LONG, 3.0)]


def test_quiet_start_reports_silence_once_each() -> None:
    assert run("0" * 30) == [(SHORT, 0.5), (LONG, 2.0)]


def test_short_blip_is_onset_without_sustained() -> None:
    assert run("1110000000") == [(ON, 0.1), (SHORT, 0.8)]


def test_gap_shorter_than_hangover_keeps_one_segment() -> None:
    # 0.3 s voiced, 0.4 s gap (< 0.5 s hangover), 0.2 s voiced: 0.5 s voiced in total
    assert run("111" + "0000" + "11" + "0" * 5) == [(ON, 0.1), (SUST, 0.9), (SHORT, 1.4)]


def test_gap_reaching_hangover_starts_a_new_segment() -> None:
    events = run("111" + "00000" + "111111" + "00000")
    assert events == [(ON, 0.1), (SHORT, 0.8), (ON, 0.9), (SUST, 1.3), (SHORT, 1.9)]


def test_threshold_is_inclusive_and_configurable() -> None:
    seg = VadSegmenter(replace(SpeechSettings(), vad_threshold=0.7))
    assert seg.update(0.1, 0.69, 0.0, agent_recent=True) == []
    assert [e.kind for e in seg.update(0.1, 0.7, 0.0, agent_recent=True)] == [ON]
    seg = VadSegmenter(replace(SpeechSettings(), vad_onset_threshold=0.3))
    assert seg.update(0.1, 0.29, 0.0) == []
    assert [e.kind for e in seg.update(0.1, 0.3, 0.0)] == [ON]


def voicing(probs: list[float], recent: list[bool] | None = None) -> str:
    """'1' / '0' per frame: the segmenter's voiced verdict (its input level flag)."""
    seg, out = VadSegmenter(), []
    for i, p in enumerate(probs):
        seg.update(0.032, p, 0.0, agent_recent=None if recent is None else recent[i])
        assert seg.last_level is not None
        out.append("1" if seg.last_level.is_speech else "0")
    return "".join(out)


def test_hysteresis_onset_then_lower_offset_with_the_agent_silent() -> None:
    s = SpeechSettings()
    on, off = s.vad_onset_threshold, s.vad_offset_threshold
    assert off < on < s.vad_threshold
    below_on, below_off = (on + off) / 2, off / 2
    # weak frames alone never start voice; after an onset they keep it going
    assert voicing([below_on] * 3) == "000"
    assert voicing([below_on, on, below_on, below_on, off]) == "01111"
    # one frame under the offset ends it; weak frames then need a new onset
    assert voicing([on, below_on, below_off, below_on, on, below_on]) == "110011"


def test_strict_threshold_while_the_agent_may_be_heard() -> None:
    s = SpeechSettings()
    weak = (s.vad_onset_threshold + s.vad_threshold) / 2  # voiced only with the agent silent
    assert voicing([weak] * 3) == "111"
    assert voicing([weak] * 3, recent=[True] * 3) == "000"
    # no hysteresis either: after a confident frame, weak frames are not voice
    assert voicing([0.9, weak, weak], recent=[True] * 3) == "100"
    # the echo tail over, the same weak frames are a participant again
    assert voicing([0.9, weak, weak, weak], recent=[True, True, False, False]) == "1011"
    # self_voice alone (no echo-tail flag) means the agent is playing: strict
    seg = VadSegmenter()
    assert seg.update(0.032, weak, 0.0, self_voice=True) == []
    assert seg.last_level is not None and not seg.last_level.is_speech


def test_silero_frame_size_and_times_are_exact() -> None:
    frame = 512 / 16000  # 0.032 s
    events = run("1" * 16 + "0" * 63, frame=frame)
    # sustained after 16 frames = 0.512 s; short silence after 16 unvoiced frames
    assert events == [(ON, 0.032), (SUST, 0.512), (SHORT, 1.024), (LONG, 2.528)]


def test_levels_and_self_voice_flags_flow_through() -> None:
    seg = VadSegmenter()
    (ev,) = seg.update(0.1, 0.9, 0.25, self_voice=True)
    assert ev.self_voice and ev.rms == 0.25
    assert seg.last_level is not None and seg.last_level.is_speech
    assert seg.in_speech
    assert rms(np.full(100, 0.5, np.float32)) == pytest.approx(0.5)


@pytest.mark.slow
def test_silero_separates_speech_from_silence() -> None:
    from app.speech.audio import load_audio

    audio = load_audio(shared_path("data/audio_asr/jfk.flac"))
    vad = SileroVad()
    probs = [vad(audio[i : i + 512]) for i in range(0, audio.size - 511, 512)]
    assert np.mean(np.array(probs) >= 0.5) > 0.5  # JFK speaks most of the clip
    vad.reset()
    quiet = [vad(np.zeros(512, np.float32)) for _ in range(40)]
    assert max(quiet) < 0.2
    with pytest.raises(ValueError):
        vad(np.zeros(480, np.float32))
