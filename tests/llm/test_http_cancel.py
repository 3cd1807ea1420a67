"""Cutting an HTTP call short: the stream is closed and the server sees it go."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.llm import LLMCancelled, LLMRequest
from app.llm.http import HttpBackend
from tests.llm.conftest import SETTINGS

EVENTS = 200  # a long answer: the server streams one token every few milliseconds


class _Slow(BaseHTTPRequestHandler):
    """Streams a long answer token by token; notes each request body and whether the
    client hung up before the end."""

    bodies: list[dict] = []
    hung_up = threading.Event()
    finished = threading.Event()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for i in range(EVENTS):
                chunk = {"choices": [{"delta": {"content": f"w{i} "}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                if type(self).hung_up.wait(0.002):
                    return
            self.wfile.write(b"data: [DONE]\n\n")
            type(self).finished.set()
        except (BrokenPipeError, ConnectionResetError):
            type(self).hung_up.set()


@pytest.fixture
def server() -> Iterator[str]:
    _Slow.bodies, _Slow.hung_up, _Slow.finished = [], threading.Event(), threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def ask(cancel: threading.Event | None) -> LLMRequest:
    return LLMRequest("monitor", "system", "user", None, 0.1, 512, cancel)


def test_a_cancelled_stream_is_closed_and_raises(server: str) -> None:
    cancel = threading.Event()
    deltas: list[str] = []

    def on_delta(text: str) -> None:
        deltas.append(text)
        if len(deltas) == 3:
            cancel.set()

    with pytest.raises(LLMCancelled):
        HttpBackend(server, SETTINGS, timeout=10).complete(ask(cancel), on_delta)
    assert len(deltas) == 3
    assert _Slow.hung_up.wait(10) and not _Slow.finished.is_set()


def test_a_cancellable_call_streams_even_without_deltas(server: str) -> None:
    backend = HttpBackend(server, SETTINGS, timeout=10)
    whole = backend.complete(ask(threading.Event()))
    assert _Slow.bodies[-1]["stream"] is True
    assert whole.text.split()[-1] == f"w{EVENTS - 1}"


def test_a_call_cancelled_before_it_starts_sends_nothing(server: str) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LLMCancelled):
        HttpBackend(server, SETTINGS, timeout=10).complete(ask(cancel))
    assert _Slow.bodies == []
