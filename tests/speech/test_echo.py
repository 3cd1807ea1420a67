"""Self-voice suppression: reference bookkeeping, AEC3 attenuation, and a simulated room
where the agent talks (Piper) while a real recorded participant (JFK) talks too."""

from __future__ import annotations

import numpy as np
import pytest

from app.speech.echo import EchoCanceller, SelfVoiceReference
from tests.conftest import shared_path
from tests.speech import synth

R = 16000


def test_reference_is_addressed_by_capture_time() -> None:
    ref = SelfVoiceReference(tail=0.25)
    ref.on_played(np.ones(1600, np.float32), R, time=1.0)  # 1.0 .. 1.1 s
    out = ref.reference(0.95, 3200)
    assert out[:800].sum() == 0 and out[800:2400].sum() == 1600 and out[2400:].sum() == 0
    assert not ref.playing(0.0, 0.99)
    assert ref.playing(1.05, 1.06)
    assert ref.playing(1.3, 1.4)  # within the reverberation tail
    assert not ref.playing(1.36, 2.0)


def test_reference_resamples_the_player_rate() -> None:
    ref = SelfVoiceReference()
    ref.on_played(np.full(2400, 0.5, np.float32), 24000, time=0.0)  # 0.1 s at 24 kHz
    out = ref.reference(0.0, 2000)
    assert abs(int(np.count_nonzero(np.abs(out) > 0.25)) - 1600) < 40


def test_reference_forgets_old_audio() -> None:
    ref = SelfVoiceReference(keep_seconds=1.0)
    ref.on_played(np.ones(160, np.float32), R, 0.0)
    ref.on_played(np.ones(160, np.float32), R, 5.0)
    assert ref.reference(0.0, 160).sum() == 0
    assert ref.ever_played


def room(agent: np.ndarray, gain: float, delay: float, total: int, at: float) -> np.ndarray:
    """Agent audio as the mic hears it: a delayed direct path and one reflection."""
    echo = np.zeros(total, np.float32)
    for d, g in ((delay, gain), (delay + 0.035, 0.4 * gain)):
        start = int((at + d) * R)
        n = max(0, min(agent.size, total - start))
        echo[start : start + n] += g * agent[:n]
    return echo


@pytest.mark.slow
def test_aec_removes_most_of_the_echo() -> None:
    agent = synth.piper("The follow up lasted eighteen months across four sites in two countries.")
    total = agent.size + R
    echo = room(agent, 0.5, 0.04, total, 0.0)
    aec = EchoCanceller()
    ref = np.pad(agent, (0, total - agent.size))
    out = np.concatenate(
        [aec.process(echo[i : i + 512], ref[i : i + 512]) for i in range(0, total - 511, 512)]
    )
    warm = int(1.5 * R)  # AEC3 converges within the first second or so
    before = np.sqrt(np.mean(echo[warm : out.size] ** 2))
    after = np.sqrt(np.mean(out[warm:] ** 2))
    assert 20 * np.log10(before / max(after, 1e-9)) > 20.0


AGENT_TEXT = (
    "The document says the sample size was forty two participants, on page three of the "
    "methods section. The follow up lasted eighteen months."
)
AGENT_WORDS = {
    "document",
    "sample",
    "size",
    "participants",
    "page",
    "methods",
    "section",
    "follow",
    "lasted",
    "months",
    "42",
    "eighteen",
    "18",
}


def talked_over(gain: float, settings=None) -> tuple[str, list]:
    """The agent says AGENT_TEXT from 0.5 s (its echo at ``gain``) while JFK speaks from
    3 s; the worker's turns' text and its VAD events."""
    from app.events import Turn, VadEvent
    from app.speech.audio import ArraySource, load_audio
    from app.speech.worker import SpeechWorker

    agent = synth.piper(AGENT_TEXT)
    person = load_audio(shared_path("data/audio_asr/jfk.flac"))
    mic = room(agent, gain, 0.04, 15 * R, AGENT_AT)
    mic[int(PERSON_AT * R) : int(PERSON_AT * R) + person.size] += person
    mic += np.random.default_rng(0).standard_normal(mic.size).astype(np.float32) * 0.001
    reference = SelfVoiceReference()
    for i in range(0, agent.size, 480):  # what the player reports, 30 ms at a time
        reference.on_played(agent[i : i + 480], R, AGENT_AT + i / R)
    worker = SpeechWorker(ArraySource(mic), settings, reference=reference, clock_origin=0.0)
    turns: list[Turn] = []
    vad_events: list[VadEvent] = []
    worker.subscribe(lambda e: turns.append(e) if isinstance(e, Turn) else None)
    worker.subscribe(lambda e: vad_events.append(e) if isinstance(e, VadEvent) else None)
    worker.run()
    return " ".join(t.text for t in turns), vad_events


AGENT_AT, PERSON_AT = 0.5, 3.0


@pytest.mark.slow
def test_agent_is_not_transcribed_while_participant_is() -> None:
    from app.events import VadKind
    from app.speech.asr import normalize
    from app.speech.vad import SileroVad, VadSegmenter
    from tests.speech.test_asr import JFK, wer

    agent = synth.piper(AGENT_TEXT)
    # Control: without the reference the agent alone already opens speech.
    mic = room(agent, 0.5, 0.04, int(PERSON_AT * R), AGENT_AT)
    seg, vad = VadSegmenter(), SileroVad()
    raw_onsets = [
        e.time
        for i in range(0, mic.size - 511, 512)
        for e in seg.update(0.032, vad(mic[i : i + 512]), 0.0)
        if e.kind is VadKind.SPEECH_ONSET
    ]
    assert raw_onsets, "the simulated echo is too weak to test anything"

    heard, vad_events = talked_over(0.5)
    tokens = {normalize(w) for w in heard.split()}
    assert not tokens & AGENT_WORDS, heard
    assert wer(JFK, heard) <= 0.35, heard
    # nothing opened while only the agent was talking: no false barge-in
    onsets = [e for e in vad_events if e.kind is VadKind.SPEECH_ONSET]
    assert all(e.time >= PERSON_AT for e in onsets), onsets
    # events captured while the agent played are marked as such, later ones are not
    agent_end = AGENT_AT + agent.size / R
    assert all(e.self_voice for e in vad_events if AGENT_AT + 0.05 < e.time < agent_end)
    assert not any(e.self_voice for e in vad_events if e.time > agent_end + 0.5)


@pytest.mark.slow
def test_words_said_over_a_loud_agent_reach_the_turn_through_the_residual() -> None:
    from dataclasses import replace

    from app.settings import SpeechSettings
    from app.speech.asr import normalize
    from tests.speech.test_asr import JFK, wer

    residual, _ = talked_over(1.0)
    suppressed, _ = talked_over(1.0, replace(SpeechSettings(), overlap_turn_residual=False))
    assert not {normalize(w) for w in residual.split()} & AGENT_WORDS, residual
    assert wer(JFK, residual) <= 0.1, residual
    assert wer(JFK, residual) < wer(JFK, suppressed), (residual, suppressed)


class JudgedFrames:
    """Silero, keeping every frame it was asked to judge."""

    def __init__(self) -> None:
        from app.speech.vad import SileroVad

        self.vad = SileroVad()
        self.frames: list[np.ndarray] = []

    def __call__(self, frame: np.ndarray) -> float:
        self.frames.append(frame.copy())
        return self.vad(frame)


@pytest.mark.slow
@pytest.mark.parametrize("bypass", [True, False])
def test_raw_microphone_is_judged_once_the_echo_tail_is_over(bypass: bool) -> None:
    from dataclasses import replace

    from app.settings import SpeechSettings
    from app.speech.audio import ArraySource
    from app.speech.worker import SpeechWorker

    agent = synth.piper("The follow up lasted eighteen months.")
    agent_at = 0.5
    agent_end = agent_at + agent.size / R
    total = int((agent_end + 3.0) * R)
    mic = room(agent, 0.5, 0.04, total, agent_at)
    mic += np.random.default_rng(1).standard_normal(total).astype(np.float32) * 0.002
    reference = SelfVoiceReference()
    for i in range(0, agent.size, 480):
        reference.on_played(agent[i : i + 480], R, agent_at + i / R)
    judged = JudgedFrames()
    settings = replace(SpeechSettings(), echo_bypass_idle=bypass)
    worker = SpeechWorker(ArraySource(mic), settings, vad=judged, reference=reference,
                          clock_origin=0.0)  # fmt: skip
    worker.run()

    n = settings.frame_samples
    whole = judged.frames[: total // n]  # the source pads the last one
    raw = [np.array_equal(f, mic[i * n : (i + 1) * n]) for i, f in enumerate(whole)]
    times = np.arange(len(raw)) * n / R
    playing = (times > agent_at + 0.5) & (times < agent_end - 0.1)
    after_tail = times > agent_end + reference.tail + 0.5 + 0.05
    assert playing.any() and after_tail.any()
    assert not any(np.array(raw)[playing])  # the cancelled signal while the agent talks
    assert all(np.array(raw)[after_tail]) is bypass
