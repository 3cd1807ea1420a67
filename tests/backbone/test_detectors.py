"""Detectors on the real d01 document (Ammar et al. 2018), with their false positives."""

from __future__ import annotations

import pytest

from app.backbone.detectors import (
    DocumentFacts,
    detect,
    name_mismatch,
    number_mismatch,
    open_question,
)
from app.language.numbers import quantities
from app.settings import Detector
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def doc():
    from app.document import open_document

    return open_document(shared_path("benchmark/dev/d01/document.pdf"))


@pytest.fixture(scope="module")
def facts(doc):
    return DocumentFacts(doc.sentences)


def having(doc, *fragments):
    found = [s for s in doc.sentences if any(f in s.text for f in fragments)]
    assert found, fragments
    return found


def test_number_swap_in_words_is_caught_with_the_documents_value(doc, facts):
    utterance = ("Yeah, and that heuristic labelling only works on about 72 percent of the "
                 "documents.")
    cands = having(doc, "succeeds for 76%")
    [p] = number_mismatch(utterance, cands, facts)
    assert p.status == "incorrect_info" and p.predicted_answer == "76%"
    assert p.sids == (cands[0].sid,)


def test_a_detector_left_out_proposes_nothing(doc, facts):
    utterance = "And averaging twelve of those models buys them roughly another point on top."
    cands = having(doc, "ensemble of 15 models")
    assert [p.detector for p in detect(utterance, [], cands, facts)] == [Detector.NUMBER]
    others = [d for d in Detector if d != Detector.NUMBER]
    assert detect(utterance, [], cands, facts, enabled=others) == []


def test_spelled_out_count_swap_is_caught(doc, facts):
    utterance = "And averaging twelve of those models buys them roughly another point on top."
    [p] = number_mismatch(utterance, having(doc, "ensemble of 15 models"), facts)
    assert p.predicted_answer == "15"


def test_correct_restatement_is_not_flagged(doc, facts):
    cands = having(doc, "succeeds for 76%", "ensemble of 15 models")
    assert number_mismatch("The labelling succeeds for seventy-six percent of them.", cands,
                           facts) == []
    assert number_mismatch("It's an ensemble of 15 models, which adds 1.1 F1.", cands, facts) == []


def test_repair_that_names_the_wrong_value_to_reject_it_is_not_flagged(doc, facts):
    repair = "Sorry, fifteen models, not twelve. It's an ensemble of 15, and that adds 1.1 F1."
    assert number_mismatch(repair, having(doc, "ensemble of 15 models"), facts) == []


def test_section_table_and_page_numbers_are_not_quantities(doc, facts):
    assert quantities("Okay, section three, and Table 7 on page 9.") == []
    cands = having(doc, "Table 2 shows")
    assert number_mismatch("Table 7 shows the entity extraction results on papers.", cands,
                           facts) == []


def test_bare_one_is_not_a_quantity(doc, facts):
    assert quantities("one of them is the literature graph, one huge graph") == []
    cands = having(doc, "ensemble of 15 models")
    assert number_mismatch("One of those models is an ensemble, I think.", cands, facts) == []


def test_a_restatement_with_a_swapped_name_names_the_documents_term(doc, facts):
    utterance = ("We split each PDF into individual pages, and feed each page to Apache's "
                 "Tika library to convert it into a sequence of tokens.")
    [p] = name_mismatch(utterance, having(doc, "PDFBox"), facts)
    assert p.status == "incorrect_info" and (p.said, p.predicted_answer) == ("Tika", "PDFBox")
    assert "Tika" in p.note and p.key == "name tika"


def test_a_paraphrase_that_names_another_tool_is_no_restatement(doc, facts):
    utterance = ("So they split each PDF into pages and run every page through Apache Tika to "
                 "get a token sequence with font size and position features.")
    assert name_mismatch(utterance, having(doc, "PDFBox"), facts) == []


def test_names_the_document_has_are_not_flagged(doc, facts):
    utterance = "They feed each page to Apache's PDFBox library to get tokens with font size."
    assert name_mismatch(utterance, having(doc, "PDFBox"), facts) == []


def test_capitalised_sentence_openers_are_not_names(doc, facts):
    utterance = "Fair. Cool. Then the edges: citations, authorship, entity linking and mentions."
    assert name_mismatch(utterance, doc.sentences[:40], facts) == []


def test_open_question_with_failed_recall_proposes_the_answer_sentence(doc, facts):
    question = ("Right, so they dedupe on string similarity of the metadata. How many unique "
                "paper nodes does that actually leave them with?")
    answer = having(doc, "37M unique paper nodes")
    [p] = open_question("Oh, um... I honestly don't remember the number.", [question], answer,
                        facts)
    assert p.status == "missing_info" and p.sids == (answer[0].sid,)


def test_answered_question_is_not_open(doc, facts):
    question = "How many unique paper nodes are left after deduplication?"
    answer = having(doc, "37M unique paper nodes")
    reply = "It leaves them with 37 million unique paper nodes, from string similarity dedup."
    assert open_question(reply, [question], answer, facts) == []


def test_quantity_question_without_a_quantity_in_the_document_is_left_alone(doc, facts):
    question = "Do they ever say how long it takes to process one PDF? Like seconds per paper?"
    cands = having(doc, "the system extracts the paper title")
    assert open_question("Hmm. I don't think I saw a number for that.", [question], cands,
                         facts) == []


NODES_Q = ("Right, so they dedupe on string similarity of the metadata. How many unique paper "
           "nodes does that actually leave them with?")


@pytest.mark.parametrize(("previous", "reply", "opens"), [
    # a reply that admits not knowing, even when it asks something back
    ([NODES_Q], "Hm, no idea, I didn't note it. Does it matter?", True),
    # a question in mid-turn, then a reply that moves on
    (["How many unique paper nodes are left? I feel like they gave a figure."],
     "Okay, never mind, let's look it up later.", True),
    # the question two turns back, the turn between left it open too
    ([NODES_Q, "Um."], "Doesn't matter, let's keep going.", True),
    # the turn between answered it: the thanks after an answer opens nothing
    ([NODES_Q, "37 million. Dedup on the metadata leaves 37M unique paper nodes."],
     "Okay, great, that answers it.", False),
    # a reply with the value, and one with the sentence's words
    ([NODES_Q], "They end up with 37 million.", False),
    (["Which nodes are left once metadata duplicates are removed?"],
     "Unique paper nodes, from deduplication with string similarity.", False),
    # a new question instead of a reply
    ([NODES_Q], "Wait, what about the author nodes, how are they merged?", False),
    # no question at all
    (["They dedupe on string similarity of the metadata."], "Mm, okay.", False),
])
def test_open_question_follows_the_reply_to_the_latest_question(doc, facts, previous, reply,
                                                                 opens):
    answer = having(doc, "37M unique paper nodes")
    found = open_question(reply, previous, answer, facts)
    assert bool(found) is opens
    if opens:
        assert found[0].sids[0] == answer[0].sid and found[0].key.startswith("question ")


def test_a_count_of_the_thing_asked_about_answers_with_one_shared_word(doc, facts):
    # "nodes" is all the question shares with the answer, but the answer counts nodes;
    # the sentence before it shares "graph" only and counts mentions, not nodes.
    question = "And the whole graph, how many nodes was that in the end? Would it even fit?"
    pool = having(doc, "populate the 237M mentions") + having(doc, "37M unique paper nodes")
    [p] = open_question("No idea, sorry.", [question], pool, facts)
    assert p.sids[0] == having(doc, "37M unique paper nodes")[0].sid
    # a sentence that shares one word and has a number of something else is not enough
    assert open_question("No idea, sorry.", [question], pool[:1], facts) == []


def test_which_question_prefers_the_sentence_that_lists_them(doc, facts):
    question = "Which disciplines do the papers in the graph cover? Like, besides CS?"
    general = having(doc, "construction of a graph, providing")  # shares words, lists nothing
    listing = having(doc, "variety of scientific disciplines")
    [p] = open_question("No idea.", [question], general + listing, facts)
    assert p.sids[0] == listing[0].sid
    # without a listing sentence, the first one about the question
    [p] = open_question("No idea.", [question], general, facts)
    assert p.sids[0] == general[0].sid


def test_a_negated_question_is_answered_by_what_the_document_says_is_missing(doc, facts):
    question = "And which scientific domains does the graph not cover yet?"
    covered = having(doc, "variety of scientific disciplines")  # a list, but what it covers
    lacking = having(doc, "currently lacks coverage")
    [p] = open_question("No idea, sorry.", [question], covered + lacking, facts)
    assert p.sids[0] == lacking[0].sid
    assert open_question("No idea, sorry.", [question], covered, facts) == []


def test_open_question_uses_the_sentences_retrieved_for_the_question_turn(doc, facts):
    answer = having(doc, "37M unique paper nodes")
    unrelated = having(doc, "succeeds for 76%")
    reply = "I honestly don't remember the number. It's in section two somewhere."
    [p] = open_question(reply, [NODES_Q], unrelated, facts, asked_candidates=answer)
    assert p.sids[0] == answer[0].sid
    assert open_question(reply, [NODES_Q], unrelated, facts) == []


def test_question_key_is_the_same_for_the_asking_turn_however_the_claim_is_worded():
    from app.backbone.detectors import question_key, question_point

    asked = ("There was one of those systems that said it was struggling to assimilate "
             "everything. Which one was that?")
    assert question_point(asked) == asked  # "Which one was that?" alone names nothing
    assert question_point("Nice. What GPU did they train on?") == (
        "Nice. What GPU did they train on?")
    assert question_key(asked) == question_key(asked + " ")
    assert "assimilate" in question_key(asked)
    assert question_key(asked) != question_key("What GPU did they train on?")


def test_words_the_recognizer_was_unsure_of_are_not_what_a_question_asks_for():
    from app.backbone.detectors import asked_words, coverage

    heard = "How many unique capenodes were left after the merge?"
    sentence = "After the merge, 46 million unique paper nodes were left."
    assert coverage(heard, sentence) == 3 / 4  # unique, left, merge of four
    assert coverage(heard, sentence, unsure=["capenodes"]) == 1.0
    assert asked_words(heard, unsure=["Capenodes."]) == asked_words(heard) - asked_words(
        "capenodes")


def test_a_misheard_word_does_not_put_a_question_outside_the_document():
    from app.backbone.detectors import _roots, coverage

    sentence = "Deduplication on metadata string similarity results in 37M unique paper nodes."
    document = _roots(sentence)
    heard = "How many unique capenodes does that actually leave them?"  # unique | leave
    assert coverage(heard, sentence, document=document) == 0.0  # half outside
    assert coverage(heard, sentence, unsure=["capenodes"], document=document) == 1.0
    # Heard clearly, a word the document lacks still counts against the question.
    outside = "How many unique tickets did that actually leave them?"
    assert coverage(outside, sentence, unsure=["actually"], document=document) == 0.0


def test_the_question_of_a_turn_whose_marks_the_recognizer_dropped():
    from app.backbone.detectors import question_point

    heard = ("And the online test. How many clicks was that based on. Because a big lift on "
             "a small sample means little.")
    assert question_point(heard) == "And the online test. How many clicks was that based on."


def test_adoption_of_a_wrong_number_carries_the_proposal(doc, facts):
    from app.backbone.detectors import carried

    utterance = "That heuristic labelling only works on about 72 percent of the documents."
    first = number_mismatch(utterance, having(doc, "succeeds for 76%"), facts)
    adopted = carried(first, "Seventy-two percent is honestly not bad for string matching.")
    assert [p.predicted_answer for p in adopted] == ["76%"]
    assert "adopted" in adopted[0].note
    assert carried(first, "Mm, okay, interesting.") == []  # a brief reply adopts nothing
    assert carried(first, "No wait, it's 76 percent, I misread.") == []


@pytest.fixture(scope="module")
def review():
    from app.document import open_document

    return open_document(shared_path("benchmark/dev/d04/document.pdf"))


@pytest.fixture(scope="module")
def outbreak():
    from app.document import open_document

    return open_document(shared_path("benchmark/dev/d03/document.pdf"))


def test_of_several_values_the_one_said_about_the_same_thing_is_proposed(outbreak):
    facts = DocumentFacts(outbreak.sentences)
    utterance = ("They say the case fatality rate is around 3%, against 10% for SARS or 43% "
                 "for MERS.")
    [p] = number_mismatch(utterance, having(outbreak, "34% reported for MERS"), facts)
    assert (p.said, p.predicted_answer) == ("43%", "34%")
    assert p.claim == utterance.rstrip(".")  # the claim is what was said


def test_a_percent_range_is_compared_as_a_range(review):
    facts = DocumentFacts(review.sentences)
    utterance = "Given that something like 25 to 50 percent of diagnosed MERS cases died."
    [p] = number_mismatch(utterance, having(review, "35-50% of diagnosed infections"), facts)
    assert (p.said, p.predicted_answer) == ("25 to 50 percent", "35-50%")
    assert number_mismatch("Right, 35 to 50 percent of diagnosed MERS infections died.",
                           having(review, "35-50% of diagnosed infections"), facts) == []


def test_a_year_contradicts_only_a_sentence_about_the_same_dated_event(review):
    facts = DocumentFacts(review.sentences)
    first = having(review, "was first identified in 2003")
    [p] = number_mismatch("SARS-CoV was first identified in 2002, a decade before MERS.",
                          first, facts)
    assert p.predicted_answer == "2003"
    # a year beside a sentence that shares too little is no contradiction
    assert number_mismatch("We met in 2002 to plan it.", first, facts) == []


def test_a_swapped_name_of_several_words_is_proposed_whole(review):
    facts = DocumentFacts(review.sentences)
    [sentence] = having(review, "emerged initially in Saudi Arabia")
    said = sentence.text.replace("Saudi Arabia", "Qatar")
    [p] = name_mismatch(said, [sentence], facts)
    assert (p.said, p.predicted_answer) == ("Qatar", "Saudi Arabia")


@pytest.mark.parametrize(("turn", "about"), [
    ("How many unique paper nodes are left?", True),
    ("Right, so they dedupe. How many nodes does that leave them with? I forget.", True),
    ("What GPU did they train on", True),               # the mark lost by the ASR
    ("Do you remember how many papers they used?", True),
    ("How big was it, do you know?", True),
    ("One of those systems said it struggled to assimilate it all. Which one was that?", True),
    ("So I skimmed the paper, can I ask you a couple of things before the meeting?", False),
    ("Should we move on?", False),
    ("Okay, can you scroll up?", False),
    ("Anything else?", False),
    ("Okay, so this week's paper is the graph one. You got through it?", False),
    ("That was the deduplication step.", False),
])
def test_a_question_about_the_document_is_told_from_one_to_the_room(turn, about):
    from app.language.talk import asks_about_document

    assert asks_about_document(turn) is about


def test_a_question_to_the_room_left_unanswered_opens_nothing(doc, facts):
    meta = "So I only skimmed the Semantic Scholar graph paper, can I ask you some things?"
    assert open_question("Sure, go ahead.", [meta], doc.sentences[:40], facts) == []


def test_a_when_question_is_answered_by_a_sentence_with_a_date(outbreak):
    facts = DocumentFacts(outbreak.sentences)
    asked = "So when did it actually get reported to the WHO? Do they give the date?"
    pool = [*having(outbreak, "severely ill"), *having(outbreak, "reported to the World Health")]
    [p] = open_question("Uh, I don't remember it. End of December sometime?", [asked], pool,
                        facts)
    assert "31 December" in outbreak.get(p.sids[0]).text


def test_only_the_words_the_document_uses_count_toward_coverage():
    from app.backbone.detectors import _roots, coverage

    document = _roots("The model was trained on a single Titan V GPU for two epochs. "
                      "Training took nine hours.")
    asked = "Which card was that? What GPU did they train on?"
    answer = "The model was trained on a single Titan V GPU for two epochs."
    assert coverage(asked, answer) == 2 / 3  # "card" counts against it
    assert coverage(asked, answer, document=document) == 1.0  # gpu, train
    elsewhere = "What did the catering cost for the dinner in Lisbon on the train?"
    assert coverage(elsewhere, answer, document=document) == 0.0  # mostly not its words
    misheard = "So when did they get trained on the jeep you?"  # two words: one misheard
    assert coverage(misheard, answer, document=document) == 1.0
    aside = "When were the epochs trained in the Lisbon jeep?"  # half not the document's
    assert coverage(aside, answer, document=document) == 0.0


def test_a_what_is_question_is_answered_by_the_sentence_defining_the_term(doc, facts):
    from app.backbone.detectors import answer_sentence

    mentions = [s for s in having(doc, "KB") if "(KB" not in s.text]  # passing mentions
    defining = having(doc, "existing knowledge base (KB)")[0]
    best = answer_sentence("Sorry, what's a KB?", mentions, facts)
    assert best is not None and best.sid == defining.sid  # found in the document
    best = answer_sentence("What is a KB?", [*mentions, defining], facts)
    assert best is not None and best.sid == defining.sid


def test_a_count_of_something_the_document_never_counts_takes_any_quantity_about_it():
    """A counted word the recognizer misheard ("capenodes") is nothing the document
    counts: a quantity in a sentence about the question answers it. A counted word the
    document does count still needs a quantity of it."""
    from app.backbone.detectors import answer_sentence
    from app.document import Sentence

    texts = ["The survey ran in twelve schools across the region.",
             "After cleaning, the dataset kept 4,200 responses."]
    pool = [Sentence(i, t, page=1, rects=()) for i, t in enumerate(texts)]
    facts = DocumentFacts(pool)
    misheard = "So they cleaned the dataset. How many flarbles did that leave?"
    assert answer_sentence(misheard, pool, facts) is pool[1]
    known = "So they cleaned the dataset. How many schools did that leave?"
    assert answer_sentence(known, pool, facts) is pool[0]
