"""Direct answering: the streamed "text" field of the JSON reply, checked a sentence at a
time before any of it may be said."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from app.backbone.citations import valid_sids
from app.backbone.detectors import DocumentFacts, SentenceLike, answer_sentence, coverage
from app.backbone.grounding import grounded_sids
from app.backbone.utterance import clean_text, of_the_documents, quote_lead
from app.language.asked import Asked, asked_for, gives
from app.language.sentences import brackets_paired, sentences
from app.language.talk import contains_question, instructs_listeners, set_aside
from app.language.words import content_tokens, repeated_run, spoken_words
from app.settings import UtteranceSettings

_QUOTE_SIDS = re.compile(r'"quote_sids"\s*:\s*\[([^\]]*)\]')
_ACTION = re.compile(r'"action"\s*:\s*"(\w+)"')


@dataclass(frozen=True)
class DirectAnswer:
    action: str  # "answer", "abstain", "skip"
    text: str
    sids: tuple[int, ...]


@dataclass(frozen=True)
class Checked:
    """One sentence of a direct answer that may be said, with the sentences carrying it."""

    text: str
    sids: tuple[int, ...]


class CheckedAnswer:
    """The direct answer as it streams in, released one checked sentence at a time.

    A sentence is released once it is complete (the next one has begun, or the text field
    closed) and the document carries it: the same grounding as any answer (mostly found
    in one sentence the model cited or was shown, its numbers in the cited sentences). One
    that fails before the model's citations have come waits for them; the first that fails
    with them ends the answer. A sentence still being written when the reply stops (the
    token limit) is never released. Released sentences are final: the answer is what was
    released, so what the floor played and the answer agree.

    A question that asks for a date, a share or a quantity ("when was ...?", "what
    percentage ...?", "how many ...?") is answered only by one (``app.language.asked``):
    sentences before the first that gives such a value wait for it, and an answer that
    never gives one is an abstention, not a related sentence said as if it answered.
    """

    def __init__(self, document: Any, settings: UtteranceSettings,
                 candidates: Sequence[int] = (), question: str = "") -> None:
        self.document, self.settings = document, settings
        self.candidates, self.question = list(candidates), question
        checks_value = settings.direct_value_check and question
        self.asked = asked_for(question) if checks_value else Asked.ANY
        self.released: list[Checked] = []
        self._held: list[Checked] = []  # checked, waiting for the value asked for
        self.stopped = ""  # why nothing more may be said; "" while the answer is open
        self._field = TextFieldStream()
        self._raw = ""  # the reply so far
        self._text = ""  # its text field so far
        self._decided = 0  # sentences of the text judged so far
        self._head: str | None = None  # the reply before its text field
        self._cited: tuple[int, ...] | None = None  # quote_sids, once they have come

    def feed(self, chunk: str) -> list[Checked]:
        """The sentences this chunk of the reply released (usually none)."""
        self._raw += chunk
        self._text += self._field.feed(chunk)
        if self._head is None and '"text"' in self._raw:
            self._start(self._raw[: self._raw.find('"text"')])
        if self._cited is None:
            self._cited = self._citations()
        return self._release()

    @property
    def done(self) -> bool:
        """Nothing more of the reply can change the answer: speech has stopped (the
        sentence limit, a sentence the document does not carry, an action other than
        answer), or the text field closed after a released sentence. The rest of the reply
        need not be generated."""
        return bool(self.stopped) or (self._field.closed and bool(self.released))

    def answer(self, data: dict[str, Any] | None) -> DirectAnswer:
        """The final answer: the released sentences, else the abstain text (or nothing for
        a skip or a reply that broke off before one sentence could be checked). A reply
        cut short once ``done`` is judged by what came."""
        if data is not None and not self._raw:
            self.feed(json.dumps(data))  # not streamed: judged the same way, at once
        elif data is not None and self._cited is None:
            raw = data.get("quote_sids")
            self._cited = valid_sids(self.document, raw if isinstance(raw, list) else [])
            self._release()
        if self.released:
            sids = tuple(dict.fromkeys(s for c in self.released for s in c.sids))
            return DirectAnswer("answer", " ".join(c.text for c in self.released), sids)
        skipped = self.stopped == "action skip"
        if skipped or (data is None and not self.stopped) or (
                data is not None and data.get("action") == "skip"):
            return DirectAnswer("skip", "", ())
        return DirectAnswer("abstain", of_the_documents(self.settings.abstain_text,
                                                        self.document), ())

    def _release(self) -> list[Checked]:
        if self.stopped:
            return []
        parts = sentences(self._text)
        complete = parts if self._field.closed else parts[:-1]
        out: list[Checked] = []
        for sentence in complete[self._decided:]:
            checked = self._check(sentence)
            if checked is None:
                if self._cited is not None:
                    self.stopped = f"not in the document: {sentence[:80]!r}"
                break  # else: judged again once the model's citations have come
            self._decided += 1
            if not checked.text or checked.text in (c.text for c in self.released + self._held):
                continue
            self._held.append(checked)
            if self.released or gives(checked.text, self.asked):
                out += self._held
                self.released += self._held
                self._held = []
            if len(self.released) + len(self._held) >= self.settings.max_sentences_direct:
                self.stopped = "sentence limit"
                break
        return out

    def _check(self, raw: str) -> Checked | None:
        if echoes(raw, self.question):
            return Checked("", ())  # the question said back is no part of its answer
        return check_sentence(self.document, raw, self._cited or (), self.candidates,
                              self.question, said=(self.question,))

    def _start(self, head: str) -> None:
        """An action other than answer, given before the text, releases nothing."""
        self._head = head
        action = _ACTION.search(head)
        if action and action.group(1) != "answer":
            self.stopped = f"action {action.group(1)}"

    def _citations(self) -> tuple[int, ...] | None:
        """The model's quote_sids once the list is complete in the reply, else None."""
        found = _QUOTE_SIDS.search(self._raw)
        if found is None:
            return None
        try:
            raw = json.loads(f"[{found.group(1)}]")
        except ValueError:
            raw = []
        return valid_sids(self.document, raw)


def check_sentence(document: Any, raw: str, cited: Sequence[int], candidates: Sequence[int],
                   question: str = "", said: Sequence[str] = ()) -> Checked | None:
    """One complete sentence of what the agent would say, as it may be said, or None when
    the document does not carry it: grounded in a sentence cited or shown
    (``grounded_sids``: its words mostly in one sentence, its numbers in the cited ones),
    and not malformed (a stretch of it said twice, a reference marker cut in half).
    A value of ``said`` (the participants' turns) it names only to set aside ("not 5,000")
    is no claim of its own (``set_aside``). An instruction to the room is said as a quote
    of the document. A sentence of sentence IDs only says nothing (empty text)."""
    sentence = clean_text(raw)
    if not sentence.strip(" .!?"):
        return Checked("", ())  # only sentence IDs: nothing to say, nothing wrong
    whole = _whole(sentence, document, [*cited, *candidates])
    if whole is None:
        return None  # it trails off: a fragment, not speech
    sentence = whole
    if repeated_run(sentence) or not brackets_paired(sentence, "[]"):
        return None  # a reply caught in a loop, or a reference marker cut off: not speech
    sentence = _ended(sentence)
    sids = grounded_sids(document, set_aside(sentence, said), cited, candidates,
                         question=question)
    if not sids:
        return None
    # An instruction to the room copied from the document is said as its words only.
    if instructs_listeners(sentence):
        return quoted(document, sids[:1])  # the document's words, never the agent's own
    return Checked(sentence, sids)


def echoes(sentence: str, question: str) -> bool:
    """A question that asks nothing the question to answer did not: the model's reply
    began by saying it back ("Hey Jarvis, what percentage ... died?")."""
    asked = set(content_tokens(question))
    said = set(content_tokens(sentence))
    return bool(asked) and contains_question(sentence) and said <= asked


def quote_answer(document: Any, question: str, pool: Sequence[SentenceLike],
                 facts: DocumentFacts, value_coverage: float, other_coverage: float
                 ) -> DirectAnswer | None:
    """The answer said as the words of the sentence of ``pool`` (those retrieved for the
    question) that answers it, where that sentence is plainly about it: it holds
    ``value_coverage`` (a question asking for a date, a share or a quantity, and the
    sentence gives one) or ``other_coverage`` (any other question) of the question's
    content words the document uses (``detectors.coverage``); None otherwise (the model
    answers; a coverage of 0 leaves that kind to the model). No model call: the answer is
    ready as soon as the question is."""
    asked = asked_for(question)
    least = other_coverage if asked is Asked.ANY else value_coverage
    if least <= 0:
        return None
    best = answer_sentence(question, pool, facts)
    if best is None or not gives(best.text, asked) or coverage(
            question, best.text, document=facts.roots) < least:
        return None
    quote = quoted(document, [best.sid])
    return DirectAnswer("answer", quote.text, quote.sids)


def picked_answer(document: Any, data: dict[str, Any] | None, question: str,
                  shown: Collection[int] | None, settings: UtteranceSettings
                  ) -> DirectAnswer:
    """The answer said as the words of the sentences the model picked for the question
    (``direct_pick_schema``). Only sentences it was shown count (``shown``; None: the
    whole document was), and not the document's title (it names the subject, it answers
    nothing). A question asking for a date, a share or a quantity is answered from the
    first pick that gives one, and is an abstention when none does. That first one is
    always said, the next ones only while the answer stays within ``max_words_picked``.
    A reply that broke off, or a skip, says nothing."""
    if data is None or data.get("action") == "skip":
        return DirectAnswer("skip", "", ())
    raw = data.get("quote_sids")
    sids = [s for s in valid_sids(document, raw if isinstance(raw, list) else [])
            if (shown is None or s in shown) and not _is_title(document, s)]
    asked = asked_for(question) if settings.direct_value_check else Asked.ANY
    giving = [i for i, s in enumerate(sids) if gives(document.get(s).text, asked)]
    if data.get("action") != "answer" or not giving:
        return DirectAnswer("abstain", of_the_documents(settings.abstain_text, document), ())
    said = sids[giving[0]:][: settings.max_sentences_picked]
    while len(said) > 1 and sum(len(document.get(s).text.split()) for s in said) > (
            settings.max_words_picked):
        said.pop()
    quote = quoted(document, said)
    return DirectAnswer("answer", quote.text, quote.sids)


def _is_title(document: Any, sid: int) -> bool:
    def plain(text: str) -> str:
        return " ".join(spoken_words(text))

    title = plain(getattr(document, "title", ""))
    return bool(title) and plain(document.get(sid).text) == title


def quoted(document: Any, sids: Sequence[int]) -> Checked:
    """Sentences of the document said as its words: "The document says: ..."."""
    text = " ".join(_ended(clean_text(document.get(s).text)) for s in sids)
    return Checked(quote_lead(document, sids) + text, tuple(sids))


_TRAILING_OFF = re.compile(r"\s*(?:\.{3}|…)$")


def _whole(sentence: str, document: Any, sids: Sequence[int]) -> str | None:
    """A sentence that trails off ("... and the rest of it ..."), as the model copies one
    shown cut short, said whole: the document sentence it begins (after a lead such
    as "The document says:", kept). None when it begins none; the sentence itself when it
    does not trail off."""
    cut = _TRAILING_OFF.sub("", sentence)
    if cut == sentence:
        return sentence
    lead, _, quote = cut.partition(": ") if ": " in cut[:40] else ("", "", cut)
    head = spoken_words(quote)
    if not head:
        return None
    for sid in dict.fromkeys(sids):
        found = document.get(sid)
        if found is None:
            continue
        source = clean_text(found.text)
        if spoken_words(source)[: len(head)] == head:
            return f"{lead}: {source}" if lead else source
    return None


def _ended(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


class TextFieldStream:
    """Pulls the growing value of ``"text"`` out of a JSON reply streamed in chunks."""

    def __init__(self, field: str = "text") -> None:
        self._marker = f'"{field}"'
        self._buffer = ""
        self._emitted = 0
        self._done = False

    @property
    def closed(self) -> bool:
        """The value's closing quote has arrived."""
        return self._done

    def feed(self, chunk: str) -> str:
        if self._done:
            return ""
        self._buffer += chunk
        at = self._buffer.find(self._marker)
        if at < 0:
            return ""
        rest = self._buffer[at + len(self._marker) :].lstrip()
        if not rest.startswith(":"):
            return ""
        rest = rest[1:].lstrip()
        if not rest.startswith('"'):
            return ""
        value, closed = _decode_partial(rest[1:])
        self._done = closed
        new, self._emitted = value[self._emitted :], len(value)
        return new


def _decode_partial(body: str) -> tuple[str, bool]:
    """Decode a JSON string body up to its closing quote (or as far as it goes)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            return "".join(out), True
        if ch == "\\":
            if i + 1 >= len(body):
                break
            if body[i + 1] == "u":
                if i + 6 > len(body):
                    break
                out.append(json.loads(f'"{body[i:i + 6]}"'))
                i += 6
                continue
            out.append(json.loads(f'"{body[i:i + 2]}"'))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out), False
