"""Is a generated answer carried by the document sentences it can cite?

Small models cite the wrong sentence, or state a value no sentence gives. Before an
answer is spoken, its content words must be mostly found in one cited sentence and every
number in it must be in the cited sentences; when the model cited poorly, the candidate
sentence that does carry the text is cited instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.language.words import content_tokens, is_number_token

MIN_COVERAGE = 0.5  # share of the answer's content tokens found in its best sentence


def _coverage(answer: set[str], sentence: set[str]) -> float:
    return len(answer & sentence) / len(answer) if answer else 0.0


def grounded_sids(
    document: Any, text: str, cited: Sequence[int], candidates: Sequence[int],
    min_coverage: float = MIN_COVERAGE, question: str = "",
) -> tuple[int, ...]:
    """The sentences that carry ``text`` (the model's own citations first), or () when
    none does: then the answer must not be spoken as the document's. Words the answer
    only echoes from ``question`` are not what it claims (numbers always are)."""
    said = set(content_tokens(text))
    echoed = {t for t in content_tokens(question) if not is_number_token(t)}
    answer = (said - echoed) or said
    if not answer:
        return ()
    tokens = {}
    for sid in dict.fromkeys([*cited, *candidates]):
        sentence = document.get(sid)
        if sentence is not None:
            tokens[sid] = set(content_tokens(sentence.text))
    supporting = [s for s in cited if s in tokens and _coverage(answer, tokens[s]) >= min_coverage]
    if not supporting:
        best = max(tokens, key=lambda s: _coverage(answer, tokens[s]), default=None)
        if best is None or _coverage(answer, tokens[best]) < min_coverage:
            return ()
        supporting = [best]
    numbers = {t for t in answer if is_number_token(t)}
    found = set().union(*(tokens[s] for s in supporting))
    if not numbers <= found:
        return ()
    return tuple(supporting)
