"""All four stages on the real embedded 1.5B GGUF over a real (small) PDF: every reply
is schema-valid and every spoken citation resolves to the document."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jsonschema
import pytest

from app.backbone import schemas
from app.backbone.direct import quoted
from app.events import Turn
from app.settings import (
    ContextMode,
    LedgerSettings,
    LLMSettings,
    Patience,
    Settings,
    UtteranceSettings,
)

pytestmark = pytest.mark.slow

PDF = Path(__file__).resolve().parents[2] / "resources/demo/green_roofs.pdf"
SCHEMAS = {"monitor": schemas.MONITOR, "self_repair": schemas.SELF_REPAIR,
           "generate": schemas.GENERATE, "direct": schemas.DIRECT}


class Recording:
    """Passes every call through to the real backend and keeps the replies (None for one
    cut short by its cancel event: a direct answer stops once nothing more can be said)."""

    def __init__(self, backend):
        self.backend, self.replies = backend, []

    def complete(self, request, on_delta=None):
        from app.llm import LLMCancelled

        try:
            response = self.backend.complete(request, on_delta)
        except LLMCancelled:
            self.replies.append((request.stage, None))
            raise
        self.replies.append((request.stage, response.data))
        return response

    def warm(self, system):
        self.backend.warm(system)

    def close(self):
        self.backend.close()

    def __getattr__(self, name):  # model_path and the like come from the real backend
        return getattr(self.backend, name)


@pytest.fixture(scope="module")
def backend():
    from app.llm import open_backend

    llm = open_backend("llm-1.5b", LLMSettings(context_tokens=4096))
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def document():
    from app.document import open_document

    return open_document(PDF)


def make(document, backend, mode, picks=False):
    from app.backbone import Backbone
    from app.backbone.retrieval import lexical_search

    # The model proposes every closure and writes every direct answer and correction
    # here (``picks``: it picks a direct answer's sentences instead), so its self-repair,
    # generation and direct replies are checked too.
    settings = Settings(llm=LLMSettings(context_mode=mode, context_tokens=4096),
                        ledger=LedgerSettings(patience=Patience.ENTHUSIASTIC,
                                              guard_closes_corrections=False),
                        utterance=UtteranceSettings(quote_direct_coverage=0.0,
                                                    quote_any_coverage=0.0,
                                                    quote_corrections=False,
                                                    quote_model_picks=picks))
    llm = Recording(backend)
    bb = Backbone(document, llm, settings, search=lexical_search(document))
    return bb, llm


def validate_replies(llm):
    """Every complete reply is schema-valid; only a direct reply may have been cut."""
    for stage, data in llm.replies:
        assert data is not None or stage == "direct", stage
        if data is not None:
            jsonschema.validate(data, SCHEMAS[stage])


def assert_resolvable(document, intervention):
    for cite in intervention.citations:
        sentence = document.get(cite.sid)
        assert sentence is not None
        assert (cite.page, cite.text) == (sentence.page, sentence.text)
        assert cite.keyword and cite.keyword in sentence.text


def test_four_stages_give_schema_valid_grounded_output(document, backend):
    bb, llm = make(document, backend, ContextMode.FOCUSED)
    script = [
        ("Ken", "Remember they only put planted roofs on twelve buildings, so it is a small "
                "sample."),
        ("Maya", "Actually no, it was 48 residential buildings with planted roofs, and 52 "
                 "without."),
    ]
    decisions = [bb.on_turn(Turn(who, text, i * 5.0, i * 5.0 + 4, False, i))
                 for i, (who, text) in enumerate(script)]
    answer = bb.answer_direct(Turn("Alex", "How much did a planted roof cost per square "
                                           "metre?", 12.0, 15.0, True, 2))
    stages = [stage for stage, _ in llm.replies]
    assert set(stages) == set(SCHEMAS), stages  # monitor, generate, self_repair, direct
    validate_replies(llm)
    assert all(d.reason for d in decisions)
    spoken = [d.intervention for d in decisions if d.intervention is not None]
    for intervention in [*spoken, answer]:
        assert_resolvable(document, intervention)
    check_direct(bb, answer)


def test_full_mode_monitor_and_direct_answer_over_the_whole_document(document, backend):
    bb, llm = make(document, backend, ContextMode.FULL)
    assert document.numbered_block() in bb.system
    decision = bb.on_turn(Turn("Ken", "They put planted roofs on twelve buildings, right?",
                               0.0, 3.0, False, 0))
    answer = bb.answer_direct(Turn("Alex", "How long did the pilot run?", 4.0, 6.0, True, 1))
    assert decision.reason
    validate_replies(llm)
    assert_resolvable(document, answer)
    check_direct(bb, answer)


def test_picked_direct_answer_is_the_documents_sentences(document, backend):
    bb, llm = make(document, backend, ContextMode.FOCUSED, picks=True)
    deltas = []
    answer = bb.answer_direct(Turn("Alex", "How long did the pilot run?", 0.0, 3.0, True, 0),
                              deltas.append)
    (stage, data), = llm.replies
    limit = bb.settings.utterance.max_sentences_picked
    jsonschema.validate(data, schemas.direct_pick_schema(False, limit))
    check_direct(bb, answer)
    if answer.intent == "answer":  # what the floor plays: the cited sentences' own words
        said = [d.text for d in deltas if d.checked and d.text]
        assert said == [quoted(document, [c.sid for c in answer.citations]).text]


def check_direct(bb, answer):
    if answer.intent == "answer":
        assert answer.citations and "You'll find this on page" in answer.text
    else:
        assert answer.text in ("", bb.settings.utterance.abstain_text)


def test_focused_is_chosen_for_the_small_model(document, backend):
    bb, _ = make(document, backend, ContextMode.AUTO)
    assert bb.mode is ContextMode.FOCUSED
    assert document.numbered_block() not in bb.system
    big = dataclasses.replace(bb.settings.llm, context_mode=ContextMode.AUTO)
    from app.backbone.context import choose_mode

    assert choose_mode(big, document.token_estimate(), 8.0) is ContextMode.FULL
