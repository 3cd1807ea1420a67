"""The kinds of talk, on ordinary utterances of any meeting (none from the benchmarks)."""

from __future__ import annotations

import pytest

from app.language.talk import (
    PHRASES,
    Talk,
    asking_sentences,
    asks_about_document,
    contains_question,
    counted_in_question,
    find,
    instructs_listeners,
    is_abstention,
    is_question,
    rejected,
    says,
    set_aside,
    without_address,
)

# (kind, utterances of that kind, utterances that are not)
CASES: list[tuple[Talk, list[str], list[str]]] = [
    (Talk.QUESTION_TO_ROOM,
     ["Can we take a short break?", "Okay, should we wrap up here?", "Right, do you want to start?",
      "I had a look at the budget, could I ask you something?"],
     ["Do you remember how big the sample was?", "What did the survey find?",
      "The board can decide later.", "Could you please tell me what the index measures?",
      "Can you explain how they sampled the schools?"]),
    (Talk.CHECK_ON_LISTENER,
     ["You finished the report?", "We're all here?", "Everyone seen the slides?",
      "You looked at the appendix?", "You all got it?"],
     ["What did you find in the appendix?", "They found a drop in costs?", "Your point stands?"]),
    (Talk.ROOM_CHECK,
     ["Anything else?", "Any more questions?", "Ready?", "All set?", "Sound good?"],
     ["Anything else in the budget section?", "Is the money ready by June?"]),
    (Talk.FAILED_RECALL,
     ["I don't remember the exact figure.", "I honestly can't recall.", "No idea, sorry.",
      "I'm not sure how many there were.", "I forget the name of the tool.",
      "It slipped my mind.", "I'm drawing a blank on that."],
     ["I remember it was about a third.", "I don't think so.", "I know the answer."]),
    (Talk.MOVING_ON,
     ["Fine, let us just move on.", "Never mind, it's fine.", "We can look it up later.",
      "I'll check that afterwards.", "Let's not get stuck on the details.",
      "Let's skip it for now.", "OK, on to the next point.", "Park that for now."],
     ["The method moves the data to a server.", "They skip the first step of training.",
      "Skip connections help deep networks.", "The pipeline is stuck at the second stage.",
      "The next section describes the survey."]),
    (Talk.NEGATION,
     ["The plan doesn't include parking.", "It lacks any data on cost.", "without a control group"],
     ["The plan includes parking.", "It covers every site."]),
    (Talk.RETRACTION,
     ["Scratch that, it was the other report.", "That's not from this paper, sorry.",
      "I mixed them up.", "The authors never said that.", "They didn't run that.",
      "My mistake, I take it back.", "I was wrong about the date."],
     ["They didn't find an effect of the dose.", "It doesn't have to be expensive.",
      "The other group got the placebo.", "They say it cost less."]),
    (Talk.ATTRIBUTION,
     ["They found that costs fell.", "The paper says the effect is small.",
      "In this study they measured the noise twice."],
     ["I found the room too cold.", "We measured the table."]),
    (Talk.INSTRUCTION,
     ["Please sign the form.", "Tell everyone to leave the room.", "You must all sign in.",
      "So, remember to bring your badge."],
     ["Contact tracing began in March.", "Follow-up lasted a year.",
      "Stop words are removed first.", "The staff must sign in."]),
    (Talk.ASKS_QUANTITY,
     ["How many schools took part?", "What percentage dropped out?", "What was the size of it?"],
     ["Which schools took part?", "Who led the survey?"]),
    (Talk.ABSTENTION,
     ["The document doesn't say how long it took.", "That isn't covered in the report.",
      "There's no mention of a budget in this paper."],
     ["The document says it took a year.", "It was covered by the report."]),
    (Talk.YES_NO_QUESTION,
     ["Do they say how long it took.", "Okay, is there a limit on the size.",
      "Yeah, did anyone check the budget", "Didn't they list the sites.", "Were those paid.",
      "Is the budget ready by June.", "Um, does the survey cover both sites."],
     ["They do say how long it took.", "The board did check it.", "It is there.",
      "Do the sums again.", "Have a look at the budget."]),
    (Talk.WH_QUESTION,
     ["How many sites were there.", "So how long did it run", "And what did they use.",
      "Okay, who was in charge.", "Yeah but then which sites were left out.",
      "Where do the samples come from."],
     ["What I mean is the total.", "Which is why they stopped.", "When they met, it rained.",
      "And how it works, I don't know.", "Right, which is why they have to redo it.",
      "Okay, so, where were we."]),
]


@pytest.mark.parametrize(("kind", "text", "expected"),
                         [(k, t, True) for k, yes, _ in CASES for t in yes]
                         + [(k, t, False) for k, _, no in CASES for t in no])
def test_kinds_of_talk(kind: Talk, text: str, expected: bool) -> None:
    found = instructs_listeners(text) if kind is Talk.INSTRUCTION else says(kind, text)
    assert found is expected, (kind, text)


def test_every_kind_has_one_pattern() -> None:
    assert set(PHRASES) == set(Talk)


def test_curly_apostrophes_read_as_straight() -> None:
    assert says(Talk.FAILED_RECALL, "I don\u2019t remember.")
    assert says(Talk.MOVING_ON, "Let\u2019s move on to the budget.")


@pytest.mark.parametrize(
    ("turn", "about"),
    [
        ("How many buses run at night?", True),
        ("I forget the second name. Which one was that?", True),
        ("Do you remember what the fee was?", True),
        ("Can we stop here for today?", False),
        ("Everyone read the minutes?", False),
        ("Any questions?", False),
        ("So what?", False),  # asks nothing: no content word
        # the recognizer dropped the marks
        ("Back to the pilot for a second. Do they say how long it ran.", True),
        ("Okay, can we stop here for today.", False),
        ("The pilot ran for a year. They say so.", False),
    ],
)
def test_questions_about_the_document(turn: str, about: bool) -> None:
    assert asks_about_document(turn) is about


@pytest.mark.parametrize(
    ("turn", "opens", "contains"),
    [
        ("How many buses run at night", True, True),
        ("Did they count the night buses.", True, True),
        ("Good point. Did they count the night buses.", False, True),
        ("The night buses, how many run? I forget.", False, True),
        ("They counted the night buses. It took a week.", False, False),
        ("Good point. Which is why they counted them.", False, False),
        ("Good point. How many night buses were there.", False, True),
    ],
)
def test_a_question_without_its_mark(turn: str, opens: bool, contains: bool) -> None:
    assert is_question(turn) is opens
    assert contains_question(turn) is contains


@pytest.mark.parametrize(
    ("turn", "asking"),
    [
        ("The pilot ran. How long was it? It felt long.", ["How long was it?"]),
        ("The pilot ran. How long was it. It felt long.", ["How long was it."]),
        ("The pilot ran. Did they say how long. It felt long.", ["Did they say how long."]),
        ("How long was it. Was it a year?", ["Was it a year?"]),  # a mark where there is one
        ("The pilot ran for a year. It felt long.", []),
        ("The pilot ran. Which is why it felt long.", []),
    ],
)
def test_the_sentences_of_a_turn_that_ask(turn: str, asking: list[str]) -> None:
    assert asking_sentences(turn) == asking


def test_which_names_what_is_asked_for() -> None:
    found = find(Talk.ASKS_WHICH, "Which vaccines were given first?")
    assert found is not None and found.group(1) == "vaccines"


def test_what_a_count_question_counts() -> None:
    assert counted_in_question("How many buses were there?") == {"buse"}
    assert counted_in_question("Where were they?") == frozenset()


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("It was 40, not twelve.", "12", True),
        ("They used the new scanner rather than the old one.", "old", True),
        ("It was not about 300 but more.", "300", True),
        ("It was not 5,000 but 50.", "5", False),  # the whole number only
        ("It was twelve.", "12", False),
    ],
)
def test_a_value_named_only_to_reject_it(text: str, value: str, expected: bool) -> None:
    assert rejected(text, value) is expected


def test_a_correction_sets_the_speakers_value_aside() -> None:
    said = ["I think it was 5,000 visitors."]
    assert "5,000" not in set_aside("It was 1,200 visitors, not 5,000.", said)
    assert "900" in set_aside("It was 1,200 visitors, not 900.", said)


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Actually, the document says Sapporo, not Aichi.", "Actually, the document says Sapporo."),
        ("It ran on the main cluster, rather than the old cluster.", "It ran on the main cluster."),
        ("It says STEP, not LAB, for the first.", "It says STEP, for the first."),
        ("It says Sapporo, not Osaka.", "It says Sapporo, not Osaka."),  # nobody said Osaka
        ("It was not Aichi.", "It was not Aichi."),  # a denial of its own, not set against
    ],
)
def test_a_correction_sets_the_speakers_term_aside(text: str, left: str) -> None:
    said = ["It was an orphanage in Aichi, Japan.", "I think it was the old cluster and LAB."]
    assert set_aside(text, said) == left


def test_the_address_to_the_agent_is_no_content() -> None:
    assert without_address("Hey Jarvis, what was the fee?") == "what was the fee?"
    assert without_address("What was the fee, Jarvis?") == "What was the fee,"


def test_abstention_reads_compatibility_forms() -> None:
    assert is_abstention("The report does not specify the \ufb01nal cost.")

