"""What a turn puts in front of the monitor: retrieved sentences and detector proposals.

Pure of any model: the same steps the harness runs before its monitor call, so the
detectors can be measured on a whole conversation in seconds (benchmarks/detectors.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.backbone.citations import valid_sids
from app.backbone.context import EvidenceFinder
from app.backbone.detectors import DocumentFacts, Proposal, carried, detect
from app.backbone.identity import Similarity
from app.backbone.transcript import Line
from app.language.talk import asks_about_document, contains_question
from app.settings import Detector

RUN_LINES = 3  # the most lines of one speaker's question read as one utterance
BEFORE_LINES = 2 * RUN_LINES  # the transcript lines before a turn that ``for_turn`` reads


@dataclass(frozen=True)
class TurnEvidence:
    candidates: list[int]  # retrieved sentence IDs, open claims' first
    found: list[Proposal]  # detector proposals, strongest first


@dataclass
class Proposer:
    document: Any
    finder: EvidenceFinder
    facts: DocumentFacts
    detectors: tuple[Detector, ...] = tuple(Detector)  # the ones that run
    similarity: Similarity | None = None  # embedding cosine, for detectors that weigh it
    turn_sids: dict[int, list[int]] = field(default_factory=dict)
    _last: list[Proposal] = field(default_factory=list)  # last turn's, for adoption

    def for_turn(self, line: Line, before: Sequence[Line], extra: Sequence[int] = ()
                 ) -> TurnEvidence:
        """``before``: the transcript lines just before ``line`` (``BEFORE_LINES`` are
        enough). The open-question detector reads the two utterances before it (one
        question cut into several turns is one); a line that goes on with its speaker's
        asking is still the asking, not a reply to it."""
        goes_on = bool(before) and before[-1].speaker == line.speaker and not line.agent
        said = [] if goes_on else utterances(before)[-2:]
        candidates = self.finder.for_turn(line.text, before[-1].text if before else "", extra)
        self.turn_sids[line.index] = candidates
        found = detect(line.text, [_text(u) for u in said],
                       self.sentences(candidates), self.facts,
                       self.sentences(self._asked_sids(said)), self.detectors,
                       self.similarity, line.unsure)
        fresh = {p.key for p in found}
        found += [p for p in carried(self._last, line.text) if p.key not in fresh]
        self._last = [p for p in found if p.detector != Detector.OPEN_QUESTION]
        return TurnEvidence(candidates, found)

    def for_question(self, index: int, question: str, previous: str) -> list[int]:
        candidates = self.finder.for_turn(question, previous)
        self.turn_sids[index] = candidates
        return candidates

    def sentences(self, sids: Sequence[int]) -> list[Any]:
        return [self.document.get(s) for s in valid_sids(self.document, sids)]

    def _asked_sids(self, said: Sequence[Sequence[Line]]) -> list[int]:
        """Sentences retrieved for the latest question among the utterances before (what
        a reply like "I don't remember" leaves open), its pieces' in order."""
        for utterance in reversed(said):
            if not utterance[0].agent and asks_about_document(_text(utterance[-2:])):
                return list(dict.fromkeys(s for ln in utterance
                                          for s in self.turn_sids.get(ln.index, [])))
        return []


def utterances(lines: Sequence[Line]) -> list[list[Line]]:
    """``lines`` as the utterances a reply answers: one speaker's consecutive lines that
    each ask something are one question (a live room's endpointing cuts a speaker at their
    pauses: "How many were infected?" / "Do they give a number?"), at most ``RUN_LINES``
    of them, and so is a question that names nothing with its speaker's line before it
    ("There was one system that struggled." / "Which one was that?"); every other line
    is one utterance."""
    out: list[list[Line]] = []
    for line in lines:
        last = out[-1] if out else None
        if (last is not None and len(last) < RUN_LINES and last[-1].speaker == line.speaker
                and not line.agent and not last[-1].agent and _goes_on_asking(last, line)):
            last.append(line)
        else:
            out.append([line])
    return out


def _goes_on_asking(utterance: Sequence[Line], line: Line) -> bool:
    if asks_about_document(line.text):
        return asks_about_document(utterance[-1].text)
    return (len(utterance) == 1 and contains_question(line.text)
            and asks_about_document(_text([*utterance, line])))


def _text(lines: Sequence[Line]) -> str:
    return " ".join(ln.text for ln in lines)
