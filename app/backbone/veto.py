"""The correction veto: never contradict a speaker who states what the document states.

Before a correction or a "the document doesn't report that" is generated, the turns that
raised the claim are checked against the document with the detectors' own tests: each
quantity the speakers gave (``DocumentFacts.stating_sentence``) and each name they gave
(``value_present``) must sit in a document sentence about the same matter (one that
shares content words with those turns, ``same_matter``); a sentence that states names
but no quantity may hold no other long word the document never uses (a term of the
speaker's own, "beehives" where the document says "gardens"). When all holds there is
nothing to correct: the agent stays silent and says why. A turn with one value the
document does not state about the matter keeps its correction, and so does a turn that
restates a document sentence with one of its terms swapped for a name the document uses
elsewhere, unless another sentence restates it as said.

The replay scorer runs the same check on spoken interventions to count false corrections.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.backbone.detectors import DocumentFacts, named_terms, same_matter
from app.backbone.restatement import MIN_ALIGNED_WORDS, restates, swapped_term
from app.events import Intent
from app.language.numbers import quantities
from app.language.sentences import sentences
from app.language.talk import rejected
from app.language.values import value_present
from app.language.words import cased_words, content_tokens, is_number_token

# Intents that tell a speaker they are wrong (a missing fact contradicts nobody).
CONTRADICTING = frozenset({Intent.CORRECT, Intent.NOT_IN_DOCUMENT})


class Veto(Protocol):
    def check(self, intent: str, turns: Sequence[str]) -> str | None:
        """The reason to stay silent, or None to let the intervention go ahead."""
        ...

    def stated(self, turns: Sequence[str]) -> list[Stated]:
        """Where the document states every value and term of ``turns`` (else empty)."""
        ...


class NoVeto:
    """The model's verdict stands (the setting is off)."""

    def check(self, intent: str, turns: Sequence[str]) -> str | None:
        return None

    def stated(self, turns: Sequence[str]) -> list[Stated]:
        return []


@dataclass(frozen=True)
class Stated:
    value: str  # as the speaker said it
    sid: int  # the document sentence that states it


UNKNOWN_WORD_CHARS = 6  # shorter words the document lacks are ordinary speech


class StatedValueVeto:
    """Silence when the document states every value and term of the raising turns."""

    def __init__(self, document: Any, min_share: float,
                 facts: DocumentFacts | None = None) -> None:
        self.document = document
        self.min_share = min_share  # share of a name's tokens a sentence must hold
        self.facts = facts or DocumentFacts(document.sentences)

    def check(self, intent: str, turns: Sequence[str]) -> str | None:
        if intent not in CONTRADICTING:
            return None
        stated = self.stated(turns)
        if not stated:
            return None
        plural = "s" if len(stated) > 1 else ""
        found = ", ".join(f"'{s.value}' [S{s.sid}]" for s in stated)
        return f"veto: the document states the speaker's value{plural} {found}"

    def stated(self, turns: Sequence[str]) -> list[Stated]:
        """Where the document states each value and term of ``turns``; empty when the
        turns state none, or one of them nowhere about what the turns talk about, or when
        a turn restates a sentence with one of its terms swapped (``_swapped``)."""
        if any(self._swapped(turn) for turn in turns):
            return []
        matter = " ".join(turns)
        out: list[Stated] = []
        for turn in turns:
            for value, sid in self._checks(turn, matter):
                if sid is None:
                    return []
                if all(s.value != value for s in out):
                    out.append(Stated(value, sid))
        return out

    def _swapped(self, turn: str) -> bool:
        """The turn restates a document sentence with one of its names or terms swapped
        for another (``restatement.swapped_term``), and no sentence restates it as said:
        the speaker's term, though the document names it elsewhere about the matter, is
        not what the document says here ("Tom Hanks plays Buzz" where it says "Tim Allen
        as Buzz" and names Tom Hanks as Woody)."""
        swapped = False
        for part in sentences(turn) or [turn]:
            words = _lower_words(part)
            for sentence in self.document.sentences:
                if len(words & _lower_words(sentence.text)) < MIN_ALIGNED_WORDS:
                    continue
                if restates(part, sentence.text):
                    return False
                swapped = swapped or swapped_term(part, sentence.text) is not None
        return swapped

    def _checks(self, turn: str, matter: str) -> Iterator[tuple[str, int | None]]:
        """Each quantity and name the speaker asserts (not those named only to reject
        them), with the sentence about ``matter`` that states it, if any."""
        for part in sentences(turn):
            said = [q for q in quantities(part) if not rejected(turn, q.raw)]
            terms = [t for t in dict.fromkeys(named_terms(part))
                     if content_tokens(t) and not rejected(turn, t)]
            if not said and not terms:
                continue
            if not said:
                # Names alone may only frame the point ("the Lisbon study put beehives on
                # the roofs"): a word of the speaker's own the document never uses
                # is a term it does not state. A quantity's counted words are checked
                # with it.
                for word in self._unknown_words(part, turn):
                    yield word, None
            for q in said:
                yield q.raw, self.facts.stating_sentence(q, matter)
            for term in terms:
                yield term, self._stating_term(term, matter)

    def _unknown_words(self, part: str, turn: str) -> list[str]:
        return [w for w in content_tokens(part)
                if len(w) >= UNKNOWN_WORD_CHARS and not is_number_token(w)
                and w not in self.facts.vocabulary and not rejected(turn, w)]

    def _stating_term(self, term: str, matter: str) -> int | None:
        for sentence in self.document.sentences:
            if value_present(term, sentence.text, self.min_share) and same_matter(
                    matter, sentence.text, besides=term):
                return int(sentence.sid)
        return None


def _lower_words(text: str) -> set[str]:
    return {w.lower() for w in cased_words(text)}


def correction_veto(document: Any, enabled: bool, min_share: float,
                    facts: DocumentFacts | None = None) -> Veto:
    """The veto the settings ask for."""
    return StatedValueVeto(document, min_share, facts) if enabled else NoVeto()
