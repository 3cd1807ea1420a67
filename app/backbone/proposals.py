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
from app.backbone.transcript import Line, speaker_runs
from app.language.talk import asks_about_document
from app.settings import Detector

RUN_LINES = 3  # the most consecutive lines of one speaker read as one utterance
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
    turn_sids: dict[int, list[int]] = field(default_factory=dict)
    _last: list[Proposal] = field(default_factory=list)  # last turn's, for adoption

    def for_turn(self, line: Line, before: Sequence[Line], extra: Sequence[int] = ()
                 ) -> TurnEvidence:
        """``before``: the transcript lines just before ``line`` (``BEFORE_LINES`` are
        enough). The open-question detector reads the two speaker runs before it; a line
        that goes on with its speaker's run is still the asking, not a reply to it."""
        goes_on = bool(before) and before[-1].speaker == line.speaker and not line.agent
        runs = [] if goes_on else speaker_runs(before, RUN_LINES)[-2:]
        candidates = self.finder.for_turn(line.text, before[-1].text if before else "", extra)
        self.turn_sids[line.index] = candidates
        found = detect(line.text, [_asking_part(run) for run in runs],
                       self.sentences(candidates), self.facts,
                       self.sentences(self._asked_sids(runs)), self.detectors)
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

    def _asked_sids(self, runs: Sequence[Sequence[Line]]) -> list[int]:
        """Sentences retrieved for the latest question among the runs before (what a
        reply like "I don't remember" leaves open): its asking lines' first."""
        for run in reversed(runs):
            if run[0].agent or not asks_about_document(_asking_part(run)):
                continue
            asking = [ln for ln in run if asks_about_document(ln.text)]
            ordered = [*asking, *(ln for ln in run if ln not in asking)]
            return list(dict.fromkeys(s for ln in ordered
                                      for s in self.turn_sids.get(ln.index, [])))
        return []


def _asking_part(run: Sequence[Line]) -> str:
    """One speaker's run as one utterance, from its first line that asks about the
    document (what came before the question is not part of it)."""
    first = next((n for n, ln in enumerate(run) if asks_about_document(ln.text)), 0)
    return " ".join(ln.text for ln in run[first:])
