"""Deterministic detectors that propose a verdict for the monitor to confirm or reject.

A detector reads the utterance, the previous turns and the retrieved sentences; it never
makes the agent speak by itself (the monitor must confirm it, then gate and grounded
generation still decide). Each proposal carries the document's value and sentence IDs, so
the model does not have to find the evidence alone.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property

from app.backbone.identity import Similarity
from app.backbone.restatement import swapped_term
from app.backbone.verdict import Status, Verdict
from app.language.asked import Asked, asked_for, states_date
from app.language.definitions import defined_term, first_defining
from app.language.numbers import Quantity, quantities
from app.language.sentences import sentences
from app.language.stems import root
from app.language.talk import (
    Talk,
    asking_sentences,
    asks_about_document,
    contains_question,
    counted_in_question,
    find,
    negated,
    rejected,
    reports_failed_recall,
    says,
)
from app.language.words import ASKING_FRAME, STOPWORDS, content_tokens
from app.settings import Detector


@dataclass(frozen=True)
class Proposal:
    detector: Detector
    status: Status
    claim: str
    predicted_answer: str
    sids: tuple[int, ...]
    key: str
    note: str  # one line for the monitor prompt
    said: str = ""  # the wrong value or term as spoken (to recognise it being adopted)
    question: str = ""  # an open question as it was asked

    def verdict(self) -> Verdict:
        """The proposal as the verdict that would confirm it (to find its claim)."""
        return Verdict(self.status, self.claim, predicted_answer=self.predicted_answer,
                       sids=self.sids, key=self.key)


class SentenceLike:  # structural: app.document.Sentence
    sid: int
    text: str


class DocumentFacts:
    """Per-document lookups computed once: quantities per sentence, words, names."""

    def __init__(self, sentences: Sequence[SentenceLike]):
        self.sentences = {s.sid: s for s in sentences}
        self._text = " ".join(s.text for s in sentences)

    @cached_property
    def quantities(self) -> dict[int, list[Quantity]]:
        return {sid: quantities(s.text) for sid, s in self.sentences.items()}

    @cached_property
    def counted(self) -> frozenset[str]:
        """Every noun a quantity of the document counts."""
        return frozenset(n for found in self.quantities.values() for q in found for n in q.nouns)

    @cached_property
    def lower(self) -> str:
        return self._text.lower()

    @cached_property
    def vocabulary(self) -> set[str]:
        return set(content_tokens(self._text))

    @cached_property
    def roots(self) -> set[str]:
        return {root(t) for t in self.vocabulary}

    @cached_property
    def _words(self) -> set[str]:
        return set(re.findall(r"\w+", self.lower))

    def mentions(self, term: str) -> bool:
        """The document uses ``term`` as written (case aside), as whole words, or with its
        letters run together or set apart ("M-A-G" for "MAG", "Pub Med" for "PubMed":
        spelled out, or split by speech recognition)."""
        words = re.findall(r"\w+", term.lower())
        if not words:
            return True
        if len(words) == 1 and words[0] in self._words:
            return True
        if len(words) > 1 and re.search(
                r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)",
                self.lower) is not None:  # fmt: skip
            return True
        squeezed = _one_spelling("".join(words))
        if len(squeezed) >= MIN_SQUEEZED and squeezed in self._squeezed:
            return True
        return _SPELLED_OUT.fullmatch(term) is not None and words[0] in self._initialisms

    def uses_name(self, term: str) -> bool:
        """The document uses the name, or each of its words of three letters or more."""
        return self.mentions(term) or all(self.mentions(w) for w in term.split() if len(w) >= 3)

    @cached_property
    def _squeezed(self) -> set[str]:
        """Each word and run of up to ``MAX_SQUEEZED_WORDS`` words of the document, with
        its letters and digits run together ("pubmed", "bc5cdr")."""
        tokens = [t for t in ("".join(re.findall(r"\w+", w)) for w in self.lower.split()) if t]
        return {_one_spelling("".join(tokens[i : i + n]))
                for n in range(1, MAX_SQUEEZED_WORDS + 1)
                for i in range(len(tokens) - n + 1)}  # fmt: skip

    @cached_property
    def _initialisms(self) -> set[str]:
        """The initials of each run of content words within a sentence, as long as an
        acronym ("crf" of "conditional random field"): a paper may spell a term out and
        never write the acronym a speaker uses for it. Words of one or two letters and
        function words start no acronym, which keeps chance runs of initials rare."""
        found: set[str] = set()
        for sentence in self.sentences.values():
            words = re.findall(r"[a-z]+", sentence.text.lower())
            ok = [len(w) >= 3 and w not in STOPWORDS for w in words]
            for n in range(MIN_ACRONYM, MAX_ACRONYM + 1):
                found.update("".join(w[0] for w in words[i:i + n])
                             for i in range(len(words) - n + 1) if all(ok[i:i + n]))
        return found

    def supports_quantity(self, q: Quantity, utterance: str = "") -> bool:
        """The document states this value for the same kind of thing (a restatement, not
        a swap): equal value, compatible unit, and, given the utterance, a sentence that
        talks about the same matter."""
        return self.stating_sentence(q, utterance) is not None

    def stating_sentence(self, q: Quantity, utterance: str = "") -> int | None:
        """The first sentence that supports ``q`` (see ``supports_quantity``)."""
        for sid, qs in self.quantities.items():
            for d in qs:
                if not ((q.same_value(d) or q.rounds_to(d)) and q.percent == d.percent):
                    continue
                if not (q.compatible(d) or not q.nouns or not d.nouns):
                    continue
                if not utterance or same_matter(utterance, self.sentences[sid].text):
                    return sid
        return None


# British and American spellings of a word written alike ("organisation" and
# "organization", "analyse", "behaviour"): the recognizer writes one, a paper the other.
_SPELLINGS = ((re.compile(r"is(e|ed|es|ing|ation|ations)\b"), r"iz\1"),
              (re.compile(r"ys(e|ed|es|ing)\b"), r"yz\1"),
              (re.compile(r"(?<=\w{3})our\b"), "or"))  # fmt: skip


def _one_spelling(text: str) -> str:
    for pattern, american in _SPELLINGS:
        text = pattern.sub(american, text)
    return text


MIN_SQUEEZED = 3  # letters a name run together must have to match the document's
MAX_SQUEEZED_WORDS = 3  # document words a name run together may span ("BC5 CDR" -> BC5CDR)
# Letters of an acronym the document may spell out instead (two-letter initials match
# half the document's word pairs by chance).
MIN_ACRONYM, MAX_ACRONYM = 3, 6
_SPELLED_OUT = re.compile(rf"[A-Z]{{{MIN_ACRONYM},{MAX_ACRONYM}}}")
MIN_SHARED_WORDS = 2  # content words (besides the quantity) a sentence must share
# Content words a question needs before "half of them are not the document's" can say it
# is about something else.
MIN_OFF_TOPIC_WORDS = 3
NAME_SHARED_WORDS = 3

_NAME = re.compile(r"(?<![\w'])([A-Z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*)")
_COMMON_CAPS = frozenset(
    "i i'm i'd i've i'll okay ok so yeah yes no right and but oh um uh well then the a an "
    "they we you it this that what which who how why when where wait sorry hm hmm mm mm-hm "
    "actually anyway also is are was were do does did not monday tuesday wednesday thursday "
    "friday saturday sunday table figure section page lol lmao omg wtf btw".split()
)
# Laughter and other sounds spelt as words ("HAHAHA", "hehehe", "lololol").
_SOUND = re.compile(r"(\w{1,3}?)\1{2,}\w?", re.IGNORECASE)
# "a, b and c", "a, b, or c": items of at most three words
_LIST = re.compile(r"\w, [\w-]+(?: [\w-]+){0,2},? (?:and|or) \w")


def _roots(text: str) -> set[str]:
    return {root(t) for t in content_tokens(text)}


_FRAME_ROOTS = frozenset(root(w) for w in ASKING_FRAME)


def attributes_to_document(text: str) -> bool:
    """"They found ...", "the paper says ...": a claim about the document's content."""
    return says(Talk.ATTRIBUTION, text)


def _shared(a: str, b: str) -> set[str]:
    return _roots(a) & _roots(b)


def _plain_shared(a: str, b: str) -> set[str]:
    return {t for t in _shared(a, b) if not t[0].isdigit()}


def asked_words(question: str, unsure: Collection[str] = ()) -> set[str]:
    """The content words of what a question asks for (roots); the words that frame the
    asking ("do they give a number?") are not what it asks for, nor the words the
    recognizer was unsure of (``unsure``): a misheard word names nothing the document
    could hold."""
    return _roots(question) - _FRAME_ROOTS - _roots(" ".join(unsure))


def coverage(question: str, sentence: str, unsure: Collection[str] = (),
             document: Collection[str] | None = None) -> float:
    """The share of the question's content words the sentence holds (0-1): a sentence
    that answers "how many surface proteins are on the virus?" names the proteins.

    With ``document`` (the roots of the document's words), only the question's words the
    document uses count: no sentence could hold the others ("I remember they named one",
    a misheard word). A question of three words or more, half of which or more the
    document never uses, asks about something else, and no sentence covers it (0); in a
    shorter one, the word the document lacks may as well be misheard ("reported to the
    hoo?" for "the WHO"). A word the recognizer was unsure
    of and the document lacks may be one of its words misheard, and counts as the
    document's in that test (not in the share: no sentence holds it as heard)."""
    asked = asked_words(question, unsure)
    if document is not None:
        inside = asked.intersection(document)
        misheard = sum(w not in document for w in asked_words(question) - asked)
        if len(asked) >= MIN_OFF_TOPIC_WORDS and (
                len(inside) + misheard) * 2 <= len(asked) + misheard:
            return 0.0
        asked = inside
    return len(asked & _roots(sentence)) / len(asked) if asked else 0.0


def covers(question: str, sentence: SentenceLike, facts: DocumentFacts,
           min_coverage: float, unsure: Collection[str] = ()) -> bool:
    """The sentence is about what the question asks: it holds ``min_coverage`` of the
    question's content words (those heard clearly and used by the document), or states a
    quantity of the very thing a "how many" question counts ("how many nodes did the
    team keep?" - "37M unique paper nodes")."""
    if coverage(question, sentence.text, unsure, facts.roots) >= min_coverage:
        return True
    counted = counted_in_question(question)
    return bool(counted) and any(q.nouns & counted
                                 for q in facts.quantities.get(sentence.sid, []))


def same_matter(utterance: str, sentence: str, besides: str = "") -> bool:
    """The sentence talks about what the utterance does: they share content words other
    than numbers (and other than the words of ``besides``, the value being checked)."""
    return len(_plain_shared(utterance, sentence) - _roots(besides)) >= MIN_SHARED_WORDS


def named_terms(text: str) -> list[str]:
    """The tools, datasets, places and other names a speaker states: capitalised terms
    mid-sentence, or name-shaped anywhere ("NumPy", "CO2")."""
    return [term for term, _, _ in _name_spans(text)]


def _name_spans(text: str) -> list[tuple[str, int, int]]:
    found = []
    shouted = _shouted_spans(text)
    for match in _NAME.finditer(text):
        term = match.group(1)
        if term.lower() in _COMMON_CAPS or len(term) < 3 or _SOUND.fullmatch(term):
            continue
        if any(a <= match.start() < b for a, b in shouted):
            continue
        before = text[: match.start()].rstrip()
        initial = not before or before[-1] in ".!?\"'"
        if initial and not _shaped(term):
            continue
        found.append((term, match.start(), match.end()))
    return found


def _shouted_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` has sentences of ``MIN_SHOUTED_WORDS`` or more written in capitals
    only (speech recognition does that now and then): case tells no name there."""
    spans: list[tuple[int, int]] = []
    at = 0
    for sentence in sentences(text):
        start = text.find(sentence, at)
        if start < 0:
            continue
        at = start + len(sentence)
        if len(sentence.split()) >= MIN_SHOUTED_WORDS and not any(
                c.islower() for c in sentence):
            spans.append((start, at))
    return spans


MIN_SHOUTED_WORDS = 3  # fewer words in capitals may be a list of acronyms ("GCN, LSTM")


def _name_runs(text: str) -> list[str]:
    """The names of ``text`` with adjacent capitalised words joined into one ("Joe
    Pesci", "National Medical Products Administration")."""
    runs: list[tuple[int, int]] = []
    for _, start, end in _name_spans(text):
        if runs and not text[runs[-1][1]:start].strip():
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    return [text[a:b] for a, b in runs]


def absent_terms(text: str, facts: DocumentFacts) -> list[str]:
    """The names ``text`` states that the document never uses: a run of capitalised words
    or a name-shaped term ("GCN", "ACE2"), with a word of its own the document lacks. A
    lone capitalised word counts only beside another ("Tylenol or Advil": a list of
    names): sentence-case slips and first names are common in talk, and a single first
    name says little about where a finding comes from."""
    out: list[str] = []
    lone: list[str] = []
    for term in _name_runs(text):
        words = term.split()
        if facts.uses_name(term):
            continue
        found = out if len(words) >= 2 or _shaped(term) else lone
        if term not in found:
            found.append(term)
    if len(lone) >= MIN_LONE_NAMES:
        out += lone
    return out


MIN_LONE_NAMES = 2  # lone capitalised words the document lacks that make a list of names
MIN_FINDING_WORDS = 6  # a shorter turn is a remark, not a finding stated
# Embedding cosine (MiniLM) between a turn and a retrieved sentence from which the turn is
# on the document's subject; unrelated talk (another meeting's business) stays well below.
SUBJECT_COSINE = 0.3


def absent_finding(utterance: str, candidates: Sequence[SentenceLike], facts: DocumentFacts,
                   similarity: Similarity | None = None, unsure: Collection[str] = (),
                   ) -> list[Proposal]:
    """A finding stated as fact, on the document's subject, that names terms the document
    never uses: the room may be giving it the document's authority (SPEC's
    misattribution). Outside knowledge said in passing looks alike here; the monitor
    confirms, and the gate waits for the room to let it stand. On the subject: the turn
    shares content words with the document besides those names and, given ``similarity``,
    is as close as ``SUBJECT_COSINE`` to one of the retrieved sentences. ``unsure``: the
    words of the turn the recognizer was unsure of (``finding_terms``)."""
    terms = finding_terms(utterance, facts, unsure)
    if not terms:
        return []
    if similarity is not None and not any(
            similarity(utterance, s.text) >= SUBJECT_COSINE for s in candidates):
        return []
    named = " and ".join(f'"{t}"' for t in terms[:2])
    return [Proposal(
        Detector.ABSENT, Status.NOT_IN_DOCUMENT, _clause_with(utterance, terms[0]), "", (),
        key="absent " + " ".join(sorted(t.lower() for t in terms[:3])),
        note=f"the utterance names {named}, which the document never mentions",
        said=terms[0],
    )]


def finding_terms(utterance: str, facts: DocumentFacts, unsure: Collection[str] = ()
                  ) -> list[str]:
    """The names the document never uses (``absent_terms``) of a turn that states a
    finding (long enough, no question, no failed recall, no retraction) on the document's
    subject by its words (content words shared with the document besides those names),
    less those holding a word of ``unsure`` (``heard_clearly``)."""
    if (len(utterance.split()) < MIN_FINDING_WORDS or contains_question(utterance)
            or reports_failed_recall(utterance) or says(Talk.RETRACTION, utterance)):
        return []
    # A name said only to reject it ("low T cells, not eosinophils", misheard as a name)
    # is not what the finding is attributed to.
    clear = heard_clearly(unsure)
    terms = [t for t in absent_terms(utterance, facts)
             if not rejected(utterance, t) and clear(t)]  # fmt: skip
    own = _roots(" ".join(terms))
    if not terms or len((_roots(utterance) - own) & facts.roots) < MIN_SHARED_WORDS:
        return []
    return terms


def heard_clearly(unsure: Collection[str]) -> Callable[[str], bool]:
    """Whether a name holds none of the ``unsure`` words (as the recognizer wrote them):
    a name it was unsure of may be one of the document's terms misheard, and is not what
    the speaker is told the document lacks."""
    doubtful = {w for u in unsure for w in re.findall(r"\w+", u)}
    return lambda term: not doubtful.intersection(re.findall(r"\w+", term))


def unclear_names(utterance: str, facts: DocumentFacts, unsure: Collection[str]) -> list[str]:
    """The names of ``utterance`` the document does not use that hold a word the
    recognizer was unsure of."""
    clear = heard_clearly(unsure)
    return [t for t in _name_runs(utterance) if not clear(t) and not facts.uses_name(t)]


def _shaped(term: str) -> bool:
    """Looks like a product or dataset name: "NumPy", "CO2", "GPT4"."""
    return any(c.isupper() or c.isdigit() for c in term[1:])


def number_mismatch(
    utterance: str, candidates: Sequence[SentenceLike], facts: DocumentFacts
) -> list[Proposal]:
    """A quantity the document contradicts for the same counted thing."""
    out: list[Proposal] = []
    for q in quantities(utterance):
        if facts.supports_quantity(q, utterance) or rejected(utterance, q.raw):
            continue  # the document states this value somewhere: a correct restatement
        for sentence in candidates:
            shared = {t for t in _shared(utterance, sentence.text) if not t[0].isdigit()}
            found = facts.quantities.get(sentence.sid, [])
            if len(shared) < (NAME_SHARED_WORDS if q.year else MIN_SHARED_WORDS):
                continue
            if q.year and sum(d.year for d in found) != 1:
                continue  # a year contradicts only a sentence about one dated event
            rivals = [d for d in found if q.compatible(d) and not q.same_value(d)]
            # Of several values in the sentence, the one said about the same thing (a
            # digit swap, 62% for 26%, is nearer than another value).
            for d in sorted(rivals, key=lambda d: (-len(q.context & d.context),
                                                   abs(d.value - q.value) / max(abs(q.value), 1e-9))
                            )[:1]:
                thing = " ".join(sorted(q.nouns or d.nouns)) or "percentage"
                out.append(Proposal(
                    Detector.NUMBER, Status.INCORRECT, _clause_with(utterance, q.raw), d.raw,
                    (sentence.sid,),
                    key=f"qty {thing} " + " ".join(sorted(shared)[:4]),
                    note=f'the utterance says "{q.raw}" but [S{sentence.sid}] says "{d.raw}"',
                    said=q.raw,
                ))
                break
            if out:
                return out
    return out


def name_mismatch(
    utterance: str, candidates: Sequence[SentenceLike], facts: DocumentFacts,
    reach: int = 3,
) -> list[Proposal]:
    """A retrieved sentence (of the first ``reach``) the turn restates with one of its
    names or terms swapped for another (``restatement.swapped_term``)."""
    for sentence in candidates[:reach]:
        swap = swapped_term(utterance, sentence.text)
        if swap is None:
            continue
        return [Proposal(
            Detector.NAME, Status.INCORRECT, _clause_with(utterance, swap.said),
            swap.document, (sentence.sid,), key=f"name {swap.said.lower()}",
            note=f'the utterance says "{swap.said}" where [S{sentence.sid}] says '
                 f'"{swap.document}"',
            said=swap.said,
        )]
    return []


def _clause_with(text: str, term: str, max_words: int = 24) -> str:
    """The sentence of ``text`` that says ``term``, cut to a claim's length."""
    parts = sentences(text) or [text]
    sentence = next((s for s in parts if term in s), parts[-1])
    return " ".join(sentence.split()[:max_words]).rstrip(".,;")


def open_question(
    utterance: str, previous: Sequence[str], candidates: Sequence[SentenceLike],
    facts: DocumentFacts, asked_candidates: Sequence[SentenceLike] = (),
) -> list[Proposal]:
    """A question about the document in a previous turn that the next turn(s) left open.

    ``asked_candidates`` are the sentences retrieved for the question's own turn: a reply
    like "I don't remember" retrieves nothing useful by itself."""
    asked = _pending_question(previous)
    pool = list(asked_candidates) or list(candidates)
    if not asked or not pool or not _leaves_open(utterance, asked):
        return []
    best = answer_sentence(asked, pool, facts)
    if best is None or _answers(utterance, asked, best.text, reports_failed_recall(utterance)):
        return []
    # The model gets the best guess and the question's next hits to answer from.
    sids = tuple(dict.fromkeys([best.sid, *(s.sid for s in pool[:3])]))[:3]
    return [Proposal(
        Detector.OPEN_QUESTION, Status.MISSING, question_point(asked), "", sids,
        key=question_key(asked),
        note=f"the question was left unanswered; [S{best.sid}] may answer it",
        question=asked,
    )]


def _leaves_open(reply: str, asked: str) -> bool:
    """The reply does not answer: the speaker says they don't know, or it adds almost
    nothing and asks nothing new."""
    if reports_failed_recall(reply) or says(Talk.MOVING_ON, reply):
        return True
    new_words = set(content_tokens(reply)) - set(content_tokens(asked))
    return not contains_question(reply) and len(new_words) <= 2


def _pending_question(previous: Sequence[str]) -> str:
    """The latest question among the previous turns that every later turn left open."""
    for n, text in enumerate(reversed(previous)):
        if asks_about_document(text):
            later = list(previous)[len(previous) - n:]
            return text if all(_leaves_open(t, text) for t in later) else ""
    return ""


def answer_sentence(
    asked: str, pool: Sequence[SentenceLike], facts: DocumentFacts
) -> SentenceLike | None:
    """The sentence that answers the question: for "what is X?", the first that defines
    X; otherwise the first retrieved one about the question (``retrieved_answer``)."""
    defining = defining_sentence(asked, pool, facts)
    return defining if defining is not None else retrieved_answer(asked, pool, facts)


def defining_sentence(
    asked: str, pool: Sequence[SentenceLike], facts: DocumentFacts
) -> SentenceLike | None:
    """For a question asking what a term is, the first sentence of ``pool`` that defines
    it, else the document's first; None for other questions or an undefined term."""
    term = defined_term(asked)
    if term is None:
        return None
    ordered = itertools.chain(pool, facts.sentences.values())  # the document's own order
    return first_defining(term, ((s, s.text) for s in ordered))


def retrieved_answer(
    asked: str, pool: Sequence[SentenceLike], facts: DocumentFacts
) -> SentenceLike | None:
    """The first retrieved sentence about the question (for "how many" questions, one
    that states a quantity of the thing asked about)."""
    qwords = set(content_tokens(asked))
    wants_quantity = says(Talk.ASKS_QUANTITY, asked)
    wants_date = asked_for(asked) is Asked.DATE
    if negated(" ".join(asking_sentences(asked))):
        # "Which domains doesn't it cover?" is answered by what it lacks, not what it covers.
        pool = [s for s in pool if negated(s.text)]
    listed = _list_answer(asked, pool)
    if listed is not None:
        return listed
    counted = counted_in_question(asked)
    # What the question counts is nothing the document counts (a word misheard, or said
    # otherwise): any quantity of a sentence about the question may be its count.
    unknown = bool(counted) and not counted & facts.counted
    for sentence in pool:
        found = facts.quantities.get(sentence.sid, [])
        # A number of the very thing asked about ("how many visitors" - "1,800 visitors") is
        # about the question even when the sentence shares no other word with it.
        enough = 1 if wants_date or any(d.nouns & counted for d in found) else MIN_SHARED_WORDS
        if len(_shared(asked, sentence.text)) < enough:
            continue
        if wants_date and not states_date(sentence.text):
            continue  # "when" is answered by a sentence with a date in it
        if wants_quantity and not any(d.percent or d.nouns & (qwords | counted) or unknown
                                      for d in found):
            continue  # no quantity for it here: the document may not say
        return sentence
    return None


def _list_answer(asked: str, pool: Sequence[SentenceLike]) -> SentenceLike | None:
    """For "which X" questions, the first sentence that lists several things and names X
    or shares the question's words ("which fuels?" - "The main fuels were coal, gas
    and oil")."""
    m = find(Talk.ASKS_WHICH, asked)
    if m is None:
        return None
    thing = _roots(m.group(1))
    for sentence in pool:
        if not _LIST.search(sentence.text):
            continue
        shared = _shared(asked, sentence.text)
        if thing & shared or len(shared) >= MIN_SHARED_WORDS:
            return sentence
    return None


def question_key(turn: str) -> str:
    """The identity of the questions a turn asks, whoever words the claim."""
    return "question " + " ".join(sorted(set(content_tokens(question_point(turn))))[:8])


def question_point(turn: str, min_words: int = 8) -> str:
    """The question as the claim's text, with the sentence before it when it is short
    ("What was it called?" needs what "it" is)."""
    parts = sentences(turn)
    asking = asking_sentences(turn)
    last = max((i for i, p in enumerate(parts) if p in asking), default=len(parts) - 1)
    first = last
    while first > 0 and len(" ".join(parts[first:last + 1]).split()) < min_words:
        first -= 1
    return " ".join(parts[first:last + 1])


def _answers(utterance: str, asked: str, sentence: str, failed: bool) -> bool:
    """The reply carries the sentence's answer: the value a quantity question asks for,
    or (unless the speaker says they don't know) its words the question lacked."""
    said = quantities(utterance)
    asks_quantity = says(Talk.ASKS_QUANTITY, asked)
    if (asks_quantity or not failed) and any(
        q.same_value(d) for q in said for d in quantities(sentence) if not d.year
    ):
        return True
    return not failed and len(_plain_shared(utterance, sentence) - _roots(asked)) >= 2


def carried(previous: Sequence[Proposal], utterance: str) -> list[Proposal]:
    """Last turn's proposals that this turn adopts: it repeats the wrong number or name."""
    out = []
    for p in previous:
        if p.detector == Detector.NUMBER:
            said = quantities(p.said)
            adopted = any(q.same_value(s) and not rejected(utterance, q.raw)
                          for q in quantities(utterance) for s in said)
        elif p.detector == Detector.NAME:
            adopted = re.search(rf"\b{re.escape(p.said)}\b", utterance, re.IGNORECASE) is not None
        else:
            adopted = False
        if adopted:
            out.append(dataclasses.replace(p, note=f"the previous turn's problem is adopted: "
                                                    f"{p.note}"))
    return out


def detect(
    utterance: str, previous: Sequence[str], candidates: Sequence[SentenceLike],
    facts: DocumentFacts, asked_candidates: Sequence[SentenceLike] = (),
    enabled: Collection[Detector] = tuple(Detector), similarity: Similarity | None = None,
    unsure: Collection[str] = (),
) -> list[Proposal]:
    """The proposals of the ``enabled`` detectors for one turn, strongest evidence first;
    an absent finding only where no name or open-question proposal is made, and then in
    place of number mismatches. ``similarity``: embedding cosine of two texts, where a
    detector weighs relatedness; ``unsure``: words the recognizer was unsure of."""
    numbers: list[Proposal] = []
    if Detector.NUMBER in enabled:
        numbers = number_mismatch(utterance, candidates, facts)
    found: list[Proposal] = []
    if Detector.NAME in enabled:
        found += name_mismatch(utterance, candidates, facts)
    if Detector.OPEN_QUESTION in enabled:
        found += open_question(utterance, previous, candidates, facts, asked_candidates)
    if found:
        return numbers + found
    # A finding that names what the document never does is another source's: its numbers
    # differ from the document's because they are about something else, not misstated.
    absent = absent_finding(utterance, candidates, facts, similarity, unsure) if (
        Detector.ABSENT in enabled) else []
    return absent or numbers
