"""Utterance defect checks on made-up spoken texts: each check flags its defect and
passes a clean sentence; the replay report counts them and shows what was said."""

from __future__ import annotations

from pathlib import Path

from app.eval.dataset import read_set
from app.eval.defects import DefectKind, check_utterance, is_clipped, on_page, schema_keys
from app.eval.qa import QARecord, summarise_qa
from app.eval.records import DecisionRecord
from app.eval.report import qa_markdown, replay_markdown
from app.eval.scoring import lexical_similarity, score_replay
from tests.eval import tiny_set

CITED = "In the spring trial, the team found that 53% of the volunteers kept the diet."
PAGE = ("Results. In the spring trial, the team found that 53% of the volun-\n"
        "teers kept the diet.  The autumn trial lasted 46.5 % longer.")


def kinds(text: str, cited: tuple[str, ...] = (CITED,), page: str | None = PAGE) -> list[str]:
    return [d.kind.value for d in check_utterance(text, cited, page)]


def test_a_clean_utterance_has_no_defect() -> None:
    text = ("About the diet, the team found that 53% of the volunteers kept it. "
            "You'll find this on page 3; search for 'spring trial' to confirm.")
    assert kinds(text) == []


def test_fragment_lower_case_or_no_final_punctuation() -> None:
    assert kinds("mentions that the volunteers kept the diet.") == ["fragment"]
    assert kinds("The volunteers kept the diet") == ["fragment"]
    assert kinds("The volunteers kept the diet.", cited=()) == []


def test_fragment_with_a_bracket_cut_off_its_pair() -> None:
    assert kinds("ELISA) showed that the volunteers kept the diet.", cited=()) == ["fragment"]
    assert kinds("The volunteers (53% of them kept the diet.", cited=()) == ["fragment"]
    assert kinds("The volunteers (53% of them) kept the diet.", cited=()) == []


def test_fragment_clipped_inside_a_clause_of_the_cited_sentence() -> None:
    assert is_clipped("53% of the volunteers kept the diet.", CITED)
    assert kinds("53% of the volunteers kept the diet.") == ["fragment"]
    assert kinds("The volunteers kept the diet.") == ["fragment"]  # drops "53% of"
    # After a comma the cut is at a clause boundary; the whole sentence is not clipped.
    assert not is_clipped("The team found that 53% of the volunteers kept the diet.", CITED)
    assert not is_clipped(CITED, CITED)


def test_reference_markers_in_the_cited_sentence_are_not_words_it_runs_on_with() -> None:
    cited = "Of the 57 adenovirus types [23] , only types 40 and 41 cause diarrhea [24] ."
    assert not is_clipped("Of the 57 adenovirus types, only types 40 and 41 cause diarrhea.",
                          cited)
    assert not is_clipped("Of the 57 adenovirus types.", cited)  # the clause ends at the mark
    assert is_clipped("Only types 40 and 41 cause.", cited)


def test_a_copy_is_compared_word_for_word_across_the_source_s_commas() -> None:
    cited = ("Tim Allen as Buzz Lightyear, a space ranger action figure and Woody's rival, "
             "who later becomes his best friend.")
    assert is_clipped("Tim Allen as Buzz Lightyear, a space ranger action figure and Woody's "
                      "rival, who.", cited)
    assert is_clipped("Buzz Lightyear a space ranger action figure.", cited)
    assert not is_clipped("A space ranger action figure and Woody's rival.", cited)
    assert not is_clipped(cited, cited)


def test_fragment_cut_short_inside_a_clause_of_the_cited_sentence() -> None:
    assert is_clipped("In the spring trial, the team found that 53%.", CITED)
    assert kinds("In the spring trial, the team found that 53%.") == ["fragment"]
    assert not is_clipped("In the spring trial.", CITED)  # a clause ends at the comma


def test_quoted_document_words_are_checked_after_the_lead() -> None:
    assert kinds("The document says: found that 53% of the volunteers kept the diet.") == [
        "fragment"]
    assert kinds(f"The document says: {CITED}") == []


def test_placeholder_text_from_the_prompt_or_schema() -> None:
    assert kinds("I can't find the finding in a few words anywhere in it.") == ["placeholder"]
    assert kinds("The document value is 12 grams.") == ["placeholder"]
    assert kinds("About {topic}, the trial lasted a year.") == ["placeholder"]
    assert kinds("The trial lasted <the duration>.") == ["placeholder"]
    assert "quote_sids" in schema_keys()
    assert kinds("The quote_sids are missing.") == ["placeholder"]
    assert kinds("About spring_trial, the team kept the diet.") == ["placeholder"]
    assert kinds("About the spring trial, the team kept the diet.") == []
    assert kinds("The trial lasted a year.") == []


def test_a_sentence_that_ends_twice() -> None:
    assert kinds("The team wrote 'the diet worked.'.") == ["doubled_stop"]
    assert kinds("The team kept the diet (all of them.).") == ["doubled_stop"]
    assert kinds("The team kept the diet..") == ["doubled_stop"]
    assert kinds("The team wrote 'the diet worked.'") == []
    assert kinds("The team kept the diet...") == []
    assert kinds("The team kept the diet (all of them).") == []


def test_search_phrase_must_be_on_the_cited_page() -> None:
    hint = " You'll find this on page 3; search for '{}' to confirm."
    said = "The trial lasted a year."
    assert kinds(said + hint.format("winter trial")) == ["search_phrase_not_on_page"]
    # Line-end hyphenation, runs of spaces and the space before % are normalised only.
    assert kinds(said + hint.format("volunteers kept")) == []
    assert kinds(said + hint.format("46.5% longer")) == []
    assert on_page("Zürich café", "The office in Zürich café opened.")
    assert not on_page("Zurich cafe", "The office in Zürich café opened.")
    # No page text to look in: the phrase is not checked.
    assert kinds(said + hint.format("winter trial"), page=None) == []


def test_sentence_without_a_verb() -> None:
    assert kinds("About the diet, the volunteers in the spring.") == ["no_verb"]
    assert kinds("The volunteers in the spring kept it.") == []
    assert kinds("The trial ended early.") == []
    # Not Latin script: the light check does not apply.
    assert kinds("研究 人员 在 春季 试验.") == []


def test_value_spliced_onto_another_clause() -> None:
    assert kinds("The team checked the diet of the volunteers, 53%.") == ["spliced_value"]
    assert kinds("The team checked the diet of the volunteers 53%.") == ["spliced_value"]
    assert kinds("The share of volunteers who kept the diet was 53%.") == []
    assert kinds("The document says the share was 53%.") == []


def test_bare_value_or_clipped_piece_after_a_reporting_lead() -> None:
    assert kinds("Actually, the document says 53%.") == ["spliced_value"]
    assert kinds("About the diet, the document says Tofu.") == ["spliced_value"]
    # set against the participants' term, a bare one says what replaces what
    assert kinds("About the diet, the document says Tofu, not Tempeh.") == []
    assert kinds("Actually, the document says 53%, not 35%.") == []
    assert kinds("Actually, the document says 53% of the volunteers kept the diet.") == [
        "fragment"]  # cut after "found that" in the cited sentence
    assert kinds("Actually, the document says that the team found that 53% of the "
                 "volunteers kept the diet.") == []


def test_sentence_glued_after_a_reporting_verb() -> None:
    assert kinds("About the diet, the document says There are 53% who kept it.") == [
        "spliced_clause"]
    assert kinds("About the diet, the document says there are 53% who kept it.") == []


def test_a_sentence_that_says_a_stretch_of_itself_twice() -> None:
    loop = ("The document says 8000 people were infected, and about 10% of them died, "
            "8000 people were infected, and about 10% of them died.")
    assert [d.kind for d in check_utterance(loop)] == ["repeated"]
    assert check_utterance("The number of cases and the number of deaths both rose.") == []


def test_replay_report_counts_defects_and_shows_what_was_said(tmp_path: Path) -> None:
    tiny = read_set(tiny_set.write_set(tmp_path / "tiny"))
    document = tiny.documents[0].name
    spoken = [
        DecisionRecord(document, "main", 3, "speak", "proactive",
                       "mentions that the volunteers kept the diet."),
        DecisionRecord(document, "main", 9, "speak", "proactive",
                       "The trial lasted a year."),
        DecisionRecord(document, "main", 10, "silent", reason="monitor: on_progress"),
    ]
    report = score_replay(tiny, spoken, lexical_similarity)
    found = report.utterance_defects
    assert (found.count, found.spoken, found.by_kind) == (1, 2, {"fragment": 1})
    data = report.to_json()["utterance_defects"]
    assert data["of_spoken"] == 2 and data["samples"][0]["turn"] == 3
    assert [s["text"] for s in data["samples"]][1] == "The trial lasted a year."
    markdown = replay_markdown(report, {})
    assert "Utterance defects: 1 in 2 spoken texts (fragment 1)." in markdown
    assert "The trial lasted a year." in markdown


def test_defect_kinds_are_a_closed_set() -> None:
    assert {k.value for k in DefectKind} == {
        "fragment", "placeholder", "search_phrase_not_on_page", "no_verb", "spliced_value",
        "spliced_clause", "repeated", "doubled_stop"}


def _record(rid: str, text: str, sids: tuple[int, ...], quote: str = "") -> QARecord:
    return QARecord(id=rid, document="doc", question="q?", gold="53%", answerable=True,
                    action="answer", text=text, page=1 if sids else None, quote_sids=sids,
                    quote=quote, correct=True, f1=0.5, citation_overlap=None,
                    citation_hit=False, ttft_ms=None, total_ms=10.0)


def test_direct_answers_report_citations_and_defects() -> None:
    records = [_record("a", "mentions that 53% of the volunteers kept the diet.", (4,), CITED),
               _record("b", "The team found that 53% of the volunteers kept the diet.", ()),
               _record("c", "The team found that 53% of the volunteers kept the diet.", (4,),
                       CITED)]
    summary = summarise_qa(records)
    assert summary["answers_cited_pct"] == 66.7
    found = summary["answer_defects"]
    assert (found["count"], found["of_answers"], found["by_kind"]) == (1, 3, {"fragment": 1})
    assert [s["id"] for s in found["samples"]] == ["a"]
    assert "| answer defects | 1 in 3 answers (fragment 1) |" in qa_markdown(summary, {})
