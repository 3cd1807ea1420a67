"""Kinds of talk, told by their phrasing: one table of phrase patterns.

Each kind is written in general terms (a word class and the grammar around it, not a
sentence heard once), and every reader of talk asks the table: the detectors (is a
question left open? is a finding attributed to the paper?), the guard (does a turn take
a claim back?), the screening (is a question about the document or for the room?), the
checks on what the agent says (an instruction, a denial) and the evaluator (an
abstention). Curly apostrophes read as straight ones.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum

from app.language.numbers import nouns_after, quantities, repeats, word_numbers_to_digits
from app.language.sentences import sentences
from app.language.words import AGENT_NAME, QUESTION_WORDS, content_tokens, tokens, words
from app.settings import BACKCHANNEL_WORDS, FloorSettings


class Talk(StrEnum):
    """A kind of talk the table recognises."""

    QUESTION_TO_ROOM = "question_to_room"  # "can I ask you ...", "should we move on?"
    CHECK_ON_LISTENER = "check_on_listener"  # "you read it?", "we're done?"
    ROOM_CHECK = "room_check"  # a whole question of small talk: "anything else?"
    FAILED_RECALL = "failed_recall"  # "I can't remember", "no idea", "I forget"
    MOVING_ON = "moving_on"  # "let's move on", "never mind", "we can check that later"
    NEGATION = "negation"  # "doesn't cover", "lacks", "without"
    RETRACTION = "retraction"  # "scratch that", "that was another paper"
    ATTRIBUTION = "attribution"  # "they found ...", "the paper says ..."
    INSTRUCTION = "instruction"  # an imperative to the room: "Tell everyone to leave."
    ASKS_QUANTITY = "asks_quantity"  # "how many", "what percentage", "the size"
    ASKS_COUNT = "asks_count"  # "how many X", "the number of X": X is what is counted
    ASKS_WHICH = "asks_which"  # "which X": group 1 is X
    SETS_ASIDE = "sets_aside"  # the lead of a value named only to reject it: "not", "rather than"
    ABSTENTION = "abstention"  # "the document does not say", "not in the paper"
    ADDRESS = "address"  # the agent called by name: "hey Jarvis,"
    YES_NO_QUESTION = "yes_no_question"  # an auxiliary before its subject: "do they say ..."
    WH_QUESTION = "wh_question"  # a question word and its verb: "how many ...", "what did ..."


_I = re.IGNORECASE

# Word classes the patterns are made of.
_DISCOURSE = r"(?:so|okay|ok|and|but|well|oh|hey|alright|right|now)"
_MODAL = r"(?:can|could|may|shall|should|would|will|do|did|are|have|want)"
# The start of a sentence, past the discourse words and fillers that lead into it ("so",
# "yeah, but then", "um, or").
_SENTENCE_OPENING = (rf"^\W*(?:(?:{_DISCOURSE}|actually|also|yeah|then|um|uh|or|anyway),?"
                     r"\s+)*")
# The auxiliaries a question opens with ("did they ...", "how many were ...").
_AUXILIARY = r"(?:is|are|was|were|do|does|did|can|could|will|would|has|have|had|should)"
_PRONOUN = r"(?:i|you|we|they|he|she|it)"  # "what they found was ..." tells, not asks
_COGNITION = r"(?:remember|recall|know|see|find|catch|get|note|think)"
# Asking to be told something: "could you tell me what X is?" asks about it, as "do you
# know" does.
_TELLING = r"(?:tell|explain|describe|remind)"
_ROOM = r"(?:you|we|everyone|everybody|you all|you guys)"
# Getting through the material: reading, seeing, finishing it.
_GOT_THROUGH = (r"(?:read|finish(?:ed)?|saw|seen|look(?:ed)?|check(?:ed)?|skim(?:med)?|"
                r"went|gone|got(?:ten)?|follow(?:ed)?|caught|heard|done|start(?:ed)?)")
_NEGATED_AUX = r"(?:don'?t|do not|can'?t|cannot|couldn'?t|didn'?t)"
_ADVERB = r"\w+ly"  # "really", "honestly", "exactly"
_SOURCE = r"(?:paper|document|study|article|report|source)"
# What a source says, or does with "that": "they never said that", "they didn't run
# that" take a point back; "they didn't find an effect", "it doesn't have to be" do not.
_REPORT_VERB = (r"(?:say|said|report|reported|mention|mentioned|claim|claimed|state|stated|"
                r"(?:do|did|run|ran|have|had) (?:that|this|it|those|them)\b)")
_LATER = r"(?:later|afterwards|another time|offline)"
# Putting a point off until later: "check it later", "come back to that another time".
_PUT_OFF = (r"(?:look(?:ing)?(?: into)?|check(?:ing)?|find(?:ing)?|figur(?:e|ing)|dig(?:ging)?|"
            r"sort(?:ing)?|com(?:e|ing) back to|get(?:ting)? back to|deal(?:ing)? with)")

PHRASES: dict[Talk, re.Pattern[str]] = {
    # A modal question to the people in the room, opening a clause: "can I ask you ...",
    # "should we move on?"; one about remembering or finding something in the document
    # ("do you remember how many ...") still asks about the document.
    Talk.QUESTION_TO_ROOM: re.compile(
        rf"(?:^|[,;:]\s*)\W*(?:{_DISCOURSE},?\s+)*{_MODAL}\s+(?:i|we|you)\b"
        rf"(?!\s+(?:\w+\s+)?(?:{_COGNITION}|{_TELLING}))", _I),
    # A statement-shaped question about the listeners themselves: they are somewhere
    # ("you're ...", "we have ...") or got through the material ("you read it?").
    Talk.CHECK_ON_LISTENER: re.compile(
        rf"^\W*{_ROOM}(?:'re|'ve|\s+(?:are|were|have|had|all)\b|"
        rf"\s+(?:all\s+)?{_GOT_THROUGH}\b)", _I),
    Talk.ROOM_CHECK: re.compile(
        r"^\W*(?:anything else|any (?:other |more )?questions|questions|all good|all set|"
        r"everyone|everybody|ready|done|next|okay|ok|right|good|make sense|sound good)\W*$",
        _I),
    Talk.FAILED_RECALL: re.compile(
        rf"\b{_NEGATED_AUX}\s+(?:{_ADVERB}\s+)?(?:remember|recall|know|note|find|see|say)\b|"
        r"\bno (?:idea|clue)\b|\bnot (?:sure|certain)\b|\bforg[oe]t(?:ten)?\b|"
        r"\b(?:slipped|slips|escapes|escaped) (?:my mind|me)\b|\bdraw(?:ing)? a blank\b|"
        r"\bdoesn'?t matter\b", _I),
    Talk.MOVING_ON: re.compile(
        r"\bnever ?mind\b|\bdoesn'?t matter\b|\bwhatever\b|"
        r"\bmov(?:e|ing) (?:on|along|ahead)\b|\bkeep going\b|"
        r"\b(?:on|onto) (?:to )?the next (?:point|topic|item|slide|one|thing)\b|"
        r"\blet'?s skip\b|\bskip (?:it|that|this|ahead)(?: one)?\b(?![ \t]+(?!(?:for|as|and|then|"
        r"now|too|please)\b)[a-z])|"
        rf"\b{_PUT_OFF} (?:it|that|this|them) (?:up |out )?{_LATER}\b|"
        r"(?:\bnot|n't|\bno need to) (?:get|getting|be|being) (?:too )?"
        r"(?:hung up|stuck|bogged down|caught up)\b|(?:\bnot|n't) dwell\b|"
        r"\b(?:park|drop|table) (?:it|that|this) (?:for now|there)\b", _I),
    Talk.NEGATION: re.compile(
        r"n't\b|\b(?:not|no|never|nothing|without|lacks?|lacking|missing|absent|cannot|"
        r"fail(?:s|ed)?|doesnt|dont|isnt|wasnt)\b", _I),
    # Taking a claim about the document back: it is not in this paper, it was another
    # one, the speaker mixed things up, the paper does not say so, or a plain "scratch
    # that".
    Talk.RETRACTION: re.compile(
        rf"\b(?:not|isn'?t|wasn'?t|aren'?t|weren'?t) (?:from|in) (?:this|the|that) "
        rf"(?:{_SOURCE}|one)\b|"
        rf"\b(?:different|other|another|separate) {_SOURCE}\b|"
        r"\b(?:mix|mixing|mixed|confusing|confused|muddling|muddled) "
        r"(?:it |that |them |those |things |this )?up\b|"
        r"\b(?:they|it|the paper|this paper|the authors|the study) "
        rf"(?:doesn'?t|don'?t|didn'?t|never) (?:actually |really )?{_REPORT_VERB}\b|"
        r"\bscratch that\b|\bi take (?:it|that) back\b|\bi (?:was wrong|misspoke)\b|"
        r"\bmy (?:mistake|bad)\b|\bi stand corrected\b", _I),
    Talk.ATTRIBUTION: re.compile(
        r"\b(?:they|the authors|the paper|this paper|the study|this study|"
        r"in this (?:paper|study))"
        r"\b.{0,40}\b(?:ran|run|found|find|show|showed|shows|report|reported|reports|did|do|"
        r"also|measured|got|achieved|say|says|said|claim|claimed|demonstrate|demonstrated)\b",
        _I),
    # Verbs that often open a statement as nouns ("Stop words", "Contact tracing") are
    # left out, and a hyphen makes a noun ("Follow-up lasted a year").
    Talk.INSTRUCTION: re.compile(
        r"^\W*(?:(?:so|now|then|first|also|and|just|kindly),?\s+)*(?:please\b|let's\b|"
        r"(?:tell|ask|let|make sure|ensure|leave|go|evacuate|stay|wait|come|bring|take|send|"
        r"remember|do|don't|do not|never|always|be|follow|keep|ignore|forget|avoid|give|put|"
        r"sit|stand|submit)(?![-\w])|"
        r"(?:you|everyone|everybody|all of you|each of you)\s+(?:all\s+)?"
        r"(?:must|should|shall|need to|needs to|have to|has to|are to|ought to)\b)", _I),
    Talk.ASKS_QUANTITY: re.compile(
        r"\bhow (?:many|much|long|big|large|often|fast)\b|\bwhat (?:number|size|percentage|"
        r"share|fraction|proportion)\b|\b(?:length|size|count|number|amount|duration)\b", _I),
    Talk.ASKS_COUNT: re.compile(r"\bhow (?:many|much)\b|\bnumber of\b", _I),
    Talk.ASKS_WHICH: re.compile(r"\bwhich ([a-z][a-z-]+)", _I),
    Talk.SETS_ASIDE: re.compile(
        r"\b(?:not|no|isn'?t|wasn'?t|aren'?t|weren'?t|rather than|instead of|as opposed to)"
        r"\s+(?:(?:about|around|roughly|nearly|some|the|a)\s+)?", _I),
    Talk.ABSTENTION: re.compile(
        r"\b(?:does ?n[o']t|do ?n[o']t|did ?n[o']t|never|isn't|is not|aren't|are not|"
        r"wasn't|was not)\s+(?:\w+\s+){0,3}?"
        r"(?:say|says|said|state|states|stated|mention|mentions|mentioned|give|gives|given"
        r"|report|reports|reported|specify|specifies|specified|cover|covers|covered|include"
        r"|includes|included|discuss|discusses|discussed|provide|provides|provided|list|lists"
        r"|listed|describe|describes|described"
        r"|in (?:the|this) (?:document|paper|article|text)"
        r"|from (?:the|this) (?:document|paper|article))"
        r"|not (?:in|from) (?:the|this) (?:document|paper|article|text)"
        r"|not (?:\w+ ){0,2}?(?:stated|mentioned|reported|given|specified|covered|discussed)"
        r"|\b(?:gives?|provides?|states?|reports?|mentions?|lists?|offers?) no\b"
        r"|(?:different|another) (?:paper|document|study|article)"
        r"|no (?:mention|information|data|details?|figure|number) (?:of|on|about|for|in)", _I),
    # A sentence that opens with an auxiliary before its subject asks a yes/no question
    # ("Do they say how long it takes.", "Yeah. Is the dataset public ..."), whether or not the
    # recognizer wrote the question mark.
    Talk.YES_NO_QUESTION: re.compile(
        rf"{_SENTENCE_OPENING}(?:{_AUXILIARY}(?:n'?t)?"
        r"\s+(?:i|you|we|they|he|she|it|there|anyone|anybody|someone|somebody|everyone|"
        r"everybody|this|that|these|those)|"
        # before a determiner, not "do" or "have": "do the sums", "have a look" instruct
        r"(?:is|are|was|were|does|did|can|could|will|would|has|had|should)(?:n'?t)?"
        r"\s+(?:the|a|an|any|all|some|each|both|your|their|its|our|his|her))\b", _I),
    # A sentence that opens with an interrogative and the verb or measure it asks with
    # ("How many were there.", "So what did they use.", "Then which strains were used.",
    # "Where do they live."); a bare "which" or "what I mean ..." opens a relative clause
    # as often, so they need the mark.
    Talk.WH_QUESTION: re.compile(
        rf"{_SENTENCE_OPENING}(?:how\s+(?:many|much|long|often|big|large|old|far|{_AUXILIARY})|"
        rf"(?:what|who)\s+{_AUXILIARY}|"
        # not of the room itself: "where were we", "when are we done"
        rf"(?:why|where|when)\s+{_AUXILIARY}(?!\s+we\b)|"
        rf"(?:what|which|whose)\s+(?:(?!{_PRONOUN}\b|{_AUXILIARY}\b)[\w-]+\s+){{1,3}}?"
        rf"{_AUXILIARY})\b", _I),
    Talk.ADDRESS: re.compile(rf"\b(?:(?:hey|hi|hello|ok|okay)\s+)?{AGENT_NAME}\b[,.!?]*", _I),
}


def _plain(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def find(kind: Talk, text: str) -> re.Match[str] | None:
    """Where ``text`` says something of this kind, if it does."""
    return PHRASES[kind].search(_plain(text))


def says(kind: Talk, text: str) -> bool:
    """``text`` says something of this kind."""
    return find(kind, text) is not None


# --- questions ----------------------------------------------------------------------------


def is_question(text: str) -> bool:
    """A question by punctuation, or, when ASR drops the mark, by an opening question word
    or an auxiliary before its subject ("did they ...")."""
    stripped = text.strip()
    if stripped.endswith("?"):
        return True
    first = words(stripped)[:1]
    if first and first[0] in QUESTION_WORDS - {"many", "much"}:
        return True
    return says(Talk.YES_NO_QUESTION, stripped)


def contains_question(text: str) -> bool:
    """Some sentence of the turn asks: "How many were there? I forget." counts, and so
    does "Good point. Do they say why." without its mark."""
    return (is_question(text) or re.search(r"\w[\w'\")]*\s*\?", text) is not None
            or any(_opens_question(p) for p in sentences(text)))


def _opens_question(sentence: str) -> bool:
    return says(Talk.YES_NO_QUESTION, sentence) or says(Talk.WH_QUESTION, sentence)


def asking_sentences(text: str) -> list[str]:
    """The sentences of a turn that ask: those with a question mark; where it has none
    (the recognizer drops them), those that open as a question ("How many were there."),
    never the remark after it ("... Because the sample was small.")."""
    parts = sentences(text)
    marked = [p for p in parts if p.endswith("?")]
    return marked or [p for n, p in enumerate(parts)
                      if _opens_question(p) or (n == 0 and is_question(p))]


def asks_about_document(text: str) -> bool:
    """Some question in the turn asks for something, not for the room's attention."""
    parts = asking_sentences(text)
    if not parts:
        return False
    # "What was it called?" asks about the sentence before it.
    asking = any(not says(Talk.QUESTION_TO_ROOM, p) and not says(Talk.ROOM_CHECK, p)
                 and not says(Talk.CHECK_ON_LISTENER, p) for p in parts)
    return asking and bool(content_tokens(text))


def counted_in_question(question: str) -> frozenset[str]:
    """What a "how many X" question counts, stemmed like ``Quantity.nouns``."""
    m = PHRASES[Talk.ASKS_COUNT].search(question)
    if m is None:
        return frozenset()
    phrase = _COUNT_PHRASE_END.sub("", question[m.end() :].lower())
    return nouns_after(phrase, 0)


_COUNT_PHRASE_END = re.compile(
    r"\b(?:was|were|is|are|did|do|does|had|has|have|that|they|we|it|there|in|of)\b.*")


# --- saying something is not so -----------------------------------------------------------


def negated(text: str) -> bool:
    """The text denies or says something is missing ("doesn't cover", "lacks funding")."""
    return says(Talk.NEGATION, text)


def reports_failed_recall(text: str) -> bool:
    return says(Talk.FAILED_RECALL, text)


def _set_aside_pattern(raw: str) -> re.Pattern[str]:
    # The whole number only: "not 5" leaves "5,000" and "5.5" alone.
    return re.compile(PHRASES[Talk.SETS_ASIDE].pattern + re.escape(raw) + r"(?![\d,.]*\d)",
                      _I)


def rejected(text: str, raw: str) -> bool:
    """The speaker names the value only to reject it ("not nine", "rather than 40%")."""
    normal = word_numbers_to_digits(_plain(text))
    return _set_aside_pattern(word_numbers_to_digits(raw)).search(normal) is not None


def set_aside(text: str, said: Iterable[str]) -> str:
    """``text`` (number words as digits) less each value it names only to set it aside
    where ``said`` (what the participants said) gives that value.

    A correction names the participant's wrong value ("It is 1,260 pupils, not 5,000"):
    that value is no claim of the text's own, so no document sentence need hold it. Any
    other value stays, a value nobody said included, even in that position.
    """
    said = list(said)
    given = [q for turn in said for q in quantities(turn)]
    normal = word_numbers_to_digits(_plain(text))
    for q in quantities(normal) if given else []:
        if repeats(q, given):
            normal = _set_aside_pattern(q.raw).sub("", normal)
    return _set_aside_terms(normal, [word_numbers_to_digits(_plain(t)) for t in said])


# A term set against another at the end of a clause: "says Sapporo, not Aichi."
_SET_AGAINST = re.compile(
    r",\s*(?:not|rather than|instead of)\s+(?P<term>[^\W\d_][^\s,.;:!?]*(?:\s+[^\s,.;:!?]+){0,3})"
    r"(?=\s*(?:[,.;:!?]|$))", _I)


def _set_aside_terms(text: str, said: Sequence[str]) -> str:
    """``text`` less each term of up to four words it sets against another after a comma
    where the participants said that term: the name a correction sets aside ("Sapporo,
    not Aichi") is theirs, no claim of the text's own."""
    def keep(m: re.Match[str]) -> str:
        term = re.compile(r"(?<!\w)" + re.escape(m.group("term")) + r"(?!\w)", _I)
        return "" if any(term.search(turn) for turn in said) else m.group(0)

    return _SET_AGAINST.sub(keep, text)


# --- the room and the agent ---------------------------------------------------------------


def instructs_listeners(sentence: str) -> bool:
    """An imperative to the people in the room ("Tell everyone to leave the room.")."""
    return PHRASES[Talk.INSTRUCTION].match(_plain(sentence)) is not None


def without_address(text: str) -> str:
    """The turn less its address to the agent ("Hey Jarvis, ..."): a name the document
    need not state."""
    return PHRASES[Talk.ADDRESS].sub("", text).strip()


def is_abstention(text: str) -> bool:
    """True for a "the document does not say" style reply."""
    return says(Talk.ABSTENTION, unicodedata.normalize("NFKC", text))


# Other ways ASR spells listed words ("Yup.", "Mhm.").
_SPELLINGS = {"yup": "yep", "mhm": "hm", "uhuh": "uhhuh", "umhm": "umhum", "yea": "yeah"}


def _backchannel_word(token: str, listed: Collection[str]) -> bool:
    # ASR spells hums with any number of letters: "mm" and "mmm" are the listed "m".
    squeezed = re.sub(r"(.)\1+", r"\1", token)
    return any(t in listed or _SPELLINGS.get(t) in listed for t in (token, squeezed))


def is_backchannel(
    text: str,
    words: Collection[str] = BACKCHANNEL_WORDS,
    max_words: int = FloorSettings.backchannel_max_words,
) -> bool:
    """SPEC §5: a turn of at most ``max_words`` tokens, every one a backchannel word
    ("yeah", "m-hmm", "okay right"); such turns neither take the floor nor reach the monitor."""
    toks = tokens(text)
    return 0 < len(toks) <= max_words and all(_backchannel_word(t, words) for t in toks)
