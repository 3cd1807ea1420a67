"""A scripted LLM backend (queued JSON replies) for harness-flow tests only.

It checks the flow around the model (what is asked, in which order, and what the harness
does with each reply); model behaviour itself is tested on real weights (test_stages_real).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from app.backbone.identity import claim_key, key_overlap
from app.llm import LLMCancelled, LLMOutputError, LLMRequest, LLMResponse


class CutOff:
    """A reply the decoder stopped at the token limit: ``raw`` streams, then it fails."""

    def __init__(self, raw: str) -> None:
        self.raw = raw


Reply = dict[str, Any] | Exception | CutOff


class ScriptedLLM:
    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies: deque[Reply] = deque(replies or [])
        self.requests: list[LLMRequest] = []
        self.warmed: list[str] = []
        self.cut: list[str] = []  # stages whose reply was cut short by their cancel event
        self.closed = False

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def complete(self, request: LLMRequest, on_delta: Any = None) -> LLMResponse:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError(f"unexpected {request.stage} call")
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        text = reply.raw if isinstance(reply, CutOff) else json.dumps(reply)
        if on_delta is not None:
            for i in range(0, len(text), 7):
                on_delta(text[i : i + 7])
                if request.cancel is not None and request.cancel.is_set():
                    self.cut.append(request.stage)
                    raise LLMCancelled(request.stage)  # as the decoder stops
        if isinstance(reply, CutOff):
            raise LLMOutputError("The answer was cut off at the token limit.", raw=text,
                                 stage=request.stage)
        return LLMResponse(text, reply, 100, 80, 20, 5.0, 10.0)

    def warm(self, system: str) -> None:
        self.warmed.append(system)

    def close(self) -> None:
        self.closed = True

    def stages(self) -> list[str]:
        return [r.stage for r in self.requests]


def malformed(stage: str = "monitor") -> LLMOutputError:
    return LLMOutputError("the reply was cut off", raw='{"status": "incorr', stage=stage)


class WordOverlap:
    """Deterministic stand-in for MiniLM in flow tests: Jaccard of content tokens."""

    def cosine(self, a: str, b: str) -> float:
        return key_overlap(claim_key(a), claim_key(b))


_STAGE_FIELD = {"monitor": "status", "self_repair": "resolved"}  # generate, direct: "action"


class StagedLLM(ScriptedLLM):
    """Scripted replies, each given to the first call of the stage it answers (a verdict
    to the monitor, a resolution list to self-repair, an action to generation): for tests
    of what is said, where how many monitor calls it took is not the point. Replies no
    call asked for stay queued."""

    def complete(self, request: LLMRequest, on_delta: Any = None) -> LLMResponse:
        field = _STAGE_FIELD.get(request.stage, "action")
        match = next((i for i, r in enumerate(self.replies)
                      if not isinstance(r, dict) or field in r), None)
        if match is not None:
            reply = self.replies[match]
            del self.replies[match]
            self.replies.appendleft(reply)
        return super().complete(request, on_delta)
