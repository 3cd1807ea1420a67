"""Speech over the agent in the transcript: how much of what a participant says while the
agent plays reaches the turn's text, and how much of the agent's own voice comes with it.

A synthesized answer plays into the simulated room of ``barge_in.py`` (two reflections,
a quiet room); a recorded participant (its long RTTM segments with words, labelled by the
app's Whisper on the clean clip) starts at a random point of it. The mic goes through the
speech worker's per-frame path: AEC3 against the played reference and, while the agent
plays, the double-talk detector. Each way of forming the turn's audio is transcribed by
the app's Whisper:

- ``aec3``: the AEC3 output throughout;
- ``residual``: the double-talk detector's linear echo residual while the agent plays;
- ``gated``: that residual on frames the detector calls the participant's, AEC3 elsewhere.

Each with the loudspeaker's echo in the mic (``echo``) and without (``no echo``: a
headset, or the live benchmark's null sink). Scores, against the clean clip's words:
recall (the share of them heard), and agent words (words of the answer the clip does not
say, per 100 of the clip's words).

    python benchmarks/overlap_transcript.py [--audio DIR] [--trials 24] [--seed 7]

Prints a table and writes benchmarks/results/overlap_transcript.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from barge_in import (  # noqa: E402
    ANSWER,
    DEFAULT_AUDIO,
    FRAME,
    MIN_INTERRUPT_VOICED,
    RATE,
    Clip,
    Room,
    label_clips,
    load_clips,
    render,
)

from app.language.numbers import word_numbers_to_digits  # noqa: E402
from app.language.words import content_tokens, words  # noqa: E402
from app.settings import FloorSettings, SpeechSettings, VoiceSettings  # noqa: E402
from app.voice import CachingEngine, open_engine  # noqa: E402

WAYS = ("aec3", "residual", "gated")
TAIL = 0.5  # seconds of the turn after the clip ends


class MicPath:
    """The worker's per-frame path over ``barge_in.Room`` (its mic, AEC3 and double-talk
    detector), kept converged across trials; ``echo``: the loudspeaker reaches the mic."""

    def __init__(self, room: Room, echo: bool) -> None:
        self.room, self.echo = room, echo

    def run(self, clip: Clip | None, offset: float) -> dict[str, np.ndarray]:
        """One play of the answer with the clip at ``offset`` s: each way's audio."""
        agent, room = self.room.agent16, self.room
        played = agent.size / RATE if self.echo else 0.0  # nothing played: no echo
        out: dict[str, list[np.ndarray]] = {w: [] for w in WAYS}
        for n0 in range(0, agent.size - FRAME + 1, FRAME):
            mic = room.mic(n0, played, clip, offset)
            ref = agent[n0 : n0 + FRAME]
            cancelled = room.aec.process(mic, ref)
            playing = bool(np.any(ref))
            assert room.near_end is not None
            near = room.near_end(mic, ref, FRAME / RATE) if playing else 0.0
            residual = room.near_end.detector.residual if playing else cancelled
            out["aec3"].append(cancelled)
            out["residual"].append(residual)
            out["gated"].append(residual if near > 0.0 else cancelled)
        return {w: np.concatenate(frames) for w, frames in out.items()}


def recall(said: str, heard: str) -> tuple[int, int]:
    """Words of ``said`` found in ``heard`` (each as often as said), of all of them."""
    want, got = Counter(words(said)), Counter(words(heard))
    return sum(min(c, got[w]) for w, c in want.items()), sum(want.values())


def agent_words(said: str, heard: str) -> int:
    """Content words heard that the answer has (its numbers in words or digits) and the
    participant's clip does not."""
    answer = set(content_tokens(ANSWER)) | set(content_tokens(word_numbers_to_digits(ANSWER)))
    clip = set(content_tokens(said))
    return sum(1 for w in content_tokens(heard) if w in answer and w not in clip)


def trial_plan(clips: list[Clip], trials: int, length: float, seed: int
               ) -> list[tuple[Clip, float]]:
    """Clips in turn, each starting where all of it falls inside the answer."""
    rng = random.Random(seed)
    out = []
    for i in range(trials):
        clip = clips[i % len(clips)]
        latest = max(1.0, length - clip.samples.size / RATE - 0.5)
        out.append((clip, rng.uniform(1.0, latest)))
    return out


def run_condition(engine: CachingEngine, agent: np.ndarray, echo: bool,
                  plan: list[tuple[Clip, float]], asr, seed: int) -> dict:
    room = Room(engine, agent, SpeechSettings(), FloorSettings(), seed)
    path = MicPath(room, echo)
    path.run(None, 0.0)  # a converged echo canceller, as in a session that has spoken
    totals = {w: [0, 0, 0] for w in WAYS}  # found, said, agent words
    trials = []
    for clip, offset in plan:
        audio = path.run(clip, offset)
        a, b = int(offset * RATE), int((offset + clip.samples.size / RATE + TAIL) * RATE)
        row = {"clip": clip.name, "offset": round(offset, 2), "said": clip.words}
        for way in WAYS:
            span = audio[way][a:b]
            heard = " ".join(w.text for w in asr.transcribe(span, 0.0, "", span.size / RATE))
            found, said = recall(clip.words, heard)
            leaked = agent_words(clip.words, heard)
            t = totals[way]
            t[0], t[1], t[2] = t[0] + found, t[1] + said, t[2] + leaked
            row[way] = heard.strip()
        trials.append(row)
    return {
        "condition": "echo" if echo else "no echo",
        "ways": {w: {"recall": round(t[0] / max(1, t[1]), 3),
                     "agent_words_per_100": round(100.0 * t[2] / max(1, t[1]), 1)}
                 for w, t in totals.items()},
        "trials": trials,
    }


def table(rows: list[dict]) -> str:
    lines = ["| condition | " + " | ".join(f"{w}: recall / agent words" for w in WAYS) + " |",
             "|---|" + "---|" * len(WAYS)]
    for r in rows:
        cells = [f"{r['ways'][w]['recall']:.2f} / {r['ways'][w]['agent_words_per_100']:.1f}"
                 for w in WAYS]
        lines.append(f"| {r['condition']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audio", type=Path, default=DEFAULT_AUDIO, help="folder of WAV + RTTM")
    ap.add_argument("--trials", type=int, default=24)
    ap.add_argument("--engine", default="kokoro", choices=["kokoro", "piper"])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "overlap_transcript.json")
    args = ap.parse_args(argv)
    if not args.audio.exists():
        print(f"skipped: no recorded participants at {args.audio}")
        return 0
    started = time.time()
    long_clips, _ = load_clips(args.audio)
    long_clips = label_clips(long_clips, args.out.parent / "barge_in_labels.json")
    clips = [c for c in long_clips if c.voiced >= MIN_INTERRUPT_VOICED and c.label == "words"
             and len(words(c.words)) >= 3]
    if not clips:
        print(f"skipped: {args.audio} has no long segments with words")
        return 0
    from app.speech.asr import WhisperTranscriber

    asr = WhisperTranscriber(threads=1)
    engine = CachingEngine(open_engine(VoiceSettings(engine=args.engine)))
    agent = render(engine)
    plan = trial_plan(clips, args.trials, agent.size / RATE, args.seed)
    rows = [run_condition(engine, agent, echo, plan, asr, args.seed) for echo in (True, False)]
    print(table(rows))
    print(f"{len(plan)} trials over {len(clips)} clips of {args.audio}; answer "
          f"{agent.size / RATE:.1f} s; {time.time() - started:.0f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "seed": args.seed}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
