"""Pure helpers: backchannels, permission phrases, value matching, sentence splitting."""

from __future__ import annotations

import pytest

from app.events import Intervention, InterventionKind, Turn
from app.floor import Freshness, Permission, classify, is_backchannel
from app.floor.fsm import spoken_text
from app.language.sentences import sentences as split_sentences
from app.language.values import value_present
from app.language.words import tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mm-hmm.", True),  # ASR writes hums at any length: "mm" is the listed "m"
        ("Hmmph.", False),  # a hum is only a backchannel when it is a listed word
        ("M-hmm.", True),
        ("Yeah.", True),
        ("Okay, right, sure.", True),
        ("Oh really? Wow!", True),
        ("yeah okay right sure fine", False),  # five words
        ("Yeah, but the sample was 120.", False),
        ("", False),
        ("...", False),
        ("Uh-huh", True),
        ("Yup.", True),  # other spellings ASR uses for listed words
        ("Mhm.", True),
        ("Mmhmm, yea.", True),
        ("Yupper.", False),
    ],
)
def test_backchannel(text: str, expected: bool) -> None:
    assert is_backchannel(text) is expected


P, D, N = Permission.GRANT, Permission.DENY, Permission.NONE


@pytest.mark.parametrize(
    ("text", "hand_up", "expected"),
    [
        ("Go ahead, Jarvis.", False, P),
        ("Go ahead, agent.", False, P),
        ("Jarvis, please go on.", False, P),
        ("Jarvis, speak.", False, P),
        ("Jarvis, answer", False, P),
        ("Okay Jarvis, jump in.", False, P),
        ("Jarvis, you can talk.", False, P),
        ("You can answer, Jarvis.", False, P),
        ("go ahead", True, P),
        ("Sure, you can speak.", True, P),
        ("go ahead", False, N),
        ("you can speak", False, N),
        ("Go ahead, Jarvis, and tell us the budget.", True, N),
        ("We should go ahead", True, N),
        ("Not yet, Jarvis.", True, D),
        ("Jarvis, hold on.", False, D),
        ("Wait.", True, D),
        ("Stop, Jarvis.", False, D),
        ("Jarvis, don't go ahead.", True, D),
        ("Hold on, we are not done.", False, N),
        ("", True, N),
    ],
)
def test_permission(text: str, hand_up: bool, expected: Permission) -> None:
    assert classify(text, hand_up) == expected


@pytest.mark.parametrize(
    ("value", "said", "expected"),
    [
        ("120 patients", "we had 120 patients", True),
        ("120 patients", "we had 100 patients", False),
        ("120 patients", "it was 120", False),
        ("1,200 participants", "about 1200 participants", True),
        ("3.5 percent dropout", "dropout was 3.50 percent", True),
        ("randomised double-blind design", "it was a double blind randomised design", True),
        ("randomised double-blind design", "it was randomised", False),
        ("12 weeks", "twelve weeks", True),  # recognition writes some numbers as words
        ("12 weeks", "twenty weeks", False),
    ],
)
def test_value_match(value: str, said: str, expected: bool) -> None:
    assert value_present(value, said, 0.6) is expected


def test_pluggable_similarity_decides_topic_moves_once_late() -> None:
    iv = Intervention("p", InterventionKind.PROACTIVE, "x", topic="sample size")
    turns = [Turn("B", f"we talk about {i}", i, i + 1, index=i) for i in range(6)]
    assert Freshness(similarity=lambda a, b: 0.9).check(iv, turns) is None
    stale = Freshness(similarity=lambda a, b: 0.0).check(iv, turns)
    assert stale is not None and stale.reason == "topic" and "6 turns since" in stale.detail
    assert Freshness(similarity=lambda a, b: 0.0).check(iv, turns[:5]) is None  # not late


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("See Fig. 3 for it. Done.", ["See Fig. 3 for it.", "Done."]),
        ("The value is 3.5 here. Next", ["The value is 3.5 here.", "Next"]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("  ", []),
    ],
)
def test_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_resume_text_starts_at_the_sentence() -> None:
    iv = Intervention("p", InterventionKind.PROACTIVE, "First one. I said two. NASA three.")
    assert spoken_text(iv, 0, "To finish my response,") == iv.text
    assert spoken_text(iv, 1, "To finish my response,") == (
        "To finish my response, I said two. NASA three."
    )
    assert spoken_text(iv, 2, "To finish my response,") == "To finish my response, NASA three."


def test_tokens_and_numbers() -> None:
    assert tokens("M-hmm, it's 1,200!") == ["m", "hmm", "it's", "1200"]
