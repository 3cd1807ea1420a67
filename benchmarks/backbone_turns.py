"""Per-turn backbone latency and decisions on a slice of a dev conversation.

    python benchmarks/backbone_turns.py --doc d01 --start 8 --end 32 [--model llm-0.5b]
        [--mode focused|full|auto] [--ask "what is ...?"] [--out benchmarks/out/backbone_turns.json]

Prints one row per turn (action, reason, per-stage ms) and p50/p95 over ordinary turns.
``--draft K`` turns speculative decoding on (K draft tokens).
``--prefill`` reads the conversation into the model's cache after every turn, as the
live worker does when idle. ``--ask`` (repeatable) then puts direct questions after the
slice, as a wake word would, and prints for each the tokens its prompt shares with the
cache, the tokens evaluated and the time to its first checked sentence (when the floor
could start speaking).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.events import PlaybackReceipt, Turn  # noqa: E402
from app.settings import ContextMode, Settings  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ask(backbone: Any, question: str, index: int) -> dict[str, Any]:
    """One direct question, timed to its first checked sentence and to its end."""
    first: list[float] = []
    started = time.perf_counter()

    def on_delta(delta: Any) -> None:
        if delta.checked and delta.text and not first:
            first.append((time.perf_counter() - started) * 1000)

    n_calls = len(backbone.calls)
    answer = backbone.answer_direct(
        Turn("S1", question, float(index), float(index) + 1, True, index), on_delta=on_delta)
    total = (time.perf_counter() - started) * 1000
    call = backbone.calls[n_calls]
    row = {"question": question, "prompt_tokens": call.prompt_tokens,
           "cached_tokens": call.cached_tokens, "completion_tokens": call.completion_tokens,
           "first_sentence_ms": round(first[0]) if first else None, "total_ms": round(total),
           "text": answer.text}
    print(f"ask: {question!r} prompt {call.prompt_tokens} (cached {call.cached_tokens}), "
          f"first sentence {row['first_sentence_ms']} ms, total {total:.0f} ms | {answer.text}",
          flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", default=str(ROOT.parent / "shared/benchmark/dev"))
    parser.add_argument("--doc", default="d01")
    parser.add_argument("--conversation", default="main")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--end", type=int, default=20)
    parser.add_argument("--model", default=None)
    parser.add_argument("--mode", default="auto", choices=[m.value for m in ContextMode])
    parser.add_argument("--ask", action="append", default=[], help="a direct question after")
    parser.add_argument("--prefill", action="store_true",
                        help="read the conversation into the cache after every turn, as an "
                             "idle live worker does")
    parser.add_argument("--draft", type=int, default=None,
                        help="speculative draft tokens (LLMSettings.draft_tokens)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/out/backbone_turns.json"))
    args = parser.parse_args()

    from app.backbone import Backbone
    from app.document import open_document
    from app.embedding import get_embedder
    from app.llm import open_backend

    settings = Settings()
    settings = dataclasses.replace(
        settings, llm=dataclasses.replace(settings.llm, context_mode=ContextMode(args.mode)))
    if args.draft is not None:
        settings = dataclasses.replace(
            settings, llm=dataclasses.replace(settings.llm, draft_tokens=args.draft))
    folder = Path(args.set) / args.doc
    document = open_document(folder / "document.pdf", settings.document)
    t0 = time.perf_counter()
    llm = open_backend(args.model, settings.llm)
    embedder = get_embedder()
    backbone = Backbone(document, llm, settings, embedder)
    warm_s = time.perf_counter() - t0
    print(f"mode={backbone.mode.value} warm+load={warm_s:.1f}s sentences={len(document.sentences)}")
    rows, totals = [], []
    lines = (folder / f"{args.conversation}.jsonl").read_text().splitlines()
    for raw in lines[: args.end]:
        item = json.loads(raw)
        turn = Turn(item["speaker"], item["text"], item.get("start", 0.0), item.get("end", 0.0),
                    bool(item.get("direct")), item["turn"])
        if item["turn"] < args.start:
            backbone.transcript.append(turn.index, turn.speaker, turn.text)  # context only
            backbone._next_index = turn.index + 1
            continue
        started = time.perf_counter()
        n_calls = len(backbone.calls)
        decision = backbone.on_turn(turn)
        calls = backbone.calls[n_calls:]
        wall = (time.perf_counter() - started) * 1000
        if decision.intervention is not None:
            backbone.on_delivered(decision.intervention, PlaybackReceipt(
                decision.intervention.id, "finished", 3.0))
        if args.prefill:
            backbone.prefill()
        stages = {k: round(v) for k, v in decision.latency_ms.items()}
        if "monitor" in stages:
            totals.append(wall)
        tokens = {c.stage: [c.prompt_tokens - c.cached_tokens, c.completion_tokens]
                  for c in calls}
        rows.append({"turn": turn.index, "action": decision.action, "reason": decision.reason,
                     "tokens_evaluated_generated": tokens,
                     "claim": decision.claim, "wall_ms": round(wall), "stages": stages,
                     "text": decision.intervention.text if decision.intervention else ""})
        print(f"{turn.index:3d} {decision.action:6s} {wall:7.0f}ms {stages} {tokens} | "
              f"{decision.reason}"
              f" | {decision.claim[:50]}" + (f"\n      >> {rows[-1]['text']}" if rows[-1]['text']
                                             else ""), flush=True)
    asked = [ask(backbone, question, args.end + i) for i, question in enumerate(args.ask)]
    summary = {"doc": args.doc, "mode": backbone.mode.value, "model": args.model or "llm-1.5b",
               "turns": len(totals), "p50_ms": percentile(totals, 0.5),
               "p95_ms": percentile(totals, 0.95), "warm_s": warm_s}
    print(json.dumps(summary))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "rows": rows, "asked": asked}, indent=1))
    llm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
