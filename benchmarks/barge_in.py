"""Barge-in benchmark: does the agent stop when a participant talks over it, and only then?

A real synthesized answer plays through the player into a simulated room: the agent's
audio reaches the mic with delay and gain (two reflections), a recorded participant
starts at a random offset, and the mic goes through the speech path of the app
(AEC3 against the played blocks, Silero VAD, the VAD segmenter; while the agent
plays, the double-talk detector's near-end voice instead of the AEC3 output; the
overlap listener's partial transcripts for the backchannel filter) into the floor FSM,
whose Stop goes back to the player. Everything runs in lockstep on audio time; a decode
of the overlapping speech holds the mic path for the CPU time it took, as it holds the
speech worker's thread in the app, so the latencies include it.

Every clip is labelled once by the app's Whisper model on the clean clip (cached next to
the results): a backchannel (SPEC §5, app.language.talk.is_backchannel), no words (a hum, a laugh,
a breath), or other words. Trials: full interruptions (RTTM segments of >= 2.5 s, up to
6 s of them, with words, in which the VAD hears >= 1 s of speech with the agent silent;
the others are left out and listed in the JSON),
short interjections (0.2-0.8 s segments, plus long ones that only say a backchannel,
every one used in turn; the short ones with words, "no", "hello", are reported apart:
short, but not backchannels), and the agent's own echo alone. Onset is where the VAD
first hears the clean clip.

The recorded backchannels are few, so synthesized ones join them in a column of their own
(never counted as recorded speech): the SPEC §5 words ("yeah", "mm-hmm", "oh okay", ...)
said by the app's offline voices (Piper, and Kokoro voices other than the agent's) at
several speeds, trimmed to their voice, 0.3-1.0 s, levelled like the recorded clips and
cached as WAV next to the labels. They are labelled by the same Whisper pass: one that
Whisper does not hear as a backchannel is reported in its own column, not dropped.

    python benchmarks/barge_in.py [--audio DIR] [--trials 60] [--engine kokoro]

Prints a table and writes benchmarks/results/barge_in.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.events import (  # noqa: E402
    InputLevel,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
)
from app.floor import FloorFSM, Stop  # noqa: E402
from app.floor.outputs import Command, Play  # noqa: E402
from app.language.talk import is_backchannel  # noqa: E402
from app.settings import FloorSettings, SpeechSettings, VoiceSettings  # noqa: E402
from app.voice import CachingEngine, MemorySink, Player, open_engine  # noqa: E402
from tests.speech.scoring import read_rttm, rttm_recordings  # noqa: E402

RATE = 16000
FRAME = 512
# Levels at the mic (RMS over active speech): a participant at the table, the agent's
# loudspeaker a little quieter (direct path plus one reflection), a quiet room.
PARTICIPANT_RMS = 0.03
AGENT_RMS = 0.1
ECHO = ((0.040, 0.2), (0.090, 0.08))  # (delay s, gain) of the loudspeaker in the room
NOISE = 0.001
ANSWER = (
    "The study enrolled one hundred and twenty patients across four sites. "
    "Each of them was followed for twelve weeks after the first dose. "
    "The main result, a drop in blood pressure, is reported on page six, in table two."
)
DEFAULT_AUDIO = Path(__file__).resolve().parents[2] / "shared" / "data" / "audio_diarization"
MIN_INTERRUPT_VOICED = 1.0  # seconds the VAD hears in a full interruption, agent silent
MAX_CLIP = 6.0  # seconds of a long segment used (an interruption goes on)
SHORT_KINDS = ("backchannel", "no_words", "words")
SYNTH_KINDS = ("synth_backchannel", "synth_other")  # synthesized: heard as one, or not
SYNTH_WORDS = (
    "yeah", "okay", "right", "mm-hmm", "uh-huh", "sure", "oh", "wow", "yep", "cool",
    "yeah yeah", "oh okay",
)
# (engine, voice, speed): the agent speaks with the default Kokoro voice, so not that one.
SYNTH_VOICES = (
    ("piper", "", 0.8), ("piper", "", 1.0), ("piper", "", 1.25),
    ("kokoro", "jm_kumo", 1.0), ("kokoro", "jf_nezumi", 1.0), ("kokoro", "jf_gongitsune", 1.2),
)
SYNTH_SECONDS = (0.3, 1.0)


# --- recorded participants ------------------------------------------------------------


@dataclass(frozen=True)
class Clip:
    name: str
    samples: np.ndarray  # 16 kHz, from the RTTM segment start
    onset: float = 0.0  # where the VAD first hears it (clean clip, agent silent)
    voiced: float = 0.0  # seconds the VAD hears in it
    label: str = ""  # short clips: backchannel / no_words / words (synth_*: synthesized)
    words: str = ""  # what Whisper heard in the clean clip
    synthetic: bool = False  # said by a TTS voice, not recorded


def load_clips(folder: Path) -> tuple[list[Clip], list[Clip]]:
    """Long (>= 2.5 s) and short (0.2-0.8 s) annotated speech segments from RTTM+WAV."""
    import soundfile as sf

    long_clips, short_clips = [], []
    for rttm in sorted(folder.rglob("*.rttm")):
        for uri in rttm_recordings(rttm):
            wav = rttm.parent / f"{uri}.wav"
            if not wav.exists():
                continue
            audio, rate = sf.read(str(wav), dtype="float32", always_2d=True)
            mono = audio.mean(axis=1)
            mono = resample_poly(mono, RATE, rate) if rate != RATE else mono
            for _, start, end in read_rttm(rttm, uri):
                dur = end - start
                if not (dur >= 2.5 or 0.2 <= dur <= 0.8):
                    continue
                seg = mono[int(start * RATE) : int((start + min(dur, MAX_CLIP)) * RATE)]
                seg = seg * (PARTICIPANT_RMS / max(1e-6, _active_rms(seg)))
                clip = Clip(f"{wav.parent.name}/{wav.name}@{start:.2f}", seg.astype(np.float32))
                (long_clips if dur >= 2.5 else short_clips).append(_heard(clip))
    return long_clips, short_clips


def _heard(clip: Clip) -> Clip:
    """Where and how much the app's VAD hears speech in the clean clip."""
    from app.speech.vad import SileroVad

    vad = SileroVad()
    x = clip.samples
    voiced = [vad(x[i : i + FRAME]) >= 0.5 for i in range(0, x.size - FRAME + 1, FRAME)]
    first = next((i for i, v in enumerate(voiced) if v), None)
    onset = 0.0 if first is None else first * FRAME / RATE
    return replace(clip, onset=onset, voiced=sum(voiced) * FRAME / RATE)


def label_clips(clips: list[Clip], cache: Path) -> list[Clip]:
    """Label each clip by what the app's Whisper model hears in it (cached)."""
    known = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [c for c in clips if c.name not in known]
    if missing:
        from app.speech.asr import WhisperTranscriber

        asr = WhisperTranscriber(threads=1)
        for c in missing:
            words = asr.transcribe(c.samples, 0.0, "", c.samples.size / RATE)
            known[c.name] = " ".join(w.text for w in words).strip()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=1, sort_keys=True))
    out = []
    for c in clips:
        words = known[c.name]
        label = "backchannel" if is_backchannel(words) else "words" if words else "no_words"
        if c.synthetic:
            label = "synth_backchannel" if label == "backchannel" else "synth_other"
        out.append(replace(c, label=label, words=words))
    return out


def synth_clips(cache: Path) -> tuple[list[Clip], list[str]]:
    """Backchannels said by the app's offline voices, trimmed, levelled, cached as WAV.
    Returns the clips of 0.3-1.0 s and the names of the ones left out (too long/short)."""
    import soundfile as sf

    cache.mkdir(parents=True, exist_ok=True)
    engines: dict[tuple[str, str, float], object] = {}
    clips, left_out = [], []
    for engine, voice, speed in SYNTH_VOICES:
        tag = f"{engine}{'-' + voice if voice else ''}-x{speed:g}"
        for word in SYNTH_WORDS:
            name = f"synthetic/{tag}/{word.replace(' ', '_')}"
            wav = cache / f"{tag}_{word.replace(' ', '_')}.wav"
            if not wav.exists():
                key = (engine, voice, speed)
                if key not in engines:
                    settings = VoiceSettings(engine=engine, voice=voice or "af_heart", speed=speed)
                    engines[key] = open_engine(settings)
                tts = engines[key]
                parts = [a for _, a, rate in tts.synthesize_sentences(word.capitalize() + ".")]
                audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
                if tts.sample_rate != RATE:
                    audio = resample_poly(audio, RATE, tts.sample_rate)
                sf.write(str(wav), _trim(np.asarray(audio, np.float32)), RATE, subtype="FLOAT")
            x, _ = sf.read(str(wav), dtype="float32")
            dur = x.size / RATE
            if not SYNTH_SECONDS[0] <= dur <= SYNTH_SECONDS[1]:
                left_out.append(f"{name} ({dur:.2f} s)")
                continue
            x = x * (PARTICIPANT_RMS / max(1e-6, _active_rms(x)))
            clips.append(_heard(Clip(name, x.astype(np.float32), synthetic=True)))
    return clips, left_out


def _trim(x: np.ndarray, pad: float = 0.03) -> np.ndarray:
    """The voiced part of a synthesized word: 10 ms windows within 35 dB of the loudest."""
    w = x[: x.size // 160 * 160].reshape(-1, 160)
    e = np.sqrt(np.mean(w**2, axis=1))
    on = np.flatnonzero(e >= e.max() * 10 ** (-35 / 20)) if e.size else []
    if len(on) == 0:
        return x
    a = max(0, on[0] * 160 - int(pad * RATE))
    b = min(x.size, (on[-1] + 1) * 160 + int(pad * RATE))
    return x[a:b]


def _active_rms(x: np.ndarray) -> float:
    """RMS over the louder half of 20 ms windows (pauses do not dilute it)."""
    w = x[: x.size // 320 * 320].reshape(-1, 320)
    e = np.sqrt(np.mean(w**2, axis=1))
    return float(np.sqrt(np.mean(np.square(e[e >= np.median(e)])))) if e.size else 0.0


# --- the room ---------------------------------------------------------------------------


class RoomSink(MemorySink):
    """The loudspeaker: each accepted block first lets the room hear what was played before."""

    def __init__(self, trial: Trial) -> None:
        super().__init__()
        self.trial = trial
        self.t = 0.0

    def write(self, block: np.ndarray) -> float | None:
        at = self.t
        self.trial.hear_until(at)
        self.t += len(block) / self.sample_rate
        return at


class Trial:
    def __init__(self, room: Room, kind: str, clip: Clip | None, offset: float) -> None:
        from app.speech.echo import SelfVoiceReference
        from app.speech.overlap import OverlapListener
        from app.speech.vad import VadSegmenter

        self.room, self.kind, self.clip, self.offset = room, kind, clip, offset
        self.reference = SelfVoiceReference()
        self.segmenter = VadSegmenter(room.speech)
        self.fsm = FloorFSM(room.floor)
        self.listener = OverlapListener(room.timed_decode) if room.decode else None
        self.sink = RoomSink(self)
        self.done = threading.Event()
        self.player = Player(room.engine, self.sink, tap=self.reference, on_receipt=self._receipt)
        self.mic_samples = 0
        self.busy_until = 0.0  # the mic path is decoding until then (audio clock)
        self.stop_at: float | None = None  # the player is told to stop once audio reaches it
        self.decision: float | None = None
        self.stopped: float | None = None
        self.heard: list[str] = []
        self.reason = ""  # words (not a backchannel) or speech that went on

    def run(self) -> dict:
        iv = Intervention("answer", InterventionKind.PROACTIVE, ANSWER, topic="trial")
        self.fsm.on_intervention(iv, -3.0)
        self.fsm.on_level(InputLevel(-3.0, 0.0, False), -3.0)
        plays = [c for c in self.fsm.tick(0.0) if isinstance(c, Play)]
        assert plays, "the floor did not release the answer"
        self.player.play(iv.id, plays[0].text)
        self.done.wait(120)
        self.player.close()
        onset = self.offset + self.clip.onset if self.clip is not None else None
        return {
            "kind": self.kind,
            "label": self.clip.label if self.clip else "",
            "clip": self.clip.name if self.clip else None,
            "offset": round(self.offset, 3),
            "yielded": self.decision is not None,
            "heard": self.heard,
            "took_floor_on": self.reason,
            "decision_to_stopped_ms": _ms(self.stopped, self.decision),
            "onset_to_stopped_ms": _ms(self.stopped, onset),
        }

    def _receipt(self, r: PlaybackReceipt) -> None:
        self.fsm.on_receipt(r, self.sink.t)
        if r.status != "started":
            if r.status == "stopped":
                self.stopped = self.sink.t
            self.done.set()

    def hear_until(self, t: float) -> None:
        """Run the mic path over every whole frame that ends by ``t``."""
        if self.stop_at is not None and self.stop_at <= t + 1e-9:
            self.stop_at = None
            self.player.stop()
        while (self.mic_samples + FRAME) / RATE <= t + 1e-9 and self.decision is None:
            self._frame(self.mic_samples)
            self.mic_samples += FRAME

    def _frame(self, n0: int) -> None:
        from app.speech.vad import rms

        at, dur = n0 / RATE, FRAME / RATE
        mic = self.room.mic(n0, self.sink.t, self.clip, self.offset)
        self_voice = self.reference.playing(at, at + dur)
        ref = self.reference.reference(at, FRAME)
        clean = self.room.aec.process(mic, ref)
        prob = self.room.vad(clean)
        heard = clean
        if self_voice and self.room.near_end is not None:
            prob = self.room.near_end(mic, ref, dur)  # the worker's double-talk path
            heard = self.room.near_end.detector.residual
        # A decode holds the worker's thread: later frames are handled when it is done.
        now = max(at + dur, self.busy_until)
        events = self.segmenter.update(dur, prob, rms(clean), self_voice)
        for event in events:
            self._apply(self.fsm.on_vad(event, now), now)
        if self.segmenter.last_level is not None:
            self._apply(self.fsm.on_level(self.segmenter.last_level, now), now)
        if self.listener is not None:
            recent = self_voice or self.reference.playing(at - 0.5, at + dur)
            voiced = prob >= self.room.speech.vad_threshold
            for transcript in self.listener.update(heard, at + dur, events, recent, voiced):
                self.busy_until = now = now + self.room.last_decode_seconds
                self.heard.append(transcript.text)
                self._apply(self.fsm.on_overlap(transcript, now), now)

    def _apply(self, commands: list[Command], now: float) -> None:
        if self.decision is None and any(isinstance(c, Stop) for c in commands):
            self.decision = now
            words = self.heard[-1] if self.heard else ""
            filtered = self.room.floor.barge_in_backchannel_filter
            self.reason = (
                "sustained" if not filtered
                else "words" if words.strip() and not is_backchannel(words)
                else "went_on"
            )
            if now <= self.sink.t + 1e-9:
                self.player.stop()
            else:
                self.stop_at = now


@dataclass
class Room:
    engine: CachingEngine
    agent16: np.ndarray  # what the player plays, at 16 kHz
    speech: SpeechSettings
    floor: FloorSettings
    seed: int
    double_talk: bool = True
    decode: object = None  # the overlap decoder (None: no backchannel filter)

    def __post_init__(self) -> None:
        from app.speech.doubletalk import NearEndVoice
        from app.speech.echo import EchoCanceller
        from app.speech.vad import SileroVad

        self.aec = EchoCanceller()
        self.vad = SileroVad()
        self.near_end = NearEndVoice() if self.double_talk else None
        self.rng = np.random.default_rng(self.seed)
        self.last_decode_seconds = 0.0
        self.decode_seconds: list[float] = []

    def timed_decode(self, audio: np.ndarray) -> str:
        """The decoder, timed in CPU seconds (what it takes on an idle core)."""
        assert callable(self.decode)
        cpu = time.process_time()
        text = self.decode(audio)
        self.last_decode_seconds = time.process_time() - cpu
        self.decode_seconds.append(self.last_decode_seconds)
        return str(text)

    def mic(self, n0: int, played: float, clip: Clip | None, offset: float) -> np.ndarray:
        n = np.arange(n0, n0 + FRAME)
        out = self.rng.normal(0.0, NOISE, FRAME).astype(np.float32)
        played_n = int(played * RATE)
        for delay, gain in ECHO:
            src = n - int(delay * RATE)
            ok = (src >= 0) & (src < min(played_n, self.agent16.size))
            out[ok] += gain * self.agent16[src[ok]]
        if clip is not None:
            src = n - int(offset * RATE)
            ok = (src >= 0) & (src < clip.samples.size)
            out[ok] += clip.samples[src[ok]]
        return out


def _ms(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round((a - b) * 1000.0, 1)


# --- runs and the table -----------------------------------------------------------------


def render(engine: CachingEngine) -> np.ndarray:
    """Play the answer once into memory: primes the sentence cache, gives the room signal."""
    sink, done = MemorySink(), threading.Event()
    player = Player(engine, sink, on_receipt=lambda r: r.status == "finished" and done.set())
    player.play("warm-up", ANSWER)
    done.wait(600)
    player.close()
    audio = resample_poly(sink.audio(), RATE, sink.sample_rate)
    return (audio * (AGENT_RMS / max(1e-6, _active_rms(audio)))).astype(np.float32)


def plan(
    trials: int,
    long_clips: list[Clip],
    short_clips: list[Clip],
    length: float,
    seed: int,
    synth: list[Clip] | None = None,
    synth_reps: int = 1,
):
    """Interruptions drawn at random; interjections split evenly between the labels, each
    label's clips in turn; echo-only trials; then every synthesized clip ``synth_reps``
    times (on top of ``trials``). The participant's speech (not the segment start) begins
    between 1 s after the start and 3.5 s before the end of the answer."""
    rng = random.Random(seed)
    n_echo = max(5, trials // 6)
    n_short = max(len(short_clips), trials // 3)
    kinds = [("interrupt", None)] * (trials - n_echo - n_short)
    by_label = [[c for c in short_clips if c.label == k] for k in SHORT_KINDS]
    by_label = [clips for clips in by_label if clips]
    for i in range(n_short):
        clips = by_label[i % len(by_label)]
        kinds.append(("interjection", clips[(i // len(by_label)) % len(clips)]))
    kinds += [("echo", None)] * n_echo
    kinds += [("interjection", c) for _ in range(synth_reps) for c in synth or []]
    out = []
    for kind, clip in kinds:
        if kind == "interrupt":
            clip = rng.choice(long_clips)
        onset = clip.onset if clip is not None else 0.0
        out.append((kind, clip, rng.uniform(1.0, length - 3.5) - onset))
    return out


def run_rule(name: str, room: Room, trials: list) -> dict:
    # A converged echo canceller, as in a session that has spoken before.
    Trial(room, "warm-up", None, 0.0).run()
    room.decode_seconds.clear()
    results = [Trial(room, kind, clip, offset).run() for kind, clip, offset in trials]
    dec = [1000.0 * d for d in room.decode_seconds]
    return {
        "rule": name,
        "sustained_speech_s": room.speech.sustained_speech,
        "backchannel_filter": room.decode is not None,
        "hold_max_s": room.floor.barge_in_hold_max if room.decode is not None else None,
        **summary(results),
        "decode_cpu_ms": {"n": len(dec), "p50": _pct(dec, 50), "p95": _pct(dec, 95)},
        "trials": results,
    }


def _pct(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)), 1) if xs else None


def _rate(rs: list[dict]) -> float | None:
    return round(sum(r["yielded"] for r in rs) / len(rs), 3) if rs else None


def summary(results: list[dict]) -> dict:
    interrupts = [r for r in results if r["kind"] == "interrupt"]
    short = {
        k: [r for r in results if r["kind"] == "interjection" and r["label"] == k]
        for k in SHORT_KINDS + SYNTH_KINDS
    }
    echo = [r for r in results if r["kind"] == "echo"]
    hits = [r for r in interrupts if r["yielded"]]
    dec = [r["decision_to_stopped_ms"] for r in hits]
    ons = [r["onset_to_stopped_ms"] for r in hits]
    return {
        "n": {
            "interrupt": len(interrupts),
            **{k: len(v) for k, v in short.items()},
            "echo": len(echo),
        },
        "yield_rate": _rate(interrupts),
        "yields_short": {k: _rate(v) for k, v in short.items()},
        "false_yield_own_voice": _rate(echo),
        "decision_to_stopped_ms": {"p50": _pct(dec, 50), "p95": _pct(dec, 95)},
        "onset_to_stopped_ms": {"p50": _pct(ons, 50), "p95": _pct(ons, 95)},
    }


def _p(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def table(rows: list[dict]) -> str:
    head = (
        "| rule | trials (int/bc/none/words/echo/synth bc/synth other) | yield "
        "| false yield backchannels | false yield synthetic backchannels "
        "| yields synthetic, not heard as bc | yields no-word sounds | yields short words "
        "| false yield own voice | decision→stopped p50/p95 ms | onset→stopped p50/p95 ms |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        n, y = r["n"], r["yields_short"]
        d, o = r["decision_to_stopped_ms"], r["onset_to_stopped_ms"]
        lines.append(
            f"| {r['rule']} | {n['interrupt']}/{n['backchannel']}/{n['no_words']}/{n['words']}"
            f"/{n['echo']}/{n['synth_backchannel']}/{n['synth_other']} | {_p(r['yield_rate'])} "
            f"| {_p(y['backchannel'])} | {_p(y['synth_backchannel'])} | {_p(y['synth_other'])} "
            f"| {_p(y['no_words'])} | {_p(y['words'])} | {_p(r['false_yield_own_voice'])} "
            f"| {d['p50']} / {d['p95']} | {o['p50']} / {o['p95']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audio", type=Path, default=DEFAULT_AUDIO, help="folder of WAV + RTTM")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--engine", default="kokoro", choices=["kokoro", "piper"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--fast",
        type=float,
        nargs="+",
        default=[0.3],
        help="sustained windows of the faster rules (with the backchannel filter)",
    )
    ap.add_argument(
        "--without-double-talk",
        action="store_true",
        help="add a row with the VAD on the AEC3 output alone (no double-talk detector)",
    )
    ap.add_argument(
        "--decoder",
        default="glance",
        choices=["glance", "full"],
        help="overlap decoder: Whisper with a 10 s window (the app's) or the full 30 s one",
    )
    ap.add_argument(
        "--synth-reps",
        type=int,
        default=2,
        help="trials per synthesized backchannel (0: none), on top of --trials",
    )
    ap.add_argument(
        "--hold-max",
        type=float,
        default=None,
        help="the filter's hold cap in seconds (default: the app's barge_in_hold_max)",
    )
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "barge_in.json")
    args = ap.parse_args(argv)
    if not args.audio.exists():
        print(f"skipped: no recorded participants at {args.audio}")
        return 0
    long_clips, short_clips = load_clips(args.audio)
    if not long_clips or not short_clips:
        print(f"skipped: {args.audio} has no annotated speech segments to use")
        return 0
    labels = args.out.parent / "barge_in_labels.json"
    long_clips = label_clips(long_clips, labels)
    short_clips = label_clips(short_clips, labels)
    # Not an interruption: the VAD hears too little of it or Whisper no words (left out),
    # or all it says is a backchannel (it joins the backchannels).
    heard = [c for c in long_clips if c.voiced >= MIN_INTERRUPT_VOICED]
    faint = [c for c in long_clips if c.voiced < MIN_INTERRUPT_VOICED or c.label == "no_words"]
    short_clips += [c for c in heard if c.label == "backchannel"]
    long_clips = [c for c in heard if c.label == "words"]
    synth, synth_left_out = [], []
    if args.synth_reps:
        synth, synth_left_out = synth_clips(args.out.parent / "barge_in_synth")
    synth = label_clips(synth, labels)
    engine = CachingEngine(open_engine(VoiceSettings(engine=args.engine)))
    agent16 = render(engine)
    length = agent16.size / RATE
    trials = plan(args.trials, long_clips, short_clips, length, args.seed, synth, args.synth_reps)
    decode = make_decoder(args.decoder)
    paper = FloorSettings()
    if args.hold_max is not None:
        paper = replace(paper, barge_in_hold_max=args.hold_max)
    variants = [
        ("+ double-talk detector, 0.5 s", 0.5, True, None),
        (f"+ double-talk detector, {args.fast[0]} s", args.fast[0], True, None),
        ("+ backchannel filter, 0.5 s", 0.5, True, decode),
        *[(f"+ backchannel filter, {w} s", w, True, decode) for w in args.fast],
    ]
    if args.without_double_talk:
        variants.insert(0, ("AEC3 only, 0.5 s", 0.5, False, None))
    rows = []
    for name, window, double_talk, decoder in variants:
        speech = replace(SpeechSettings(), sustained_speech=window)
        floor = replace(paper, barge_in_backchannel_filter=decoder is not None)
        room = Room(engine, agent16, speech, floor, args.seed, double_talk, decoder)
        rows.append(run_rule(name, room, trials))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    print(
        f"answer: {length:.1f} s by {engine.name}; clips: {len(long_clips)} long "
        f"({len(faint)} left out: the VAD hears < {MIN_INTERRUPT_VOICED} s or Whisper no words), "
        f"{len(short_clips)} short from {args.audio}; {len(synth)} synthesized backchannels "
        f"({sum(c.label == 'synth_backchannel' for c in synth)} heard as one, "
        f"{len(synth_left_out)} left out: not {SYNTH_SECONDS[0]}-{SYNTH_SECONDS[1]} s)"
    )
    print(table(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    clips = {
        "interrupt": [[c.name, c.words, round(c.onset, 3), round(c.voiced, 3)] for c in long_clips],
        "left_out": [[c.name, c.words, round(c.onset, 3), round(c.voiced, 3)] for c in faint],
        "short": [[c.name, c.label, c.words, round(c.voiced, 3)] for c in short_clips],
        "synthetic": [
            [c.name, c.label, c.words, round(c.samples.size / RATE, 3), round(c.voiced, 3)]
            for c in synth
        ],
        "synthetic_left_out": synth_left_out,
    }
    args.out.write_text(
        json.dumps(
            {
                "engine": engine.name,
                "answer_seconds": length,
                "decoder": args.decoder,
                "clips": clips,
                "rows": rows,
            },
            indent=1,
        )
    )
    print(f"wrote {args.out}")
    return 0


def make_decoder(kind: str):
    """The overlap decoder of the app (the speech worker's), or the full-window transcribe."""
    from app.speech.asr import WhisperTranscriber
    from app.speech.overlap import transcriber_text

    asr = WhisperTranscriber(threads=1)
    if kind == "glance":
        return transcriber_text(asr)

    def full(audio: np.ndarray) -> str:
        words = asr.transcribe(audio, 0.0, "", audio.size / RATE)
        return " ".join(w.text for w in words).strip()

    return full


if __name__ == "__main__":
    raise SystemExit(main())
