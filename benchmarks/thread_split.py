"""How to split the cores between speech recognition and the model, measured.

In a meeting both run at once: the speech worker re-decodes the growing turn every second
of speech (faster-whisper pads every decode to 30 s, so each costs the same), while the
backbone runs monitor calls. For a few (model threads, recognition threads) splits this
runs monitor-sized llama calls (the harness's focused-mode prompt: conversation window,
retrieved sentences, monitor task, monitor schema, new tokens every call) while
recognition decodes the bundled meeting recording at that cadence, and reports per split:
the monitor call time, the decode time and how far recognition fell behind the talk.
The last default split is what the app did before it split the cores: llama.cpp on every
physical core and faster-whisper on its own default of 4 threads.

    python benchmarks/thread_split.py [--model llm-1.5b] [--calls 2] [--splits 1:1,2:1,...]
        [--batch-threads N]

Prints a table and writes benchmarks/results/thread_split.json. Keep the machine quiet
while it runs (about 4 minutes on 2 cores with the defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import soundfile as sf  # noqa: E402

from app.backbone import prompts, schemas  # noqa: E402
from app.backbone.transcript import Line  # noqa: E402
from app.cores import physical_cores, prompt_threads, thread_split  # noqa: E402
from app.llm import LLMRequest  # noqa: E402
from app.llm.factory import resolve_model_path  # noqa: E402
from app.llm.llama import LlamaBackend  # noqa: E402
from app.settings import LLMSettings, SpeechSettings  # noqa: E402
from app.speech.asr import WhisperTranscriber  # noqa: E402

DEMO = REPO / "resources" / "demo"
DEV_DOC = REPO.parent / "shared" / "benchmark" / "dev" / "d01" / "document.pdf"
PARTIAL_INTERVAL_S = 1.0  # the speech worker's cadence of partial decodes
TURN_S = 8.0  # decodes read the last this-many seconds (a turn in progress)
SENTENCES_PER_CALL = 4  # retrieved sentences and detector hits a monitor call shows


BEFORE_ASR_THREADS = 4  # faster-whisper's default when cpu_threads is 0


def default_splits(cores: int) -> list[tuple[int, int]]:
    """The app's split, its neighbours, and both sides taking every core (before)."""
    model, speech = thread_split(cores)
    candidates = [(model, speech), (cores, speech), (max(1, cores - 2 * speech), 2 * speech),
                  (cores, BEFORE_ASR_THREADS)]
    return list(dict.fromkeys(candidates))


def parse_split(text: str) -> tuple[int, int]:
    model, asr = text.split(":")
    return int(model), int(asr)


def sentences() -> list[str]:
    path = DEV_DOC if DEV_DOC.exists() else DEMO / "green_roofs.pdf"
    from app.document import open_document

    return [s.text for s in open_document(path).sentences]


def monitor_request(call: int, texts: list[str], turns: list[dict[str, Any]]) -> LLMRequest:
    """The focused-mode monitor prompt of the harness, with fresh sentences every call."""
    lines = [Line(i, t["speaker"], t["text"]) for i, t in enumerate(turns)]
    window = lines[: 3 + call % (len(lines) - 2)]
    first = (call * SENTENCES_PER_CALL) % max(1, len(texts) - SENTENCES_PER_CALL)
    sids = list(range(first, first + SENTENCES_PER_CALL))
    block = prompts.sentence_block([f"[S{s}] {' '.join(texts[s].split()[:45])}" for s in sids])
    user = (prompts.conversation_block(window) + block
            + prompts.monitor_task(window[-1].index, sids, []))
    stage = LLMSettings().monitor
    return LLMRequest("monitor", prompts.system_prompt(None), user,
                      schemas.monitor_schema(with_evidence=False), stage.temperature,
                      stage.max_tokens)


class Recognition(threading.Thread):
    """Decodes the recording's last TURN_S seconds once per PARTIAL_INTERVAL_S of talk,
    on the real clock, as the speech worker does while someone speaks; a decode that
    overruns its slot makes the worker skip the slots it missed."""

    def __init__(self, asr: WhisperTranscriber, audio: np.ndarray) -> None:
        super().__init__(name="recognition", daemon=True)
        self.asr, self.audio = asr, audio
        self.stop = threading.Event()
        self.decode_s: list[float] = []
        self.slots = 0  # partial slots that passed while it ran

    def run(self) -> None:
        t0 = time.perf_counter()
        n = 0
        while not self.stop.is_set():
            due = t0 + n * PARTIAL_INTERVAL_S
            now = time.perf_counter()
            if due > now and self.stop.wait(due - now):
                break
            end = (TURN_S + n * PARTIAL_INTERVAL_S) % (len(self.audio) / 16000 - TURN_S) + TURN_S
            clip = self.audio[int((end - TURN_S) * 16000) : int(end * 16000)]
            started = time.perf_counter()
            self.asr.transcribe(clip, 0.0)
            self.decode_s.append(time.perf_counter() - started)
            n = max(n + 1, int((time.perf_counter() - t0) / PARTIAL_INTERVAL_S))
        self.slots = max(1, int((time.perf_counter() - t0) / PARTIAL_INTERVAL_S))


def measure(model_path: Path, split: tuple[int, int], calls: int, texts: list[str],
            turns: list[dict[str, Any]], audio: np.ndarray,
            batch_threads: int | None = None) -> dict[str, Any]:
    model_threads, asr_threads = split
    asr = WhisperTranscriber(settings=SpeechSettings(), threads=asr_threads)
    asr.transcribe(audio[: 16000 * 4], 0.0)  # load and warm outside the timing
    llm = LlamaBackend(model_path, LLMSettings(context_tokens=4096, threads=model_threads,
                                               batch_threads=batch_threads))
    llm.warm(prompts.system_prompt(None))
    alone = llm.complete(monitor_request(calls, texts, turns)).total_ms / 1000
    started = time.perf_counter()
    asr.transcribe(audio[: int(16000 * TURN_S)], 0.0)
    decode_alone = time.perf_counter() - started
    recognition = Recognition(asr, audio)
    recognition.start()
    rows = []
    try:
        for call in range(calls):
            r = llm.complete(monitor_request(call, texts, turns))
            rows.append({"total_s": r.total_ms / 1000, "evaluated": r.prompt_tokens
                         - r.cached_tokens, "completion": r.completion_tokens})
    finally:
        recognition.stop.set()
        recognition.join()
        llm.close()
    decodes = recognition.decode_s or [float("nan")]
    monitor = statistics.median(r["total_s"] for r in rows)
    return {
        "model_threads": model_threads, "asr_threads": asr_threads,
        "batch_threads": batch_threads or prompt_threads(),
        "monitor_s": monitor, "monitor_alone_s": alone, "monitor_slowdown": monitor / alone,
        "evaluated_tokens": statistics.median(r["evaluated"] for r in rows),
        "completion_tokens": statistics.median(r["completion"] for r in rows),
        "decode_alone_s": decode_alone,
        "decode_p50_s": float(np.percentile(decodes, 50)),
        "decode_p95_s": float(np.percentile(decodes, 95)),
        "partials_served": len(recognition.decode_s) / recognition.slots,
        "calls": rows,
    }


def keeps_up(row: dict[str, Any]) -> bool:
    """Recognition holds its cadence: a decode fits in its partial slot."""
    return bool(row["decode_p95_s"] <= PARTIAL_INTERVAL_S)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llm-1.5b", help="manifest name or .gguf path")
    ap.add_argument("--calls", type=int, default=2, help="monitor calls per split")
    ap.add_argument("--batch-threads", type=int, default=None,
                    help="threads for reading a prompt (default: the product's, "
                         "every physical core)")
    ap.add_argument("--splits", default="", help="model:asr pairs, e.g. 1:1,2:1,2:0")
    ap.add_argument("--out", type=Path,
                    default=REPO / "benchmarks" / "results" / "thread_split.json")
    args = ap.parse_args(argv)

    cores = physical_cores()
    splits = [parse_split(s) for s in args.splits.split(",")] if args.splits else (
        default_splits(cores))
    texts = sentences()
    turns = json.loads((DEMO / "meeting_transcript.json").read_text())["turns"]
    audio, rate = sf.read(DEMO / "meeting.wav", dtype="float32")
    assert rate == 16000, rate
    load_before = os.getloadavg()
    started = time.perf_counter()
    rows = []
    for split in splits:
        rows.append(measure(resolve_model_path(args.model), split, args.calls, texts, turns,
                            audio, args.batch_threads))
        print({k: v for k, v in rows[-1].items() if k != "calls"}, flush=True)
    good = [r for r in rows if keeps_up(r)] or rows
    best = min(good, key=lambda r: (r["monitor_s"], r["model_threads"] + r["asr_threads"]))
    summary = {
        "model": args.model, "physical_cores": cores, "cpu_count": os.cpu_count(),
        "app_split": thread_split(cores), "best_split": [best["model_threads"],
                                                          best["asr_threads"]],
        "machine": platform.processor() or platform.machine(),
        "seconds": round(time.perf_counter() - started, 1),
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
    }
    print_table(rows, summary)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "splits": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


def print_table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    print(f"\n{summary['model']} | {summary['physical_cores']} physical cores | "
          f"loadavg {summary['loadavg_before'][0]:.1f} -> {summary['loadavg_after'][0]:.1f} | "
          f"{summary['seconds']} s")
    header = ("model:asr threads", "batch threads", "monitor s", "alone s", "slowdown", "evaluated",
              "completion", "decode alone s", "decode p50 s", "decode p95 s",
              "partials served", "keeps up")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        cells = (f"{r['model_threads']}:{r['asr_threads']}", r["batch_threads"],
                 f"{r['monitor_s']:.1f}",
                 f"{r['monitor_alone_s']:.1f}", f"{r['monitor_slowdown']:.2f}x",
                 r["evaluated_tokens"], r["completion_tokens"], f"{r['decode_alone_s']:.2f}",
                 f"{r['decode_p50_s']:.2f}", f"{r['decode_p95_s']:.2f}",
                 f"{r['partials_served']:.0%}", "yes" if keeps_up(r) else "no")
        print("| " + " | ".join(str(c) for c in cells) + " |")
    model, speech = summary["best_split"]
    print(f"best split {model}:{speech} (app default on this machine: "
          f"{summary['app_split'][0]}:{summary['app_split'][1]})")


if __name__ == "__main__":
    sys.exit(main())
