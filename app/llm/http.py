"""OpenAI-compatible HTTP backend (llama-server, llama_cpp.server, vLLM, SGLang).

Sends the same system + user messages; the server's own prefix cache does the reuse.
Schemas go as ``response_format`` of type ``json_schema`` (OpenAI, vLLM, llama-server);
servers that only know ``{"type": "json_object", "schema": ...}`` (llama_cpp.server) are
detected by their 4xx answer and served that form from then on.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import requests

from app.llm.output import parse_output
from app.llm.types import (
    DeltaCallback,
    LLMCancelled,
    LLMError,
    LLMOutputError,
    LLMRequest,
    LLMResponse,
)
from app.settings import LLMSettings

log = logging.getLogger(__name__)
DIALECTS = ("json_schema", "json_object")


class HttpBackend:
    def __init__(self, base_url: str, settings: LLMSettings | None = None,
                 model: str = "local", api_key: str | None = None, timeout: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.settings = settings or LLMSettings()
        self.model = model
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._dialect = DIALECTS[0]
        self._local = threading.local()

    # -- interface ----------------------------------------------------------------------
    def complete(self, request: LLMRequest, on_delta: DeltaCallback | None = None) -> LLMResponse:
        """A request with a ``cancel`` event is streamed: once it is set, the stream is
        closed at the next event (the server stops generating) and LLMCancelled raised."""
        start = time.perf_counter()
        cancel = request.cancel
        if cancel is not None and cancel.is_set():
            raise LLMCancelled(request.stage)
        stream = on_delta is not None or cancel is not None
        response = self._post(request, stream=stream)
        if not stream:
            text, finish, usage = self._read_whole(response, request)
            ttft = None
        else:
            try:
                text, finish, usage, ttft = self._read_stream(
                    response, request, on_delta or _ignore, start)
            except LLMCancelled:
                response.close()  # the server sees the stream closed and stops generating
                raise
        total_ms = (time.perf_counter() - start) * 1000
        data = parse_output(text, request.schema, finish, request.stage)
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        return LLMResponse(
            text=text,
            data=data,
            prompt_tokens=prompt_tokens,
            cached_tokens=_cached_tokens(usage),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            ttft_ms=ttft if ttft is not None else total_ms,
            total_ms=total_ms,
        )

    def warm(self, system: str) -> None:
        """One-token request so the server computes and keeps the prefix state."""
        warm = LLMRequest("warm", system, "Reply OK.", None, 0.0, 1)
        self._read_whole(self._post(warm, stream=False), warm)

    def close(self) -> None:
        session = getattr(self._local, "session", None)
        if session is not None:
            session.close()

    # -- HTTP -----------------------------------------------------------------------------
    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def _body(self, request: LLMRequest, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": self.settings.seed,
            "stream": stream,
        }
        if request.schema is not None:
            body["response_format"] = _response_format(self._dialect, request.schema)
        return body

    def _post(self, request: LLMRequest, stream: bool) -> requests.Response:
        url = f"{self.base_url}/chat/completions"
        for attempt in range(1 if self._dialect != DIALECTS[0] else 2):
            try:
                response = self._session().post(
                    url, json=self._body(request, stream), headers=self._headers,
                    stream=stream, timeout=self.timeout,
                )
            except requests.RequestException as exc:
                raise LLMError(
                    f"Cannot reach the model server at {self.base_url} ({exc})."
                ) from exc
            if attempt == 0 and request.schema is not None and _refuses_json_schema(response):
                log.info("server refused json_schema (%d); using json_object+schema",
                         response.status_code)
                self._dialect = DIALECTS[1]
                continue
            if response.status_code >= 400:
                raise LLMError(
                    f"The model server at {self.base_url} answered {response.status_code}: "
                    f"{response.text[:300]}"
                )
            return response
        raise AssertionError("unreachable")

    def _read_whole(self, response: requests.Response, request: LLMRequest
                    ) -> tuple[str, str | None, dict[str, Any]]:
        try:
            payload = response.json()
            choice = payload["choices"][0]
            text = choice["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMOutputError(
                f"The model server sent an unreadable {request.stage} reply.",
                raw=response.text, stage=request.stage,
            ) from exc
        return text, choice.get("finish_reason"), payload.get("usage") or {}

    def _read_stream(self, response: requests.Response, request: LLMRequest,
                     on_delta: DeltaCallback, start: float
                     ) -> tuple[str, str | None, dict[str, Any], float | None]:
        pieces: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] = {}
        ttft: float | None = None
        for event in _sse_events(response, request):
            if request.cancel is not None and request.cancel.is_set():
                raise LLMCancelled(request.stage)
            usage = event.get("usage") or usage
            for choice in event.get("choices") or []:
                delta = (choice.get("delta") or {}).get("content") or ""
                if delta:
                    ttft = ttft if ttft is not None else (time.perf_counter() - start) * 1000
                    pieces.append(delta)
                    on_delta(delta)
                finish = choice.get("finish_reason") or finish
        return "".join(pieces), finish, usage, ttft


def _ignore(_delta: str) -> None:
    pass


def _refuses_json_schema(response: requests.Response) -> bool:
    """A 4xx, or a 500 naming response_format (llama_cpp.server's validation error)."""
    if response.status_code in (400, 422):
        return True
    return response.status_code >= 500 and "response_format" in response.text


def _response_format(dialect: str, schema: dict[str, Any]) -> dict[str, Any]:
    if dialect == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": True}}
    return {"type": "json_object", "schema": schema}


def _sse_events(response: requests.Response, request: LLMRequest) -> Iterator[dict[str, Any]]:
    try:
        for raw in response.iter_lines():
            line = raw.decode("utf-8", errors="replace")
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                yield json.loads(data)
            except ValueError as exc:
                raise LLMOutputError(
                    f"The model server sent a broken {request.stage} stream event.",
                    raw=data, stage=request.stage,
                ) from exc
    except requests.RequestException as exc:
        raise LLMError(f"The model server stream broke off ({exc}).") from exc


def _cached_tokens(usage: dict[str, Any]) -> int:
    """OpenAI/vLLM report ``prompt_tokens_details.cached_tokens``; others report nothing (0)."""
    details = usage.get("prompt_tokens_details") or {}
    return int(details.get("cached_tokens") or 0)
