"""Detector recall on the dev set, without a model: do the deterministic detectors put
the right proposal in front of the monitor, on the right turn?

Every conversation runs through the same retrieval and detectors as the harness
(``app.backbone.proposals.Proposer``; backchannels skipped). Per event type:
- wrong / self_correction: a number or name proposal on the onset turn or the next one
  whose value is a gold value ("detected"), split into number and name swaps;
- gap: an open-question proposal on one of the two turns after the question, whether
  it names the evidence sentence, whether the intervention would quote its answer
  sentence (``UtteranceSettings`` coverage thresholds) and whether that quote is the
  evidence sentence or holds a gold value;
- misattribution: an absent-finding proposal on the onset turn or the next one;
- resolved_question / unanswerable: any proposal in the window (false alarms);
- the answer coverage check (``detectors.covers``, ``UtteranceSettings.gap_min_coverage``)
  on the first answer sentence of a gap's or an unanswerable question's open-question
  proposal, at several thresholds: right answer sentences kept, wrong ones kept, and
  sentences kept for questions the document does not answer;
- ordinary turns outside every event window: proposals per 100 turns;
- the self-repair guard's own verdict (``app.backbone.guard``, the rule that closes a
  correction without the model): on a self-correction, does it close the claim at the
  repair turn; on a wrong claim, does it close it on a turn of the window (a correction
  the agent would then never make)?

    python benchmarks/detectors.py [--dev SET] [--documents-from FILE] [--split-sentences]
        [--out FILE]

``--split-sentences`` says each sentence of a turn as a turn of its own by the same
speaker, as a live room's endpointing cuts a speaker at their pauses; a scripted turn's
proposals are those of all its pieces.

Prints a table and writes benchmarks/results/detectors.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from retrieval_recall import evidence_sids  # noqa: E402

from app.backbone import guard  # noqa: E402
from app.backbone.context import EvidenceFinder  # noqa: E402
from app.backbone.detectors import DocumentFacts, Proposal, coverage, covers  # noqa: E402
from app.backbone.intervene import quoted_open_question  # noqa: E402
from app.backbone.proposals import BEFORE_LINES, Proposer  # noqa: E402
from app.backbone.retrieval import default_search  # noqa: E402
from app.backbone.transcript import Line  # noqa: E402
from app.backbone.verdict import Status  # noqa: E402
from app.document import open_document  # noqa: E402
from app.embedding import get_embedder  # noqa: E402
from app.eval.dataset import Event, read_set  # noqa: E402
from app.language.sentences import sentences  # noqa: E402
from app.language.talk import is_backchannel  # noqa: E402
from app.language.values import contains_any  # noqa: E402
from app.settings import Detector, Settings  # noqa: E402

WINDOW = 5  # turns after the onset that belong to an event (BENCHMARK.md)


def proposals_by_turn(proposer: Proposer, turns: list[tuple[int, str, str]],
                      split: bool = False) -> dict[int, list[Proposal]]:
    lines: list[Line] = []
    out: dict[int, list[Proposal]] = {}
    for index, speaker, text in turns:
        for piece in (sentences(text) if split else [text]):
            if is_backchannel(piece):
                continue
            # Pieces are turns of their own (their own index), scored as the scripted one.
            lines.append(Line(len(lines) if split else index, speaker, piece))
            found = proposer.for_turn(lines[-1], lines[-1 - BEFORE_LINES:-1]).found
            out[index] = out.get(index, []) + found
    return out


def _hits(found: dict[int, list[Proposal]], turns: range, kinds: set[str]) -> list[Proposal]:
    return [p for t in turns for p in found.get(t, []) if p.detector in kinds]


def score_event(event: Event, found: dict[int, list[Proposal]], gold: set[int],
                quote: Callable[[Proposal], tuple[int, str] | None] | None = None,
                covered: Callable[[Proposal], float] | None = None) -> dict:
    """One event's row; ``quote``: the sentence an open question would be answered with
    by quote (the intervener's rule), or None where the model would write it."""
    onset, row = event.onset_turn, {"id": event.id, "type": event.type}
    if event.type in ("wrong", "self_correction"):
        hits = _hits(found, range(onset, onset + 2), {"number", "name"})
        numeric = any(ch.isdigit() for v in event.gold_values for ch in v) or any(
            w in v.lower() for v in event.gold_values for w in ("eleven", "twelve", "fifteen"))
        row |= {"swap": "number" if numeric else "name",
                "detected": any(contains_any(p.predicted_answer, event.gold_values)
                                for p in hits),
                "proposed": bool(hits)}
    elif event.type == "gap":
        hits = _hits(found, range(onset + 1, onset + 3), {"open_question"})
        row |= {"proposed": bool(hits), "detected": any(set(p.sids) & gold for p in hits),
                "first": any(p.sids[:1] and p.sids[0] in gold for p in hits)}
        if covered is not None and hits and hits[0].sids:
            row |= {"coverage": covered(hits[0]), "first_right": hits[0].sids[0] in gold}
        if quote is not None and hits:
            quoted = quote(hits[0])
            row |= {"quoted": quoted is not None, "quoted_right": quoted is not None and (
                quoted[0] in gold or contains_any(quoted[1], event.gold_values)),
                "quote": quoted[1] if quoted else ""}
    elif event.type == "misattribution":
        row |= {"detected": bool(_hits(found, range(onset, onset + 2), {"absent"}))}
    else:  # resolved_question, unanswerable: any proposal is a false alarm
        hits = _hits(found, range(onset, onset + WINDOW + 1), set(Detector))
        row |= {"false_alarm": bool(hits), "detectors": sorted({p.detector for p in hits})}
        asked = [p for p in hits if p.detector == Detector.OPEN_QUESTION and p.sids]
        if covered is not None and asked:
            row["coverage"] = covered(asked[0])
    return row


def guard_closes(event: Event, texts: dict[int, str], window: int, share: float
                 ) -> bool | None:
    """Whether the guard alone closes the event's claim (its document value: the first
    gold value): at the repair turn of a self-correction, on any turn of a wrong claim's
    window. None for other events."""
    if event.type not in ("wrong", "self_correction") or not event.gold_values:
        return None
    raising = [texts.get(event.onset_turn, "")]
    if event.type == "self_correction":
        ends = [event.repair_turn] if event.repair_turn is not None else []
    else:
        ends = list(range(event.onset_turn + 1, event.onset_turn + WINDOW + 1))
    for end in ends:
        recent = [texts[t] for t in range(event.onset_turn + 1, end + 1) if t in texts]
        if guard.check(Status.INCORRECT, event.gold_values[0], recent[-window:], raising,
                       share).shown:
            return True
    return False


@functools.cache
def _off_document(dev: Path) -> frozenset[tuple[str, str]]:
    return read_set(dev).off_document


def read_set_off(dev: Path, document: str, conversation: str) -> bool:
    """The conversation is the set's off-document track (a meeting about something else)."""
    return (document, conversation) in _off_document(dev)


def _quoted(document: Any, facts: DocumentFacts, settings: Settings, proposal: Proposal
            ) -> tuple[int, str] | None:
    """The sentence the intervention would quote for an open question; None where the
    model would write it."""
    answer = quoted_open_question(document, proposal, facts, settings.utterance)
    return None if answer is None else (answer.sids[0], answer.text)


def _coverage(document: Any, facts: DocumentFacts, proposal: Proposal) -> float:
    """The highest threshold at which the answer check lets the proposal's first answer
    sentence through: its share of the question's words, or 1 where it states a quantity
    of what a "how many" question counts."""
    sentence = document.get(proposal.sids[0])
    if covers(proposal.question, sentence, facts, 1.0):
        return 1.0
    return round(coverage(proposal.question, sentence.text, document=facts.roots), 3)


COVERAGE_STEPS = (0.3, 0.4, 0.5, 0.6, 0.7)


def coverage_table(rows: list[dict]) -> dict[str, dict]:
    """Right and wrong gap answer sentences, and unanswerable questions' sentences, kept
    by the answer coverage check at each threshold."""
    right = [r["coverage"] for r in rows if r["type"] == "gap" and "coverage" in r
             and r["first_right"]]
    wrong = [r["coverage"] for r in rows if r["type"] == "gap" and "coverage" in r
             and not r["first_right"]]
    unanswerable = [r["coverage"] for r in rows if r["type"] == "unanswerable"
                    and "coverage" in r]
    return {f"{step:.1f}": {"right kept": sum(c >= step for c in right), "of right": len(right),
                            "wrong kept": sum(c >= step for c in wrong), "of wrong": len(wrong),
                            "unanswerable kept": sum(c >= step for c in unanswerable),
                            "of unanswerable": len(unanswerable)}
            for step in COVERAGE_STEPS}


def evaluate(dev: Path, only: list[str] | None = None, split: bool = False
             ) -> tuple[list[dict], dict[str, int]]:
    settings = Settings()
    embedder = get_embedder()
    rows: list[dict] = []
    background = {"turns": 0, "with_proposal": 0, "absent": 0, "off_turns": 0, "off_absent": 0}
    for case in read_set(dev, only).documents:
        index = open_document(case.document, settings.document)
        facts = DocumentFacts(index.sentences)
        search = default_search(index, embedder)
        for conversation in case.conversations:
            proposer = Proposer(index, EvidenceFinder(search, settings.llm.focused_top_k), facts,
                                similarity=embedder.cosine)
            found = proposals_by_turn(
                proposer, [(t.turn, t.speaker, t.text) for t in conversation.turns], split)
            events = [e for e in case.events if e.conversation == conversation.name]
            quote = functools.partial(_quoted, index, facts, settings)
            covered = functools.partial(_coverage, index, facts)
            texts = {t.turn: t.text for t in conversation.turns if not is_backchannel(t.text)}
            for event in events:
                row = score_event(event, found, evidence_sids(index, event.evidence)
                                  if event.evidence else set(), quote, covered)
                closes = guard_closes(event, texts, settings.ledger.guard_window_turns,
                                      settings.ledger.guard_min_token_share)
                rows.append(row if closes is None else row | {"guard_closes": closes})
            covered = {t for e in events for t in range(e.onset_turn, e.onset_turn + WINDOW + 1)}
            off = "off_" if read_set_off(dev, case.name, conversation.name) else ""
            for turn, hits in found.items():
                if turn not in covered:
                    background[f"{off}turns"] += 1
                    background[f"{off}absent"] += any(p.detector == "absent" for p in hits)
                    if not off:
                        background["with_proposal"] += bool(hits)
    return rows, background


def summarise(rows: list[dict], background: dict[str, int]) -> dict[str, dict]:
    def rate(members: list[dict], key: str) -> dict:
        n = len(members)
        return {"n": n, key: round(sum(r[key] for r in members) / n, 3) if n else None}

    groups = {
        "number swaps (wrong + self_correction)": rate(
            [r for r in rows if r.get("swap") == "number"], "detected"),
        "name swaps (wrong + self_correction)": rate(
            [r for r in rows if r.get("swap") == "name"], "detected"),
        "gap: open question proposed": rate([r for r in rows if r["type"] == "gap"], "proposed"),
        "gap: with the evidence sentence": rate(
            [r for r in rows if r["type"] == "gap"], "detected"),
        "gap: the evidence sentence first": rate(
            [r for r in rows if r["type"] == "gap"], "first"),
        "gap proposed: answered by quote": rate(
            [r for r in rows if "quoted" in r], "quoted"),
        "gap quoted: the evidence or the gold value": rate(
            [r for r in rows if r.get("quoted")], "quoted_right"),
        "self_correction: the guard closes at the repair": rate(
            [r for r in rows if r["type"] == "self_correction"], "guard_closes"),
        "wrong: the guard closes in the window": rate(
            [r for r in rows if r["type"] == "wrong"], "guard_closes"),
        "misattribution: absent finding proposed": rate(
            [r for r in rows if r["type"] == "misattribution"], "detected"),
        "resolved/unanswerable: false alarm": rate(
            [r for r in rows if r["type"] in ("resolved_question", "unanswerable")],
            "false_alarm"),
    }
    turns = background["turns"]
    groups["other turns: proposals per 100"] = {
        "n": turns, "per_100": round(100 * background["with_proposal"] / turns, 1) if turns
        else None}
    groups["other turns: absent findings per 100"] = {
        "n": turns, "per_100": round(100 * background["absent"] / turns, 1) if turns
        else None}
    off = background["off_turns"]
    groups["off-document turns: absent findings per 100"] = {
        "n": off, "per_100": round(100 * background["off_absent"] / off, 1) if off else None}
    return groups


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=REPO.parent / "shared" / "benchmark" / "dev")
    parser.add_argument("--documents-from", type=Path,
                        help="file of document folders, one per line (a set's check.txt)")
    parser.add_argument("--split-sentences", action="store_true",
                        help="each sentence of a turn as a turn of the same speaker")
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / "detectors.json")
    args = parser.parse_args()
    started = time.perf_counter()
    only = None
    if args.documents_from is not None:
        only = [x.strip() for x in args.documents_from.read_text().splitlines() if x.strip()]
    rows, background = evaluate(args.dev, only, args.split_sentences)
    table = summarise(rows, background)
    print(f"{'measure':<42}{'n':>5}{'rate':>8}")
    for name, stats in table.items():
        value = next(v for k, v in stats.items() if k != "n")
        print(f"{name:<42}{stats['n']:>5}{value if value is not None else '-':>8}")
    for row in rows:
        missed_repair = row["type"] == "self_correction" and row.get("guard_closes") is False
        if (row.get("detected") is False or row.get("false_alarm") or missed_repair
                or (row["type"] == "wrong" and row.get("guard_closes"))):
            print(f"  {row['id']} ({row['type']}): {row}")
    steps = coverage_table(rows)
    print("answer coverage check: threshold, right / wrong gap answer sentences kept, "
          "unanswerable questions' sentences kept")
    for step, kept in steps.items():
        print(f"  {step}: right {kept['right kept']}/{kept['of right']}, wrong "
              f"{kept['wrong kept']}/{kept['of wrong']}, unanswerable "
              f"{kept['unanswerable kept']}/{kept['of unanswerable']}")
    report = {"dev": str(args.dev), "split_sentences": args.split_sentences, "summary": table,
              "coverage_check": steps, "events": rows,
              "seconds": round(time.perf_counter() - started, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out} ({report['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
