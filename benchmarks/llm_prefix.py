"""Per-call latency of a monitor-sized request with the document prefix cached vs recomputed.

Uses the dev-set document (``../shared/benchmark/dev/d01/document.pdf``) when present,
indexed by ``app.document`` (or PyMuPDF plain text if that is unavailable), otherwise a
generated text; the numbered block is cut to ``--tokens`` tokens. Both modes run in one
process on one loaded model: "uncached" drops every cached prefix before each call,
"cached" warms the prefix once and then varies only the user part, as turns do.

    python benchmarks/llm_prefix.py [--model llm-1.5b] [--tokens 4500] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.llm import LLMRequest, LLMResponse  # noqa: E402
from app.llm.factory import resolve_model_path  # noqa: E402
from app.llm.llama import LlamaBackend  # noqa: E402
from app.settings import LLMSettings  # noqa: E402

DEFAULT_DOC = REPO.parent / "shared" / "benchmark" / "dev" / "d01" / "document.pdf"
INSTRUCTIONS = (
    "You follow a meeting and check what people say against the document below. "
    "Each sentence has an ID [S#]. Report claims that contradict the document and "
    "questions the document answers, citing sentence IDs. Reply with JSON only.\n\nDocument:\n"
)
SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["none", "contradiction", "answerable"]},
        "sids": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
    },
    "required": ["verdict", "sids"],
    "additionalProperties": False,
}
TURNS = [
    "A: So the graph only covers computer science papers, right?\nB: I think it also has "
    "biomedical papers.\nC: How many papers are in it?",
    "A: They link entities with a simple string match.\nB: No, I remember a learned model.\n"
    "C: Which one did they use?",
    "A: The paper was at NAACL 2018.\nB: And the graph is built every week?\n"
    "C: Let's check the numbers on the relations.",
    "A: Did they evaluate the entity linking?\nB: Yes, on a hand-labelled sample.\n"
    "C: What was the precision?",
    "A: The citation contexts come from the full text.\nB: Only from abstracts, I think.\n"
    "C: Which is it?",
    "A: So who maintains the graph?\nB: The Allen Institute, I believe.\n"
    "C: Is the data public?",
]


def document_text(path: Path | None) -> tuple[str, str]:
    if path is not None and path.exists():
        try:
            from app.document import open_document

            return open_document(path).numbered_block(), f"{path} (app.document)"
        except ImportError:
            import fitz

            with fitz.open(path) as doc:
                text = "\n".join(page.get_text() for page in doc)
            return text, f"{path} (PyMuPDF text)"
    lines = [
        f"[S{i}] In year {1900 + i % 120}, station {i} recorded {i * 7 % 97} millimetres of "
        f"rain and a mean temperature of {i % 31} degrees across {i % 12 + 1} sites."
        for i in range(400)
    ]
    return "\n".join(lines), "generated"


def cut_to_tokens(backend: LlamaBackend, text: str, limit: int) -> str:
    def count(t: str) -> int:
        return int(backend._worker.call(lambda s: len(s.llm.tokenize(t.encode(), False, True)))
                   .result())

    lines = text.splitlines()
    lo, hi = 0, len(lines)
    while lo < hi:  # largest line count that fits
        mid = (lo + hi + 1) // 2
        if count("\n".join(lines[:mid])) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return "\n".join(lines[:lo])


def request(system: str, i: int) -> LLMRequest:
    user = f"Recent turns:\n{TURNS[i % len(TURNS)]}\n\nCheck the last turn."
    return LLMRequest("monitor", system, user, SCHEMA, 0.1, 48)


def row(mode: str, i: int, r: LLMResponse) -> dict[str, Any]:
    return {"mode": mode, "call": i, "total_ms": round(r.total_ms, 1),
            "ttft_ms": round(r.ttft_ms, 1), "prompt_tokens": r.prompt_tokens,
            "cached_tokens": r.cached_tokens, "evaluated_tokens": r.prompt_tokens - r.cached_tokens,
            "completion_tokens": r.completion_tokens}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llm-1.5b", help="manifest name or .gguf path")
    ap.add_argument("--document", type=Path, default=DEFAULT_DOC)
    ap.add_argument("--tokens", type=int, default=4500, help="cut the document block to this")
    ap.add_argument("--uncached", type=int, default=2)
    ap.add_argument("--cached", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "llm_prefix.json")
    args = ap.parse_args(argv)

    load_before = os.getloadavg()
    settings = LLMSettings(context_tokens=args.tokens + 1024, threads=args.threads)
    t0 = time.perf_counter()
    backend = LlamaBackend(resolve_model_path(args.model), settings)
    load_s = time.perf_counter() - t0
    text, source = document_text(args.document)
    system = INSTRUCTIONS + cut_to_tokens(backend, text, args.tokens)

    rows = []
    for i in range(args.uncached):
        backend.reset()  # nothing cached: the whole prefix is evaluated again
        rows.append(row("uncached", i, backend.complete(request(system, i))))
        print(rows[-1], flush=True)
    t0 = time.perf_counter()
    if not args.uncached:  # otherwise the last uncached call left the prefix in the cache
        backend.warm(system)
    warm_s = time.perf_counter() - t0
    for i in range(args.cached):
        # Turns not seen before: only the user part may be evaluated, never a full hit.
        rows.append(row("cached", i, backend.complete(request(system, args.uncached + i))))
        print(rows[-1], flush=True)
    backend.close()

    def median(mode: str, key: str) -> float:
        return float(statistics.median(r[key] for r in rows if r["mode"] == mode))

    speedup = median("uncached", "total_ms") / median("cached", "total_ms")
    summary = {
        "model": args.model, "document": source, "prefix_tokens": rows[0]["prompt_tokens"],
        "load_s": round(load_s, 2), "warm_s": round(warm_s, 2),
        "uncached_median_ms": median("uncached", "total_ms"),
        "cached_median_ms": median("cached", "total_ms"),
        "speedup": round(speedup, 1), "target_speedup": 10.0,
        "threads": settings.threads, "cpu_count": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
    }
    print_table(rows, summary)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "calls": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


def print_table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    print(f"\nmodel {summary['model']} | document {summary['document']} | "
          f"prompt {summary['prefix_tokens']} tokens | load {summary['load_s']} s | "
          f"warm {summary['warm_s']} s | loadavg {summary['loadavg_before'][0]:.1f}")
    header = ("mode", "call", "total_ms", "ttft_ms", "prompt", "cached", "evaluated", "completion")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        cells = (r["mode"], r["call"], r["total_ms"], r["ttft_ms"], r["prompt_tokens"],
                 r["cached_tokens"], r["evaluated_tokens"], r["completion_tokens"])
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print(f"median uncached {summary['uncached_median_ms']:.0f} ms, cached "
          f"{summary['cached_median_ms']:.0f} ms -> {summary['speedup']}x (target >= 10x)")


if __name__ == "__main__":
    sys.exit(main())
