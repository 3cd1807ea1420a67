"""Prompt text. One ``system`` string is shared by every stage and every turn (so its KV
state is computed once); each ``user`` message starts with the conversation block, which
only grows between calls (with focused context, the document sentences shown so far
among its lines), and ends with the stage's task."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from app.backbone.transcript import Line
from app.events import Intent

INSTRUCTIONS = """\
You are Jarvis, a quiet assistant in a meeting where people discuss one document.
The document is the only source of truth. It is given as numbered sentences [S#]; when
only some are given, each is listed, indented, under the turn it was first found for.
Refer to document sentences only by their numbers; never invent a number.
Every request names one TASK. Do only that task and reply with one JSON object.

TASK monitor: judge the newest utterance against the document. status is one of:
- incorrect_info: it states something the document contradicts (wrong number, name,
  method, dataset or result).
- missing_info: the group asks for or needs a fact that a document sentence states,
  and nobody has said it.
- not_in_paper: it presents as this document's content a finding that the document
  does not contain.
- stale: the group is unsure about a detail the document does not state.
- on_progress: it is about the document and agrees with it.
- off_document: logistics, small talk, or anything the document cannot judge.
claim: the point under discussion as a short noun phrase (at most 8 words), never the
answer and never the speaker's words. Keep the same claim while the talk stays on that
point, whatever the status.
For incorrect_info and missing_info also give predicted_answer (the document's value,
copied from the sentence) and answer_sids (at most 3 sentence numbers that state it).
evidence (if asked for): the speaker's words that show the problem, at most 10 words.
Hints marked CHECK come from simple string tests; confirm them only if the sentences
really show the problem, otherwise report what you see.

TASK self_repair: for each open issue [C#], decide if the recent conversation has
already stated the correct fact (the right value replaces the wrong one, or the missing
value is given). Repeating the wrong value, naming the topic, or saying "I don't
remember" is not a fix. List only fixed issues: cid, by (speaker), by_sids.

TASK generate: write what Jarvis says about the point, grounded in the sentences.
intent correct: state the right fact in one or two short sentences (at most 25 words).
intent missing: give the requested fact completely.
intent not_in_paper: say in one short sentence (at most 20 words) that the document
does not state it; quote_sids is [].
Cite the sentences used in quote_sids, most informative first. topic: 2-4 lowercase
words naming the subject, such as "the training data" or "the sample size".
Abstain only if no sentence supports an answer.
Text is read aloud: no [S#] numbers or brackets in it.

TASK direct: someone asked Jarvis a question. action skip if it is not a complete
question for Jarvis; answer in at most 3 short sentences from the document, citing
quote_sids; abstain with empty text only if no sentence answers it.
"""

DOCUMENT_HEADER = "\nDOCUMENT (numbered sentences):\n"


def system_prompt(numbered_block: str | None) -> str:
    """The shared prefix: instructions, plus the whole document in full mode."""
    if numbered_block is None:
        return INSTRUCTIONS
    return INSTRUCTIONS + DOCUMENT_HEADER + numbered_block + "\n"


def conversation_block(lines: Sequence[Line],
                       sentence: Callable[[int], str] = lambda sid: "") -> str:
    """The transcript window, each line followed by the sentences attached to it;
    append-only between slides, so it stays a cached prefix."""
    parts = ["CONVERSATION:\n"]
    for line in lines:
        parts.append(line.render() + "\n")
        parts.append(sentence_block([sentence(sid) for sid in line.evidence]))
    return "".join(parts)


def sentence_block(rendered: Sequence[str]) -> str:
    """Focused mode: document sentences with their real IDs, indented under a turn."""
    return "".join(f"  {text}\n" for text in rendered if text)


def _sids(sids: Sequence[int]) -> str:
    return ", ".join(f"S{s}" for s in sids) if sids else "(none)"


def monitor_task(index: int, candidates: Sequence[int], checks: Sequence[str]) -> str:
    lines = ["TASK monitor", f"Newest utterance: Turn {index}"]
    if candidates:
        lines.append(f"Relevant sentences: {_sids(candidates)}")
    lines.extend(f"CHECK: {c}" for c in checks)
    return "\n".join(lines) + "\n"


def self_repair_task(open_issues: Sequence[tuple[int, str, str]]) -> str:
    lines = ["TASK self_repair", "Open issues:"]
    for cid, claim, value in open_issues:
        lines.append(f"[C{cid}] {claim}" + (f" (document: {value})" if value else ""))
    return "\n".join(lines) + "\n"


# Words of the prompts the model is shown, never meant to be said: a reply that copies one
# (a placeholder of an example, a label) is not spoken.
PROMPT_PHRASES = (
    "the finding in a few words", "the facts of s", "document value", "what was said:",
    "sentences to use", "newest utterance", "task monitor", "task generate", "task direct",
    "intent:", "point:", "sentences found for it",
)  # fmt: skip


def copied_prompt(text: str) -> str | None:
    """The prompt phrase ``text`` repeats, if any, or an angle-bracket placeholder it
    copied from an example ("<the facts of [S3]>": no text of ours is said in brackets)."""
    lower = text.lower()
    placeholder = _PLACEHOLDER.search(text)
    return next((p for p in PROMPT_PHRASES if p in lower),
                placeholder.group(0) if placeholder else None)


_PLACEHOLDER = re.compile(r"<[^<>]{1,80}>")


def generate_task(intent: str, claim: str, evidence: str, sids: Sequence[int],
                  answer_hint: str, answer_sid: int | None = None) -> str:
    """``answer_sid``: the sentence found to answer a question left open."""
    lines = ["TASK generate", f"intent: {intent}", f"point: {claim}"]
    if evidence and evidence != claim:
        lines.append(f"what was said: {evidence}")
    if sids:
        lines.append(f"sentences to use: {_sids(sids)}")
    if answer_sid is not None and not answer_hint:
        lines.append(f"Answer the question with the facts of S{answer_sid} in one spoken "
                     f'sentence, like: "The document says <the facts of S{answer_sid}>."')
    if intent == Intent.NOT_IN_DOCUMENT:
        lines.append("Write text like: \"The document doesn't report that; I can't find "
                     "<the finding in a few words> anywhere in it.\"")
    if answer_hint:
        lines.append(f"document value: {answer_hint}")
        # Small models copy a concrete pattern far better than they follow a rule.
        lead = "Actually, the document says" if intent == Intent.CORRECT else "The document says"
        lines.append(f'Write text as one spoken sentence with the value, like: '
                     f'"{lead} {answer_hint}."')
    return "\n".join(lines) + "\n"


def direct_task(question: str, candidates: Sequence[int], limit: int,
                picks: bool = False) -> str:
    """Answer in at most ``limit`` sentences, or with ``picks`` list at most ``limit``
    sentence IDs whose words will be said."""
    # Naming the abstention's wording here made small models copy it on answerable
    # questions; the harness supplies the wording.
    lines = ["TASK direct", f"Question: {question}"]
    if candidates:
        lines.append(f"Sentences found for it: {_sids(candidates)}")
    if picks:
        lines.append(f"List in quote_sids the sentences (at most {limit}) that answer the "
                     "question, the best first (action answer). If none of them answers "
                     "it: action abstain, empty list.")
    else:
        lines.append(f"Answer in at most {limit} short sentences using these sentences, "
                     "and list the ones you used in quote_sids (action answer). If none of "
                     "them answers it: action abstain, empty text.")
    return "\n".join(lines) + "\n"
