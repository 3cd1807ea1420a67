"""Benchmark conversations spoken aloud: one 16 kHz recording per conversation.

Each participant gets a distinct installed voice (Piper, Kokoro), never the one the agent
speaks with. Turns sit at the script's times where it gives them (the speaking rate is
fitted to the scripted span, and what does not fit pushes later turns back), with
natural gaps otherwise (or, asked for, gaps drawn from a real meeting's silences), a few
short overlaps at speaker changes, and a listener's short backchannel inside a few long
turns. Direct questions to the agent can be inserted between turns, followed by the
pause a room leaves for the answer. Room noise and reverberation are optional.
Renderings are cached by a hash of everything they are made from.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from app.eval.dataset import ScriptTurn
from app.language.talk import is_backchannel
from app.settings import VoiceSettings
from app.speech.audio import TARGET_RATE, resample

RENDER_VERSION = 1
WAKE_PHRASE = "Hey Jarvis, "
BACKCHANNELS = ("Mm-hm.", "Yeah.", "Right.", "Okay.")


@dataclass(frozen=True)
class RoomSettings:
    """How the recording is laid out and how the room sounds."""

    gap: tuple[float, float] = (0.25, 0.9)  # s of silence between turns without times
    # s: silences to draw every gap between turns from (a real meeting's, live/pauses.py),
    # the script's times then setting only each turn's speaking rate. Empty: the script's
    # times where given, ``gap`` otherwise.
    pauses: tuple[float, ...] = ()
    min_gap: float = 0.15  # s: the least silence kept between two turns that do not overlap
    overlap_share: float = 0.08  # share of speaker changes that start over the last words
    overlap: tuple[float, float] = (0.2, 0.5)  # s of such an overlap
    backchannel_share: float = 0.15  # share of long turns with a listener's backchannel
    long_turn: float = 5.0  # s: a turn this long may carry a backchannel
    answer_wait: float = 12.0  # s the room waits after a question to the agent
    fit: tuple[float, float] = (0.8, 1.25)  # speaking-rate factors used to fit a span
    level_dbfs: float = -23.0  # RMS of each utterance, ± 3 dB per speaker
    noise_snr_db: float | None = None  # room noise below speech level; None: none
    reverb_rt60: float | None = None  # s; None: dry
    lead_in: float = 0.6  # s of silence before the first turn
    tail: float = 1.5  # s of silence after the last one
    seed: int = 0


@dataclass(frozen=True)
class Question:
    """A direct question to the agent, spoken after scripted turn ``after``."""

    after: int
    text: str  # without the wake phrase
    qa_id: str = ""


@dataclass(frozen=True)
class Line:
    """One stretch of speech in the recording (times in seconds of the recording)."""

    speaker: str
    text: str  # as spoken, wake phrase included
    start: float
    end: float
    turn: int | None = None  # the scripted turn; None for inserted speech
    direct: bool = False
    qa_id: str = ""  # the QA item an inserted question asks


@dataclass(frozen=True)
class Rendering:
    audio: Path
    lines: tuple[Line, ...]
    voices: dict[str, str]  # speaker -> voice

    @property
    def duration(self) -> float:
        return max((line.end for line in self.lines), default=0.0)

    @property
    def scripted(self) -> list[Line]:
        return [line for line in self.lines if line.turn is not None]

    @property
    def questions(self) -> list[Line]:
        return [line for line in self.lines if line.qa_id]

    def to_json(self) -> dict[str, Any]:
        return {"audio": self.audio.name, "voices": self.voices,
                "lines": [asdict(line) for line in self.lines]}  # fmt: skip

    @classmethod
    def load(cls, path: Path) -> Rendering:
        data = json.loads(path.read_text(encoding="utf-8"))
        lines = tuple(Line(**line) for line in data["lines"])
        return cls(path.parent / data["audio"], lines, dict(data["voices"]))


class Voices:
    """The installed Piper and Kokoro voices, less the one the agent speaks with,
    ordered so that neighbouring participants differ in engine and in register."""

    def __init__(self, agent: VoiceSettings | None = None) -> None:
        self.agent = agent or VoiceSettings()

    @cached_property
    def _kokoro(self) -> Any:
        from kokoro_onnx import Kokoro

        from app.models import resolve_file

        return Kokoro(str(resolve_file("kokoro", "model")), str(resolve_file("kokoro", "voices")))

    @cached_property
    def _piper(self) -> Any:
        from piper import PiperVoice

        from app.models import resolve_file
        from app.voice.engines import PIPER_MODEL

        return PiperVoice.load(resolve_file(PIPER_MODEL, "model"),
                               resolve_file(PIPER_MODEL, "config"))  # fmt: skip

    @cached_property
    def _piper_name(self) -> str:
        """Named as the agent's Piper engine names it, so the agent's own is left out."""
        from app.models import resolve_file
        from app.voice.engines import PIPER_MODEL, piper_voice_name

        return f"piper:{piper_voice_name(resolve_file(PIPER_MODEL, 'model'))}"

    @cached_property
    def agent_voice(self) -> str:
        """The voice the agent speaks with: the engine it opens, as it opens it."""
        from app.voice.engines import open_engine

        engine = open_engine(self.agent)
        return f"{engine.name}:{getattr(engine, 'voice', 'joe')}"

    @cached_property
    def names(self) -> list[str]:
        kokoro = [f"kokoro:{v}" for v in self._kokoro.voices.keys()]
        female = [v for v in kokoro if v.split(":")[1][1:2] == "f"]
        male = [v for v in kokoro if v.split(":")[1][1:2] != "f"]
        ordered = [self._piper_name, *_interleave(female, male)]  # joe is a male voice
        ordered = [v for v in ordered if v != self.agent_voice]
        if not ordered:
            raise RuntimeError("no installed voice is left for the participants")
        return ordered

    def cast(self, speakers: Sequence[str]) -> dict[str, str]:
        return {s: self.names[i % len(self.names)] for i, s in enumerate(speakers)}

    def say(self, voice: str, text: str, speed: float = 1.0) -> np.ndarray:
        """16 kHz float32 speech."""
        engine, name = voice.split(":", 1)
        if engine == "piper":
            from piper import SynthesisConfig

            config = SynthesisConfig(length_scale=1.0 / speed)
            chunks = list(self._piper.synthesize(text, config))
            audio = np.concatenate([c.audio_float_array for c in chunks]).astype(np.float32)
            return resample(audio, int(chunks[0].sample_rate))
        samples, rate = self._kokoro.create(text, voice=name, speed=speed, lang="en-us")
        return resample(np.asarray(samples, dtype=np.float32), int(rate))


def _interleave(a: list[str], b: list[str]) -> list[str]:
    out: list[str] = []
    for i in range(max(len(a), len(b))):
        out += [x[i] for x in (a, b) if i < len(x)]
    return out


def spoken_text(turn: ScriptTurn) -> str:
    return WAKE_PHRASE + turn.text if turn.direct else turn.text


def render(
    turns: Sequence[ScriptTurn],
    questions: Sequence[Question],
    voices: Voices,
    cache: Path,
    room: RoomSettings | None = None,
) -> Rendering:
    """The recording of ``turns`` with ``questions`` inserted, from the cache if made before."""
    room = room or RoomSettings()
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    cast = voices.cast(speakers)
    key = _key(turns, questions, cast, room)
    meta = cache / f"{key}.json"
    if meta.is_file() and (cache / f"{key}.flac").is_file():
        return Rendering.load(meta)
    rng = random.Random(f"{room.seed}:{key}")
    clips, lines = _lay_out(turns, questions, voices, cast, room, rng)
    audio = _mix(clips, lines, room, rng)
    cache.mkdir(parents=True, exist_ok=True)
    import soundfile as sf

    sf.write(str(cache / f"{key}.flac"), audio, TARGET_RATE, subtype="PCM_16")
    ordered = tuple(sorted(lines, key=lambda line: line.start))
    rendering = Rendering(cache / f"{key}.flac", ordered, cast)
    meta.write_text(json.dumps(rendering.to_json(), indent=1) + "\n", encoding="utf-8")
    return rendering


def _key(turns: Sequence[ScriptTurn], questions: Sequence[Question], cast: dict[str, str],
         room: RoomSettings) -> str:  # fmt: skip
    made_of = {"version": RENDER_VERSION, "turns": [asdict(t) for t in turns],
               "questions": [asdict(q) for q in questions], "cast": cast, "room": asdict(room)}
    text = json.dumps(made_of, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _fitted(voices: Voices, voice: str, text: str, span: float | None,
            room: RoomSettings) -> np.ndarray:  # fmt: skip
    """Speech at its natural rate, or re-spoken faster or slower to fill ``span``."""
    audio = voices.say(voice, text)
    if span is None or span <= 0:
        return audio
    ratio = audio.size / TARGET_RATE / span
    if abs(ratio - 1.0) < 0.15:  # within a speaker's natural variation of rate
        return audio
    return voices.say(voice, text, min(max(ratio, room.fit[0]), room.fit[1]))


def _lay_out(
    turns: Sequence[ScriptTurn],
    questions: Sequence[Question],
    voices: Voices,
    cast: dict[str, str],
    room: RoomSettings,
    rng: random.Random,
) -> tuple[list[np.ndarray], list[Line]]:
    clips: list[np.ndarray] = []
    lines: list[Line] = []
    prev_end, drift = room.lead_in, 0.0
    prev: ScriptTurn | None = None
    asked = {q.after: q for q in questions}
    for turn in turns:
        span = turn.end - turn.start if turn.start is not None and turn.end is not None else None
        clip = _fitted(voices, cast[turn.speaker], spoken_text(turn), span, room)
        dur = clip.size / TARGET_RATE
        at = None if room.pauses else turn.start  # where the script places it
        if at is not None:
            desired = room.lead_in + at + drift
        else:
            desired = prev_end + _gap(room, rng)
        overlap = _overlap(turn, prev, room, rng) if lines else 0.0
        start = prev_end - overlap if overlap else max(desired, prev_end + room.min_gap)
        if at is not None:
            drift = start - room.lead_in - at
        line = Line(turn.speaker, spoken_text(turn), start, start + dur, turn.turn, turn.direct)
        clips.append(clip)
        lines.append(line)
        prev_end, prev = max(prev_end, line.end), turn
        if dur >= room.long_turn and rng.random() < room.backchannel_share:
            _backchannel(line, cast, voices, rng, clips, lines)
        question = asked.get(turn.turn)
        if question is not None:
            end = _ask(question, turn, turns, cast, voices, prev_end + _gap(room, rng),
                       clips, lines)  # fmt: skip
            drift += end + room.answer_wait - prev_end
            prev_end = end + room.answer_wait
    return clips, lines


def _gap(room: RoomSettings, rng: random.Random) -> float:
    """Seconds of silence before a turn that the script does not place."""
    return rng.choice(room.pauses) if room.pauses else rng.uniform(*room.gap)


def _overlap(turn: ScriptTurn, prev: ScriptTurn | None, room: RoomSettings,
             rng: random.Random) -> float:  # fmt: skip
    """Seconds this turn starts before the last one ends (0: it waits for silence)."""
    if prev is None or prev.speaker == turn.speaker:
        return 0.0
    if prev.end is not None and turn.start is not None and turn.start < prev.end:
        return min(prev.end - turn.start, 1.0)  # the script overlaps them itself
    if is_backchannel(turn.text) or rng.random() < room.overlap_share:
        return rng.uniform(*room.overlap)
    return 0.0


def _backchannel(line: Line, cast: dict[str, str], voices: Voices, rng: random.Random,
                 clips: list[np.ndarray], lines: list[Line]) -> None:  # fmt: skip
    listeners = [s for s in cast if s != line.speaker]
    if not listeners:
        return
    listener = rng.choice(listeners)
    text = rng.choice(BACKCHANNELS)
    clip = voices.say(cast[listener], text)
    start = line.start + rng.uniform(0.4, 0.7) * (line.end - line.start)
    clips.append(clip)
    lines.append(Line(listener, text, start, start + clip.size / TARGET_RATE))


def _ask(question: Question, turn: ScriptTurn, turns: Sequence[ScriptTurn],
         cast: dict[str, str], voices: Voices, start: float,
         clips: list[np.ndarray], lines: list[Line]) -> float:  # fmt: skip
    """Insert the question, asked by the participant who speaks next; returns its end."""
    later = [t for t in turns if t.turn > turn.turn]
    speaker = later[0].speaker if later else turn.speaker
    text = WAKE_PHRASE + question.text
    clip = voices.say(cast[speaker], text)
    end = start + clip.size / TARGET_RATE
    clips.append(clip)
    lines.append(Line(speaker, text, start, end, None, True, question.qa_id))
    return end


def _mix(clips: list[np.ndarray], lines: list[Line], room: RoomSettings,
         rng: random.Random) -> np.ndarray:  # fmt: skip
    total = int((max(line.end for line in lines) + room.tail) * TARGET_RATE) + 1
    out = np.zeros(total, dtype=np.float32)
    speakers = dict.fromkeys(line.speaker for line in lines)
    gains = {s: 10 ** (rng.uniform(-3.0, 3.0) / 20) for s in speakers}
    target = 10 ** (room.level_dbfs / 20)
    for clip, line in zip(clips, lines, strict=True):
        rms = float(np.sqrt(np.mean(clip**2))) or 1.0
        a = int(line.start * TARGET_RATE)
        out[a : a + clip.size] += clip * (target * gains[line.speaker] / rms)
    if room.reverb_rt60:
        out = _reverberate(out, room.reverb_rt60, rng)
    if room.noise_snr_db is not None:
        out += _room_noise(total, target * 10 ** (-room.noise_snr_db / 20), rng)
    peak = float(np.max(np.abs(out))) or 1.0
    return (out * min(1.0, 0.95 / peak)).astype(np.float32)


def _reverberate(audio: np.ndarray, rt60: float, rng: random.Random) -> np.ndarray:
    """A synthetic room: the direct sound plus exponentially decaying diffuse reflections."""
    from scipy.signal import fftconvolve

    n = int(rt60 * TARGET_RATE)
    t = np.arange(n) / TARGET_RATE
    noise = np.random.default_rng(rng.randrange(2**32)).standard_normal(n)
    response = 0.3 * noise * np.exp(-6.9 * t / rt60) / np.sqrt(TARGET_RATE * rt60 / 6.9)
    response[0] = 1.0
    return np.asarray(fftconvolve(audio, response)[: audio.size], dtype=np.float32)


def _room_noise(n: int, rms: float, rng: random.Random) -> np.ndarray:
    """Steady low-frequency-heavy noise (ventilation, traffic) at ``rms``."""
    from scipy.signal import lfilter

    white = np.random.default_rng(rng.randrange(2**32)).standard_normal(n)
    brown = lfilter([1.0], [1.0, -0.98], white)
    brown -= brown.mean()
    return (brown * (rms / (float(np.std(brown)) or 1.0))).astype(np.float32)
