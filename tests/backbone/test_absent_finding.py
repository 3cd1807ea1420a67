"""The absent-finding detector and the denial said for it: names the document never uses."""

from __future__ import annotations

import dataclasses

import pytest

from app.backbone.detectors import (
    DocumentFacts,
    absent_finding,
    absent_terms,
    detect,
    unclear_names,
)
from app.backbone.harness import Backbone
from app.backbone.retrieval import lexical_search
from app.backbone.verdict import Status
from app.settings import (
    ContextMode,
    Detector,
    LedgerSettings,
    LLMSettings,
    Settings,
    UtteranceSettings,
)
from tests.backbone.scripted import ScriptedLLM, WordOverlap
from tests.backbone.test_harness_flow import paper, turn

FINDING = "They tag the tokens with a graph convolutional network (GCN) on top of the LSTM."


@pytest.fixture(scope="module")
def facts() -> DocumentFacts:
    return DocumentFacts(paper().sentences)


def test_mentions_reads_whole_words_case_aside(facts):
    assert facts.mentions("pdfbox") and facts.mentions("Apache's PDFBox")
    assert facts.mentions("conditional random field")
    assert not facts.mentions("field random")  # the words, in their order
    assert not facts.mentions("Tik")  # part of a word is not the word


def test_mentions_reads_a_name_spelled_out_or_split(facts):
    """As speech recognition writes a name said letter by letter or heard as two words."""
    assert facts.mentions("P-D-F-Box") and facts.mentions("PDF Box")
    assert facts.mentions("Bi-Directional") and facts.mentions("LS-TM")
    assert facts.mentions("RandomField")  # two of the document's words run together
    assert not facts.mentions("P-D-F-Boxes") and not facts.mentions("L-S")  # too short
    assert not facts.mentions("LSTM-CRF")  # its words are not side by side there


def test_mentions_reads_an_acronym_the_document_spells_out(facts):
    """TEXTS[3] says "conditional random field" and never "CRF"."""
    assert facts.mentions("CRF") and facts.mentions("LSTM")
    assert absent_terms("The tagger is a CRF on top of BERT and GCN.", facts) == [
        "BERT", "GCN"]
    assert not facts.mentions("CR")  # two letters match half of all word pairs
    assert not facts.mentions("MIB")  # "model is bidirectional": "is" starts no acronym
    assert not facts.mentions("crf")  # said as a word, not an acronym


def test_mentions_reads_either_spelling_of_a_word():
    facts = DocumentFacts([dataclasses.replace(paper().sentences[0], text=(
        "The World Health Organisation analysed the behaviour of the virus."))])
    assert facts.mentions("World Health Organization") and facts.mentions("Organization")
    assert facts.mentions("analyzed") and facts.mentions("Behavior")
    assert not facts.mentions("Organism") and not facts.mentions("Behave")


@pytest.mark.parametrize(("text", "terms"), [
    (FINDING, ["GCN"]),
    ("They compared Joe Pesci and Daniel Stern.", ["Joe Pesci", "Daniel Stern"]),
    ("The library they feed pages to is PDFBox.", []),  # the document's own name
    ("The tokens come from Apache's PDFBox library.", []),
    ("The corpus was labeled by Maria over the summer.", []),  # a lone capitalised word
    ("The pages were parsed with Tika or Grobid first.", ["Tika", "Grobid"]),  # a list
    ("Maria parsed the pages with PDFBox.", []),  # initial, and the other is the document's
    ("The Conditional Random Field sits on top.", []),  # every word the document's
    ("The Random Forest sits on top.", ["Random Forest"]),  # a word of its own
    ("HAHAHAHA! LOL, the LSTM tags tokens, hehehe.", []),  # laughter is no name
    # a sentence recognized in capitals only tells no names; the next one still does
    ("THE PAGES WENT THROUGH TIKA OR GROBID. Then the LSTM tags them.", []),
    ("THE PAGES WENT THROUGH TIKA. Then Maria and Grobid tag them.", ["Maria", "Grobid"]),
    ("GCN, BERT.", ["GCN", "BERT"]),  # a short list of acronyms
])
def test_absent_terms(facts, text, terms):
    assert absent_terms(text, facts) == terms


def test_a_finding_with_an_absent_name_is_proposed_as_not_in_the_document(facts):
    [p] = absent_finding(FINDING, [], facts)
    assert (p.detector, p.status, p.said, p.sids) == (
        Detector.ABSENT, Status.NOT_IN_DOCUMENT, "GCN", ())
    assert p.key == "absent gcn" and '"GCN"' in p.note
    assert "GCN" in p.claim


@pytest.mark.parametrize("text", [
    "Do they tag the tokens with a graph convolutional network (GCN) on top of the LSTM?",
    "I can't remember whether they tag the tokens with GCN on top of the LSTM.",
    "Scratch that, that was another paper that tagged tokens with a GCN and an LSTM.",
    "A GCN tops the LSTM.",  # too short to state a finding
    "The LSTM tags the tokens with a conditional random field, not a GCN.",  # rejected
    "We booked the room with Bill Gates for the whole afternoon on Friday.",  # off the subject
])
def test_no_finding_is_proposed_for(facts, text):
    assert absent_finding(text, [], facts) == []


def test_a_name_the_recognizer_was_unsure_of_is_not_called_absent(facts):
    """Misheard names ("RZIV" for "arXiv") are not what the speaker said."""
    assert absent_finding(FINDING, [], facts, unsure=("(GCN)",)) == []
    assert unclear_names(FINDING, facts, ("(GCN)",)) == ["GCN"]
    # a sure name still counts, whatever else was unclear
    assert len(absent_finding(FINDING, [], facts, unsure=("convolutional", "LSTM."))) == 1
    assert unclear_names(FINDING, facts, ("LSTM.",)) == []  # the document's own name
    assert unclear_names(FINDING, facts, ()) == []


def test_given_a_similarity_the_turn_must_be_near_a_retrieved_sentence(facts):
    document = paper()
    near = {document.get(3).text: 0.45}  # the LSTM sentence
    def similarity(a: str, b: str) -> float:
        return near.get(b, 0.1)

    assert absent_finding(FINDING, document.sentences[:3], facts, similarity) == []
    assert len(absent_finding(FINDING, document.sentences[3:], facts, similarity)) == 1


@pytest.mark.slow
def test_on_minilm_another_meetings_business_is_off_the_subject(facts):
    """Real weights: a committee's talk that shares everyday words with the document
    ("pages", "training") is far from every sentence; a finding about its model is not."""
    from app.embedding import get_embedder

    cosine = get_embedder().cosine
    document = paper()
    business = ("The Prime Minister said the training pages for the Service Canada "
                "benefit will go up next week for every family.")
    assert absent_terms(business, facts) and absent_finding(business, [], facts)
    assert absent_finding(business, document.sentences, facts, cosine) == []
    assert len(absent_finding(FINDING, document.sentences, facts, cosine)) == 1


def test_the_detector_runs_only_where_no_other_proposes_and_can_be_left_out(facts):
    assert [p.detector for p in detect(FINDING, [], [], facts)] == [Detector.ABSENT]
    others = [d for d in Detector if d != Detector.ABSENT]
    assert detect(FINDING, [], [], facts, enabled=others) == []


OTHER_SOURCE = ("The labeling process of the Grobid Toolkit succeeds for 91% of the documents "
                "in the training corpus.")


def test_a_finding_from_another_source_is_absent_not_a_misstated_number(facts):
    """Its number differs from the document's because it is about something else."""
    document = paper()
    assert [p.detector for p in detect(OTHER_SOURCE, [], document.sentences, facts)] == [
        Detector.ABSENT]
    plain = "The labeling process succeeds for 91% of the documents in the training corpus."
    assert [p.detector for p in detect(plain, [], document.sentences, facts)] == [
        Detector.NUMBER]
    without = [d for d in Detector if d != Detector.ABSENT]
    assert [p.detector for p in detect(OTHER_SOURCE, [], document.sentences, facts,
                                       enabled=without)] == [Detector.NUMBER]


MISATTRIBUTED = {"status": "not_in_paper", "claim": "the tagging network"}
DENIAL_BY_MODEL = {"action": "speak", "text": "The document doesn't report a graph network.",
                   "topic": "", "source": "", "quote_sids": []}


def backbone(llm: ScriptedLLM, quote_denials: bool) -> Backbone:
    settings = Settings(
        llm=LLMSettings(context_mode=ContextMode.FOCUSED),
        ledger=dataclasses.replace(LedgerSettings(), screen_turns=False),
        utterance=UtteranceSettings(quote_denials=quote_denials))
    document = paper()
    return Backbone(document, llm, settings, WordOverlap(), search=lexical_search(document))


@pytest.mark.parametrize(("quote", "said", "model_calls"), [
    (True, "The document doesn't mention GCN.", 2),
    (False, "The document doesn't report a graph network.", 3),
])
def test_a_misattribution_let_stand_is_denied_by_name(quote, said, model_calls):
    llm = ScriptedLLM([MISATTRIBUTED, MISATTRIBUTED, DENIAL_BY_MODEL])
    bb = backbone(llm, quote)
    first = bb.on_turn(turn(0, FINDING))
    second = bb.on_turn(turn(1, "Right, the GCN over the LSTM tags the tokens well.", "S2"))
    assert (first.action, first.reason) == ("silent", "gate: waiting 1/2")
    assert second.action == "speak" and second.intervention is not None
    assert second.intervention.text == said
    assert second.intervention.citations == ()
    assert len(llm.requests) == model_calls


def test_a_remark_that_states_no_finding_is_denied_by_the_model_if_at_all():
    """The monitor's own not_in_paper on a laugh: no name of it is said back."""
    llm = ScriptedLLM([MISATTRIBUTED, MISATTRIBUTED, DENIAL_BY_MODEL])
    bb = backbone(llm, True)
    bb.on_turn(turn(0, "HAHAHAHA, GCN!"))
    second = bb.on_turn(turn(1, "LOL, the GCN again.", "S2"))
    assert second.intervention is not None
    assert second.intervention.text == "The document doesn't report a graph network."
    assert len(llm.requests) == 3


def test_a_misattribution_of_names_heard_unsure_is_not_denied():
    """The monitor may call it another source's; the names may be misheard document
    terms, so nothing is said, and a sure name said later is denied as usual."""
    llm = ScriptedLLM([MISATTRIBUTED] * 4)
    bb = backbone(llm, True)
    unsure = ("GCN", "(GCN)")
    bb.on_turn(dataclasses.replace(turn(0, FINDING), unsure=unsure))
    second = bb.on_turn(dataclasses.replace(
        turn(1, "Right, the GCN over the LSTM tags the tokens well.", "S2"), unsure=unsure))
    assert second.action == "silent", second.intervention
    assert second.reason == "veto: the names the document lacks may be misheard (GCN)"
    bb.on_turn(turn(2, "Yes, the GCN over the LSTM tags the tokens well.", "S1"))
    fourth = bb.on_turn(turn(3, "So the GCN over the LSTM does the tagging then.", "S2"))
    assert fourth.action == "speak" and fourth.intervention is not None
    assert fourth.intervention.text == "The document doesn't mention GCN."
