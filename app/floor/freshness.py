"""Freshness before playback (SPEC §7): is a held intervention still worth saying?

Two reasons to drop it, checked against the participants' turns since ``decided_turn``
(the turn the intervention answers):
- *stated*: someone already said the fact it carries (guard-style value match: every
  number of the value appears exactly and ≥ 60% of its content words are in one turn),
  or the agent did, answering a direct question while the intervention waited;
- *topic*: it is late and the group has left its topic. Late means more turns have
  passed since the turn it answers than a correction stays useful for (five, where the
  paper's live sessions put the end of the soft window); left means none of the last few
  turns is on the intervention's topic. The similarity is pluggable (an embedding cosine
  on the real machine); the default is lexical so the floor stays pure and model-free.
  Short of late, the topic is not judged: right after a claim the talk goes on about
  other things as often as not, and word overlap cannot tell that from a move. A turn of
  a word or two is not counted: live, endpointing cuts such fragments ("In", "Let me.")
  off a speaker's turn, and they neither move the talk nor say what it is about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.events import Intervention, Turn
from app.language.values import value_present
from app.language.words import lexical_similarity
from app.settings import FloorSettings

Similarity = Callable[[str, str], float]
AGENT_SPEAKER = "the agent's answer"


@dataclass(frozen=True)
class Staleness:
    reason: str  # "stated" or "topic"
    detail: str


def topic_text(intervention: Intervention) -> str:
    return intervention.topic or intervention.claim or intervention.text


class Freshness:
    def __init__(
        self,
        settings: FloorSettings | None = None,
        similarity: Similarity = lexical_similarity,
        min_similarity: float | None = None,
    ) -> None:
        self.settings = settings or FloorSettings()
        self.similarity = similarity
        self.min_similarity = (
            self.settings.freshness_topic_similarity if min_similarity is None else min_similarity
        )

    def check(self, intervention: Intervention, since: Sequence[Turn],
              answered: Sequence[str] = ()) -> Staleness | None:
        """``since``: the participants' turns after the decision, oldest first;
        ``answered``: what the agent's own direct answers said while it waited."""
        said = [(t.speaker, t.text) for t in since] + [(AGENT_SPEAKER, a) for a in answered]
        stated = self._stated(intervention, said)
        return stated or self._moved_on(intervention, since)

    def _stated(self, intervention: Intervention, said: Sequence[tuple[str, str]]
                ) -> Staleness | None:
        share = self.settings.freshness_value_share
        for speaker, text in said:
            for value in intervention.values:
                if value_present(value, text, share):
                    return Staleness("stated", f"{speaker} said {value!r}: {text!r}")
        return None

    def _moved_on(self, intervention: Intervention, since: Sequence[Turn]) -> Staleness | None:
        late = self.settings.freshness_late_turns
        window = self.settings.freshness_drift_turns
        fewest = self.settings.freshness_min_words
        since = [t for t in since if len(t.text.split()) >= fewest]
        if len(since) <= late or len(since) < window:
            return None
        topic = topic_text(intervention)
        best = max(self.similarity(topic, t.text) for t in since[-window:])
        if best >= self.min_similarity:
            return None
        return Staleness(
            "topic", f"{len(since)} turns since, last {window} off topic (best {best:.2f})")
