"""The spoken form: "About {topic}, {text} You'll find this on page N; search for '...'".

With several documents open the page hint names the document ("page N of <title>"), and
what the agent says of the documents says it of all of them (``the_documents``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from app.backbone.restatement import swapped_term
from app.document.library import Library, part_of
from app.events import Citation
from app.language.numbers import quantities
from app.language.sentences import brackets_paired, sentences
from app.language.verbs import looks_verbless
from app.language.words import FOOTNOTED, STOPWORDS, spoken_words
from app.settings import UtteranceStyle

# A sentence ID the model wrote bare ("as S4 says"), but not a label of supplementary
# material, which papers write "Table S3" or "S3 Table".
_LABEL = r"(?:Tables?|Fig(?:ure)?s?\.?|Appendix|Files?|Data(?:set)?|Texts?|Movies?|Videos?)"
_BARE_ID = re.compile(rf"(?P<label>\b{_LABEL}\s+)?\bS\d+\b(?!\s+{_LABEL})")
# "as stated in S27 and S32": a pointer to sentence IDs that means nothing aloud.
_CITED_IN = re.compile(
    r"\s*,?\s*\b(?:as (?:stated|shown|mentioned|described|given) in|according to|see)\s+"
    rf"\[?S\d+\b\]?(?:\s*(?:,|and)\s*\[?S\d+\b\]?)*(?!\s+{_LABEL})",
    re.IGNORECASE,
)
_IDS = re.compile(r"\s*\[(?:S|s)?\d+(?:\s*[,\-–]\s*(?:S|s)?\d+)*\]")
# A marker cut off where the text ends ("of those infected [", "shown [11, 16").
_CUT_MARKER = re.compile(r"\s*\[[\dSs,\s\-–]*$")


# A section's name heading a sentence, as a paper's text runs it in ("Abstract: We
# ...", "Background: ..."): the page's label, not what the document says.
_SECTION_LABEL = re.compile(
    r"^(?:Abstract|Text|Background|Introduction|Objectives?|Aims?|Methods?|Results|"
    r"Findings|Conclusions?|Discussion|Summary|Interpretation|Purpose|Significance)"
    r"\s*:\s+(?=[A-Z0-9])"
)
# The space a removed marker leaves before punctuation ("types [23] , only"); a point
# before a digit starts a number (".5").
_SPACE_BEFORE_MARK = re.compile(r"\s+(?=[,;:!?]|\.(?!\d))")


def without_markers(text: str) -> str:
    """The text without bracketed reference markers and sentence IDs ("[23]", "[S4]"),
    nor one cut off at its end."""
    return _SPACE_BEFORE_MARK.sub("", _CUT_MARKER.sub("", _IDS.sub("", text)))


def clean_text(text: str) -> str:
    """Remove sentence IDs and bracketed reference markers; tidy whitespace."""
    text = without_markers(text)
    text = _CITED_IN.sub("", text)
    text = _BARE_ID.sub(lambda m: m.group(0) if m.group("label") else "", text)
    # A sentence ID used as a label ("S8: It was ...") leaves its mark at the start.
    text = _SPACE_BEFORE_MARK.sub("", re.sub(r"\s+", " ", text)).strip().lstrip(",;: ")
    return _SECTION_LABEL.sub("", text)


# "the document says ...": a reporting lead and what follows it (not a quote after ":").
_REPORTING = re.compile(
    r"\b(?P<lead>[Tt]he documents? (?:says?|reports?|states?|notes?|shows?|mentions?)"
    r"(?: that)?) (?P<rest>[^:].*)$"
)


def reported_form(sentence: str, cited: Sequence[str], max_words: int | None = None,
                  raised: Sequence[str] = ()) -> str:
    """A sentence that reports the document, said as a person would: a whole sentence
    glued after the lead loses its capital ("says There are" -> "says there are"); a bare
    value after the lead ("says 48."), or a piece of a cited sentence that starts or stops
    inside one of its clauses, becomes that cited sentence whole, quoted after a colon, when it fits
    ``max_words``, else the opening of it that holds the value. A bare term that fits
    neither way (or the one quantity of such a piece), where one of the ``raised`` turns
    restates the cited sentence with that term swapped (or a quantity of the same kind
    with another value), is set against the participants' one ("says STEP, not LAB.",
    "says 48, not 52."). Otherwise the sentence is unchanged."""
    match = _REPORTING.search(sentence)
    if match is None:
        return sentence
    rest = match.group("rest")
    first = rest.split(" ", 1)[0]
    if _capital_stopword(first):
        rest = rest[0].lower() + rest[1:]
        sentence = sentence[: match.start("rest")] + rest
    value = rest.strip().rstrip(".!?")
    bare = 0 < len(value.split()) <= 3
    lead = sentence[: match.end("lead")]
    budget = None if max_words is None else max_words - len(lead.split())
    clipped = False
    for source in cited:
        cut = not bare and is_clipped(rest, source)
        clipped = clipped or cut
        if bare and value.lower() in source.lower() or cut:
            if budget is None or len(source.split()) <= budget:
                return f"{lead}: {_end(source.strip())}"
            clause = _clause_with(value, source, budget) if bare else None
            if clause is not None:
                return f"{lead}: {_end(clause)}"
    if clipped:
        # A piece too long to say whole: its one quantity against the participants' one.
        held = quantities(value)
        value, bare = (held[0].raw, True) if len(held) == 1 else (value, False)
    theirs = _said_instead(value, cited, raised) if bare else None
    return sentence if theirs is None else f"{lead} {value}, not {theirs}."


def _capital_stopword(word: str) -> bool:
    """A common word capitalised only as a sentence's first ("There", "A"; not "I")."""
    plain = word[1:].islower() or (len(word) == 1 and word != "I")
    return word[:1].isupper() and plain and word.lower() in STOPWORDS


def _said_instead(value: str, cited: Sequence[str], raised: Sequence[str]) -> str | None:
    """What a raised turn says in place of ``value`` of a cited sentence: the term its
    restatement swaps, or a quantity of the same kind with another value."""
    for source in map(without_markers, cited):
        for turn in raised:
            swap = swapped_term(turn, source)
            if swap is not None and swap.document.lower() == value.lower():
                return swap.said
        rival = _rival_quantity(value, source, raised)
        if rival is not None:
            return rival
    return None


def _rival_quantity(value: str, source: str, raised: Sequence[str]) -> str | None:
    """A quantity of the raised turns that counts what ``value`` counts in ``source`` but
    differs from it (the nearest in context of several)."""
    given, stated = quantities(value), quantities(source)
    written = [d for d in stated if given and d.same_value(given[0])]
    if len(given) != 1 or len(written) != 1:
        return None
    d = written[0]
    rivals = [q for turn in raised for q in quantities(turn)
              if q.compatible(d) and not any(q.same_value(o) for o in stated)]
    best = max(rivals, key=lambda q: len(q.context & d.context), default=None)
    return None if best is None else best.raw


# Where a clause ends inside a sentence; brackets are not breaks: what they hold belongs
# to the clause around them.
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:\u2013\u2014]|\s-\s)\s*")


def _clause_with(value: str, source: str, max_words: int) -> str | None:
    """The shortest opening of ``source``, ending where a clause ends, that carries
    ``value``, has a verb and fits ``max_words``: a long cited sentence said in part,
    with its subject and never cut inside a clause or a bracket."""
    text = without_markers(source).strip().rstrip(".!?")
    ends = [m.start() for m in _CLAUSE_BREAK.finditer(text)] + [len(text)]
    openings = (text[:end] for end in ends)
    return next((o for o in openings if value.lower() in o.lower()
                 and MIN_CLAUSE_WORDS <= len(o.split()) <= max_words
                 and not looks_verbless(o) and brackets_paired(o)), None)


MIN_CLAUSE_WORDS = 4  # a shorter piece of a cited sentence says too little to quote
_CLAUSE_MARKS = frozenset({",", ";", ":", "-", "–", "—", "(", ")", ".", "!", "?"})


def is_clipped(sentence: str, source: str, min_words: int = 4) -> bool:
    """``sentence`` copies a run of ``source`` that starts or stops inside one of its
    clauses (a word of the source runs on where the copy begins or ends). Words are
    compared without the marks between them ("rival, who" is the copy's "rival who")."""
    said = spoken_words(sentence)
    if len(said) < min_words:
        return False
    tokens = re.findall(r"\w+(?:[.,'’%]\w+)*%?|[^\w\s]", without_markers(source).lower())
    at = [i for i, token in enumerate(tokens) if token[0].isalnum() or token[0] == "_"]
    words = [tokens[i] for i in at]
    head, tail = said[:min_words], said[-min_words:]
    for j in range(len(words) - min_words + 1):
        run = words[j : j + min_words]
        before, after = at[j] - 1, at[j + min_words - 1] + 1
        if run == head and before >= 0 and tokens[before] not in _CLAUSE_MARKS:
            return True
        if run == tail and after < len(tokens) and tokens[after] not in _CLAUSE_MARKS:
            return True
    return False


def limit_words(text: str, max_words: int) -> str:
    """Whole sentences within the limit; a first sentence that is too long is cut."""
    kept: list[str] = []
    for sentence in sentences(text):
        if len(" ".join([*kept, sentence]).split()) > max_words:
            break
        kept.append(sentence)
    if kept:
        return " ".join(kept)
    words = text.split()[:max_words]
    return " ".join(words).rstrip(",;:") + "."


def limit_sentences(text: str, max_sentences: int) -> str:
    return " ".join(sentences(text)[:max_sentences])


# --- numbers said as a person would, and the search phrase -------------------------------

_SPACED_PERCENT = re.compile(r"(\d) (?:%|percent\b|per cent\b)")
_THIN_GROUP = re.compile(r"(\d)[\u00a0\u2009\u202f](?=\d{3}\b)")


def spoken_numbers(text: str) -> str:
    """Numbers as a person says and writes them: "12.5 %" -> "12.5%", a thin-space
    thousands group "2\u2009500" -> "2,500"."""
    return _THIN_GROUP.sub(r"\1,", _SPACED_PERCENT.sub(r"\1%", text))


# A word: letters of any script (accents, combining marks and all) and digits, joined by
# an apostrophe, hyphen, dot or slash; a % written against a number belongs to it.
_PHRASE_WORD = re.compile(r"[\w\u0300-\u036f]+(?:['\u2019\-./][\w\u0300-\u036f]+)*%?")
# Scripts written without spaces: a long run is searched by a few of its characters.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
UNSPACED_CHARS = 6  # characters of an unspaced-script clause in a search phrase


def page_form(text: str) -> str:
    """Text as a PDF search sees it: NFC, one space for any whitespace, a word broken at a
    line end rejoined ("meas- urement"), no space before % ("12.5 %"), lower case."""
    text = unicodedata.normalize("NFC", text).replace("\u00ad", "")
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", text)
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"(\d) %", r"\1%", text).strip().lower()


def on_page(phrase: str, page_text: str) -> bool:
    """The phrase is on the page, as a PDF search would find it."""
    form = page_form(phrase)
    return bool(form) and form in page_form(page_text)


def page_text(document: Any, sid: int) -> str:
    """The text of the page sentence ``sid`` is on (that document's page in a library)."""
    sentence = document.get(sid)
    if sentence is None:
        return ""
    part = part_of(document, sid)
    return " ".join(s.text for s in document.sentences
                    if s.page == sentence.page and part_of(document, s.sid) == part)


def search_phrase(sentence_text: str, document_lower: str, page: str = "",
                  max_words: int = 3) -> str:
    """A short phrase of the sentence to search for: its words as written (never cut inside
    one, whatever its letters), found on the page (``page``: the page's text; the sentence
    itself if not given), at most ``max_words`` words, neither opening nor ending on a
    stopword, with a word that means something (not a bare number); the one whose rarest
    content word is rarest in the document wins, then the rarer phrase, the one with fewer
    stopwords, the longer. "" when no phrase
    qualifies (the hint then names the page only)."""
    page = page_form(page or sentence_text)
    best: tuple[int, ...] | None = None
    phrase = ""
    for order, candidate in enumerate(_candidates(sentence_text, max_words)):
        form = page_form(candidate)
        if form not in page:
            continue
        said = candidate.split()
        filler = sum(w.lower() in STOPWORDS for w in said)
        rarest = min(document_lower.count(w.lower()) for w in said if _means_something(w))
        score = (rarest, document_lower.count(form), filler, -len(said), -len(candidate),
                 order)
        if best is None or score < best:
            best, phrase = score, candidate
    return phrase


def _candidates(text: str, max_words: int) -> list[str]:
    """Runs of up to ``max_words`` words joined by single spaces in the text itself."""
    words = [m for m in _PHRASE_WORD.finditer(text) if not FOOTNOTED.match(m.group())]
    out: list[str] = []
    for i, first in enumerate(words):
        if _UNSPACED.search(first.group()):
            out += _unspaced_pieces(first.group())
            continue
        for j in range(i, min(i + max_words, len(words))):
            if j > i and text[words[j - 1].end():words[j].start()] != " ":
                break
            run = words[i : j + 1]
            if _is_phrase([m.group() for m in run]):
                out.append(text[first.start():words[j].end()])
    return out


def _unspaced_pieces(run: str) -> list[str]:
    """A run of an unspaced script (between punctuation marks): its first characters, so
    the phrase starts where a clause starts (no word splitter for these scripts here)."""
    return [run[:UNSPACED_CHARS]]


def _is_phrase(words: list[str]) -> bool:
    if words[0].lower() in STOPWORDS or words[-1].lower() in STOPWORDS:
        return False
    if any(_UNSPACED.search(w) for w in words):
        return False
    return any(_means_something(w) for w in words)


def _means_something(word: str) -> bool:
    """A content word: four letters or more, or a short name with capitals or digits
    ("CO2", "UK"), not a bare number."""
    if not any(c.isalpha() for c in word) or word.lower() in STOPWORDS:
        return False
    return len(word) >= 4 or word.upper() == word


def _lower_first(text: str) -> str:
    """"They used" -> "they used", but "NumPy is" keeps its capitals."""
    if text[:2] == text[:2].upper():
        return text
    return text[0].lower() + text[1:]


def _end(text: str) -> str:
    """The text with one final stop; one inside a closing quote or bracket counts, and
    a second one after it ("... approaches.'.") goes."""
    text = _STOP_AFTER_CLOSED.sub(r"\1", text.strip())
    return text if text.rstrip(_CLOSING).endswith((".", "!", "?")) else text + "."


_CLOSING = "\"'”’)»]"
_STOP_AFTER_CLOSED = re.compile(r"([.!?][\"'”’)»\]]+)\.$")


def assemble(topic: str, text: str, citation: Citation | None, style: UtteranceStyle,
             preface: bool = True) -> str:
    """Topic preface, the text, and the page hint of the first cited sentence."""
    body = _end(spoken_numbers(clean_text(text)))
    # A label the model wrote as an identifier ("annotation_curricula") is said as words.
    words = clean_text(topic).replace("_", " ").strip(" .,").split()
    topic = " ".join(_topic_case(word) for word in words)
    if preface and topic:
        body = f"About {topic}, {_lower_first(body)}"
    if citation is None or style is UtteranceStyle.OFF:
        return body
    where = page_hint(citation)
    if style is UtteranceStyle.PAGE_ONLY or not citation.keyword:
        return f"{body} You'll find this on {where}."
    return f"{body} You'll find this on {where}; search for '{citation.keyword}' to confirm."


def _topic_case(word: str) -> str:
    """A topic word in lower case, as mid-sentence, unless it is an acronym or a name
    with inner capitals ("PDF", "HIV-1", "NumPy"): those are read and shown as written."""
    return word if any(c.isupper() for c in word[1:]) else word.lower()


def page_hint(citation: Citation) -> str:
    """"page 4", or "page 4 of Budget report" when the meeting has several documents."""
    if citation.document_title:
        return f"page {citation.page} of {citation.document_title}"
    return f"page {citation.page}"


_THE_DOCUMENT = re.compile(r"\b([Tt])he document\b")


def the_documents(document: object, sids: Sequence[int] = ()) -> str:
    """How the agent names what it reads: "the document"; with several open "the
    documents", or "the document <title>" when ``sids`` all come from one of them."""
    if not isinstance(document, Library) or len(document.parts) < 2:
        return "the document"
    parts = {p.first: p for p in (part_of(document, s) for s in sids) if p is not None}
    one = len(parts) == 1 and all(part_of(document, s) is not None for s in sids)
    return f"the document {next(iter(parts.values())).name}" if one else "the documents"


def of_the_documents(text: str, document: object) -> str:
    """``text`` (a fixed reply, e.g. the abstention) said of all the meeting's documents:
    its "the document" becomes ``the_documents``."""
    phrase = the_documents(document)
    return _THE_DOCUMENT.sub(lambda m: m.group(1) + phrase[1:], text)


def quote_lead(document: object, sids: Sequence[int]) -> str:
    """"The document says: " before the words of sentences ``sids``, naming their
    document when several are open ("The documents say: " for words of several)."""
    phrase = the_documents(document, sids)
    verb = "say" if phrase == "the documents" else "says"
    return f"T{phrase[1:]} {verb}: "
