"""Grounded generation reply -> something speakable with citations, or a reason not to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.backbone.citations import holds_value, valid_sids
from app.backbone.direct import Checked, check_sentence
from app.backbone.prompts import copied_prompt
from app.backbone.schemas import TOPIC_MAX_CHARS
from app.backbone.utterance import clean_text, reported_form
from app.events import Intent
from app.language.numbers import quantities, repeats
from app.language.sentences import sentences
from app.language.talk import instructs_listeners, negated
from app.language.words import PLAIN_STOPWORDS, content_tokens
from app.settings import UtteranceSettings


@dataclass(frozen=True)
class Generated:
    speak: bool
    text: str = ""
    topic: str = ""
    sids: tuple[int, ...] = ()
    reason: str = ""


def word_limit(intent: str, settings: UtteranceSettings) -> int | None:
    if intent == Intent.CORRECT:
        return settings.max_words_correction
    if intent == Intent.NOT_IN_DOCUMENT:
        return settings.max_words_misattribution
    return None  # a missing fact is given completely


def parse(
    data: dict[str, Any], intent: str, fallback_sids: Sequence[int], document: Any,
    settings: UtteranceSettings, value: str = "", point: str = "",
) -> Generated:
    """``value``: the document's value checked beforehand (the citation must hold it);
    ``point``: what the claim is about (the topic must be about it)."""
    if data.get("action") != "speak":
        return Generated(False, reason="generate: abstained")
    text = clean_text(str(data.get("text", "")))
    if not text:
        return Generated(False, reason="generate: empty text")
    raw = data.get("quote_sids") or []
    sids = valid_sids(document, raw if isinstance(raw, list) else [])
    if intent == Intent.NOT_IN_DOCUMENT:
        sids = ()  # nothing in the document states it: nothing to cite
        if not negated(text):
            return Generated(False, reason="generate: does not say the document lacks it")
    else:
        sids = sids or valid_sids(document, fallback_sids)
        sids = _holding(document, value, [*sids, *fallback_sids]) or sids
        if not sids:
            return Generated(False, reason="generate: no resolvable citation")
    topic = whole_words(clean_text(str(data.get("topic", ""))))
    context = [point, text, *(document.get(s).text for s in sids)]
    return Generated(True, text, topic if _about(topic, context) else "", sids)


def check(
    made: Generated, intent: str, document: Any, settings: UtteranceSettings,
    candidates: Sequence[int] = (), point: str = "", said: Sequence[str] = (),
) -> Generated:
    """What of a parsed generation may be said: each sentence passes the direct answer's
    check (``check_sentence``: cited or shown sentences carry it, its values are theirs or
    a value of ``said``, the turns that raised the claim, set aside; an instruction is said
    as the document's quote); a denial of a misattribution cites nothing, so each of its
    sentences must deny and give no value but the participants'. The first sentence that
    fails ends the text; when it is the first, nothing is said. Whole sentences within the
    word limit are kept; a first one over it would be cut into a fragment: not said."""
    if not made.speak:
        return made
    kept: list[Checked] = []
    for raw in sentences(made.text):
        if copied_prompt(raw):
            checked = None
        elif intent == Intent.NOT_IN_DOCUMENT:
            checked = _denial(raw, said)
        else:
            checked = check_sentence(document, raw, made.sids, candidates, point, said)
        if checked is None:
            if not kept:
                return _failed(made, f"generate: not in the document ({raw[:80]!r})")
            break
        if checked.text and checked.text not in (c.text for c in kept):
            kept.append(checked)
    limit = word_limit(intent, settings)
    if kept and limit is not None:
        kept = _within(kept, limit)
        if not kept:
            return _failed(made, f"generate: the first sentence is over {limit} words")
    if not kept:
        return _failed(made, "generate: empty text")
    sids = tuple(dict.fromkeys(s for c in kept for s in c.sids))
    cited = [clean_text(document.get(s).text) for s in sids]
    spoken = [c.text for c in kept]
    for i, sentence in enumerate(spoken):
        others = sum(len(o.split()) for j, o in enumerate(spoken) if j != i)
        spoken[i] = reported_form(sentence, cited, None if limit is None else limit - others,
                                  said)
    return replace(made, text=" ".join(spoken), sids=sids)


def _within(kept: Sequence[Checked], limit: int) -> list[Checked]:
    """The leading sentences whose words together stay within ``limit``."""
    out: list[Checked] = []
    for checked in kept:
        if sum(len(c.text.split()) for c in [*out, checked]) > limit:
            break
        out.append(checked)
    return out


def _denial(raw: str, said: Sequence[str]) -> Checked | None:
    """A sentence that says the document lacks what was said, and nothing of its own."""
    sentence = clean_text(raw)
    if not sentence.strip(" .!?"):
        return Checked("", ())
    given = [q for turn in said for q in quantities(turn)]
    own = [q for q in quantities(sentence) if not repeats(q, given)]
    if own or not negated(sentence) or instructs_listeners(sentence):
        return None
    return Checked(sentence, ())


def _failed(made: Generated, reason: str) -> Generated:
    return replace(made, speak=False, text="", reason=reason)


def _holding(document: Any, value: str, sids: Sequence[int]) -> tuple[int, ...]:
    """The cited sentences that state the value, in citation order."""
    valid = valid_sids(document, list(dict.fromkeys(sids)))
    return tuple(s for s in valid if holds_value(document, s, value))


def whole_words(topic: str) -> str:
    """A topic the grammar stopped at its length limit may end inside a word
    ("... osteopor"): its last word goes, then any function words and punctuation that
    would be left dangling ("... removing the")."""
    if len(topic) < TOPIC_MAX_CHARS or " " not in topic:
        return topic
    words = topic.split()[:-1]
    while len(words) > 1 and words[-1].lower().strip(",;:-") in PLAIN_STOPWORDS:
        words.pop()
    return " ".join(words).rstrip(" ,;:-")


# Words of the task itself: a topic made of them ("document value") names nothing.
_TASK_WORDS = frozenset(content_tokens("document value point sentence text"))


def _about(topic: str, context: Sequence[str]) -> bool:
    """A topic shares a content word with the point, the text or the cited sentences (a
    small model otherwise copies the instructions' example topic or a prompt label)."""
    words = set(content_tokens(topic)) - _TASK_WORDS
    return bool(words) and any(words & set(content_tokens(c)) for c in context)
