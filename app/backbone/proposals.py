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
from app.backbone.transcript import Line
from app.language.talk import asks_about_document
from app.settings import Detector


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
    turn_sids: dict[int, list[int]] = field(default_factory=dict)
    _last: list[Proposal] = field(default_factory=list)  # last turn's, for adoption

    def for_turn(self, line: Line, before: Sequence[Line], extra: Sequence[int] = ()
                 ) -> TurnEvidence:
        """``before``: the transcript lines just before ``line`` (two are enough)."""
        previous = [b.text for b in before[-2:]]
        candidates = self.finder.for_turn(line.text, previous[-1] if previous else "", extra)
        self.turn_sids[line.index] = candidates
        found = detect(line.text, previous, self.sentences(candidates), self.facts,
                       self.sentences(self._asked_sids(before)), self.detectors)
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

    def _asked_sids(self, before: Sequence[Line]) -> list[int]:
        """Sentences retrieved for the latest question among the two turns before (what a
        reply like "I don't remember" leaves open)."""
        for line in reversed(before[-2:]):
            if not line.agent and asks_about_document(line.text):
                return self.turn_sids.get(line.index, [])
        return []
