"""Self-introductions offer a name; everyday sentences with "I'm" or "this is" do not."""

from __future__ import annotations

import pytest

from app.speech.introductions import introduced_name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi, I'm Maya.", "Maya"),
        ("Hello everyone, I am Tom Baker, from the lab.", "Tom Baker"),
        ("Okay so I'm Priya and I run the trial.", "Priya"),
        ("Good morning all. I'm Sam.", "Sam"),
        ("Hi Maya, I'm Tom.", "Tom"),
        ("my name is maya", "Maya"),
        ("Sorry, my name's Lee, I joined late.", "Lee"),
        ("This is Ana speaking.", "Ana"),
        ("You can call me Jo.", "Jo"),
        ("Right. Thanks. Hi, I'm Dev, I'll present the methods.", "Dev"),
    ],
)
def test_introductions_offer_the_name(text: str, name: str) -> None:
    assert introduced_name(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "I'm not sure about that number.",
        "I'm Sorry, go on.",
        "I think I'm going to disagree.",
        "Yeah, I'm Happy with the second table.",
        "I am the one who ran it.",
        "Is this Maya speaking?",
        "Are you Tom?",
        "This is Table Two here.",
        "We can call me tomorrow.",
        "Jarvis, I'm just thinking out loud.",
        "Thanks, I'm Done.",
        "",
    ],
)
def test_everyday_sentences_introduce_no_one(text: str) -> None:
    assert introduced_name(text) is None
