"""Barge-in benchmark: does the agent stop when a participant talks over it, and only then?

A real synthesized answer plays through the player into a simulated room: the agent's
audio reaches the mic with delay and gain (two reflections), a recorded participant
starts at a random offset, and the mic goes through the speech path of the app
(AEC3 against the played blocks, Silero VAD, the VAD segmenter; while the agent
plays, the double-talk detector's near-end voice instead of the AEC3 output) into the floor FSM,
whose Stop goes back to the player. Everything runs in lockstep on audio time.

Trials: full interruptions (≥ 2.5 s of real speech), short interjections (≤ 0.8 s of
real speech, the acoustic shape of a backchannel) and the agent's own echo alone.

    python benchmarks/barge_in.py [--audio DIR] [--trials 60] [--engine kokoro]

Prints a table and writes benchmarks/results/barge_in.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.events import Intervention, InterventionKind, PlaybackReceipt  # noqa: E402
from app.floor import FloorFSM, Play, Stop  # noqa: E402
from app.settings import SpeechSettings, VoiceSettings  # noqa: E402
from app.voice import CachingEngine, MemorySink, Player, open_engine  # noqa: E402

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


# --- recorded participants ------------------------------------------------------------


@dataclass(frozen=True)
class Clip:
    name: str
    samples: np.ndarray  # 16 kHz; speech starts at sample 0


def load_clips(folder: Path) -> tuple[list[Clip], list[Clip]]:
    """Long (≥ 2.5 s) and short (0.2-0.8 s) annotated speech segments from RTTM+WAV."""
    import soundfile as sf

    long_clips, short_clips = [], []
    for rttm in sorted(folder.rglob("*.rttm")):
        for line in rttm.read_text().splitlines():
            f = line.split()
            if len(f) < 5 or f[0] != "SPEAKER":
                continue
            wav = rttm.parent / f"{f[1]}.wav"
            if not wav.exists():
                continue
            start, dur = float(f[3]), float(f[4])
            if dur >= 2.5 or 0.2 <= dur <= 0.8:
                audio, rate = sf.read(str(wav), dtype="float32", always_2d=True)
                mono = (
                    resample_poly(audio.mean(axis=1), RATE, rate)
                    if rate != RATE
                    else audio.mean(axis=1)
                )
                seg = mono[int(start * RATE) : int((start + min(dur, 3.0)) * RATE)]
                seg = seg * (PARTICIPANT_RMS / max(1e-6, _active_rms(seg)))
                clip = Clip(f"{wav.parent.name}/{wav.name}@{start:.2f}", seg.astype(np.float32))
                (long_clips if dur >= 2.5 else short_clips).append(clip)
    return long_clips, short_clips


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
        from app.speech.vad import VadSegmenter

        self.room, self.kind, self.clip, self.offset = room, kind, clip, offset
        self.reference = SelfVoiceReference()
        self.segmenter = VadSegmenter(room.speech)
        self.fsm = FloorFSM()
        self.sink = RoomSink(self)
        self.done = threading.Event()
        self.player = Player(room.engine, self.sink, tap=self.reference, on_receipt=self._receipt)
        self.mic_samples = 0
        self.decision: float | None = None
        self.stopped: float | None = None

    def run(self) -> dict:
        iv = Intervention("answer", InterventionKind.PROACTIVE, ANSWER, topic="trial")
        self.fsm.on_intervention(iv, -3.0)
        from app.events import InputLevel

        self.fsm.on_level(InputLevel(-3.0, 0.0, False), -3.0)
        plays = [c for c in self.fsm.tick(0.0) if isinstance(c, Play)]
        assert plays, "the floor did not release the answer"
        self.player.play(iv.id, plays[0].text)
        self.done.wait(120)
        self.player.close()
        onset = self.offset if self.clip is not None else None
        return {
            "kind": self.kind,
            "clip": self.clip.name if self.clip else None,
            "offset": round(self.offset, 3),
            "yielded": self.decision is not None,
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
        if self_voice and self.room.near_end is not None:
            prob = self.room.near_end(mic, ref, dur)  # the worker's double-talk path
        for event in self.segmenter.update(dur, prob, rms(clean), self_voice):
            for c in self.fsm.on_vad(event, event.time):
                if isinstance(c, Stop) and self.decision is None:
                    self.decision = event.time
                    self.player.stop()


@dataclass
class Room:
    engine: CachingEngine
    agent16: np.ndarray  # what the player plays, at 16 kHz
    speech: SpeechSettings
    seed: int
    double_talk: bool = True

    def __post_init__(self) -> None:
        from app.speech.doubletalk import NearEndVoice
        from app.speech.echo import EchoCanceller
        from app.speech.vad import SileroVad

        self.aec = EchoCanceller()
        self.vad = SileroVad()
        self.near_end = NearEndVoice() if self.double_talk else None
        self.rng = np.random.default_rng(self.seed)

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


def plan(trials: int, long_clips: list[Clip], short_clips: list[Clip], length: float, seed: int):
    rng = random.Random(seed)
    n_echo = n_short = max(5, trials // 6)
    kinds = ["interrupt"] * (trials - n_echo - n_short) + ["interjection"] * n_short
    kinds += ["echo"] * n_echo
    out = []
    for kind in kinds:
        clip = None
        if kind == "interrupt":
            clip = rng.choice(long_clips)
        elif kind == "interjection":
            clip = rng.choice(short_clips)
        out.append((kind, clip, rng.uniform(1.0, length - 3.5)))
    return out


def run_rule(name: str, room: Room, trials: list) -> dict:
    # A converged echo canceller, as in a session that has spoken before.
    Trial(room, "warm-up", None, 0.0).run()
    results = [Trial(room, kind, clip, offset).run() for kind, clip, offset in trials]
    return {
        "rule": name,
        "sustained_speech_s": room.speech.sustained_speech,
        **summary(results),
        "trials": results,
    }


def _pct(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)), 1) if xs else None


def summary(results: list[dict]) -> dict:
    by = {k: [r for r in results if r["kind"] == k] for k in ("interrupt", "interjection", "echo")}
    hits = [r for r in by["interrupt"] if r["yielded"]]
    dec = [r["decision_to_stopped_ms"] for r in hits]
    ons = [r["onset_to_stopped_ms"] for r in hits]
    rate = lambda rs: round(sum(r["yielded"] for r in rs) / len(rs), 3) if rs else None  # noqa: E731
    return {
        "n": {k: len(v) for k, v in by.items()},
        "yield_rate": rate(by["interrupt"]),
        "false_yield_interjection": rate(by["interjection"]),
        "false_yield_own_voice": rate(by["echo"]),
        "decision_to_stopped_ms": {"p50": _pct(dec, 50), "p95": _pct(dec, 95)},
        "onset_to_stopped_ms": {"p50": _pct(ons, 50), "p95": _pct(ons, 95)},
    }


def table(rows: list[dict]) -> str:
    head = (
        "| rule | trials (int/short/echo) | yield | false yield short | false yield own voice "
        "| decision→stopped p50/p95 ms | onset→stopped p50/p95 ms |\n|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        n, d, o = r["n"], r["decision_to_stopped_ms"], r["onset_to_stopped_ms"]
        lines.append(
            f"| {r['rule']} | {n['interrupt']}/{n['interjection']}/{n['echo']} "
            f"| {r['yield_rate']:.1%} | {r['false_yield_interjection']:.1%} "
            f"| {r['false_yield_own_voice']:.1%} | {d['p50']} / {d['p95']} "
            f"| {o['p50']} / {o['p95']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audio", type=Path, default=DEFAULT_AUDIO, help="folder of WAV + RTTM")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--engine", default="kokoro", choices=["kokoro", "piper"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fast", type=float, default=0.3, help="sustained window of the faster rule")
    ap.add_argument(
        "--without-double-talk",
        action="store_true",
        help="add a row with the VAD on the AEC3 output alone (no double-talk detector)",
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
    engine = CachingEngine(open_engine(VoiceSettings(engine=args.engine)))
    agent16 = render(engine)
    length = agent16.size / RATE
    trials = plan(args.trials, long_clips, short_clips, length, args.seed)
    rows = []
    variants = [
        ("paper: 0.5 s sustained", 0.5, True),
        (f"faster: {args.fast} s sustained", args.fast, True),
    ]
    if args.without_double_talk:
        variants.insert(0, ("AEC3 output only, 0.5 s", 0.5, False))
    for name, window, double_talk in variants:
        speech = replace(SpeechSettings(), sustained_speech=window)
        room = Room(engine, agent16, speech, args.seed, double_talk)
        rows.append(run_rule(name, room, trials))
    print(
        f"answer: {length:.1f} s by {engine.name}; clips: {len(long_clips)} long, "
        f"{len(short_clips)} short from {args.audio}"
    )
    print(table(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"engine": engine.name, "answer_seconds": length, "rows": rows}, indent=1)
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
