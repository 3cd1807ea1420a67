"""The proposer over a transcript whose turns a live room's endpointing cut apart."""

from __future__ import annotations

from app.backbone.context import EvidenceFinder
from app.backbone.detectors import DocumentFacts
from app.backbone.proposals import BEFORE_LINES, Proposer, utterances
from app.backbone.retrieval import lexical_search
from app.backbone.transcript import Line
from app.settings import Detector
from tests.backbone.school import school

PUPILS_SID = 0  # "Northfield School has 1,260 pupils and 85 teachers."


def _proposer() -> Proposer:
    document = school()
    return Proposer(document, EvidenceFinder(lexical_search(document), 3),
                    DocumentFacts(document.sentences))


def _open_questions(said: list[tuple[str, str]]) -> list[list[tuple[int, ...]]]:
    """Each line's open-question proposals (their sentence IDs), fed as the harness does."""
    proposer, lines, out = _proposer(), [], []
    for index, (speaker, text) in enumerate(said):
        lines.append(Line(index, speaker, text))
        found = proposer.for_turn(lines[-1], lines[-1 - BEFORE_LINES:-1]).found
        out.append([p.sids for p in found if p.detector == Detector.OPEN_QUESTION])
    return out


def test_one_speakers_consecutive_questions_are_one_utterance() -> None:
    lines = [Line(0, "A", "What did they measure?"), Line(1, "A", "Which units?"),
             Line(2, "A", "I think it was blood pressure."), Line(3, "B", "How often?"),
             Line(4, "Jarvis", "Is that all?", agent=True), Line(5, "B", "Why?")]
    assert [[ln.index for ln in u] for u in utterances(lines)] == [
        [0, 1], [2], [3], [4], [5]]


def test_a_long_question_keeps_at_most_three_pieces() -> None:
    lines = [Line(i, "A", f"What about the {w} dose?") for i, w in enumerate(
        ["first", "second", "third", "fourth"])]
    assert [[ln.index for ln in u] for u in utterances(lines)] == [[0, 1, 2], [3]]


def test_a_question_cut_in_two_is_left_open_by_the_next_speaker() -> None:
    found = _open_questions([
        ("A", "How many pupils does Northfield School have?"),
        ("A", "Do they give a number?"),
        ("B", "I don't remember, let's keep going."),
    ])
    assert found[:2] == [[], []]
    [sids] = found[2]
    assert sids[0] == PUPILS_SID


def test_the_asking_speaker_going_on_is_no_reply() -> None:
    found = _open_questions([
        ("A", "How many pupils does Northfield School have?"),
        ("A", "I forget."),
        ("B", "No idea."),
    ])
    assert found[1] == []  # still the asking
    assert [s[0] for s in found[2]] == [PUPILS_SID]


def test_a_question_the_asker_answers_themself_is_not_left_open() -> None:
    found = _open_questions([
        ("A", "How many pupils does Northfield School have?"),
        ("A", "It says 1,260 pupils and 85 teachers, I think."),
        ("B", "Okay."),
    ])
    assert found == [[], [], []]


def test_an_answer_after_the_cut_question_closes_it() -> None:
    found = _open_questions([
        ("A", "How many pupils does Northfield School have?"),
        ("A", "Do they give a number?"),
        ("B", "It has 1,260 pupils, and 85 teachers."),
    ])
    assert found == [[], [], []]


def test_a_question_naming_nothing_is_one_utterance_with_its_speakers_line_before() -> None:
    lines = [Line(0, "A", "There was a school with a new library."),
             Line(1, "A", "Which one was that?"), Line(2, "B", "No idea."),
             Line(3, "B", "The library is new."), Line(4, "B", "Is it?"),
             Line(5, "A", "Which one?"), Line(6, "A", "Which one?")]
    assert [[ln.index for ln in u] for u in utterances(lines)] == [
        [0, 1], [2], [3, 4], [5], [6]]


def test_a_question_cut_from_what_it_points_back_to_is_left_open() -> None:
    found = _open_questions([
        ("A", "There was a school report with a count of pupils and teachers."),
        ("A", "Which one was that?"),
        ("B", "I don't remember the name."),
    ])
    assert found[:2] == [[], []]
    [sids] = found[2]
    assert sids[0] == PUPILS_SID
