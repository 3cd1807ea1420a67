"""Chat templates, rendered as raw text so every call starts with the identical prefix.

The prefix (system turn) is tokenized on its own and the user part appended as tokens,
so llama.cpp sees the same leading tokens on every call and reuses their cached state.
This is the one place that knows a model family's chat markup.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatTemplate:
    name: str
    system: str  # with {system}
    user: str  # with {user}; ends with the assistant turn's opening
    stop: tuple[str, ...]

    def prefix(self, system: str) -> str:
        return self.system.format(system=system)

    def suffix(self, user: str) -> str:
        return self.user.format(user=user)


CHATML = ChatTemplate(
    name="chatml",
    system="<|im_start|>system\n{system}<|im_end|>\n",
    user="<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n",
    stop=("<|im_end|>", "<|endoftext|>"),
)
# Qwen3 thinks aloud unless the assistant turn opens with an empty think block.
CHATML_NO_THINK = ChatTemplate(
    name="chatml-no-think",
    system=CHATML.system,
    user=CHATML.user + "<think>\n\n</think>\n\n",
    stop=CHATML.stop,
)
TEMPLATES = {t.name: t for t in (CHATML, CHATML_NO_THINK)}


def pick_template(metadata: Mapping[str, Any]) -> ChatTemplate:
    """Choose the template from GGUF metadata (architecture and embedded Jinja template)."""
    arch = str(metadata.get("general.architecture", ""))
    jinja = str(metadata.get("tokenizer.chat_template", ""))
    if arch.startswith("qwen3") or "enable_thinking" in jinja:
        return CHATML_NO_THINK
    if "<|im_start|>" not in jinja:
        log.warning("model %r does not declare ChatML; using ChatML anyway", arch)
    return CHATML
