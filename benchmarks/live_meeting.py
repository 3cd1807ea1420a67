"""The whole app in a live room: benchmark conversations spoken aloud, played in real time.

    python benchmarks/live_meeting.py SET_DIR --out DIR [--documents d01,d03] [--limit N]
        [--direct K] [--compare-replay | --replay-from DIR] [--model SPEC] [--speed X] [--room]
        [--pauses script|ami] [--render-only]

Each conversation of a set in the ``BENCHMARK.md`` format is rendered to one
multi-speaker 16 kHz recording (``benchmarks/live/render.py``; cached by content hash
under the cache dir), with K direct questions ("Hey Jarvis, ...") taken from the same
document's QA items where the set has them, and played in real time through the whole
app: speech worker -> backbone worker -> floor (speak mode, default patience) -> voice
into a null sink that still feeds the echo reference (``benchmarks/live/room.py``).
Rendering takes longer than real time on a small CPU: ``--render-only`` fills the cache
first (any time), so the timed playback later runs on a quiet machine.

Writes, under DIR:
- ``decisions.jsonl``: one line per scripted turn in the replay's decision format, with
  what the room heard attached to the turn during or after which it was spoken;
- ``report.json`` / ``report.md`` / ``report.png``: the replay scorer's per-type table;
- ``qa.jsonl``: the direct answers as ``jarvis qa`` scores them;
- ``live.json`` / ``live.md``: decision lag, backlog, speak delay, direct first audio,
  CPU share of speech vs model, where the time goes, playbacks begun over a participant,
  the share of input frames judged more than 0.3 s late, next to the text replay of the
  same conversations (``--compare-replay``, under ``DIR/replay``).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from live import score  # noqa: E402
from live.pauses import meeting_pauses  # noqa: E402
from live.render import Question, RoomSettings, Voices, render  # noqa: E402
from live.room import JUDGED_LATE_S, PAUSE_START_S, play  # noqa: E402
from live.yielding import as_played  # noqa: E402

from app.eval.dataset import (  # noqa: E402
    BenchmarkSet,
    Conversation,
    DocumentCase,
    QAItem,
    read_qa,
    read_set,
)
from app.eval.qa import summarise_qa  # noqa: E402
from app.eval.report import markdown_table, write_replay_report  # noqa: E402
from app.eval.scoring import (  # noqa: E402
    ReplayReport,
    lexical_similarity,
    score_replay,
    share_pct,
)
from app.paths import cache_dir  # noqa: E402
from app.settings import FloorMode, Patience, Settings  # noqa: E402
from app.speech.audio import MIC_QUEUE_BLOCKS  # noqa: E402

log = logging.getLogger("live_meeting")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("set_dir", type=Path, help="benchmark set folder (with manifest.json)")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--documents", help="comma-separated document folders, e.g. d01,d03")
    p.add_argument("--limit", type=int, help="at most N scripted turns per conversation")
    p.add_argument("--direct", type=int, default=2, help="direct questions per conversation")
    p.add_argument("--qa", type=Path, help="QA items (default: qa*.jsonl beside or above the set)")
    p.add_argument("--compare-replay", action="store_true", help="also run the text replay")
    p.add_argument("--replay-from", type=Path,
                   help="compare with the decisions.jsonl of an earlier text replay of the "
                        "same set instead of running it again")  # fmt: skip
    p.add_argument("--model", help="model name, .gguf path or http://host:port/v1 URL")
    p.add_argument("--speed", type=float, default=1.0, help="playback speed (1 = real time)")
    p.add_argument("--room", action="store_true", help="room noise and reverberation")
    p.add_argument("--talks-on", action="store_true",
                   help="participants keep the recording's times whatever the agent says "
                        "(the worst room); by default a turn not yet begun waits while the "
                        "agent speaks, as people do (live/yielding.py)")  # fmt: skip
    p.add_argument("--pauses", choices=["script", "ami"], default="script",
                   help="gaps between turns: the script's times (natural gaps where it has "
                        "none), or drawn from the silences of the real AMI meetings in "
                        "../shared/data/ami_rttm (live/pauses.py)")  # fmt: skip
    p.add_argument("--tail", type=float, default=120.0,
                   help="seconds the agent may still take after the recording ends")  # fmt: skip
    p.add_argument("--mic-buffer", type=int, default=MIC_QUEUE_BLOCKS,
                   help="blocks of 32 ms a lagging speech worker may fall behind before "
                        "audio is lost, as from a microphone (0: nothing is lost)")
    p.add_argument("--similarity", choices=["minilm", "lexical"], default="minilm")
    p.add_argument("--draft-tokens", type=int,
                   help="speculative decoding: tokens guessed per model step (default: the "
                        "product's)")  # fmt: skip
    p.add_argument("--batch-threads", type=int,
                   help="llama.cpp threads for reading a prompt (default: the product's)")
    p.add_argument("--cache", type=Path, default=cache_dir() / "live_meeting")
    p.add_argument("--render-only", action="store_true",
                   help="render the conversations into the cache and stop (playback on a "
                        "quiet machine later finds them there)")  # fmt: skip
    return p.parse_args(argv)


def live_settings(draft_tokens: int | None = None, batch_threads: int | None = None
                  ) -> Settings:
    """The product defaults, in speak mode with default patience; the model options
    given replace the product's."""
    s = Settings()
    given: dict[str, Any] = {"draft_tokens": draft_tokens, "batch_threads": batch_threads}
    llm = dataclasses.replace(s.llm, **{k: v for k, v in given.items() if v is not None})
    return dataclasses.replace(
        s,
        floor=dataclasses.replace(s.floor, mode=FloorMode.SPEAK),
        ledger=dataclasses.replace(s.ledger, patience=Patience.DEFAULT),
        llm=llm,
    )


# --- direct questions ---------------------------------------------------------------------


def find_qa(set_dir: Path) -> Path | None:
    for folder in (set_dir, set_dir.parent):
        found = sorted(folder.glob("qa*.jsonl"))
        if found:
            return found[0]
    return None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def items_for(case: DocumentCase, items: tuple[QAItem, ...]) -> list[QAItem]:
    """The QA items about this case's document (same folder name or same file)."""
    own = _digest(case.document)
    return [i for i in items if i.document.stem == case.name or _digest(i.document) == own]


def question_slots(conversation: Conversation, case: DocumentCase, k: int,
                   limit: int | None) -> list[int]:  # fmt: skip
    """Turns after which to ask: spread over the talk, clear of every event's window."""
    turns = [t.turn for t in conversation.turns[:limit]]
    events = [e for e in case.events if e.conversation == conversation.name]
    busy = {t for e in events for t in range(e.onset_turn - 1, e.window_start + 3)}
    free = [t for t in turns[1:-1] if t not in busy]
    slots: list[int] = []
    for j in range(min(k, len(free))):
        want = turns[0] + (j + 1) * len(turns) / (k + 1)
        slots.append(min((t for t in free if t not in slots), key=lambda t: abs(t - want)))
    return sorted(slots)


def questions(conversation: Conversation, case: DocumentCase, items: list[QAItem], k: int,
              limit: int | None, asked: int = 0) -> list[Question]:  # fmt: skip
    """Up to ``k`` questions; ``asked`` earlier ones of this document are not repeated
    while the document has others."""
    slots = question_slots(conversation, case, k, limit) if items else []
    picked = [items[(asked + j) % len(items)] for j in range(len(slots))]
    return [Question(s, i.question, i.id) for s, i in zip(slots, picked, strict=True)]


# --- the run ------------------------------------------------------------------------------

AMI_RTTMS = ROOT.parent / "shared" / "data" / "ami_rttm" / "rttms"


def room_settings(args: argparse.Namespace) -> RoomSettings:
    room = RoomSettings(noise_snr_db=25.0, reverb_rt60=0.35) if args.room else RoomSettings()
    if args.pauses == "ami":
        room = dataclasses.replace(room, pauses=meeting_pauses(AMI_RTTMS))
    return room


def run_live(args: argparse.Namespace, benchmark: BenchmarkSet, settings: Settings,
             qa: tuple[QAItem, ...]) -> list[score.ConversationResult]:  # fmt: skip
    voices = Voices(settings.voice)
    room = room_settings(args)
    by_id = {i.id: i for i in qa}
    runs = []
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "decisions.jsonl").open("w", encoding="utf-8") as lines, \
            (args.out / "qa.jsonl").open("w", encoding="utf-8") as answers:  # fmt: skip
        for case in benchmark.documents:
            items, so_far = items_for(case, qa), 0
            for conversation in case.conversations:
                asked = questions(conversation, case, items, args.direct, args.limit, so_far)
                so_far += len(asked)
                turns = conversation.turns[: args.limit]
                rendering = render(turns, asked, voices, args.cache, room)
                print(f"{case.name}/{conversation.name}: {len(turns)} turns, {len(asked)} "
                      f"questions, {rendering.duration:.0f} s, voices {rendering.voices}",
                      flush=True)  # fmt: skip
                if args.render_only:
                    continue
                record = args.out / "sessions" / f"{case.name}-{conversation.name}.jsonl"
                room_log = play(rendering.audio, case.document, settings, args.model, record,
                                args.speed, args.tail, max_queued=args.mic_buffer or None,
                                lines=None if args.talks_on else rendering.lines)
                played = as_played(rendering, room_log.holds)
                run = score.result(case.name, conversation.name, played, room_log, by_id,
                                   settings.utterance.abstain_text)  # fmt: skip
                _write(lines, [r.to_json() for r in run.lines])
                _write(answers, [r.to_json() for r in run.qa])
                runs.append(run)
    return runs


def _write(sink: Any, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    sink.flush()


def run_replay(args: argparse.Namespace, benchmark: BenchmarkSet, settings: Settings,
               similarity: Any) -> ReplayReport:  # fmt: skip
    from app.eval.factory import ModelBackboneFactory
    from app.eval.replay import replay

    factory = ModelBackboneFactory(args.model, settings)
    try:
        decisions = replay(benchmark, args.out / "replay", factory, args.limit, progress=False)
    finally:
        factory.close()
    report = score_replay(benchmark, decisions, similarity)
    write_replay_report(report, args.out / "replay", {"set": benchmark.name, "limit": args.limit})
    return report


def earlier_replay(args: argparse.Namespace, benchmark: BenchmarkSet,
                   similarity: Any) -> ReplayReport | None:  # fmt: skip
    """The scored decisions of an earlier replay, limited to this run's conversations."""
    if args.replay_from is None:
        return None
    from app.eval.records import read_decisions

    folder = args.replay_from
    path = folder / "decisions.jsonl" if folder.is_dir() else folder
    kept = {(case.name, c.name, t.turn) for case in benchmark.documents
            for c in case.conversations for t in c.turns[: args.limit]}  # fmt: skip
    decisions = [d for d in read_decisions(path) if (d.document, d.conversation, d.turn) in kept]
    return score_replay(benchmark, decisions, similarity)


# --- summary ------------------------------------------------------------------------------


def summary(benchmark: BenchmarkSet, runs: list[score.ConversationResult],
            report: ReplayReport, replayed: ReplayReport | None,
            meta: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    lags = [x for r in runs for x in r.decision_lag_s]
    delay_turns, delay_s = score.speak_delays(benchmark, report, runs)
    qa = [q for r in runs for q in r.qa]
    meeting = sum(r.meeting_s for r in runs)
    stages = score.stage_seconds(runs)
    direct = summarise_qa(qa) if qa else {}
    return {
        "meta": meta,
        "meeting_s": round(meeting, 1),
        "run_s": round(sum(r.wall_s for r in runs), 1),
        "decision_lag_s": score.spread(lags, top=True),
        "turn_delay_s": score.spread([x for r in runs for x in r.turn_delay_s], top=True),
        "undecided_turns": sum(r.undecided for r in runs),
        "backlog_max": max((r.backlog_max for r in runs), default=0),
        "turns_waiting_max": max((r.turns_waiting_max for r in runs), default=0),
        "speak_delay_turns": score.spread(delay_turns),
        "speak_delay_s": score.spread(delay_s),
        "direct_first_audio_s": score.spread([x for r in runs for x in r.direct_first_audio_s]),
        "direct_stages_s": score.direct_stage_spread(runs),
        "direct": {k: direct.get(k) for k in ("items", "accuracy_pct", "token_f1", "cited_pct",
                                              "citation_hit_pct", "abstention_pct")},
        "cpu_share": score.cpu_share(runs),
        "model_busy_per_meeting_s": round(sum(stages.values()) / meeting, 2) if meeting else None,
        "stages_s": stages,
        "audio_dropped_s": round(sum(r.audio_dropped_s for r in runs), 2),
        "heard_late_pct": share_pct(sum(r.levels[1] for r in runs), sum(r.levels[0] for r in runs)),
        "heard_late_at_pause_start_pct": share_pct(sum(r.pause_levels[1] for r in runs),
                                                   sum(r.pause_levels[0] for r in runs)),
        "playbacks": {"begun": sum(r.playbacks[0] for r in runs),
                      "cut_short": sum(r.playbacks[1] for r in runs),
                      "begun_over_speech": sum(r.playbacks[2] for r in runs)},
        "room_waited": {"turns": sum(r.room_waited[0] for r in runs),
                        "seconds": round(sum(r.room_waited[1] for r in runs), 1)},
        "conversations": [{"document": r.document, "conversation": r.conversation,
                           "meeting_s": round(r.meeting_s, 1), "speakers_scripted": r.speakers[0],
                           "speakers_recognized": r.speakers[1], "backlog_max": r.backlog_max,
                           "decision_lag_s": score.spread(r.decision_lag_s, top=True)}
                          for r in runs],
        "types": [vars(t) for t in report.types],
        "unprompted_per_100_turns": report.unprompted_per_100,
        "replay": None if replayed is None else {
            "types": [vars(t) for t in replayed.types],
            "unprompted_per_100_turns": replayed.unprompted_per_100,
            "latency_ms": vars(replayed.latency)},
    }  # fmt: skip


def live_markdown(data: dict[str, Any]) -> str:
    def cell(spread: dict[str, Any]) -> str:
        return " / ".join("–" if v is None else f"{v:.1f}" for v in spread.values())

    headline = markdown_table(["measure", "value"], [
        ["meeting seconds", data["meeting_s"]],
        ["decision lag s p50 / p95 / max", cell(data["decision_lag_s"])],
        ["turn recognized s after its speech p50 / p95 / max", cell(data["turn_delay_s"])],
        ["backlog max (worker) / turns without a verdict max", f"{data['backlog_max']} / "
                                                    f"{data['turns_waiting_max']}"],
        ["speak delay turns p50 / p95", cell(data["speak_delay_turns"])],
        ["speak delay s p50 / p95", cell(data["speak_delay_s"])],
        ["direct first audio s p50 / p95", cell(data["direct_first_audio_s"])],
        *[[f"direct {k.removesuffix('_s').replace('_', ' ')} s p50 / p95", cell(v)]
          for k, v in data["direct_stages_s"].items() if k != "first_audio_s"],
        ["direct accuracy % / citation hit %", f"{data['direct']['accuracy_pct']} / "
                                               f"{data['direct']['citation_hit_pct']}"],
        ["model busy s per meeting s", data["model_busy_per_meeting_s"]],
        ["audio dropped s", data["audio_dropped_s"]],
        [f"input frames judged > {JUDGED_LATE_S} s after they were heard %",
         _n(data["heard_late_pct"])],
        [f"the same in the first {PAUSE_START_S} s of a pause after a turn %",
         _n(data["heard_late_at_pause_start_pct"])],
        ["playbacks begun / cut short / begun over a participant",
         f"{data['playbacks']['begun']} / {data['playbacks']['cut_short']} / "
         f"{data['playbacks']['begun_over_speech']}"],
        ["turns the room held for the agent / seconds", f"{data['room_waited']['turns']} / "
                                                        f"{data['room_waited']['seconds']}"],
    ])  # fmt: skip
    cpu = data["cpu_share"]
    where = markdown_table(
        ["where the time goes", "seconds"],
        [[f"CPU: {k}", v] for k, v in cpu["seconds"].items()]
        + [[f"backbone stage: {k}", v] for k, v in data["stages_s"].items()],
    )
    replay = {t["type"]: t for t in (data["replay"] or {}).get("types", [])}
    keys = ("addressed_pct", "correct_when_spoken_pct", "good_pct")
    types = markdown_table(
        ["type", "events", *(f"{k} live / replay" for k in keys)],
        [[t["type"], t["events"], *(f"{_n(t[k])} / {_n(replay.get(t['type'], {}).get(k))}"
                                    for k in keys)] for t in data["types"]],
    )  # fmt: skip
    return "\n\n".join(["# Live meeting", headline, f"CPU cores busy: {cpu['cores_busy']}",
                        where, types]) + "\n"  # fmt: skip


def _n(value: Any) -> str:
    return "–" if value is None else f"{value:.1f}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    only = [d.strip() for d in args.documents.split(",")] if args.documents else None
    benchmark = read_set(args.set_dir, only)
    qa_path = args.qa or find_qa(args.set_dir)
    qa = read_qa(qa_path) if qa_path is not None and args.direct > 0 else ()
    settings = live_settings(args.draft_tokens, args.batch_threads)
    if args.similarity == "lexical":
        similarity: Any = lexical_similarity
    else:
        from app.embedding import get_embedder

        similarity = functools.lru_cache(maxsize=4096)(get_embedder().cosine)
    runs = run_live(args, benchmark, settings, qa)
    if args.render_only:
        return 0
    decisions = [line for r in runs for line in r.lines]
    report = score_replay(benchmark, decisions, similarity)
    meta = {"set": benchmark.name, "model": args.model or "default", "limit": args.limit,
            "direct": args.direct, "speed": args.speed, "room": args.room,
            "room_yields": not args.talks_on,
            "pauses": args.pauses, "draft_tokens": settings.llm.draft_tokens,
            "batch_threads": settings.llm.batch_threads,
            "mic_buffer": args.mic_buffer,
            "similarity": args.similarity}  # fmt: skip
    write_replay_report(report, args.out, meta)
    replayed = earlier_replay(args, benchmark, similarity)
    if replayed is None and args.compare_replay:
        replayed = run_replay(args, benchmark, settings, similarity)
    data = summary(benchmark, runs, report, replayed, meta)
    (args.out / "live.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (args.out / "live.md").write_text(live_markdown(data), encoding="utf-8")
    print((args.out / "live.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
