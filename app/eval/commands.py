"""``jarvis replay`` and ``jarvis qa``: run the benchmark sets and write their reports."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.settings import AnswerCheck, Detector

log = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    replay = subparsers.add_parser(
        "replay", help="replay a benchmark set turn by turn and score the interventions"
    )
    replay.add_argument("set_dir", type=Path, help="benchmark set folder (with manifest.json)")
    _common(replay)
    replay.add_argument("--patience", choices=["enthusiastic", "default", "deferent"])
    replay.add_argument(
        "--no-deference", action="store_true", help="no gate and no self-repair (the ablation)"
    )
    replay.add_argument(
        "--resume",
        action="store_true",
        help="keep the conversations already complete in --out and replay the rest",
    )
    replay.add_argument("--documents", help="comma-separated document folders, e.g. budget,roofs")
    replay.add_argument(
        "--documents-from",
        type=Path,
        help="file of document folders, one per line (e.g. a set's check.txt); "
        "adds to --documents",
    )
    replay.add_argument(
        "--screen",
        choices=["auto", "on", "off"],
        help="skip the monitor on turns where nothing is at stake (auto: in focused mode)",
    )
    replay.add_argument(
        "--attribution-threshold",
        type=float,
        default=None,
        help="claim similarity needed to attribute an intervention to an event",
    )
    replay.add_argument(
        "--similarity",
        choices=["minilm", "lexical"],
        default="minilm",
        help="claim similarity for attribution (lexical loads no model)",
    )
    replay.set_defaults(handler=run_replay_command)

    qa = subparsers.add_parser("qa", help="ask a direct-QA set and score the answers")
    qa.add_argument("qa_file", type=Path, help="JSONL of {id, document, question, gold, ...}")
    _common(qa)
    qa.add_argument("--root", type=Path, help="folder the items' document paths start from")
    qa.set_defaults(handler=run_qa_command)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--model", help="model name, .gguf path or http://host:port/v1 URL")
    parser.add_argument("--limit", type=int, help="at most N turns per conversation (items)")
    parser.add_argument("--context-mode", choices=["auto", "full", "focused"])
    parser.add_argument(
        "--draft-tokens",
        type=int,
        help="speculative decoding: tokens guessed per model step (0: one token a step)",
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="score the run already in --out without running a model",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--without",
        action="append",
        choices=sorted(WITHOUT),
        default=[],
        help="leave one mechanism out, for an ablation (repeatable): a detector, an "
        "answer check, the correction veto, the off-document check, the turn screening, "
        "the count of turns that let a claim stand, or the direct answers' value check",
    )


SCREEN = {"auto": None, "on": True, "off": False}


def _ledger(**changes: Any) -> Callable[[Any], Any]:
    return lambda settings: dataclasses.replace(
        settings, ledger=dataclasses.replace(settings.ledger, **changes))


def _utterance(**changes: Any) -> Callable[[Any], Any]:
    return lambda settings: dataclasses.replace(
        settings, utterance=dataclasses.replace(settings.utterance, **changes))


def _without_detector(name: Detector) -> Callable[[Any], Any]:
    def drop(settings: Any) -> Any:
        kept = tuple(d for d in settings.ledger.detectors if d != name)
        return _ledger(detectors=kept)(settings)

    return drop


def _without_check(name: AnswerCheck) -> Callable[[Any], Any]:
    def drop(settings: Any) -> Any:
        kept = tuple(c for c in settings.utterance.answer_checks if c != name)
        return _utterance(answer_checks=kept)(settings)

    return drop


# What ``replay --without NAME`` turns off, as a change to the settings.
WITHOUT: dict[str, Callable[[Any], Any]] = {
    **{f"detector-{d}": _without_detector(d) for d in Detector},
    **{f"check-{c}": _without_check(c) for c in AnswerCheck},
    "veto": _ledger(correction_veto=False),
    "off-document": _ledger(off_document_min_shared=0),
    "screening": _ledger(screen_turns=False),
    "standing": _ledger(count_standing_turns=False),
    "restated": _ledger(count_restated=False),
    "unanswered": _ledger(count_unanswered=False),
    "direct-value": _utterance(direct_value_check=False),
    "quote-values": _utterance(quote_checked_values=False),
    "quote-corrections": _utterance(quote_corrections=False),
    "quote-direct": _utterance(quote_direct_coverage=0.0),
    "quote-any": _utterance(quote_any_coverage=0.0),
    "quote-picks": _utterance(quote_model_picks=False),
    "quote-gaps": _utterance(quote_open_questions=False),
    "quote-covering": _utterance(quote_covering_answers=False),
    "quote-denials": _utterance(quote_denials=False),
    "guard-closes": _ledger(guard_closes_corrections=False),
    "heard-closes": _ledger(close_heard_claims=False),
}


def build_settings(args: argparse.Namespace) -> Any:
    """Product settings with the command's overrides."""
    from app.settings import ContextMode, Patience, Settings

    settings = Settings()
    ledger, llm = settings.ledger, settings.llm
    if getattr(args, "patience", None):
        ledger = dataclasses.replace(ledger, patience=Patience(args.patience))
    if getattr(args, "no_deference", False):
        ledger = dataclasses.replace(ledger, deference=False)
    screen = getattr(args, "screen", None)
    if screen:
        ledger = dataclasses.replace(ledger, screen_turns=SCREEN[screen])
    if getattr(args, "context_mode", None):
        llm = dataclasses.replace(llm, context_mode=ContextMode(args.context_mode))
    if getattr(args, "draft_tokens", None) is not None:
        llm = dataclasses.replace(llm, draft_tokens=max(0, args.draft_tokens))
    settings = dataclasses.replace(settings, ledger=ledger, llm=llm)
    for name in getattr(args, "without", None) or ():
        settings = WITHOUT[name](settings)
    return settings


def _guarded(handler: Any) -> Any:
    """Typed errors with a user message end the command with that message, not a trace."""

    @functools.wraps(handler)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return int(handler(args))
        except KeyboardInterrupt:
            print("Interrupted; the lines written so far are kept.", file=sys.stderr)
            return 130
        except Exception as exc:
            message = getattr(exc, "user_message", None)
            if message is None:
                raise
            print(f"jarvis {args.command}: {message}", file=sys.stderr)
            return 2

    return wrapper


def _minilm_similarity() -> Any:
    from app.embedding import get_embedder

    return functools.lru_cache(maxsize=4096)(get_embedder().cosine)


def selected_documents(args: argparse.Namespace) -> list[str] | None:
    """The documents --documents and --documents-from name together (None: all)."""
    from app.eval.dataset import read_document_list

    names = [d.strip() for d in args.documents.split(",") if d.strip()] if args.documents else []
    if getattr(args, "documents_from", None) is not None:
        names += read_document_list(args.documents_from, args.set_dir)
    return list(dict.fromkeys(names)) or None


@_guarded
def run_replay_command(args: argparse.Namespace) -> int:
    from app.eval.dataset import read_set
    from app.eval.records import read_decisions
    from app.eval.replay import replay
    from app.eval.report import write_replay_report
    from app.eval.scoring import ScoringSettings, lexical_similarity, score_replay

    benchmark = read_set(args.set_dir, selected_documents(args))
    settings = build_settings(args)
    if args.rescore:
        decisions = read_decisions(args.out / "decisions.jsonl")
    else:
        factory = backbone_factory(args.model, settings)
        try:
            decisions = replay(
                benchmark, args.out, factory, args.limit, not args.no_progress, args.resume
            )
        finally:
            factory.close()
    similarity = lexical_similarity if args.similarity == "lexical" else _minilm_similarity()
    scoring = ScoringSettings()
    if args.attribution_threshold is not None:
        scoring = dataclasses.replace(scoring, attribution_threshold=args.attribution_threshold)
    report = score_replay(benchmark, decisions, similarity, scoring)
    run = {
        "set": benchmark.name, "model": args.model or "default",
        "patience": settings.ledger.patience.value, "deference": not args.no_deference,
        "context_mode": settings.llm.context_mode.value, "limit": args.limit,
        "screen": args.screen or "auto", "without": sorted(args.without),
        "draft_tokens": settings.llm.draft_tokens,
    }  # fmt: skip
    meta = _run_meta(args.out, run, args.rescore) | {
        "similarity": args.similarity,
        "attribution_threshold": scoring.attribution_threshold,
    }
    write_replay_report(report, args.out, meta)
    print((args.out / "report.md").read_text(encoding="utf-8"))
    return 0


@_guarded
def run_qa_command(args: argparse.Namespace) -> int:
    from app.eval.dataset import read_qa
    from app.eval.qa import read_qa_records, run_qa, summarise_qa
    from app.eval.report import write_qa_report

    items = read_qa(args.qa_file, args.root)[: args.limit]
    settings = build_settings(args)
    if args.rescore:
        records = read_qa_records(args.out / "qa.jsonl")
    else:
        factory = backbone_factory(args.model, settings)
        try:
            records = run_qa(
                items, args.out, factory, settings.utterance.abstain_text, not args.no_progress
            )
        finally:
            factory.close()
    summary = summarise_qa(records)
    latencies = {
        "TTFT": [r.ttft_ms for r in records if r.ttft_ms is not None],
        "total": [r.total_ms for r in records if r.action != "error"],
    }
    run = {
        "file": args.qa_file.name,
        "model": args.model or "default",
        "limit": args.limit,
        "context_mode": settings.llm.context_mode.value,
        "draft_tokens": settings.llm.draft_tokens,
        "without": sorted(args.without),
    }
    meta = _run_meta(args.out, run, args.rescore)
    write_qa_report(summary, latencies, args.out, meta)
    print((args.out / "report.md").read_text(encoding="utf-8"))
    return 0


def _run_meta(out: Path, run: dict[str, Any], rescore: bool) -> dict[str, Any]:
    """How the run was made: saved beside its output, read back when rescoring."""
    path = out / "run.json"
    if rescore:
        try:
            return dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return run | {"note": "run settings unknown (no run.json)"}
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")
    return run


def backbone_factory(model: str | None, settings: Any) -> Any:
    """The backbone factory a run uses; tests swap this for a scripted one."""
    from app.eval.factory import ModelBackboneFactory

    return ModelBackboneFactory(model, settings)
