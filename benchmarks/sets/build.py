"""Make a broad benchmark set (BENCHMARK.md layout) from the public data, from a seed.

    make_set(data_dir, out_dir, SetOptions(documents=48, seed=0))

Everything random comes from ``random.Random`` streams named after the seed (and the
document), and files are written in a fixed order, so one seed writes the same bytes.
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.sets import check as checks
from benchmarks.sets import qa as direct
from benchmarks.sets import split as splitting
from benchmarks.sets.compose import (
    Conversation,
    Filler,
    Line,
    asked_units,
    compose,
    meeting_window,
    own_units,
    timed,
)
from benchmarks.sets.events import (
    MAIN,
    RESOLVED,
    Decks,
    EventType,
    Neighbours,
    Voice,
    family_spread,
    forbidden_values,
    plan_document,
)
from benchmarks.sets.facts import DocumentText, Fact, document_facts
from benchmarks.sets.pdf import (
    DocumentSentence,
    RenderedDocument,
    normalise,
    page_sentences,
    page_texts,
    prepare,
)
from benchmarks.sets.sources import (
    RESERVED_COVIDQA,
    BlockKind,
    Dialogue,
    Source,
    SourceDocument,
    all_documents,
    qmsum_meetings,
    reserved_titles,
)
from benchmarks.sets.talk import Register, build_pools
from benchmarks.sets.values import DocumentValues, find_verbatim, states_any, trigrams

# Share of the set's documents per source (the ACL papers are two at most).
SHARES = {Source.ARGSCICHAT: 0.2, Source.CMUDOG: 0.2}
# A document needs this many located facts to carry a useful mix of events.
MIN_FACTS = {Source.COVIDQA: 6, Source.ARGSCICHAT: 3, Source.CMUDOG: 2, Source.ACL: 1}
# Documents whose real conversations fill their talk.
OWN_TALK = {Source.ARGSCICHAT: 0.6, Source.CMUDOG: 0.6}
FAMILY = {Source.COVIDQA: "covid", Source.ARGSCICHAT: "papers", Source.ACL: "papers",
          Source.CMUDOG: "movies"}  # fmt: skip
THIRD_SPEAKER_SHARE = 0.4
MAX_QA_PER_DOCUMENT = 12


@dataclass(frozen=True)
class SetOptions:
    documents: int = 48  # documents in the set
    seed: int = 0
    off_document_turns: int = 100  # turns of each off-document meeting excerpt
    quick_events: int = 60  # events the quick subset holds at least
    name: str = ""  # set name in the manifest ("broad-s<seed>" when empty)


@dataclass(frozen=True)
class BuiltDocument:
    source: SourceDocument
    rendered: RenderedDocument
    conversations: tuple[Conversation, ...]


# --- reading ------------------------------------------------------------------------------


def text_only(document: SourceDocument) -> DocumentText:
    """The document's sentences without rendering it (pages unknown: 0)."""
    if document.pdf is not None:
        pages = page_texts(Path(document.pdf).read_bytes())
        sentences = page_sentences(pages)
    else:
        pages = tuple(normalise(b.text) for b in document.blocks)
        sentences = tuple(DocumentSentence(s.text, 0) for s in page_sentences(pages))
    return DocumentText(document.id, document.source, document.title, sentences,
                        DocumentValues.of(" ".join(pages), _lines(document), full=False))


def _lines(document: SourceDocument) -> str:
    """The document's running text by lines (no title and metadata: ids and URLs)."""
    kinds = (BlockKind.PARAGRAPH, BlockKind.ITEM)
    return "\n".join(b.text for b in document.blocks if b.kind in kinds)


def rendered_text(document: SourceDocument, rendered: RenderedDocument) -> DocumentText:
    return DocumentText(document.id, document.source, document.title, rendered.sentences,
                        DocumentValues.of(rendered.text, _lines(document)))  # fmt: skip


def check_reserved(documents: Sequence[SourceDocument], data: Path) -> None:
    """No reserved COVID-QA article can enter a set (belt and braces over the reader)."""
    reserved = reserved_titles(data)
    for document in documents:
        if document.source is not Source.COVIDQA:
            continue
        index = int(document.id.rsplit("-", 1)[1])
        key = " ".join(document.title.lower().split())
        if index in RESERVED_COVIDQA or any(key == " ".join(r.split()) for r in reserved):
            raise ValueError(f"{document.id} is reserved for outside evaluation")


# --- choosing documents -------------------------------------------------------------------


def allocate(total: int, available: dict[Source, int]) -> dict[Source, int]:
    """Documents per source: the ACL papers (up to two, from 20 documents on), a fifth
    each for ArgSciChat and CMU DoG (at least one each from three documents on), the
    rest COVID-QA; what a source cannot fill goes to the others."""
    want = {Source.ACL: min(available.get(Source.ACL, 0), 2, total // 20)}
    for source, share in SHARES.items():
        want[source] = min(available.get(source, 0), max(int(total >= 3), round(total * share)))
    want[Source.COVIDQA] = min(available.get(Source.COVIDQA, 0), total - sum(want.values()))
    order = (Source.COVIDQA, Source.CMUDOG, Source.ARGSCICHAT, Source.ACL)
    while sum(want.values()) < total:
        open_sources = [s for s in order if want.get(s, 0) < available.get(s, 0)]
        if not open_sources:
            break
        want[open_sources[0]] = want.get(open_sources[0], 0) + 1
    return want


def choose(documents: Sequence[SourceDocument], counts: dict[str, int], total: int,
           rng: random.Random) -> list[SourceDocument]:  # fmt: skip
    eligible: dict[Source, list[SourceDocument]] = {}
    for document in documents:
        if counts[document.id] >= MIN_FACTS[document.source]:
            eligible.setdefault(document.source, []).append(document)
    want = allocate(total, {s: len(v) for s, v in eligible.items()})
    chosen: list[SourceDocument] = []
    for source in Source:
        pool = sorted(eligible.get(source, []), key=lambda d: d.id)
        chosen += rng.sample(pool, want.get(source, 0))
    return sorted(chosen, key=lambda d: d.id)


# --- building -----------------------------------------------------------------------------


def _participants(rng: random.Random) -> list[str]:
    return ["S1", "S2", "S3"] if rng.random() < THIRD_SPEAKER_SHARE else ["S1", "S2"]


def build_document(document: SourceDocument, rendered: RenderedDocument, facts: Sequence[Fact],
                   neighbours: Neighbours, decks: Decks, seed: int) -> BuiltDocument:  # fmt: skip
    rng = random.Random(f"{seed}:{document.id}")
    doc = rendered_text(document, rendered)
    register = Register.CHAT if document.source is Source.CMUDOG else Register.MEETING
    voice = Voice(decks, register, doc.values.lowercase_words)
    plans = plan_document(doc, facts, neighbours, voice, rng)
    forbidden = forbidden_values(plans)
    used = {t.text.lower() for p in plans for t in p.shape}
    used |= {u.lower() for f in facts for u in f.used}
    planned_facts = {id(p.fact) for p in plans if p.fact is not None}
    spare = [f for f in facts if id(f) not in planned_facts]
    own = own_units(document.dialogues, forbidden, used, rng)
    share = OWN_TALK.get(document.source, 0.0)
    conversations = []
    for name in (MAIN, RESOLVED):
        events = [p for p in plans if p.conversation == name]
        if not events:
            continue
        half = len(own) // 2
        mine, own = (own[:half], own[half:]) if name == MAIN else (own, [])
        asked = asked_units(spare[:3] if name == MAIN else spare[3:6], forbidden, used)
        filler = Filler(mine, asked, voice, rng, share, forbidden)
        conversations.append(compose(name, events, filler, _participants(rng), rng))
    return BuiltDocument(document, rendered, tuple(conversations))


def off_document(meeting: Dialogue, turns: int, seed: int) -> Conversation | None:
    rng = random.Random(f"{seed}:{meeting.ref}")
    window = meeting_window(meeting, turns, rng)
    if window is None:
        return None
    name = "offdoc-" + meeting.ref.split(":", 1)[1]
    return Conversation(name, tuple(timed(window, rng)))


def _bag(text: str) -> set[str]:
    from benchmarks.sets.values import STOPWORDS

    return {w for w in text.lower().split() if w.isalpha() and w not in STOPWORDS}


def pair_off_document(built: dict[str, BuiltDocument], halves: splitting.Split,
                      meetings: Sequence[Dialogue], count: int, turns: int,
                      seed: int) -> dict[str, Conversation]:  # fmt: skip
    """Meeting excerpts, each paired with the set document least like it: one in the
    quick subset, the rest alternating between the check and the tuning half."""
    rng = random.Random(f"{seed}:off-document")
    order = list(meetings)
    rng.shuffle(order)
    rest = tuple(d for d in halves.check if d not in halves.quick)
    groups = [halves.quick] + [rest, halves.tune] * count
    paired: dict[str, Conversation] = {}
    bags = {name: _bag(b.rendered.text) for name, b in built.items()}
    for meeting in order:
        if len(paired) >= count or not groups:
            break
        conversation = off_document(meeting, turns, seed)
        if conversation is None:
            continue
        said = [line.text for line in conversation.lines]
        group = [d for d in groups.pop(0) if d not in paired and not _leaks(built[d], said)]
        if not group:
            continue
        words = _bag(" ".join(said))
        best = min(group, key=lambda d: (len(words & bags[d]) / (len(words | bags[d]) or 1), d))
        paired[best] = conversation
    return paired


def _leaks(built: BuiltDocument, lines: Sequence[str]) -> bool:
    """Some line states a gold value of the document's events."""
    golds = [g for c in built.conversations for p in c.events for g in p.plan.gold_values]
    return any(states_any(line, golds) for line in lines)


# --- writing ------------------------------------------------------------------------------


def _line_json(index: int, line: Line) -> dict[str, Any]:
    return {"turn": index, "speaker": line.speaker, "text": line.text, "start": line.start,
            "end": line.end, "direct": False}  # fmt: skip


def _event_records(document: str, conversations: Sequence[Conversation]) -> list[dict[str, Any]]:
    records = []
    for conversation in conversations:
        for placed in sorted(conversation.events, key=lambda p: p.onset):
            plan = placed.plan
            record: dict[str, Any] = {
                "id": "", "conversation": conversation.name, "type": plan.type.value,
                "onset_turn": placed.onset,
            }  # fmt: skip
            if placed.repair is not None:
                record["repair_turn"] = placed.repair
            record |= {
                "claim": plan.claim, "trigger": plan.trigger, "gold_answer": plan.gold_answer,
                "gold_values": list(plan.gold_values), "evidence": plan.evidence,
                "page": plan.page,
            }  # fmt: skip
            if plan.planted:
                record["planted_values"] = list(plan.planted)
            if plan.source_document:
                record["source_document"] = plan.source_document
            records.append(record)
    for number, record in enumerate(records, start=1):
        record["id"] = f"{document}-e{number:02d}"
    return records


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")


def qa_items(built: BuiltDocument, facts: Sequence[Fact]) -> list[dict[str, Any]]:
    """Direct questions about the document (COVID-QA's, whose golds are spans)."""
    if built.source.source is not Source.COVIDQA:
        return []
    name = built.source.id
    return [
        {"id": fact.ref.replace(":", "-"), "document": f"{name}/document.pdf",
         "question": fact.question, "gold": _qa_gold(fact), "other_refs": [],
         "evidence": fact.evidence, "page": fact.page}
        for fact in facts[:MAX_QA_PER_DOCUMENT]
    ]  # fmt: skip


def _qa_gold(fact: Fact) -> str:
    """The answer span when it is short and the evidence holds it, else the gold value."""
    span = fact.span.strip(" .,;:")
    found = find_verbatim(fact.evidence, span) if span and len(span.split()) <= 12 else None
    return found or fact.gold[0]


def write_document(out: Path, built: BuiltDocument, off: Conversation | None) -> list[dict]:
    folder = out / built.source.id
    folder.mkdir(parents=True)
    (folder / "document.pdf").write_bytes(built.rendered.pdf)
    conversations = list(built.conversations) + ([off] if off is not None else [])
    for conversation in conversations:
        rows = [_line_json(i, line) for i, line in enumerate(conversation.lines)]
        _write_jsonl(folder / f"{conversation.name}.jsonl", rows)
    events = _event_records(built.source.id, built.conversations)
    _write_jsonl(folder / "events.jsonl", events)
    return events


# --- summary ------------------------------------------------------------------------------


def diversity(events: Sequence[dict[str, Any]], lines: Sequence[str]) -> dict[str, Any]:
    """Phrase diversity: distinct word 3-grams of the event triggers per event, and of
    all turns per turn; the share of turns whose text no other turn repeats."""
    triggers = [e["trigger"] for e in events]
    grams = trigrams(triggers)
    counts = Counter(t.lower() for t in lines)
    return {
        "trigger_distinct_3grams": len(grams),
        "trigger_3grams_per_event": round(len(grams) / len(triggers), 2) if triggers else None,
        "distinct_triggers": len(set(triggers)),
        "turn_distinct_3grams_per_turn": round(len(trigrams(lines)) / len(lines), 2)
        if lines else None,
        "unique_turn_share": round(sum(1 for t in lines if counts[t.lower()] == 1) / len(lines), 3)
        if lines else None,
    }  # fmt: skip


def _counts(events: Sequence[dict[str, Any]]) -> dict[str, int]:
    kinds = Counter(e["type"] for e in events)
    return {k.value: kinds.get(k.value, 0) for k in EventType}


def summary(options: SetOptions, built: dict[str, BuiltDocument],
            events: dict[str, list[dict]], off: dict[str, Conversation],
            halves: splitting.Split, qa: dict[str, list[dict]]) -> dict[str, Any]:  # fmt: skip
    every = [e for name in sorted(events) for e in events[name]]
    lines = [line.text for b in built.values() for c in b.conversations for line in c.lines]

    def half(names: Sequence[str]) -> dict[str, Any]:
        chosen = [e for n in names for e in events[n]]
        turns = sum(len(c.lines) for n in names for c in built[n].conversations)
        return {"documents": len(names), "events": len(chosen), "by_type": _counts(chosen),
                "turns": turns, "off_document_turns": sum(len(off[n].lines) for n in names
                                                          if n in off),
                "qa_items": sum(len(qa[n]) for n in names)}  # fmt: skip

    sources = Counter(b.source.source.value for b in built.values())
    return {
        "seed": options.seed,
        "documents": len(built),
        "by_source": dict(sorted(sources.items())),
        "conversations": sum(len(b.conversations) for b in built.values()) + len(off),
        "turns": len(lines),
        "events": len(every),
        "by_type": _counts(every),
        "off_document": {"conversations": len(off),
                         "turns": sum(len(c.lines) for c in off.values())},
        "qa_items": sum(len(v) for v in qa.values()),
        "qa": direct.counts([i for v in qa.values() for i in v]),
        "halves": {"tune": half(halves.tune), "check": half(halves.check),
                   "quick": half(halves.quick)},
        "diversity": diversity(every, lines),
    }  # fmt: skip


def set_readme(manifest: dict[str, Any], report: dict[str, Any]) -> str:
    """What the set is, where its parts come from and under which licences."""
    rows = "\n".join(f"| {n} | {i['source']} | {i['title'][:70]} | {i['licence']} |"
                     for n, i in manifest["sources"].items())  # fmt: skip
    kinds = ", ".join(f"{k} {v}" for k, v in report["by_type"].items())
    return f"""# {manifest['name']}: a broad replay benchmark (BENCHMARK.md layout)

Made by `python benchmarks/make_set.py --seed {manifest['seed']} --documents \
{report['documents']}` from the public data in `../shared/data` (see
`benchmarks/sets/README.md` in the Jarvis repository for how).

{report['documents']} documents, {report['events']} events ({kinds}),
{report['turns']} turns of document talk, {report['off_document']['conversations']}
off-document meeting excerpts ({report['off_document']['turns']} turns, listed under
`off_document` in manifest.json), {report['qa_items']} direct questions (qa*.jsonl;
{report['qa']['answerable']} answerable, the others asked of a document that lacks the answer).
Halves: tune.txt ({report['halves']['tune']['documents']} documents), check.txt
({report['halves']['check']['documents']}), quick.txt (a subset of the check half,
{report['halves']['quick']['events']} events).

## Sources and licences

- COVID-QA (deepset-ai/COVID-QA, Apache-2.0): articles and question/answer pairs; each
  article keeps its own licence line.
- ArgSciChat (UKPLab/acl2023-argscichat, Apache-2.0): papers' abstracts and
  introductions, dialogues and their question/answer turns.
- CMU DoG (festvox/datasets-CMU_DoG, CMU licence; article text from Wikipedia, CC BY-SA):
  movie articles and chats.
- ACL Anthology papers N18-3011 and 2020.acl-main.207 (CC BY 4.0), original PDFs.
- QMSum (Yale-LILY/QMSum, MIT; AMI and ICSI transcripts CC BY 4.0): meeting talk.

| document | source | title | licence |
|---|---|---|---|
{rows}

The conversations and events are derived work; release them with attribution to the
sources above (CC BY-SA where a Wikipedia article is involved).
"""


# --- the set ------------------------------------------------------------------------------


def make_set(data: Path, out: Path, options: SetOptions) -> dict[str, Any]:
    """Write the set to ``out`` (replaced if it exists) and return its summary."""
    data, out = Path(data), Path(out)
    documents = all_documents(data)
    check_reserved(documents, data)
    meetings = qmsum_meetings(data)
    chats = [d for doc in documents if doc.source is Source.CMUDOG for d in doc.dialogues]
    dialogues = [d for doc in documents if doc.source is Source.ARGSCICHAT for d in doc.dialogues]
    decks = Decks(build_pools(meetings, chats, dialogues), random.Random(f"{options.seed}:talk"))

    texts = {d.id: text_only(d) for d in documents}
    sketch = {d.id: document_facts(texts[d.id], d) for d in documents}
    chosen = choose(documents, {k: len(v) for k, v in sketch.items()}, options.documents,
                    random.Random(f"{options.seed}:documents"))  # fmt: skip
    rendered = {d.id: prepare(d) for d in chosen}
    facts = {d.id: document_facts(rendered_text(d, rendered[d.id]), d) for d in chosen}
    titles = {d.id: d.title for d in chosen}

    spreads = {family: family_spread([texts[d.id] for d in documents if FAMILY[d.source] == family])
               for family in sorted(set(FAMILY.values()))}  # fmt: skip
    built: dict[str, BuiltDocument] = {}
    for document in chosen:
        family = FAMILY[document.source]
        same = [d for d in documents if FAMILY[d.source] == family]
        neighbours = Neighbours(
            questions=tuple(f for d in same for f in sketch[d.id] if d.id != document.id),
            findings=tuple(f for d in chosen if FAMILY[d.source] == family and d.id != document.id
                           for f in facts[d.id]),
            titles=titles,
            spread=spreads[family],
        )  # fmt: skip
        built[document.id] = build_document(
            document, rendered[document.id], facts[document.id], neighbours, decks, options.seed
        )

    event_counts = {name: sum(len(c.events) for c in b.conversations) for name, b in built.items()}
    halves = splitting.split({n: b.source for n, b in built.items()}, event_counts,
                             options.seed, options.quick_events)  # fmt: skip
    count = max(1, round(len(built) / 6))
    off = pair_off_document(built, halves, meetings, count, options.off_document_turns,
                            options.seed)  # fmt: skip

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    events = {name: write_document(out, built[name], off.get(name)) for name in sorted(built)}
    qa = {name: (found := qa_items(built[name], facts[name]))
          + direct.unanswerable_items(name, events[name], bool(found)) for name in sorted(built)}
    for label, names in (("", sorted(built)), ("-tune", halves.tune), ("-check", halves.check),
                         ("-quick", halves.quick)):  # fmt: skip
        _write_jsonl(out / f"qa{label}.jsonl", [item for n in names for item in qa[n]])
    for label, names in (("tune", halves.tune), ("check", halves.check),
                         ("quick", halves.quick)):  # fmt: skip
        (out / f"{label}.txt").write_text("".join(n + "\n" for n in names), encoding="utf-8")
    manifest = {
        "name": options.name or f"broad-s{options.seed}",
        "version": 1,
        "documents": sorted(built),
        "off_document": [f"{n}/{off[n].name}" for n in sorted(off)],
        "splits": {"tune": "tune.txt", "check": "check.txt", "quick": "quick.txt"},
        "qa": {"all": "qa.jsonl", "tune": "qa-tune.jsonl", "check": "qa-check.jsonl",
               "quick": "qa-quick.jsonl"},
        "seed": options.seed,
        "generator": "benchmarks/make_set.py",
        "sources": {n: {"source": b.source.source.value, "title": b.source.title,
                        "origin": b.source.origin, "licence": b.source.licence,
                        "seen_in_development": b.source.seen}
                    for n, b in sorted(built.items())},
    }  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")  # fmt: skip
    report = summary(options, built, events, off, halves, qa)
    (out / "README.md").write_text(set_readme(manifest, report), encoding="utf-8")
    report["problems"] = checks.problems(out, data)
    (out / "summary.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report
