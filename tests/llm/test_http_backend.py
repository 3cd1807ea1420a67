"""The OpenAI-compatible backend against a real llama_cpp.server on loopback (0.5B GGUF)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from app.llm import LLMError, LLMOutputError, LLMRequest, open_backend
from app.llm.http import HttpBackend
from tests.llm.conftest import SCHEMA, SETTINGS, SYSTEM, gguf


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = gguf("llm-0.5b")
    port = free_port()
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "1024",
             "--n_threads", "1", "--seed", "7", "--verbose", "False"],
            stdout=log, stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(base, proc, log_path)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_ready(base: str, proc: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
        try:
            if requests.get(f"{base}/models", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    pytest.fail("llama_cpp.server did not start within 240 s")


def ask(question: str, schema: dict | None = SCHEMA, max_tokens: int = 24) -> LLMRequest:
    return LLMRequest("monitor", SYSTEM, question, schema, 0.1, max_tokens)


@pytest.mark.slow
def test_schema_request_against_llama_cpp_server(server: str) -> None:
    backend = open_backend(server, SETTINGS)
    assert isinstance(backend, HttpBackend)
    backend.warm(SYSTEM)
    r = backend.complete(ask("When did Porto open its bridge?"))
    assert r.data is not None and set(r.data) == {"sid", "year"} and 0 <= r.data["sid"] <= 4
    assert r.prompt_tokens > 100 and r.completion_tokens > 0
    assert backend._dialect == "json_object"  # llama_cpp.server refused json_schema, we adapted


@pytest.mark.slow
def test_streaming_deltas_and_truncation(server: str) -> None:
    backend = HttpBackend(server, SETTINGS)
    deltas: list[str] = []
    r = backend.complete(ask("When did Lyon open its metro?"), on_delta=deltas.append)
    assert len(deltas) > 1 and "".join(deltas) == r.text
    assert r.data is not None and r.data["year"] > 1000
    assert 0 < r.ttft_ms < r.total_ms
    with pytest.raises(LLMOutputError) as caught:
        backend.complete(ask("When did Lyon open its metro?", max_tokens=3))
    assert caught.value.raw.startswith("{")


def test_unreachable_server_is_an_llm_error() -> None:
    backend = HttpBackend(f"http://127.0.0.1:{free_port()}/v1", SETTINGS, timeout=5)
    with pytest.raises(LLMError) as caught:
        backend.complete(ask("Anything?"))
    assert "Cannot reach" in caught.value.user_message


class _Broken(BaseHTTPRequestHandler):
    """Answers every completion with one kind of broken reply (chosen by the user text)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = body["messages"][1]["content"]
        if mode == "500":
            self._send(500, "application/json", b'{"error": "boom"}')
        elif mode == "garbage":
            self._send(200, "application/json", b"<html>not json</html>")
        elif mode == "stream-garbage":
            self._send(200, "text/event-stream", b"data: {oops\n\n")
        else:  # valid envelope, content breaks the schema
            content = json.dumps({"sid": 99})
            reply = {"choices": [{"message": {"content": content}, "finish_reason": "stop"}]}
            self._send(200, "application/json", json.dumps(reply).encode())

    def _send(self, status: int, kind: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def broken() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Broken)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    ("mode", "stream", "error"),
    [("500", False, LLMError), ("garbage", False, LLMOutputError),
     ("stream-garbage", True, LLMOutputError), ("schema", False, LLMOutputError)],
)
def test_broken_server_replies_are_typed(
    broken: str, mode: str, stream: bool, error: type[LLMError]
) -> None:
    backend = HttpBackend(broken, SETTINGS, timeout=10)
    with pytest.raises(error) as caught:
        backend.complete(ask(mode), on_delta=(lambda _: None) if stream else None)
    assert type(caught.value) is error
    assert caught.value.user_message
