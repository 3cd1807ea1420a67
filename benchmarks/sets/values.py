"""Values in answers (numbers and names), plausible wrong values, and value checks.

A gold value is a short string of the settling sentence that shows a spoken answer
carries the fact: a number (with its % sign), a name, or a short answer phrase. A wrong
claim swaps it for another value of the same kind: a number of the same shape (another
percentage, year, count of the same order) and a name of the same shape (another
acronym, another two-word name of the same document). Whether a text states a value is
decided as the scorer decides it: numbers by value ("120" = "one hundred twenty"),
other values as a token sequence.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.document.segment import NEVER_FINAL, sentence_text, words_from_text
from app.document.segment import split_sentences as segment_sentences
from app.language.numbers import canonical_tokens
from app.language.values import contains_value

NUMBER = re.compile(
    r"(?<![\w.,/\-§])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(%| percent\b)?"
    r"(?![\w]|[.,]\d|-\d|/\d)"
)
_TOKEN = re.compile(r"[A-Za-z][\w'\u2019]*(?:-[\w]+)*")
_CITATION = re.compile(
    r"\s?\[\d+(?:\s*[,\u2013-]\s*\d+)*\]"
    r"|\s?\((?:[^()]*\bet al\.?[^()]*|[A-Z][\w-]+(?: (?:and|&) [A-Z][\w-]+)?,? \d{4}[a-z]?"
    r"(?:; ?[^()]*)?)\)"
    r"|\s?\((?:Fig(?:ure)?s?\.?|Table|Supplementary|see)\b[^()]*(?:\([^()]*\)[^()]*)*\)"
)
_HEADER = re.compile(r"^(?:(?:Abstract|Text|Background|Methods?|Results?|Conclusions?|"
                     r"Introduction|Objectives?|Findings|Methods and findings)\s*:\s*)+",
                     re.IGNORECASE)  # fmt: skip
_CAPS_HEADER = re.compile(r"^(?:[A-Z][A-Z ]{3,}:\s*)+|^(?:[A-Z]{4,}\s+)+(?=[A-Z][a-z])")
_FIRST_PERSON = ((re.compile(r"\bWe\b"), "They"), (re.compile(r"\bwe\b"), "they"),
                 (re.compile(r"\bOur\b"), "Their"), (re.compile(r"\bour\b"), "their"),
                 (re.compile(r"\bours\b"), "theirs"), (re.compile(r"\bus\b"), "them"),
                 (re.compile(r"\bourselves\b"), "themselves"))  # fmt: skip
STOPWORDS = frozenset(
    """a an the of to in on for and or but at by with from into as than that this these
    those it its is are was were be been being have has had do does did not no can could
    would should will may might must also which who whom whose what when where why how
    there their they them he she his her we our you your i me my so such very more most
    many much some any all each other only if then about between after before during""".split()
)


# Capitalised abbreviations that are not names ("Fig. 2", "Eq. 3").
ABBREVIATIONS = frozenset(NEVER_FINAL | {"figure", "table", "section", "appendix", "equation"})


class ValueKind(StrEnum):
    NUMBER = "number"
    NAME = "name"
    PHRASE = "phrase"  # a short answer that is neither


@dataclass(frozen=True)
class Value:
    text: str  # verbatim as the settling sentence writes it
    kind: ValueKind


@dataclass(frozen=True)
class Swap:
    """A wrong claim: ``planted`` said where the document has ``gold``."""

    gold: str
    planted: str
    kind: ValueKind
    statement: str  # the statement with the planted value


# --- spoken form of document text ---------------------------------------------------------


def strip_citations(text: str) -> str:
    text = _CITATION.sub("", text)
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s+", " ", text)).strip()


def third_person(text: str) -> str:
    """The authors' "we" as "they", for a participant speaking about their work."""
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement, text)
    return text


def spoken_statement(sentence: str) -> str:
    """A document sentence as a participant would say it: no section labels, no
    reference markers, the authors' "we" as "they"."""
    text = _CAPS_HEADER.sub("", _HEADER.sub("", sentence.strip()))
    text = third_person(strip_citations(text))
    text = text.strip(" ;,")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


# --- numbers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumberShape:
    percent: bool
    year: bool
    decimals: int
    magnitude: int  # floor(log10(value)); -99 for zero


def parse_number(text: str) -> tuple[float, NumberShape] | None:
    match = NUMBER.fullmatch(text.strip())
    if not match:
        return None
    digits = match.group(1)
    value = float(digits.replace(",", ""))
    percent = bool(match.group(2))
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    year = not percent and decimals == 0 and "," not in digits and 1800 <= value <= 2099
    magnitude = math.floor(math.log10(value)) if value > 0 else -99
    return value, NumberShape(percent, year, decimals, magnitude)


def numbers_in(text: str) -> list[str]:
    """Number expressions of a text (citations removed), verbatim with their % sign."""
    return [m.group(0) for m in NUMBER.finditer(strip_citations(text))]


def number_values(text: str) -> set[float]:
    return {parsed[0] for n in numbers_in(text) if (parsed := parse_number(n))}


def said_numbers(text: str) -> set[float]:
    """Every number a reader hears in the text (ranges, ids and number words included),
    as the value checks see them."""
    out = set()
    for token in _numeric(canonical_tokens(text)):
        try:
            out.add(float(token))
        except ValueError:
            continue
    return out


def _format_like(value: float, original: str, decimals: int) -> str:
    match = NUMBER.fullmatch(original.strip())
    suffix = match.group(2) if match and match.group(2) else ""
    if decimals:
        body = f"{value:.{decimals}f}"
    elif "," in original:
        body = f"{int(round(value)):,}"
    else:
        body = str(int(round(value)))
    return body + suffix


def _significant(value: float) -> int:
    digits = str(int(round(value))).rstrip("0")
    return max(1, len(digits))


def perturb_number(original: str, rng: random.Random, taken: set[float]) -> str | None:
    """Another number of the same shape, none of ``taken`` (the document's own values)."""
    parsed = parse_number(original)
    if parsed is None:
        return None
    value, shape = parsed
    for _ in range(20):
        if shape.year:
            new = value + rng.choice((-3, -2, -1, 1, 2, 3))
        else:
            new = value * rng.choice((0.5, 0.6, 0.75, 1.25, 1.5, 2.0))
            if shape.decimals:
                new = round(new, shape.decimals)
            else:
                scale = 10 ** max(0, len(str(int(round(value)))) - _significant(value))
                new = round(new / scale) * scale
        if shape.percent and new > 100:
            continue
        if new <= 0 or abs(new - value) < 1e-9 or new in taken:
            continue
        return _format_like(new, original, shape.decimals)
    return None


# --- names --------------------------------------------------------------------------------


def _acronym(token: str) -> bool:
    if token.islower():
        return False
    letters = [c for c in token if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    has_digit = any(c.isdigit() for c in token)
    return (upper >= 2 and upper * 2 >= len(letters)) or (upper >= 1 and has_digit)


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:;\"(“"


def names_in(text: str, lowercase_words: frozenset[str]) -> list[str]:
    """Name phrases: runs of acronyms and capitalised words that the document never
    writes in lower case (so "Table" or "However" are not names). A capitalised word
    opening a sentence counts only as the start of a longer run ("Lindsay Lohan")."""
    out: list[str] = []
    run: list[tuple[re.Match[str], bool]] = []  # (token, opens a sentence)

    def flush() -> None:
        while run and run[0][1] and len(run) == 1:
            run.pop(0)
        if run:
            out.append(text[run[0][0].start() : run[-1][0].end()])
            run.clear()

    previous_end = -1
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        bare = token[:-2] if token.endswith(("'s", "\u2019s")) else token
        initial = _sentence_initial(text, match.start())
        capital = (bare[:1].isupper() and bare.lower() not in lowercase_words
                   and bare.lower() not in STOPWORDS and bare.lower() not in ABBREVIATIONS)
        label = text[match.end() : match.end() + 1] == ":"  # "Abstract:", "Director:"
        identifier = sum(c.isdigit() for c in bare) >= 4  # "PMC4019839"
        name = (_acronym(bare) or capital) and len(bare) > 1 and not label and not identifier
        joined = previous_end >= 0 and text[previous_end : match.start()] == " "
        if not name or (run and not joined):
            flush()
        if name and initial and not run and re.search(r"(?:ing|ed|ly)$", bare):
            name = False  # "Believing Ares": a verb or adverb opening the sentence
        if name:
            run.append((match, initial and not _acronym(bare)))
        previous_end = match.end()
        if name and bare != token:
            flush()  # a possessive ends the name
    flush()
    return [n[:-2] if n.endswith(("'s", "\u2019s")) else n for n in out]


def lowercase_vocabulary(text: str) -> frozenset[str]:
    return frozenset(t for t in re.findall(r"\b[a-z][a-z'-]*\b", text))


def name_shape(name: str) -> tuple[bool, bool, bool, bool, int]:
    """What a swapped name must share: acronym, inner capitals ("GloVe"), digits,
    hyphens, number of words."""
    tokens = name.split()
    inner = any(any(c.isupper() for c in t[1:]) for t in tokens)
    return (any(_acronym(t) for t in tokens), inner, any(c.isdigit() for c in name),
            "-" in name, len(tokens))  # fmt: skip


def _overlaps(a: str, b: str) -> bool:
    la, lb = a.lower(), b.lower()
    return la in lb or lb in la or bool(set(la.split()) & set(lb.split()))


# --- value checks -------------------------------------------------------------------------


def _numeric(tokens: Iterable[str]) -> set[str]:
    return {t for t in tokens if t[:1].isdigit() or (t[:1] == "." and t[1:2].isdigit())}


def states(text: str, value: str) -> bool:
    """Whether ``text`` states ``value``: all of its numbers, else its words in order
    (as tokens, or as a word-bounded string: "Stark's" states "Stark")."""
    wanted = _numeric(canonical_tokens(value))
    if wanted:
        return wanted <= _numeric(canonical_tokens(text))
    return contains_value(text, value) or find_verbatim(text, value) is not None


def states_any(text: str, values: Iterable[str]) -> bool:
    return any(states(text, v) for v in values)


def find_verbatim(haystack: str, needle: str) -> str | None:
    """``needle`` as ``haystack`` writes it (case-insensitive, word-bounded), or None."""
    match = re.search(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", haystack, re.IGNORECASE)
    return match.group(0) if match else None


def count_verbatim(haystack: str, needle: str) -> int:
    return len(re.findall(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", haystack, re.IGNORECASE))


# --- gold values of an answer -------------------------------------------------------------


def _content(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


def _phrase(answer: str, evidence: str, question: str, paraphrase: bool) -> str | None:
    """The longest run of 2-4 answer words found in the evidence, content words at both
    ends and not asked in the question. A short answer span (at most 12 words) must keep
    half of its content words in it; a paraphrasing answer (a reply in the answerer's
    own words) any two content words it shares with the evidence."""
    tokens = re.findall(r"[\w'-]+", strip_citations(answer))
    if not paraphrase and len(tokens) > 12:
        return None
    needed = 2 if paraphrase else len(_content(answer)) / 2
    for width in (4, 3, 2):
        for i in range(len(tokens) - width + 1):
            gram = tokens[i : i + width]
            if gram[0].lower() in STOPWORDS or gram[-1].lower() in STOPWORDS:
                continue
            text = " ".join(gram)
            if len(_content(text)) < needed or re.search(r"\d", text):
                continue
            found = find_verbatim(evidence, text)
            if found and not find_verbatim(question, text):
                return found
    return None


def gold_values(answer: str, evidence: str, question: str, document: DocumentValues,
                paraphrase: bool = False) -> list[Value]:
    """What a spoken answer must carry: the answer's distinctive numbers, else its
    names, else the answer itself when short, else its longest phrase in the evidence.
    Every value is written as the evidence writes it and is not in the question."""
    out: list[Value] = []
    for number in numbers_in(answer):
        found = find_verbatim(evidence, number)
        if found and not states(question, found) and distinctive(found, document):
            out.append(Value(found, ValueKind.NUMBER))
    if not out:
        for name in names_in(strip_citations(answer), document.lowercase_words):
            found = find_verbatim(evidence, name)
            if found and not find_verbatim(question, name) and document.name_uses(found) <= 3:
                out.append(Value(found, ValueKind.NAME))
    if not out:
        short = strip_citations(answer).strip(" .,;:()[]\"'")
        if 1 <= len(short.split()) <= 4 and not re.search(r"\d", short):
            found = find_verbatim(evidence, short)
            if found and not find_verbatim(question, short) and _content(short):
                out.append(Value(found, ValueKind.PHRASE))
    if not out:
        phrase = _phrase(answer, evidence, question, paraphrase)
        if phrase:
            out.append(Value(phrase, ValueKind.PHRASE))
    unique = list({v.text.lower(): v for v in out}.values())
    return unique[:2]


def distinctive(number: str, document: DocumentValues) -> bool:
    """A gold number the document uses at most twice (else any mention would count)."""
    parsed = parse_number(number)
    if parsed is None:
        return False
    value = parsed[0]
    if re.fullmatch(r"\d{5,}", number):
        return False  # an identifier, not a quantity
    uses = document.number_counts[value]
    return uses <= 2 and not (value < 10 and not parsed[1].percent and parsed[1].decimals == 0)


# --- swaps --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentValues:
    """The numbers and names one document uses, for choosing plausible swaps."""

    numbers: tuple[str, ...]
    number_counts: Counter[float]
    names: Counter[str]  # empty unless read in full
    lowercase_words: frozenset[str]
    text: str
    said: frozenset[float]  # every number the text holds, as the value checks read it
    full: bool = True

    @property
    def number_set(self) -> frozenset[float]:
        return frozenset(self.number_counts)

    def name_uses(self, name: str) -> int:
        return self.names[name] if self.full else count_verbatim(self.text, name)

    @classmethod
    def of(cls, text: str, lines: str = "", full: bool = True) -> DocumentValues:
        """Values of ``text``; names are read from ``lines`` where given (the source's
        lines, so a name never runs across a heading into the next line). Without
        ``full``, only what gold values need (no name list, no spoken numbers)."""
        lower = lowercase_vocabulary(text)
        numbers = tuple(numbers_in(text))
        counts = Counter(p[0] for n in numbers if (p := parse_number(n)))
        if not full:
            return cls(numbers, counts, Counter(), lower, text, frozenset(), False)
        names = Counter(names_in(lines or text, lower))
        return cls(numbers, counts, names, lower, text, frozenset(said_numbers(text)))


def _replace_once(statement: str, old: str, new: str) -> str | None:
    pattern = re.compile(r"(?<![\w.,])" + re.escape(old) + r"(?![\w]|[.,]\d)", re.IGNORECASE)
    if len(pattern.findall(statement)) != 1:
        return None
    return pattern.sub(lambda _: new, statement, count=1)


def swap_value(value: Value, statement: str, evidence: str, question: str,
               values: DocumentValues, rng: random.Random) -> Swap | None:
    """The statement with ``value`` replaced by a plausible wrong one, or None."""
    if value.kind is ValueKind.NUMBER:
        planted = _number_swap(value.text, evidence, question, values, rng)
    elif value.kind is ValueKind.NAME:
        planted = _name_swap(value.text, evidence, question, values, rng)
    else:
        return None
    if planted is None:
        return None
    changed = _replace_once(statement, value.text, planted)
    if changed is None or states(changed, value.text):
        return None
    return Swap(value.text, planted, value.kind, changed)


def _number_swap(gold: str, evidence: str, question: str, values: DocumentValues,
                 rng: random.Random) -> str | None:
    parsed = parse_number(gold)
    if parsed is None:
        return None
    value, shape = parsed
    excluded = said_numbers(evidence) | said_numbers(question) | {value}
    same = sorted({n for n in values.numbers
                   if (p := parse_number(n)) and p[1] == shape and p[0] not in excluded})
    # Half the swaps take another number the document uses for something else.
    if same and rng.random() < 0.5:
        return rng.choice(same)
    return perturb_number(gold, rng, set(values.number_set) | values.said)


def _name_swap(gold: str, evidence: str, question: str, values: DocumentValues,
               rng: random.Random) -> str | None:
    shape = name_shape(gold)
    candidates = sorted(
        (n for n, count in values.names.items()
         if name_shape(n) == shape and not _overlaps(n, gold)
         and not find_verbatim(evidence, n) and not find_verbatim(question, n)
         and n.lower() != gold.lower()),
        key=lambda n: (-values.names[n], n),
    )  # fmt: skip
    if not candidates:
        return None
    return rng.choice(candidates[:6])


# --- claims -------------------------------------------------------------------------------

_LEAD_FILLER = re.compile(r"^(?:so|and|okay|ok|well|also|then|but|yes|yeah|interesting|"
                          r"thanks|thank you|great|cool|nice|hmm|oh)\b[,!.]?\s+",
                          re.IGNORECASE)  # fmt: skip
_REWRITES = (
    (re.compile(r"^(?:what|which) (?:is|are|was|were) (?:the )?(.+)$", re.I), r"the \1"),
    (re.compile(r"^how many (.+)$", re.I), r"the number of \1"),
    (re.compile(r"^how much (.+)$", re.I), r"the amount of \1"),
    (re.compile(r"^(?:which|what) (?!(?:did|does|do|is|are|was|were|can|could|would|will|"
                r"should|has|have|had|kind|type|sort)\b)(.+)$", re.I), r"the \1"),
)
MAX_CLAIM_WORDS = 15


def split_sentences(text: str) -> list[str]:
    """Sentences of a message, with the document splitter (abbreviations kept whole)."""
    return [sentence_text(w) for w in segment_sentences(words_from_text(text))] or [text]


def asking_sentence(question: str) -> str:
    """The sentence of a message that asks (the last one ending in '?')."""
    parts = split_sentences(question.strip())
    asking = [p for p in parts if p.endswith("?")]
    return asking[-1] if asking else parts[-1]


def claim_from_question(question: str) -> str:
    """A short phrase naming what is asked: "What is the main cause of X?" -> "the main
    cause of X"; at most 15 words."""
    text = asking_sentence(question).strip().rstrip("?.! ").strip()
    previous = None
    while previous != text:
        previous, text = text, _LEAD_FILLER.sub("", text)
    for pattern, replacement in _REWRITES:
        if pattern.match(text):
            text = pattern.sub(replacement, text)
            break
    text = re.sub(r"^the (?:a|an|the) ", "the ", text)
    tokens = text.split()
    if tokens and not (tokens[0][:2].isupper() or tokens[0][1:2].isupper()):
        tokens[0] = tokens[0].lower()
    return " ".join(tokens[:MAX_CLAIM_WORDS]).strip(" ,;:")


_ADVERBIAL = re.compile(r"^(?:(?:finally|first|second|third|also|moreover|furthermore|"
                        r"in addition|however|overall|thus|hence|then|here|similarly),?\s+)+"
                        r"|^(?:they|we) (?:observe|find|found|show|see|note|report) that\s+",
                        re.IGNORECASE)  # fmt: skip


def claim_from_statement(statement: str, value: str) -> str:
    """A phrase naming what a statement reports, without its value (for document
    sentences no question asks about): the words leading up to the value, else the
    words after it."""
    match = re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", statement, re.IGNORECASE)
    if match is None:
        return ""
    before = _ADVERBIAL.sub("", statement[: match.start()].strip()).split()
    after = statement[match.end() :].strip(" .,;:").split()
    words = before[-(MAX_CLAIM_WORDS - 1):] if len(before) >= 5 else after[: MAX_CLAIM_WORDS - 1]
    text = " ".join(words).strip(" ,;:(")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def claim_from_finding(statement: str) -> str:
    """A phrase naming a finding said as a statement (a misattribution's claim): its first
    sentence without the talk's lead words, at most ``MAX_CLAIM_WORDS`` words. A finding has
    no question to name it, and the question of the document it comes from names what that
    document was asked, not what the speaker says."""
    text = split_sentences(statement)[0].strip()
    previous = None
    while previous != text:
        previous = text
        text = _ADVERBIAL.sub("", _LEAD_FILLER.sub("", text)).strip()
    return " ".join(text.split()[:MAX_CLAIM_WORDS]).strip(" ,;:(.")


def content_overlap(a: str, b: str) -> float:
    """Share of ``a``'s content words found in ``b``."""
    sa, sb = set(_content(a)), set(_content(b))
    return len(sa & sb) / len(sa) if sa else 0.0


def trigrams(texts: Sequence[str]) -> set[tuple[str, ...]]:
    grams: set[tuple[str, ...]] = set()
    for text in texts:
        tokens = re.findall(r"[a-z0-9']+", text.lower())
        grams.update(zip(tokens, tokens[1:], tokens[2:], strict=False))
    return grams
