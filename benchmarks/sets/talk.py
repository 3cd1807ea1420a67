"""Real talk for the conversations: utterance cleanup and pools of utterances by role.

Every turn the generator writes that is not a document's sentence or a data question
comes from real conversations in the data (QMSum meetings, CMU DoG chats, ArgSciChat
dialogues), lightly cleaned (transcription markup dropped, tokenised punctuation
rejoined, stutters collapsed). Pools sort those utterances by the part they can play
around an event: a failed recall after a question, agreement with a claim, a
backchannel, an acknowledgement of an answer, the opening words of a self-repair or of
a correction, discourse openers, and document-neutral remarks.

A remark is document-neutral when every word of it is common talk: frequent both in
the meeting transcripts and in the movie chats, two corpora with nothing in common but
the language, so words of either topic (remote controls, speech recognisers, films)
fall out.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from app.eval.scoring import is_backchannel
from app.language.talk import is_abstention
from benchmarks.sets.sources import Dialogue

_MARKUP = re.compile(r"\{[a-z_]+\}|\[[a-z_ ]+\]|<[^>]*>")
_SPACED_PUNCT = re.compile(r"\s+([,.?!;:%])")
_SPACED_CLITIC = re.compile(r"\s+('(?:s|re|ve|ll|d|m)|n't)\b", re.IGNORECASE)
_SPACED_HYPHEN = re.compile(r"(\w) - (\w)")
_STUTTER = re.compile(r"\b(\w+(?:'\w+)?(?: \w+(?:'\w+)?){0,2})(?:[,.]? \1\b)+", re.IGNORECASE)
_PUNCT_RUN = re.compile(r"([,.?!;:])(?:\s*[,.;:])+")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_GREETING = re.compile(r"^(?:hi|hello|hey)(?: there)?[!.,]*\s+", re.IGNORECASE)


def clean_utterance(text: str) -> str:
    """One line of talk, with markup, tokenised spacing and stutters removed."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    text = _MARKUP.sub(" ", text)
    text = re.sub(r"\s+", " ", text)
    text = _SPACED_PUNCT.sub(r"\1", text)
    text = _SPACED_CLITIC.sub(r"\1", text)
    text = _SPACED_HYPHEN.sub(r"\1-\2", text)
    text = _STUTTER.sub(r"\1", text)
    text = _PUNCT_RUN.sub(r"\1", text)
    text = re.sub(r"[.!?]+([.!?])", r"\1", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    text = re.sub(r"^[.,;:!?\s]+", "", text)
    if not re.search(r"[A-Za-z]", text):
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!\"')" else text + "."


def drop_greeting(text: str) -> str:
    """"Hi! What is ..." -> "What is ..." (chat openers do not belong mid-meeting)."""
    rest = _GREETING.sub("", text).strip()
    return rest[0].upper() + rest[1:] if rest else text


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def word_count(text: str) -> int:
    return len(text.split())


class Role(StrEnum):
    FAILED_RECALL = "failed_recall"  # "I don't remember."
    AGREEMENT = "agreement"  # "Yeah, that's right."
    BACKCHANNEL = "backchannel"  # "Mm-hm."
    ACKNOWLEDGEMENT = "acknowledgement"  # "Oh, I see, thanks."
    REMARK = "remark"  # a document-neutral statement


class Lead(StrEnum):
    """Opening words cut from real utterances, put before a statement."""

    OPENER = "opener"  # "So", "And then", "I think"
    QUESTION_OPENER = "question_opener"  # the openers that can precede a question
    SELF_REPAIR = "self_repair"  # "Sorry, I mean"
    CORRECTION = "correction"  # "No, actually"


_FAILED = re.compile(r"(?<!had )\b(?:i don't know|i'm not sure|not sure|no idea|i don't remember|"
                     r"i can't remember|i forget|i forgot|i don't recall|can't recall|"
                     r"i have no clue|no clue)\b(?! (?:if|whether|why|how|about))")  # fmt: skip
_FAREWELL = re.compile(r"\b(?:bye|goodbye|talking to you|chatting|chat with you|"
                       r"have a (?:good|nice|great)|the conversation|we are done|we're done|"
                       r"finish(?:ed)? (?:the|our) chat)\b")
_FRAGMENT = re.compile(r"(?<![\w'-])(?![ai]\b)[a-z](?![\w'-])")
_DANGLING = re.compile(r"\b(?:to|the|a|an|of|and|but|or|if|with|for|that|like|it's|we|you|i|"
                       r"be|is|are|was|in|on|at|so that|this|my|your|our|their|we're|"
                       r"they're|you're|i'm|there's|that's|what's|because|when|than)[.!]?$")
_ASKING = frozenset("do does did is are was were can could would will what why how who where "
                    "when which have has should shall".split())
_AGREE = re.compile(r"^(?:yeah|yes|yep|yup|right|exactly|true|sure|definitely|absolutely|"
                    r"that's right|that's true|i agree|agreed|okay|ok)\b")  # fmt: skip
_ACK = re.compile(r"\b(?:thanks|thank you|i see|got it|interesting|makes sense|good to know|"
                  r"that's (?:interesting|good|great|cool|nice)|cool|great|nice)\b")  # fmt: skip
_NEGATIVE = re.compile(r"\b(?:no|not|never|nothing|nobody)\b|n't\b")
_LEADS = {
    Lead.OPENER: re.compile(
        r"^((?:so|and|but|well|yeah|okay|um|uh|also|i think|i mean|anyway|and then|so then)"
        r"(?:,? (?:so|and|but|well|yeah|um|uh|also|i think|then|anyway)){0,2}),? (?=[a-z])",
        re.IGNORECASE),
    Lead.SELF_REPAIR: re.compile(
        r"^((?:oh,? )?(?:sorry|wait|oops|whoops|i mean|actually no|no wait|no sorry)"
        r"(?:,? (?:i mean|no|sorry|actually|wait|not))*)[,.!]? (?=[a-z])", re.IGNORECASE),
    Lead.CORRECTION: re.compile(
        r"^((?:no|nope|actually|well actually|not quite|hmm no|uh no|um no)"
        r"(?:,? (?:actually|i think|no|not really))*)[,.!]? (?=[a-z])", re.IGNORECASE),
}  # fmt: skip


@dataclass(frozen=True)
class Utterance:
    text: str
    ref: str  # the conversation it comes from


class Register(StrEnum):
    """Which talk suits a document: meeting talk (and paper discussions) for papers and
    articles, movie chat for movie articles."""

    MEETING = "meeting"
    CHAT = "chat"


Run = tuple[tuple[int, str], ...]  # consecutive real turns; speakers numbered from 0 per run
RUN_LENGTH = (2, 5)


@dataclass
class TalkPools:
    """Real utterances by the role they can play, runs of neutral talk, opening words."""

    roles: dict[tuple[Register, Role], list[Utterance]] = field(default_factory=dict)
    runs: dict[Register, list[Run]] = field(default_factory=dict)
    leads: dict[Lead, list[str]] = field(default_factory=dict)
    common: frozenset[str] = frozenset()


def common_vocabulary(meetings: Sequence[Dialogue], chats: Sequence[Dialogue],
                      meeting_share: float = 0.25, chat_share: float = 0.02) -> frozenset[str]:
    """Words frequent in both corpora: in a quarter of the meetings and 2% of the chats."""

    def spread(dialogues: Sequence[Dialogue]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for dialogue in dialogues:
            counts.update({w for _, text in dialogue.turns for w in words(text)})
        return counts

    in_meetings, in_chats = spread(meetings), spread(chats)
    return frozenset(
        w for w, n in in_meetings.items()
        if n >= meeting_share * len(meetings) and in_chats[w] >= chat_share * len(chats)
    )  # fmt: skip


def is_neutral(text: str, common: frozenset[str]) -> bool:
    tokens = words(text)
    return bool(tokens) and not re.search(r"\d", text) and all(t in common for t in tokens)


def _shouting(text: str) -> bool:
    if not re.search(r"[A-Z]{2}", text):
        return False
    letters = [c for c in text if c.isalpha()]
    return len(letters) > 3 and sum(c.isupper() for c in letters) > 0.5 * len(letters)


def _role_of(text: str, common: frozenset[str]) -> Role | None:
    low = text.lower()
    n = word_count(text)
    if re.search(r"\d", text) or _FAREWELL.search(low) or _shouting(text) or is_abstention(text):
        return None
    if _FRAGMENT.search(low) or _DANGLING.search(low):
        return None  # a cut-off word or sentence of the transcript
    if is_backchannel(text) and n <= 3:
        return Role.BACKCHANNEL
    if not is_neutral(text, common) or "?" in text or words(text)[0] in _ASKING:
        return None
    if _FAILED.search(low) and n <= 14:
        return Role.FAILED_RECALL
    if _AGREE.match(low) and n <= 12 and not _NEGATIVE.search(low):
        return Role.AGREEMENT
    if _ACK.search(low) and n <= 12 and not _NEGATIVE.search(low):
        return Role.ACKNOWLEDGEMENT
    if 4 <= n <= 24:
        return Role.REMARK
    return None


def _runs(turns: Sequence[tuple[str, str]], roles: Sequence[Role | None]) -> list[Run]:
    """Stretches of consecutive neutral turns (no question, no failed recall), cut into
    runs of two to five turns."""
    out: list[Run] = []
    current: list[tuple[str, str]] = []

    def close() -> None:
        for start in range(0, len(current), RUN_LENGTH[1]):
            piece = current[start : start + RUN_LENGTH[1]]
            short = sum(word_count(t) <= 3 for _, t in piece)
            talk = short <= 1 or short * 3 <= len(piece)  # mostly talk, not backchannels
            if len(piece) >= RUN_LENGTH[0] and len({s for s, _ in piece}) > 1 and talk:
                local: dict[str, int] = {}
                out.append(tuple((local.setdefault(s, len(local)), t) for s, t in piece))
        current.clear()

    for (speaker, text), role in zip(turns, roles, strict=True):
        if role in (Role.REMARK, Role.BACKCHANNEL, Role.AGREEMENT, Role.ACKNOWLEDGEMENT):
            current.append((speaker, text))
        else:
            close()
    close()
    return out


def build_pools(meetings: Sequence[Dialogue], chats: Sequence[Dialogue],
                dialogues: Sequence[Dialogue]) -> TalkPools:
    """Sort every utterance of the corpora into the pools (duplicates kept once)."""
    common = common_vocabulary(meetings, chats)
    pools = TalkPools(
        roles={(g, r): [] for g in Register for r in Role},
        runs={g: [] for g in Register}, leads={k: [] for k in Lead}, common=common,
    )  # fmt: skip
    seen: set[tuple[Register, str]] = set()
    lead_counts: dict[Lead, Counter[str]] = {k: Counter() for k in _LEADS}
    corpora = ((Register.MEETING, [*meetings, *dialogues]), (Register.CHAT, list(chats)))
    for register, corpus in corpora:
        for dialogue in corpus:
            cleaned = [(speaker, clean_utterance(raw)) for speaker, raw in dialogue.turns]
            roles = [_role_of(text, common) if text else None for _, text in cleaned]
            pools.runs[register].extend(_runs(cleaned, roles))
            for (_, text), role in zip(cleaned, roles, strict=True):
                if not text:
                    continue
                for kind, pattern in _LEADS.items():
                    match = pattern.match(text)
                    lead = match.group(1) if match else ""
                    if lead and is_neutral(lead, common) and _fluent(lead):
                        lead_counts[kind][_lead_text(lead)] += 1
                key = (register, text.lower())
                if key in seen:
                    continue
                seen.add(key)
                if role is not None:
                    pools.roles[(register, role)].append(Utterance(text, dialogue.ref))
    for kind, counts in lead_counts.items():
        # a lead heard at least twice is a habit of speech, not a one-off fragment
        pools.leads[kind] = sorted(t for t, n in counts.items() if n >= 2)
    pools.leads[Lead.QUESTION_OPENER] = [
        t for t in pools.leads[Lead.OPENER] if not re.search(r"(?i)\b(?:think|mean)\b", t)
    ]
    return pools


_CONJUNCTIONS = frozenset({"and", "but", "so"})
_COMMA_AFTER = frozenset("sorry no actually wait yeah okay well oops nope really".split())
_OPENING_WORDS = frozenset(
    """the a an this that these those there their they it its in on at for of to as by with
    from after before during when while although if since because most many some all both
    each one two three several here we our you he she his her what which who how""".split()
)


def _fluent(lead: str) -> bool:
    """No two conjunctions in a row ("and but") and no "I think so" before a statement."""
    tokens = words(lead)
    pairs = zip(tokens, tokens[1:], strict=False)
    return "think so" not in lead.lower() and not any(
        a in _CONJUNCTIONS and b in _CONJUNCTIONS for a, b in pairs
    )


def _lead_text(text: str) -> str:
    tokens = re.sub(r"\s+", " ", text.strip(" ,.!")).split(" ")
    lowered = [x.lower() for x in tokens]
    fixed = [t if t.rstrip(",") != "i" else "I" + t[1:] for t in lowered]
    out = " ".join(fixed)
    return out[0].upper() + out[1:] if out else out


def lead_into(lead: str, statement: str, lowercase: frozenset[str] = frozenset()) -> str:
    """"So" + "They recruited 120 people." -> "So they recruited 120 people.": the first
    word loses its capital only when it is a common word or one ``lowercase`` holds (the
    words a document writes in lower case), so names keep theirs."""
    if not lead:
        return statement
    first = statement.split(" ", 1)[0]
    bare = re.sub(r"[^\w'-]", "", first)
    if bare[:1].isupper() and bare[1:].islower() and bare != "I" and (
        bare.lower() in lowercase or bare.lower() in _OPENING_WORDS
    ):
        statement = statement[0].lower() + statement[1:]
    comma = "," if lead.split()[-1].lower() in _COMMA_AFTER else ""
    return f"{lead}{comma} {statement}"


def dialogue_turns(dialogue: Dialogue) -> Iterable[tuple[str, str]]:
    """Cleaned (speaker, text) turns of a real dialogue; empty lines dropped."""
    for speaker, raw in dialogue.turns:
        text = clean_utterance(raw)
        if text:
            yield speaker, text
