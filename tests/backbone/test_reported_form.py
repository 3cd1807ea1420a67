"""What follows "the document says" is said as a person would: no glued capital, no bare
value where the cited sentence can be quoted."""

from __future__ import annotations

import pytest

from app.backbone.utterance import reported_form

CITED = ["The survey covered 48 buildings in the district.", "Costs rose by a third."]


@pytest.mark.parametrize(
    ("said", "out"),
    [
        ("The document says There are 48 buildings.", "The document says there are 48 buildings."),
        ("Actually, the document says The survey ran for ten weeks.",
         "Actually, the document says the survey ran for ten weeks."),
        ("The document reports that It was cheaper.", "The document reports that it was cheaper."),
        ("The document says A survey ran.", "The document says a survey ran."),
        ("The document says I was told.", "The document says I was told."),
        # names and acronyms keep their capitals
        ("The document says NumPy was used.", "The document says NumPy was used."),
        ("The document says Smith led the survey.", "The document says Smith led the survey."),
        # a quote after a colon keeps its capital
        ("The document says: The survey covered 48 buildings.",
         "The document says: The survey covered 48 buildings."),
        # no reporting lead: nothing to do
        ("There are 48 buildings.", "There are 48 buildings."),
    ],
)
def test_a_sentence_glued_after_the_lead_loses_its_capital(said: str, out: str) -> None:
    assert reported_form(said, CITED) == out


def test_a_bare_value_becomes_the_cited_sentence_that_holds_it() -> None:
    assert reported_form("Actually, the document says 48 buildings.", CITED) == (
        "Actually, the document says: The survey covered 48 buildings in the district."
    )
    assert reported_form("The document says a third.", CITED) == (
        "The document says: Costs rose by a third."
    )


def test_a_bare_value_stays_when_no_cited_sentence_holds_it_or_fits() -> None:
    assert reported_form("The document says 52.", CITED) == "The document says 52."
    said = "Actually, the document says 48 buildings."
    assert reported_form(said, CITED, max_words=8) == said  # the quote would be 13 words
    assert reported_form(said, CITED, max_words=13).endswith("in the district.")


def test_a_piece_cut_inside_a_cited_clause_becomes_the_whole_sentence() -> None:
    cited = ["In the pilot, the survey found that 500 papers were read by two annotators."]
    said = "About the pilot, the document says 500 papers were read by two annotators."
    assert reported_form(said, cited) == (
        "About the pilot, the document says: In the pilot, the survey found that 500 papers "
        "were read by two annotators."
    )
    assert reported_form(said, cited, max_words=12) == said  # the quote would not fit
    # a piece that starts where a clause starts is said as it is
    whole = "The document says the survey found that 500 papers were read by two annotators."
    assert reported_form(whole, cited) == whole


def test_a_copy_cut_short_inside_a_clause_becomes_the_whole_sentence() -> None:
    cited = ["The probe is a test that uses short primers designed on shared regions, "
             "which can find new strains."]
    said = "The document says the probe is a test that uses short primers."
    assert reported_form(said, cited) == f"The document says: {cited[0]}"
    # cut where a clause ends ("regions,"), the copy says a whole clause: it stays
    clause = "The document says the probe is a test that uses short primers designed on " \
             "shared regions."
    assert reported_form(clause, cited) == clause
    assert reported_form(said, cited, max_words=15) == said  # the quote would not fit
    # a glued capital does not hide the cut
    glued = "The document says The probe is a test that uses short primers."
    assert reported_form(glued, cited) == f"The document says: {cited[0]}"


LONG = ("Serum samples from the two hospitals, collected between March and May, were tested "
        "with the STEP assay, which detects antibodies within minutes, and the results were "
        "then compared with those of a reference laboratory.")


def test_a_bare_name_from_a_long_sentence_becomes_the_opening_that_holds_it() -> None:
    said = "Actually, the document says STEP."
    assert reported_form(said, [LONG], max_words=25) == (  # up to where its clause ends
        "Actually, the document says: Serum samples from the two hospitals, collected between "
        "March and May, were tested with the STEP assay.")
    # no opening of the sentence fits: the bare name stays (never a piece without subject)
    assert reported_form(said, [LONG], max_words=15) == said
    late = "The document says a reference laboratory."
    assert reported_form(late, [LONG], max_words=25) == late  # only the whole sentence has it


def test_an_opening_too_long_or_without_a_verb_is_not_quoted() -> None:
    cited = ["The assays used in the study, STEP and ELISA as the two reference methods for "
             "all of the serum samples in the three sites, were chosen by the ministry."]
    said = "The document says ELISA."
    assert reported_form(said, cited, max_words=12) == said  # no opening with it fits
    assert reported_form("Actually, the document says STEP.", [LONG], max_words=7) == (
        "Actually, the document says STEP.")  # nothing with a verb fits 3 words


def test_a_clause_is_never_cut_inside_brackets() -> None:
    cited = ["The hospitals compared two assays, and the molecular test beat serology (the "
             "ELISA, run twice) on sensitivity, which matters most for screening."]
    # the bracket holds a comma: no run starts or ends between its brackets
    assert reported_form("The document says ELISA.", cited, max_words=20) == (
        "The document says: The hospitals compared two assays, and the molecular test beat "
        "serology (the ELISA, run twice) on sensitivity.")


TRIAL = ["In a field trial (NOVA) of a nasal vaccine in 300 adults, the vaccine cut infections "
         "by a third over two winters and was well tolerated by older participants too."]


def test_a_bare_term_too_long_to_quote_is_set_against_the_swapped_one() -> None:
    said = "Actually, the document says NOVA."
    swapped = ["I think in a field trial (LUMA) of a nasal vaccine in 300 adults, the "
               "vaccine cut infections"]
    assert reported_form(said, TRIAL, 12, swapped) == (
        "Actually, the document says NOVA, not LUMA.")
    # no turn restates the sentence with that term swapped: the bare term stays
    assert reported_form(said, TRIAL, 12, ["Which trial was it again?"]) == said
    other = ["I think in a field trial (NOVA) of a nasal vaccine in 300 children, the "
             "vaccine cut infections"]
    assert reported_form(said, TRIAL, 12, other) == said  # they swapped something else
    # a quote that fits still wins over the contrast
    assert reported_form(said, TRIAL, None, swapped).startswith(
        "Actually, the document says: In a field trial (NOVA)")


def test_a_bare_number_too_long_to_quote_is_set_against_the_one_said() -> None:
    said = "Actually, the document says 300."
    raised = ["So the field trial had 250 adults and the vaccine cut infections by a third."]
    assert reported_form(said, TRIAL, 12, raised) == "Actually, the document says 300, not 250."
    # a number of another kind (winters, not adults) is not what they got wrong
    assert reported_form(said, TRIAL, 12, ["It ran over three winters, I think."]) == said
    # a number the cited sentence itself gives is no rival
    assert reported_form(said, TRIAL, 12, ["It had 300 adults over two winters."]) == said


SURVEY = ["Across the whole region and in every season, the survey found that 35-50% of "
          "the sampled homes had damp walls."]


def test_a_piece_too_long_to_quote_whole_is_said_as_its_number_against_the_one_said() -> None:
    said = "Actually, the document says 35-50% of the sampled homes had damp walls."
    raised = ["I read that 25 to 50% of the sampled homes had damp walls."]
    assert reported_form(said, SURVEY, 12, raised) == (
        "Actually, the document says 35-50%, not 25 to 50%.")
    # nobody said another share of homes: the piece stays as it was
    assert reported_form(said, SURVEY, 12, ["Which survey was it again?"]) == said
    # the whole sentence fits: it is quoted
    assert reported_form(said, SURVEY, None, raised).startswith(
        "Actually, the document says: Across the whole region")
