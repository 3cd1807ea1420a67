"""Pure pieces: quantities, context-mode choice, transcript window, spoken form, citations,
streamed answer text, backchannels, schemas."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest

from app.backbone import schemas
from app.backbone.citations import citations, keyword, valid_sids
from app.backbone.context import EvidenceFinder, choose_mode, model_size_b
from app.backbone.direct import TextFieldStream
from app.backbone.retrieval import lexical_search
from app.backbone.transcript import Transcript
from app.backbone.utterance import assemble, clean_text, limit_words
from app.document import DocumentIndex, Sentence
from app.events import Citation
from app.language.numbers import quantities
from app.language.talk import is_backchannel
from app.settings import ContextMode, LLMSettings, UtteranceStyle


@pytest.mark.parametrize("text,value,percent", [
    ("about 72 percent of the documents", 72, True),
    ("seventy-two per cent", 72, True),
    ("37M unique paper nodes", 37e6, False),
    ("thirty-seven million papers", 37e6, False),
    ("one hundred twenty participants", 120, False),
    ("684K training triples", 684e3, False),
    ("homogeneity .41 versus", 0.41, False),
])
def test_quantities_normalise_words_scales_and_percent(text, value, percent):
    [q] = quantities(text)
    assert q.value == pytest.approx(value) and q.percent is percent


@pytest.mark.parametrize("text", [
    "see Section 3", "Table 2 shows", "on page 4", "Figure 5", "one of them",
    "a learning rate of 2e-5", "COVID-19 cases", "the F1 score",
])
def test_references_names_and_bare_one_are_not_quantities(text):
    assert quantities(text) == []


@pytest.mark.parametrize(("text", "raws"), [
    ("It's 684K training triples, not 486.", ["684K", "486"]),
    ("Not 17, it\u2019s 19 classes.", ["17", "19"]),
    ("compared with the baseline's 0.19 and 0.63", ["0.19", "0.63"]),
    ("they've 12 models and there're 3 tasks", ["12", "3"]),
    ("see s. 3 and pp. 4", []),  # the abbreviations stay references
])
def test_a_contraction_or_possessive_before_a_number_is_a_word_not_a_reference(text, raws):
    assert [q.raw for q in quantities(text)] == raws


def test_model_size_from_the_gguf_name_or_an_explicit_value():
    llm = SimpleNamespace(model_path=Path("/m/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"))
    assert model_size_b(llm) == 1.5
    assert model_size_b(SimpleNamespace(model_path=Path("/m/Qwen3-8B-Q4_K_M.gguf"))) == 8.0
    assert model_size_b(SimpleNamespace(), explicit=35.0) == 35.0
    assert model_size_b(SimpleNamespace(url="http://box:8080/v1")) is None


@pytest.mark.parametrize("mode,tokens,size,expected", [
    (ContextMode.AUTO, 8500, 1.5, ContextMode.FOCUSED),   # small model
    (ContextMode.AUTO, 8500, 8.0, ContextMode.FULL),      # big model, fits
    (ContextMode.AUTO, 15000, 35.0, ContextMode.FOCUSED),  # does not fit in 16k
    (ContextMode.AUTO, 8500, None, ContextMode.FULL),     # unknown server model, fits
    (ContextMode.FULL, 8500, 0.5, ContextMode.FULL),      # the setting wins
    (ContextMode.FULL, 14407, 8.0, ContextMode.FOCUSED),  # unless the document cannot fit
    (ContextMode.FOCUSED, 100, 35.0, ContextMode.FOCUSED),
])
def test_context_mode_choice(mode, tokens, size, expected):
    assert choose_mode(LLMSettings(context_mode=mode), tokens, size) is expected


def test_evidence_for_a_turn_fuses_utterance_and_previous_turn_after_open_claims():
    asked: list[list[str]] = []

    def search(queries, k):
        asked.append(list(queries))
        return [(5, 0.9), (6, 0.8), (7, 0.1), (9, 0.05)][:k]

    finder = EvidenceFinder(search, k=3)
    assert finder.for_turn("now", "before") == [5, 6, 7]
    assert finder.for_turn("now", "", extra=[12, 6]) == [12, 6, 5]
    assert asked == [["now", "before"], ["now", ""]]


def test_lexical_search_weighs_the_previous_turn_less():
    texts = ["The learning rate follows a cosine schedule.", "Dropout is set to 0.1."]
    document = DocumentIndex(Path("p.pdf"), "0" * 64, "P", 1,
                             [Sentence(i, t, page=1, rects=()) for i, t in enumerate(texts)])
    search = lexical_search(document)
    assert [sid for sid, _ in search(["learning rate schedule", "dropout"], 2)] == [0, 1]
    assert [sid for sid, _ in search(["dropout", "learning rate schedule"], 2)] == [1, 0]
    assert [sid for sid, _ in search(["", "dropout"], 2)] == [1]
    assert search(["nothing matches"], 2) == []


def test_transcript_window_is_append_only_between_slides():
    t = Transcript(window=4, slide_every=2)
    seen = []
    for i in range(12):
        t.append(i, "S1", f"turn {i}")
        seen.append([line.index for line in t.recent()])
    assert all(4 <= len(w) <= 5 for w in seen[4:])
    slides = sum(1 for a, b in zip(seen, seen[1:], strict=False) if b[0] != a[0])
    assert slides == 4  # the start moves every second turn, not every turn
    assert [line.index for line in t.recent(3)] == [9, 10, 11]
    t.clear()
    assert t.recent() == [] and t.lines == []
    for i in range(3):
        t.append(20 + i, "S2", "again")
    assert [line.index for line in t.recent()] == [20, 21, 22]  # the window starts anew


CITE = Citation(60, 3, "We feed each page to Apache's PDFBox library.", (), "PDFBox library")


@pytest.mark.parametrize("style,expected", [
    (UtteranceStyle.FULL, "About the PDF parser, they use PDFBox, not Tika. You'll find this on "
                          "page 3; search for 'PDFBox library' to confirm."),
    (UtteranceStyle.PAGE_ONLY, "About the PDF parser, they use PDFBox, not Tika. You'll find "
                               "this on page 3."),
    (UtteranceStyle.OFF, "About the PDF parser, they use PDFBox, not Tika."),
])
def test_spoken_form_styles(style, expected):
    assert assemble("The PDF parser", "They use PDFBox [S60], not Tika", CITE, style) == expected


@pytest.mark.parametrize("topic,said", [
    ("The Training Data", "About the training data, "),
    ("HIV-1 vaccine trials", "About HIV-1 vaccine trials, "),
    ("online A/B test", "About online A/B test, "),
    ("NumPy arrays", "About NumPy arrays, "),
    ("annotation_curricula", "About annotation curricula, "),
])
def test_a_topic_is_said_in_lower_case_but_its_acronyms_keep_their_capitals(topic, said):
    assert assemble(topic, "It is small.", None, UtteranceStyle.OFF).startswith(said)


@pytest.mark.parametrize("text", ["It says 'they kept the diet.'", "It is (as they said.)",
                                  "It is small."])
def test_a_stop_inside_a_closing_quote_or_bracket_ends_the_text(text):
    assert assemble("", text, None, UtteranceStyle.OFF) == text


@pytest.mark.parametrize(("text", "said"), [
    ("It says 'they kept the diet.'.", "It says 'they kept the diet.'"),
    ("It is (as they said.).", "It is (as they said.)"),
    ("It says 'Rotten Tomatoes: 100%.'.", "It says 'Rotten Tomatoes: 100%.'"),
])
def test_a_stop_after_a_closed_sentence_goes(text, said):
    assert assemble("", text, None, UtteranceStyle.OFF) == said


def test_text_is_cleaned_and_limited():
    assert clean_text("It is 76% [S84] [12, 13] of them S84.") == "It is 76% of them."
    # A removed reference marker leaves no space before the punctuation after it.
    assert clean_text("Of 57 types [23] , only two cause it [24] .") == (
        "Of 57 types, only two cause it.")
    assert clean_text("a share of .5 [3] ; less") == "a share of .5; less"
    assert clean_text("S8: It was first seen in 2003.") == "It was first seen in 2003."
    # a section's name run into its first sentence is the page's label, not the text
    assert clean_text("Text: On 29 December it was reported.") == "On 29 December it was reported."
    assert clean_text("Background: Bats carry it.") == "Bats carry it."
    assert clean_text("GloVe: Global vectors for words.") == "GloVe: Global vectors for words."
    assert clean_text("Results: precision 85.5.") == "Results: precision 85.5."  # no sentence
    # A marker cut off at the end (a value copied from a sentence shown cut short).
    assert clean_text("8000 people, about 10% of those infected [") == (
        "8000 people, about 10% of those infected")
    assert clean_text("as shown in mice [11, 16") == "as shown in mice"
    assert limit_words("One two three. Four five six seven.", 5) == "One two three."
    assert limit_words("One two three four five six seven", 4) == "One two three four."


@pytest.mark.parametrize("text", [
    "The assays are listed in Table S3.", "See S2 Fig for the curves.",
    "Figure S1 shows it.", "Fig. S4 shows it.", "The code is in S1 File.",
])
def test_a_label_of_supplementary_material_is_no_sentence_id(text):
    assert clean_text(text) == text


def test_ids_are_validated_and_citations_resolve():
    sentences = [Sentence(i, f"Sentence number {i} about PDFBox{i} parsing.", 1 + i // 2,
                          ((1.0, 2.0, 3.0, 4.0),)) for i in range(4)]
    doc = DocumentIndex(Path("x.pdf"), "0", "x", 2, sentences)
    assert valid_sids(doc, [3, 3, 9, -1, "2", True, 1]) == (3, 1)
    [c] = citations(doc, [3], doc.numbered_block().lower())
    assert (c.sid, c.page, c.text, c.rects) == (3, 2, sentences[3].text, ((1.0, 2.0, 3.0, 4.0),))
    assert c.keyword in sentences[3].text and "PDFBox3" in c.keyword


def test_keyword_is_a_rare_verbatim_phrase():
    doc = "the model uses the model. bidirectional lstm layers. the model again."
    assert keyword("The model is a bidirectional LSTM.", doc) in ("bidirectional LSTM",
                                                                 "bidirectional")


def test_keyword_skips_a_word_with_a_glued_footnote_number():
    sentence = "Each page goes to Apache's PDFBox library3 to get the tokens."
    doc = sentence.lower() + " the tokens and pages again. apache again."
    assert keyword(sentence, doc) == "Apache's PDFBox"
    assert keyword("PDFBox library3.", "pdfbox library3. pdfbox.") == "PDFBox"
    assert keyword("The ACE2 receptor binds.", "the ace2 receptor binds. receptor binds."
                   ) == "ACE2 receptor binds"  # a name with digits is no footnote


def test_streamed_text_field_comes_out_piece_by_piece():
    stream = TextFieldStream()
    raw = '{"action": "answer", "text": "It is \\"37M\\" nodes.\\u00e9", "quote_sids": [2]}'
    out = "".join(stream.feed(raw[i:i + 3]) for i in range(0, len(raw), 3))
    assert out == 'It is "37M" nodes.\u00e9'


@pytest.mark.parametrize("text,expected", [
    ("Mm-hm.", True), ("Yeah.", True), ("Okay, cool.", True), ("Hmmm, right", True),
    ("Yeah, that's a big number.", False), ("Right, Tika.", False), ("", False),
    ("yeah yeah yeah yeah yeah", False),
])
def test_backchannels(text, expected):
    assert is_backchannel(text) is expected


def test_schemas_accept_good_replies_and_reject_bad_ones():
    jsonschema.validate({"status": "missing_info", "claim": "x", "answer_sids": [1, 2]},
                        schemas.MONITOR)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"status": "worried"}, schemas.MONITOR)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"status": "stale", "answer_sids": [1, 2, 3, 4]}, schemas.MONITOR)
    assert "evidence" not in schemas.monitor_schema(False)["properties"]
    jsonschema.validate({"resolved": [{"cid": 1, "by": "S2", "by_sids": [4]}]},
                        schemas.SELF_REPAIR)


@pytest.mark.parametrize(("intent", "hint", "sid", "expected", "absent"), [
    ("correct", "76%", None, '"Actually, the document says 76%."', "facts of"),
    ("missing", "37M", None, '"The document says 37M."', "Actually"),
    # an open question without a checked value: answer from the sentence found for it
    ("missing", "", 2, "with the facts of S2", "document value"),
])
def test_generate_task_gives_the_pattern_for_the_intent(intent, hint, sid, expected, absent):
    from app.backbone.prompts import generate_task

    task = generate_task(intent, "the point", "what was said", [2, 5], hint, sid)
    assert expected in task and absent not in task
    assert "sentences to use: S2, S5" in task


@pytest.mark.parametrize(("text", "expected"), [
    ("The document doesn\u2019t report that.", True),
    ("It lacks coverage for physics.", True),
    ("The study does not state a sample size", True),
    ("Papers cover a variety of disciplines.", False),
    ("Nothingness is a word, notably.", False),
])
def test_negated(text, expected):
    from app.language.talk import negated

    assert negated(text) is expected
