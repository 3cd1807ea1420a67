"""Spoken permission to take the floor while the agent's hand is up (SPEC §5).

Phrases are end-anchored ("go ahead, Jarvis" but not "go ahead with the plan"); the bare
forms ("go ahead", "you can speak") count only while the hand is up and only as the whole
utterance, after optional fillers ("ok, go ahead"). Denials ("not yet", "hold on", "wait",
"stop", "don't ...") are never permission.

The same end-anchored, addressed form asks the agent to keep its proactive remarks back
for a while: "Jarvis, not now" (the default snooze), "Jarvis, quiet for ten minutes".
"""

from __future__ import annotations

import re
from enum import Enum

from app.language.numbers import word_numbers_to_digits
from app.language.words import tokens

_NAME = r"(?:jarvis|agent)"
_VERB = r"(?:go on|go ahead|speak|answer|jump in|talk)"
_YOU_CAN = r"you can (?:speak|talk|answer|go ahead|jump in)"
_ADDRESSED = [
    re.compile(rf"\bgo ahead {_NAME}(?: please)?$"),
    re.compile(rf"\b{_NAME} (?:please )?{_VERB}(?: please)?$"),
    re.compile(rf"\b{_NAME} {_YOU_CAN}(?: now)?$"),
    re.compile(rf"\b{_YOU_CAN} {_NAME}$"),
]
_FILLERS = r"(?:(?:ok|okay|yes|yeah|sure|alright|right|so|well|now|please) )*"
_BARE = re.compile(rf"^{_FILLERS}(?:go ahead|{_YOU_CAN})(?: now| please)?$")
_DENIAL = re.compile(
    r"\b(?:not yet|hold on|hang on|wait|stop|don't|dont|do not|not now|no need|never mind)\b"
)


class Permission(str, Enum):
    GRANT = "grant"
    DENY = "deny"
    NONE = "none"


def classify(text: str, hand_up: bool) -> Permission:
    """Whether ``text`` grants the agent the floor."""
    said = " ".join(tokens(text))
    if not said:
        return Permission.NONE
    addressed = any(p.search(said) for p in _ADDRESSED)
    bare = hand_up and bool(_BARE.match(said))
    if _DENIAL.search(said):
        mentions = re.search(rf"\b{_NAME}\b", said) or hand_up
        return Permission.DENY if mentions else Permission.NONE
    return Permission.GRANT if addressed or bare else Permission.NONE


_AMOUNT = r"(?P<amount>a|an|one|half an|\d+(?:\.\d+)?)"
_DURATION = rf"(?:for )?{_AMOUNT} (?P<unit>minutes?|mins?|hours?)"
_QUIET = r"(?:not now|(?:be |stay |keep )?quiet|hush|shush|snooze)"
_SNOOZE = [
    re.compile(rf"\b{_NAME} (?:please )?{_QUIET}(?: {_DURATION})?(?: please)?$"),
    re.compile(rf"\b{_QUIET}(?: {_DURATION})? {_NAME}$"),
]
_SECONDS_PER = {"min": 60.0, "hou": 3600.0}


def snooze_request(text: str, default: float) -> float | None:
    """Seconds of quiet ``text`` asks for ("Jarvis, not now" gives ``default``), or None
    when it asks for none."""
    said = word_numbers_to_digits(" ".join(tokens(text)))
    found = next((m for p in _SNOOZE if (m := p.search(said))), None)
    if found is None:
        return None
    amount = found.group("amount")
    if amount is None:
        return default
    count = {"a": 1.0, "an": 1.0, "one": 1.0, "half an": 0.5}.get(amount)
    value = count if count is not None else float(amount)
    return value * _SECONDS_PER[found.group("unit")[:3]]
