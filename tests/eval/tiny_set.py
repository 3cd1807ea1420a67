"""A tiny benchmark set written on the fly, with hand-made decisions whose scores are known.

Document d01: a one-page PDF. Conversation "main" (52 turns) plants a gap, a wrong claim,
two self-corrections, an unanswerable question and a misattribution; "resolved" (18 turns)
holds two resolved questions. The planned interventions below, scored by hand:

  main  4  gap, +1, carries "one hundred twenty"     -> addressed, correct, good
  main  9  unrelated, outside every window            -> unprompted
  main 12  wrong, +2, says Porto (gold Lisbon)        -> addressed, incorrect
  main 28  unanswerable, +1, invents a price          -> fabricated
  main 36  misattribution, +1, "doesn't mention"      -> addressed, correct, good
  main 44  self-correction e6, before its repair (45) -> interrupted repair
  main 48  inside e6's window but off-topic           -> unprompted
  resolved 5  resolved question e7, +2                -> spoke where silence was due
Backchannels: main 2, 15, 30 and resolved 7, so 49 + 17 = 66 ordinary turns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf as fitz

from app.eval.records import DecisionRecord

DOCUMENT_SENTENCES = (
    "The green roof study recruited 120 participants in Lisbon.",
    "Follow-up of every household lasted six months after installation.",
    "About 40% of the roofs in the district were retrofitted with sensors.",
    "Indoor temperatures fell by two degrees on average during the summer.",
)

MAIN_TURNS = 52
RESOLVED_TURNS = 18
BACKCHANNELS = {("main", 2): "Mm-hm.", ("main", 15): "Yeah, right.", ("main", 30): "Okay.",
                ("resolved", 7): "Uh-huh."}  # fmt: skip

EVENTS = (
    {"id": "d01-e01", "conversation": "main", "type": "gap", "onset_turn": 3,
     "claim": "the number of participants recruited", "gold_values": ["120"],
     "evidence": DOCUMENT_SENTENCES[0], "page": 1, "extra_key": "ignored"},
    {"id": "d01-e02", "conversation": "main", "type": "wrong", "onset_turn": 10,
     "claim": "the city where the study ran", "gold_values": ["Lisbon"],
     "evidence": DOCUMENT_SENTENCES[0], "page": 1, "planted_values": ["Madrid"]},
    {"id": "d01-e03", "conversation": "main", "type": "self_correction", "onset_turn": 17,
     "repair_turn": 19, "claim": "the length of the follow-up period",
     "gold_values": ["six months"], "evidence": DOCUMENT_SENTENCES[1], "page": 1},
    {"id": "d01-e04", "conversation": "main", "type": "unanswerable", "onset_turn": 27,
     "claim": "the cost of the sensors", "gold_values": [],
     "evidence": DOCUMENT_SENTENCES[2], "page": 1},
    {"id": "d01-e05", "conversation": "main", "type": "misattribution", "onset_turn": 35,
     "claim": "a randomised trial of rooftop gardens", "gold_values": [], "evidence": "",
     "page": None},
    {"id": "d01-e06", "conversation": "main", "type": "self_correction", "onset_turn": 43,
     "repair_turn": 45, "claim": "the share of roofs that were retrofitted",
     "gold_values": ["40%"], "evidence": DOCUMENT_SENTENCES[2], "page": 1},
    {"id": "d01-e07", "conversation": "resolved", "type": "resolved_question",
     "onset_turn": 3, "claim": "the number of participants recruited",
     "gold_values": ["120"], "evidence": DOCUMENT_SENTENCES[0], "page": 1},
    {"id": "d01-e08", "conversation": "resolved", "type": "resolved_question",
     "onset_turn": 11, "claim": "the city where the study ran", "gold_values": ["Lisbon"],
     "evidence": DOCUMENT_SENTENCES[0], "page": 1},
)  # fmt: skip

# (conversation, turn) -> (claim, text, cited sentence index)
PLANNED = {
    ("main", 4): ("the number of participants recruited",
                  "About the participants, the study recruited one hundred twenty people.", 0),
    ("main", 9): ("the colour of the sensors", "The sensors are painted green.", 2),
    ("main", 12): ("the city where the study ran", "The study ran in Porto, not Madrid.", 0),
    ("main", 28): ("the cost of the sensors", "The sensors cost 300 euros each.", 2),
    ("main", 36): ("a randomised trial of rooftop gardens",
                   "The document doesn't mention a randomised trial.", 0),
    ("main", 44): ("the share of roofs that were retrofitted",
                   "Actually 40% of the roofs were retrofitted.", 2),
    ("main", 48): ("the room booked for next week",
                   "Shall I book the small meeting room for next week?", 3),
    ("resolved", 5): ("the number of participants recruited", "120 participants.", 0),
}  # fmt: skip

QA_ITEMS = (
    {"id": "q1", "document": "d01/document.pdf", "question": "How many people took part?",
     "gold": "120", "other_refs": [], "evidence": DOCUMENT_SENTENCES[0], "page": 1},
    {"id": "q2", "document": "d01/document.pdf", "question": "How long was the follow-up?",
     "gold": "six months", "other_refs": [], "evidence": DOCUMENT_SENTENCES[1], "page": 1},
    {"id": "q3", "document": "d01/document.pdf", "question": "What did the sensors cost?",
     "gold": "", "other_refs": [], "evidence": "", "page": None},
)  # fmt: skip

# question id -> (answer text, cited sentence index or None)
QA_ANSWERS = {
    "q1": ("They recruited one hundred and twenty participants.", 0),
    "q2": ("It lasted three months.", 2),
    "q3": ("That isn't covered in the document.", None),
}


def turn_text(conversation: str, turn: int) -> str:
    return BACKCHANNELS.get((conversation, turn),
                            f"We keep talking about point {turn} of the roof study here.")


def write_pdf(path: Path) -> None:
    document = fitz.open()
    page = document.new_page()
    for line, sentence in enumerate(DOCUMENT_SENTENCES):
        page.insert_text((72, 90 + 20 * line), sentence, fontsize=11)
    document.save(path)
    document.close()


def _write_jsonl(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def write_set(root: Path) -> Path:
    """Write the tiny set under ``root``; returns the set folder."""
    folder = root / "d01"
    folder.mkdir(parents=True)
    (root / "manifest.json").write_text(
        json.dumps({"name": "tiny", "version": 1, "documents": ["d01"], "note": "x"}))
    write_pdf(folder / "document.pdf")
    for name, count in (("main", MAIN_TURNS), ("resolved", RESOLVED_TURNS)):
        _write_jsonl(folder / f"{name}.jsonl", [
            {"turn": i, "speaker": f"S{i % 2 + 1}", "text": turn_text(name, i),
             "start": 3.0 * i, "end": 3.0 * i + 2.5, "direct": False, "mood": "calm"}
            for i in range(count)
        ])  # fmt: skip
    _write_jsonl(folder / "events.jsonl", list(EVENTS))
    _write_jsonl(root / "qa.jsonl", list(QA_ITEMS))
    return root


def planned_latency(conversation: str, turn: int) -> dict[str, float]:
    if (conversation, turn) in BACKCHANNELS:
        return {}
    if (conversation, turn) in PLANNED:
        return {"monitor": 100.0, "generate": 400.0}
    return {"monitor": 100.0}


def planned_decisions() -> list[DecisionRecord]:
    records = []
    for name, count in (("main", MAIN_TURNS), ("resolved", RESOLVED_TURNS)):
        for turn in range(count):
            plan = PLANNED.get((name, turn))
            latency = planned_latency(name, turn)
            if plan is None:
                records.append(DecisionRecord("d01", name, turn, "silent",
                                              reason="monitor: on_progress", latency_ms=latency))
                continue
            claim, text, sentence = plan
            records.append(DecisionRecord(
                "d01", name, turn, "speak", "proactive", text, 1, (sentence,),
                DOCUMENT_SENTENCES[sentence], claim, "gate fired", latency,
            ))  # fmt: skip
    return records


EXPECTED_TYPES = {
    # type: (events, addressed, correct when spoken, good, interrupted, fabricated, within 2)
    "gap": (1, 100.0, 100.0, 100.0, None, None, 100.0),
    "wrong": (1, 100.0, 0.0, 0.0, None, None, 100.0),
    "misattribution": (1, 100.0, 100.0, 100.0, None, None, 100.0),
    "self_correction": (2, 0.0, None, 50.0, 50.0, None, None),
    "resolved_question": (2, 50.0, 100.0, 50.0, None, None, 100.0),
    "unanswerable": (1, 100.0, 0.0, 0.0, None, 100.0, 100.0),
}
EXPECTED_HISTOGRAM = {"gap": {1: 1}, "wrong": {2: 1}, "misattribution": {1: 1},
                      "self_correction": {}, "resolved_question": {2: 1},
                      "unanswerable": {1: 1}}  # fmt: skip
EXPECTED_ORDINARY = 66
EXPECTED_UNPROMPTED = 2
