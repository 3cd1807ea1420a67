"""Shared LLM fixtures: the embedded 0.5B GGUF, loaded once per module."""

from __future__ import annotations

from pathlib import Path

from app.settings import LLMSettings

# One thread: test machines are shared, and llama.cpp threads that spin at barriers slow
# down by an order of magnitude when the cores are oversubscribed.
SETTINGS = LLMSettings(context_tokens=1024, threads=1)

# A short document prefix: small prompts keep the model tests fast on two cores.
DOCUMENT = "\n".join(
    f"[S{i}] {city} opened its {kind} in {year}."
    for i, (city, kind, year) in enumerate(
        [("Oslo", "opera house", 2008), ("Lyon", "metro", 1978), ("Porto", "bridge", 1886),
         ("Graz", "art museum", 2003), ("Turku", "castle museum", 1881)]
    )
)
SYSTEM = "You check facts against the document. Reply with JSON only.\nDocument:\n" + DOCUMENT
SCHEMA = {
    "type": "object",
    "properties": {"sid": {"type": "integer", "minimum": 0, "maximum": 4},
                   "year": {"type": "integer"}},
    "required": ["sid", "year"],
    "additionalProperties": False,
}


def gguf(name: str) -> Path:
    from app.models import resolve

    return resolve(name)
