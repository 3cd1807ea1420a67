"""Question/answer pairs of the data, located in their document as facts.

A fact is a real question with its gold values and the document sentence that settles
it, plus the statement a participant would make about it (the real answering turn when
it carries the values, else the settling sentence as spoken). Each source locates its
pairs its own way:
- COVID-QA: the answer span is found in the article's sentences;
- ArgSciChat: the expert's cited supporting facts are found in the paper, the gold
  values are what the expert's answer shares with them;
- CMU DoG: a question in a chat answered by the other participant with a name or a
  number the movie article holds, in a sentence about what was asked;
- ACL papers (no question data): a sentence reporting one distinctive number is a fact
  without a question, usable for wrong claims only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from benchmarks.sets.pdf import DocumentSentence, normalise
from benchmarks.sets.sources import Dialogue, QAPair, Source, SourceDocument
from benchmarks.sets.talk import clean_utterance, drop_greeting, word_count
from benchmarks.sets.values import (
    STOPWORDS,
    DocumentValues,
    Value,
    ValueKind,
    asking_sentence,
    claim_from_question,
    claim_from_statement,
    content_overlap,
    find_verbatim,
    gold_values,
    names_in,
    numbers_in,
    split_sentences,
    spoken_statement,
    states,
    states_any,
    strip_citations,
    third_person,
)

MAX_STATEMENT_WORDS = 35
MIN_STATEMENT_WORDS = 5
MAX_LONG_STATEMENT_WORDS = 50  # a long settling sentence, when nothing shorter says it
MAX_EVIDENCE_WORDS = 90
MAX_QUESTION_WORDS = 40


@dataclass(frozen=True)
class DocumentText:
    """What the generator reads of a document: its sentences (with pages) and values."""

    id: str
    source: Source
    title: str
    sentences: tuple[DocumentSentence, ...]
    values: DocumentValues

    @property
    def text(self) -> str:
        return self.values.text


@dataclass(frozen=True)
class Fact:
    document: str
    question: str  # the real question as a turn ("" for a fact no question asks)
    claim: str
    values: tuple[Value, ...]
    evidence: str
    page: int
    statement: str  # what a participant would say that carries the values
    answer: str  # the answering turn (real reply, else the statement)
    ref: str
    used: tuple[str, ...] = ()  # real turns the fact takes from the document's dialogues
    span: str = ""  # the data's answer as given (a span of the document for COVID-QA)

    @property
    def gold(self) -> tuple[str, ...]:
        return tuple(v.text for v in self.values)


# Requests about the conversation itself, not questions about the document.
_META_QUESTION = re.compile(r"(?i)\b(?:tell me (?:more|about)|talk about|anything else|what else|"
                            r"do you want|an example|would you like|can you explain|"
                            r"any other|more details?|overview|summar\w*|"
                            r"what (?:is|was) (?:this|the) (?:paper|article|work|study) about)\b")


def question_turn(text: str) -> str:
    """A data question as a spoken turn: greeting dropped, at most its last two
    sentences, ending in a question mark."""
    text = drop_greeting(clean_utterance(text))
    parts = split_sentences(text)
    text = " ".join(parts[-2:]) if len(parts) > 2 else text
    if _META_QUESTION.search(text):
        return ""
    if not text.endswith("?"):
        if "?" in text or not re.match(r"(?i)(what|which|who|whom|whose|when|where|why|how|"
                                       r"is|are|was|were|do|does|did|can|could)\b", text):
            return ""
        text = text.rstrip(".!") + "?"
    return text if word_count(text) <= MAX_QUESTION_WORDS else ""


_FIRST_SINGULAR = re.compile(r"\b(?:I|I'm|I've|I'd|me|my)\b")


def _reply_statement(reply: str, gold: Sequence[str]) -> str:
    """The sentences of a real answer that carry the gold values (greeting dropped)."""
    text = drop_greeting(clean_utterance(reply))
    parts = [p for p in split_sentences(text) if not p.endswith("?") and states_any(p, gold)]
    return " ".join(parts)


def _evidence_for(span: str, sentences: Sequence[DocumentSentence],
                  minimum: float = 0.7) -> DocumentSentence | None:
    target = normalise(strip_citations(span)).strip(" .,;").lower()
    if target:
        for sentence in sentences:
            if target in sentence.text.lower():
                return sentence
    best = max(sentences, key=lambda s: content_overlap(span, s.text), default=None)
    if best is not None and content_overlap(span, best.text) >= minimum:
        return best
    return None


def _sentence_like(span: str) -> bool:
    """An answer span that can be said on its own: six words or more, opening with a
    capital, brackets closed."""
    span = span.strip()
    return (word_count(span) >= 6 and span[:1].isupper()
            and span.count("(") == span.count(")") and span.count("[") == span.count("]"))


def _fact(doc: DocumentText, question: str, answer: str, evidence: DocumentSentence,
          reply: str, ref: str, used: tuple[str, ...] = ()) -> Fact | None:
    if word_count(evidence.text) > MAX_EVIDENCE_WORDS or evidence.text.startswith(doc.title):
        return None
    values = gold_values(answer, evidence.text, question, doc.values,
                         paraphrase=doc.source is Source.ARGSCICHAT)
    if not values:
        return None
    claim = claim_from_question(question) if question else ""
    if question and (not claim or states_any(claim, [v.text for v in values])):
        return None
    gold = [v.text for v in values]
    replied = _reply_statement(reply, gold) if reply else ""
    statement = ""
    # A participant's claim: the real answer when it is a plain statement, else the
    # settling sentence as spoken.
    span = spoken_statement(answer) if _sentence_like(answer) else ""
    candidates = (
        (third_person(replied) if not _FIRST_SINGULAR.search(replied) else "", MAX_STATEMENT_WORDS),
        (spoken_line(evidence.text), MAX_STATEMENT_WORDS),
        (span, MAX_STATEMENT_WORDS),
        (spoken_line(evidence.text), MAX_LONG_STATEMENT_WORDS),
    )  # fmt: skip
    for candidate, longest in candidates:
        if candidate and MIN_STATEMENT_WORDS <= word_count(candidate) <= longest and all(
            states(candidate, g) for g in gold
        ):
            statement = candidate
            break
    answer_turn = replied if replied and all(states(replied, g) for g in gold) else statement
    if word_count(answer_turn) > MAX_STATEMENT_WORDS:
        answer_turn = statement
    return Fact(doc.id, question, claim, tuple(values), evidence.text, evidence.page,
                statement, answer_turn, ref, used, answer.strip())  # fmt: skip


_CAST_LINE = re.compile(r"^((?:[A-Z][\w.'-]*\s){1,3}[A-Z][\w.'-]*) as (.+)$")
_FIELD_LINE = re.compile(r"^(Year|Director|Genre): (.+?)\.?$")
_FIELD_SAID = {"Year": "It came out in {}.", "Director": "It was directed by {}.",
               "Genre": "Its genre is {}."}  # fmt: skip


def spoken_line(sentence: str) -> str:
    """A document sentence as spoken; list lines of a movie article ("Cast: A as B",
    "Director: C") become sentences."""
    cast = _CAST_LINE.match(sentence)
    if cast:
        return spoken_statement(f"{cast.group(1)} plays {cast.group(2)}")
    field = _FIELD_LINE.match(sentence)
    if field:
        return _FIELD_SAID[field.group(1)].format(field.group(2))
    return spoken_statement(sentence)


# --- per source ---------------------------------------------------------------------------


def covidqa_facts(doc: DocumentText, pairs: Sequence[QAPair]) -> Iterator[Fact]:
    for pair in pairs:
        question = question_turn(pair.question)
        evidence = _evidence_for(pair.answer, doc.sentences)
        if question and evidence is not None:
            fact = _fact(doc, question, pair.answer, evidence, "", pair.ref)
            if fact is not None:
                yield fact


def argscichat_facts(doc: DocumentText, pairs: Sequence[QAPair]) -> Iterator[Fact]:
    for pair in pairs:
        question = question_turn(pair.question)
        if not question or not _WH.search(asking_sentence(question)):
            continue  # a yes/no question has no value to carry
        for support in pair.support:
            evidence = _evidence_for(support, doc.sentences, minimum=0.8)
            if evidence is None:
                continue
            used = (clean_utterance(pair.question), clean_utterance(pair.reply))
            fact = _fact(doc, question, pair.reply, evidence, pair.reply, pair.ref, used)
            if fact is not None:
                yield fact
                break


_WH = re.compile(r"(?i)\b(what|which|who|whom|whose|when|where|why|how)\b")
_INFO_QUESTION = re.compile(r"(?i)\b(who|whom|when|what year|which|where|how many|how much|"
                            r"how old|what (?:was|is|were|are) (?:the|it|its|his|her))\b")
_OPINION = re.compile(r"(?i)\b(like|love|think|favou?rite|seen|watch|watched|recommend|enjoy|"
                      r"feel|opinion|prefer|fan|interested|want|hear)\b")  # fmt: skip
_PERSON = re.compile(r"(?i)\b(who|whom|actor|actress|director|directed|played|plays|cast|"
                     r"star|starred|character)\b")  # fmt: skip
_LIST_QUESTION = re.compile(r"(?i)\belse\b|\bwho(?:'s| is| all)? (?:in|stars|starred)\b|"
                            r"\bthe cast\b|\bin (?:it|the movie|this movie|the film)\?")
_TIME = re.compile(r"(?i)\b(when|year|old|released|came out)\b")
_SCORE = re.compile(r"(?i)\b(rating|rated|score|tomatoes|metacritic|percent|review)\b")


def _relevant(question: str, value: Value, evidence: str) -> bool:
    """The evidence is about what was asked: shared words, or the kind of value asked;
    who is answered by a full name."""
    if re.search(r"(?i)\bwho", question):
        # a full name, in a sentence about what was asked ("who does X play?")
        return (value.kind is ValueKind.NAME and len(value.text.split()) >= 2
                and content_overlap(question, evidence) >= 0.2)  # fmt: skip
    if content_overlap(question, evidence) >= 0.25:
        return True
    if value.kind is ValueKind.NAME and _PERSON.search(question):
        return len(value.text.split()) >= 2
    year = re.fullmatch(r"(18|19|20)\d\d", value.text) is not None
    if year and _TIME.search(question):
        return True
    return value.kind is ValueKind.NUMBER and not year and bool(_SCORE.search(question))


def cmudog_facts(doc: DocumentText, dialogues: Sequence[Dialogue]) -> Iterator[Fact]:
    """Questions in the chats that the other participant answered from the article."""
    title = doc.title.lower()
    for dialogue in dialogues:
        turns = dialogue.turns
        for index, ((asker, raw_question), (replier, raw_reply)) in enumerate(
            zip(turns, turns[1:], strict=False)
        ):
            if "?" not in raw_question or asker == replier:
                continue
            question = question_turn(raw_question)
            if (not question or not _INFO_QUESTION.search(question)
                    or not any(len(w) >= 3 for w in _content_words(question))
                    or _OPINION.search(asking_sentence(question))
                    or _LIST_QUESTION.search(question)):  # fmt: skip
                continue
            reply = clean_utterance(raw_reply)
            for value in _reply_values(reply, question, doc, title):
                evidence = max(
                    (s for s in doc.sentences if find_verbatim(s.text, value.text)),
                    key=lambda s: content_overlap(question, s.text),
                    default=None,
                )
                if evidence is None or not _relevant(question, value, evidence.text):
                    continue
                ref = f"{dialogue.ref}:{index}"
                fact = _fact(doc, question, value.text, evidence, reply, ref,
                             (clean_utterance(raw_question), reply))  # fmt: skip
                if fact is not None:
                    yield fact
                    break


def _content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS]


def _reply_values(reply: str, question: str, doc: DocumentText, title: str) -> list[Value]:
    found: list[Value] = []
    for number in numbers_in(reply):
        if find_verbatim(doc.text, number) and not states(question, number):
            found.append(Value(number, ValueKind.NUMBER))
    for name in names_in(reply, doc.values.lowercase_words):
        exact = find_verbatim(doc.text, name)
        if exact and name.lower() not in title and not find_verbatim(question, name):
            found.append(Value(exact, ValueKind.NAME))
    return found


def _inside(number: str, sentence: str) -> bool:
    """The number sits inside the sentence, a word after it: a number opening or closing
    a line of PDF text is most often a page, line or footnote mark."""
    match = re.search(r"(?<![\w.])" + re.escape(number) + r"(?!\w)", sentence)
    if match is None:
        return False
    return match.start() > 0 and bool(re.match(r"\s*[%\w(]", sentence[match.end() :]))


def statement_facts(doc: DocumentText) -> Iterator[Fact]:
    """Sentences that report a distinctive number (papers without question data)."""
    for sentence in doc.sentences:
        if sentence.text.lower().startswith(("references", "acknowledg")):
            break
        text = sentence.text
        if (not 8 <= word_count(text) <= 40 or re.search(r"\[|et al|http", text)
                or not text[:1].isupper() or text.split()[0][:1].isdigit()):  # fmt: skip
            continue
        numbers = [n for n in numbers_in(text) if _inside(n, text)]
        if not 1 <= len(numbers_in(text)) <= 3:
            continue
        values = [v for n in numbers for v in gold_values(n, text, "", doc.values)][:1]
        statement = spoken_statement(sentence.text)
        if not values or values[0].kind is not ValueKind.NUMBER:
            continue
        if not states(statement, values[0].text):
            continue
        claim = claim_from_statement(statement, values[0].text)
        if len(claim.split()) < 4:
            continue
        yield Fact(doc.id, "", claim, tuple(values), sentence.text, sentence.page, statement,
                   statement, f"{doc.id}:p{sentence.page}")  # fmt: skip


def document_facts(doc: DocumentText, source: SourceDocument) -> list[Fact]:
    """The located facts of one document, one per settling sentence and gold value."""
    if source.source is Source.COVIDQA:
        found = list(covidqa_facts(doc, source.qa))
    elif source.source is Source.ARGSCICHAT:
        found = list(argscichat_facts(doc, source.qa))
    elif source.source is Source.CMUDOG:
        found = list(cmudog_facts(doc, source.dialogues))
    else:
        found = list(statement_facts(doc))
    kept: list[Fact] = []
    seen_evidence: set[str] = set()
    seen_values: set[str] = set()
    seen_claims: set[str] = set()
    for fact in found:
        keys = {g.lower() for g in fact.gold}
        if fact.evidence in seen_evidence or keys & seen_values or fact.claim in seen_claims:
            continue
        seen_evidence.add(fact.evidence)
        seen_values.update(keys)
        if fact.claim:
            seen_claims.add(fact.claim)
        kept.append(fact)
    return kept
