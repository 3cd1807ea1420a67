"""LLM speed per backbone stage with llama.cpp: load, shared-prefix prefill, TTFT and total.

Every call shares one prefix (instructions + numbered document), as the backbone does, so
after the first call llama.cpp evaluates only the new stage prompt; TTFT is that prefill
plus the first token. Output lengths are fixed per stage (typical answer sizes) so runs
compare across machines and models, including a zero-weight replica (gguf_replica.py).

    python benchmarks/gpu_llm.py MODEL.gguf [--doc-tokens 6000] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# stage -> (prompt shape, tokens to generate): the backbone's four LLM calls.
STAGES = {
    "monitor": ("List the checkable claims and open questions in the latest turns.", 120),
    "self_repair": ("Did the group already correct claim C3 within the last turns?", 40),
    "generate": ("Write one short spoken correction citing the sentence.", 50),
    "direct": ("Answer the question in at most three sentences with citations.", 80),
}
WORDS = ("sample participants trial roof rainfall runoff percent cost reduction survey "
         "baseline control treatment median interval season storage cooling energy").split()


@dataclass(frozen=True)
class StageResult:
    stage: str
    rounds: int
    prompt_tokens: int
    ttft_ms: float
    total_ms: float
    completion_tokens: int
    decode_tok_s: float


def document_block(n_tokens: int, seed: int = 7) -> str:
    """Numbered sentences, about ``n_tokens`` long, the same on every machine."""
    rng = random.Random(seed)
    lines, approx, sid = [], 0, 0
    while approx < n_tokens:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18)))
        value, year = rng.randint(2, 980), rng.randint(1990, 2024)
        lines.append(f"[S{sid}] The {words} was {value} in {year}.")
        approx += len(lines[-1]) // 4 + 1
        sid += 1
    return "\n".join(lines)


def chat(system: str, user: str) -> str:
    return (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            "<|im_start|>assistant\n")


def turn_text(stage: str, round_index: int, n_turns: int = 10) -> str:
    task, _ = STAGES[stage]
    turns = "\n".join(f"Speaker {k % 3}: the survey had {round_index * 40 + k} participants."
                      for k in range(n_turns))
    # The task comes first so each stage evaluates its whole prompt after the shared prefix.
    return f"Task: {task}\n\nRecent turns:\n{turns}"


def timed_completion(llm, prompt: list[int], max_tokens: int) -> tuple[float, float, int]:
    """Greedy generation token by token; llama.cpp reuses the cached common prefix."""
    started = time.perf_counter()
    first = None
    count = 0
    for token in llm.generate(prompt, top_k=1, temp=0.0, reset=True):
        if first is None:
            first = time.perf_counter()
        if token == llm.token_eos():
            break
        count += 1
        if count >= max_tokens:
            break
    end = time.perf_counter()
    return ((first or end) - started) * 1000, (end - started) * 1000, count


def run(model: Path, doc_tokens: int, rounds: int, n_ctx: int, gpu_layers: int,
        max_tokens_scale: float, n_turns: int = 10) -> dict:
    import llama_cpp

    started = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model), n_gpu_layers=gpu_layers, n_ctx=n_ctx,
                          seed=7, verbose=False)
    load_s = time.perf_counter() - started
    system = ("You check a meeting against the document below and cite sentence ids.\n\n"
              + document_block(doc_tokens))
    prefix = llm.tokenize(chat(system, "")[: -len("<|im_end|>\n<|im_start|>assistant\n")]
                          .encode(), add_bos=False, special=True)
    t0 = time.perf_counter()
    llm.eval(prefix)  # warm: the shared prefix's KV, as LLMBackend.warm does
    prefill_ms = (time.perf_counter() - t0) * 1000
    results = []
    for stage, (_task, max_tokens) in STAGES.items():
        n_out = max(1, int(max_tokens * max_tokens_scale))
        samples = []
        for r in range(rounds):
            prompt = chat(system, turn_text(stage, r, n_turns))
            tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
            samples.append((len(tokens) - len(prefix), *timed_completion(llm, tokens, n_out)))
        ttft = statistics.median(s[1] for s in samples)
        total = statistics.median(s[2] for s in samples)
        out = int(statistics.median(s[3] for s in samples))
        decode = (out - 1) / ((total - ttft) / 1000) if out > 1 and total > ttft else 0.0
        results.append(StageResult(stage, rounds, int(statistics.median(s[0] for s in samples)),
                                   round(ttft, 1), round(total, 1), out, round(decode, 1)))
    return {
        "model": str(model),
        "gpu_offload_supported": bool(llama_cpp.llama_supports_gpu_offload()),
        "gpu_layers": gpu_layers,
        "n_ctx": n_ctx,
        "load_s": round(load_s, 2),
        "prefix_tokens": len(prefix),
        "prefix_prefill_ms": round(prefill_ms, 1),
        "prefix_prefill_tok_s": round(len(prefix) / (prefill_ms / 1000), 1),
        "stages": [asdict(r) for r in results],
    }


def print_table(report: dict) -> None:
    print(f"model {report['model']}  load {report['load_s']} s  offload "
          f"{report['gpu_offload_supported']} (layers {report['gpu_layers']})")
    print(f"shared prefix {report['prefix_tokens']} tokens: prefill "
          f"{report['prefix_prefill_ms']} ms ({report['prefix_prefill_tok_s']} tok/s)")
    print(f"{'stage':<12}{'new prompt tok':>15}{'TTFT ms':>10}{'total ms':>10}"
          f"{'out tok':>9}{'decode tok/s':>14}")
    for s in report["stages"]:
        print(f"{s['stage']:<12}{s['prompt_tokens']:>15}{s['ttft_ms']:>10}{s['total_ms']:>10}"
              f"{s['completion_tokens']:>9}{s['decode_tok_s']:>14}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--doc-tokens", type=int, default=6000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--n-ctx", type=int, default=16384)
    parser.add_argument("--gpu-layers", type=int, default=-1)
    parser.add_argument("--max-tokens-scale", type=float, default=1.0)
    parser.add_argument("--turns", type=int, default=10, help="transcript turns per prompt")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not args.model.is_file():
        print(f"error: no model file at {args.model}", file=sys.stderr)
        return 1
    report = run(args.model, args.doc_tokens, args.rounds, args.n_ctx, args.gpu_layers,
                 args.max_tokens_scale, args.turns)
    print_table(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
