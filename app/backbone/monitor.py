"""Monitor reply -> Verdict; a confirmed detector proposal lends its value, IDs and key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.backbone.citations import valid_sids
from app.backbone.detectors import Proposal, question_key, question_point
from app.backbone.schemas import MAX_SIDS, VALUE_MAX_CHARS
from app.backbone.utterance import clean_text
from app.backbone.verdict import ACTIONABLE, NON_ACTIONABLE, STATUSES, Status, Verdict
from app.language.talk import asks_about_document

MAX_CLAIM_CHARS = 120


def _text(data: dict[str, Any], key: str, limit: int = 300) -> str:
    value = data.get(key, "")
    return " ".join(str(value).split())[:limit] if value is not None else ""


def parse(
    data: dict[str, Any], document: Any, proposals: Sequence[Proposal], utterance: str = ""
) -> Verdict:
    raw = data.get("status")
    status = Status(raw) if raw in STATUSES else Status.OFF_DOCUMENT
    claim = _text(data, "claim", MAX_CLAIM_CHARS)
    raw_sids = data.get("answer_sids") or []
    sids = valid_sids(document, raw_sids if isinstance(raw_sids, list) else [], MAX_SIDS)
    # Reference markers are not part of the value (the spoken text drops them).
    predicted = clean_text(_whole_words(_text(data, "predicted_answer"))).strip(" .,;:")
    evidence = _text(data, "evidence") or " ".join(utterance.split()[:40])
    if status in (Status.NOT_IN_DOCUMENT, *NON_ACTIONABLE):
        sids, predicted = (), ""
    confirmed = next((p for p in proposals if p.status == status), None)
    if confirmed is None and not claim and status in ACTIONABLE and proposals:
        # The model saw a problem but could not name it; a detector did: take its verdict.
        confirmed = proposals[0]
        status = confirmed.status
    asked = question_point(utterance)[:MAX_CLAIM_CHARS] if asks_about_document(utterance) else ""
    if status in (Status.INCORRECT, Status.NOT_IN_DOCUMENT) and confirmed is None and asked:
        status = Status.MISSING  # a question asks for a fact; it asserts nothing
    if confirmed is None:
        # A question is the point whatever the model calls it: its key keeps the claim
        # the same when the next turn's detector reports it still open.
        key = question_key(utterance) if status == Status.MISSING and asked else ""
        return Verdict(status, (claim or asked) if key else claim, evidence, predicted, sids,
                       key=key)
    merged = tuple(dict.fromkeys([*confirmed.sids, *sids]))[:MAX_SIDS]
    return Verdict(
        status=status,
        claim=claim or confirmed.claim,
        evidence=evidence,
        # The model's value when the document really says it, else the detector's copy.
        predicted_answer=predicted if _in_document(document, predicted)
        else confirmed.predicted_answer or predicted,
        sids=merged,
        key=confirmed.key,
        source=f"monitor+{confirmed.detector}",
    )


def _whole_words(value: str) -> str:
    """The value without its last word where the decoder's length cap ended it: that
    word may be cut ("outgoing Citati" of "outgoing citations"); the words before it are
    whole, and the answer checks see the value as the piece of a sentence it is."""
    if len(value) < VALUE_MAX_CHARS or " " not in value:
        return value
    return value.rsplit(" ", 1)[0]


def _in_document(document: Any, value: str) -> bool:
    value = value.strip().lower()
    return bool(value) and any(value in s.text.lower() for s in document.sentences)
