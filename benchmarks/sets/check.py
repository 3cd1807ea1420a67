"""Checks of a written set: the BENCHMARK.md format and the rules the generator keeps.

``problems(root)`` returns what is wrong (empty when the set is sound):
- it loads with the evaluator's own reader (``app.eval.dataset``), QA files included;
- turns numbered from 0, speakers S1, S2, ..., clean text, times moving forward;
- every trigger is its onset turn; claims short and never stating their gold;
- gold values inside the evidence, the evidence on its page; misattributions cite
  nothing and their planted values are absent here and present in their source;
- event shapes: questions at gap / unanswerable / resolved onsets, another speaker
  reacting; resolved answers and self-repairs state the gold within two turns;
- spacing: first onset at 10 or later, onsets 8 apart, windows inside the conversation;
- leakage: no turn states a gold value but a repair or an answer of that value;
- splits: tune and check partition the documents, quick lies in check;
- off-document conversations carry no events;
- no article reserved for outside evaluation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from app.eval.dataset import BenchmarkFormatError, read_qa, read_set
from benchmarks.sets.compose import WINDOW_TURNS
from benchmarks.sets.pdf import normalise, page_texts
from benchmarks.sets.sources import RESERVED_COVIDQA, reserved_titles
from benchmarks.sets.values import MAX_CLAIM_WORDS, parse_number, states, states_any

QUESTION_TYPES = ("gap", "unanswerable", "resolved_question")


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _absent(text: str, numbers: set[float], value: str) -> bool:
    parsed = parse_number(value)
    if parsed is not None:
        return parsed[0] not in numbers
    return re.search(r"(?<!\w)" + re.escape(value.lower()) + r"(?!\w)", text) is None


def _document_text(folder: Path) -> tuple[list[str], str, set[float]]:
    from benchmarks.sets.values import number_values

    pages = list(page_texts((folder / "document.pdf").read_bytes()))
    text = " ".join(pages)
    return pages, text.lower(), number_values(text)


def problems(root: Path, data: Path | None = None) -> list[str]:
    root = Path(root)
    out: list[str] = []
    try:
        benchmark = read_set(root)
    except BenchmarkFormatError as exc:
        return [exc.user_message]
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    names = [c.name for c in benchmark.documents]
    out += _splits(root, names)
    for qa in sorted(root.glob("qa*.jsonl")):
        try:
            items = read_qa(qa)
        except BenchmarkFormatError as exc:
            out.append(exc.user_message)
            continue
        out += [f"{qa.name}: {i.id}: no document" for i in items if not i.document.is_file()]
    texts = {n: _document_text(root / n) for n in names}
    for name in names:
        out += _document(root / name, benchmark.off_document, texts)
    out += _reserved(manifest, data)
    return out


def _splits(root: Path, names: Sequence[str]) -> list[str]:
    read = {}
    for label in ("tune", "check", "quick"):
        path = root / f"{label}.txt"
        read[label] = path.read_text(encoding="utf-8").split() if path.is_file() else []
    out = []
    if sorted(read["tune"] + read["check"]) != sorted(names):
        out.append("tune.txt and check.txt do not partition the documents")
    if not set(read["quick"]) <= set(read["check"]):
        out.append("quick.txt holds documents outside check.txt")
    return out


def _document(folder: Path, off: frozenset[tuple[str, str]],
              texts: dict[str, tuple[list[str], str, set[float]]]) -> list[str]:  # fmt: skip
    name = folder.name
    pages, low, numbers = texts[name]
    out: list[str] = []
    conversations = {p.stem: _jsonl(p) for p in sorted(folder.glob("*.jsonl"))
                     if p.name != "events.jsonl"}  # fmt: skip
    for conv, turns in conversations.items():
        out += _turns(f"{name}/{conv}", turns)
    events = _jsonl(folder / "events.jsonl")
    allowed: dict[tuple[str, int], set[str]] = {}
    by_conversation: dict[str, list[int]] = {}
    for event in events:
        where = f"{name} {event['id']}"
        conv = event["conversation"]
        turns = conversations[conv]
        if (name, conv) in off:
            out.append(f"{where}: an event in an off-document conversation")
        onset = event["onset_turn"]
        start = event.get("repair_turn", onset)
        by_conversation.setdefault(conv, []).append(onset)
        if start + WINDOW_TURNS > len(turns) - 1:
            out.append(f"{where}: window runs past the conversation")
            continue
        if event["trigger"] != turns[onset]["text"]:
            out.append(f"{where}: trigger is not turn {onset}")
        claim, golds = event["claim"], event["gold_values"]
        if not claim or len(claim.split()) > MAX_CLAIM_WORDS or states_any(claim, golds):
            out.append(f"{where}: claim empty, long or stating its gold")
        out += _evidence(where, event, pages)
        out += _shape(where, event, turns, allowed)
        out += _planted(where, event, low, numbers, texts)
    for conv, onsets in by_conversation.items():
        onsets.sort()
        if onsets[0] < 10 or any(b - a < 8 for a, b in zip(onsets, onsets[1:], strict=False)):
            out.append(f"{name}/{conv}: onsets {onsets} closer than the format allows")
    for event in events:
        for conv, turns in conversations.items():
            for turn in turns:
                ok = allowed.get((conv, turn["turn"]), set())
                leaked = [g for g in event["gold_values"]
                          if g.lower() not in ok and states(turn["text"], g)]  # fmt: skip
                if leaked:
                    out.append(f"{name}/{conv} turn {turn['turn']} states {leaked} of "
                               f"{event['id']}")  # fmt: skip
    return out


def _turns(where: str, turns: Sequence[dict]) -> list[str]:
    out = []
    previous = -1.0
    for index, turn in enumerate(turns):
        text = turn.get("text", "")
        if turn.get("turn") != index or not re.fullmatch(r"S\d+", str(turn.get("speaker"))):
            out.append(f"{where} turn {index}: numbering or speaker")
        if not text or text != text.strip() or re.search(r"\s{2,}|[\t\n\r]", text):
            out.append(f"{where} turn {index}: empty text or stray whitespace")
        if not turn["end"] > turn["start"] >= previous:
            out.append(f"{where} turn {index}: times")
        previous = turn["start"]
    return out


def _evidence(where: str, event: dict, pages: Sequence[str]) -> list[str]:
    if event["type"] == "misattribution":
        ok = event["evidence"] == "" and event["page"] is None and not event["gold_values"]
        return [] if ok else [f"{where}: a misattribution cites nothing"]
    page, evidence = event["page"], normalise(event["evidence"])
    if not isinstance(page, int) or not 1 <= page <= len(pages) or evidence not in pages[page - 1]:
        return [f"{where}: evidence not on page {page}"]
    return [f"{where}: gold {g!r} not in the evidence" for g in event["gold_values"]
            if normalise(g).lower() not in evidence.lower()]  # fmt: skip


def _shape(where: str, event: dict, turns: Sequence[dict],
           allowed: dict[tuple[str, int], set[str]]) -> list[str]:  # fmt: skip
    onset, kind, golds = event["onset_turn"], event["type"], event["gold_values"]
    asker = turns[onset]["speaker"]
    out = []
    if kind in QUESTION_TYPES and "?" not in turns[onset]["text"]:
        out.append(f"{where}: the cue is not a question")
    if kind in ("gap", "unanswerable", "wrong", "misattribution", "resolved_question") and \
            turns[onset + 1]["speaker"] == asker:  # fmt: skip
        out.append(f"{where}: nobody else reacts at onset + 1")
    if kind in ("unanswerable", "misattribution") and golds:
        out.append(f"{where}: {kind} with gold values")
    if kind in ("gap", "wrong", "self_correction", "resolved_question") and not golds:
        out.append(f"{where}: {kind} without gold values")
    said = None
    if kind == "resolved_question":
        said = onset + 1
        if turns[onset + 2]["speaker"] != asker:
            out.append(f"{where}: the asker does not acknowledge")
    if kind == "self_correction":
        said = event.get("repair_turn")
        if said not in (onset + 1, onset + 2):
            out.append(f"{where}: repair not within two turns")
            said = None
    if kind != "self_correction" and "repair_turn" in event:
        out.append(f"{where}: repair_turn on a {kind}")
    if said is not None:
        if not states_any(turns[said]["text"], golds):
            out.append(f"{where}: turn {said} does not state the gold")
        allowed.setdefault((event["conversation"], said), set()).update(g.lower() for g in golds)
    return out


def _planted(where: str, event: dict, low: str, numbers: set[float],
             texts: dict[str, tuple[list[str], str, set[float]]]) -> list[str]:  # fmt: skip
    planted = event.get("planted_values", [])
    kind = event["type"]
    if kind not in ("wrong", "self_correction", "misattribution"):
        return [f"{where}: planted values on a {kind}"] if planted else []
    out = []
    if not planted or not all(states(event["trigger"], p) for p in planted):
        out.append(f"{where}: planted values missing from the trigger")
    if kind in ("wrong", "self_correction"):
        if any(states(event["evidence"], p) for p in planted):
            out.append(f"{where}: a planted value is in the evidence")
        return out
    if not all(_absent(low, numbers, p) for p in planted):
        out.append(f"{where}: a misattributed value is in this document")
    source = texts.get(event.get("source_document", ""))
    if source is None or not all(not _absent(source[1], source[2], p) for p in planted):
        out.append(f"{where}: misattributed values not in the source document")
    return out


def _reserved(manifest: dict, data: Path | None) -> list[str]:
    out = []
    titles = reserved_titles(data) if data is not None else frozenset()
    for name, info in manifest.get("sources", {}).items():
        match = re.search(r"data\[(\d+)\]", info.get("origin", ""))
        if match and int(match.group(1)) in RESERVED_COVIDQA:
            out.append(f"{name}: a reserved COVID-QA article")
        key = re.sub(r"\W+", " ", info.get("title", "").lower()).strip()
        if key in titles:
            out.append(f"{name}: a document reserved for outside evaluation")
    return out
