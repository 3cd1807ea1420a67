"""A loopback imitation of the Hugging Face hub's file endpoints, enough for hf_hub_download.

``HEAD/GET /{repo}/resolve/{revision}/{path}`` answers like the hub does for LFS files: a
302 to a blob on a second origin (the "CDN") carrying X-Repo-Commit, X-Linked-Etag and
X-Linked-Size; the CDN serves bytes with Range support. Gated repos answer 401 with
``X-Error-Code: GatedRepo`` unless the right bearer token is sent.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TOKEN = "hf_good_token"
RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")


@dataclass
class FakeHub:
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)
    # sha256 -> bytes to send before dropping the connection, once
    drop_after: dict[str, int] = field(default_factory=dict)
    log: list[tuple[str, str, str, dict[str, str]]] = field(default_factory=list)

    def add(self, repo: str, path: str, data: bytes) -> str:
        self.files[(repo, path)] = data
        return hashlib.sha256(data).hexdigest()

    def blob(self, sha: str) -> bytes | None:
        return next((d for d in self.files.values() if hashlib.sha256(d).hexdigest() == sha), None)

    def start(self) -> None:
        self._hub = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, "hub"))
        self._cdn = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, "cdn"))
        for server in (self._hub, self._cdn):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        for server in (self._hub, self._cdn):
            server.shutdown()
            server.server_close()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._hub.server_address[1]}"

    @property
    def cdn(self) -> str:
        return f"http://127.0.0.1:{self._cdn.server_address[1]}"

    def requests(self, origin: str, method: str) -> list[tuple[str, dict[str, str]]]:
        return [(p, h) for o, m, p, h in self.log if o == origin and m == method]


def _handler(hub: FakeHub, origin: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _serve(self, body: bool) -> None:
            hub.log.append(
                (origin, self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
            )
            if origin == "hub":
                self._resolve()
            else:
                self._blob(body)

        def _reply(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()

        def _resolve(self) -> None:
            match = RESOLVE.match(self.path)
            if match is None:
                self._reply(404, {"Content-Length": "0", "X-Error-Code": "RepoNotFound"})
                return
            repo, path = match["repo"], match["path"]
            if repo in hub.gated and self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self._reply(401, {"Content-Length": "0", "X-Error-Code": "GatedRepo",
                                  "X-Error-Message": "Access to this model is restricted."})
                return
            data = hub.files.get((repo, path))
            if data is None:
                self._reply(404, {"Content-Length": "0", "X-Error-Code": "EntryNotFound",
                                  "X-Repo-Commit": COMMIT})
                return
            sha = hashlib.sha256(data).hexdigest()
            self._reply(302, {
                "Location": f"{hub.cdn}/blobs/{sha}",
                "X-Repo-Commit": COMMIT,
                "X-Linked-Etag": f'"{sha}"',
                "X-Linked-Size": str(len(data)),
                "ETag": '"w-pointer"',
                "Content-Length": "0",
            })

        def _blob(self, body: bool) -> None:
            sha = self.path.rsplit("/", 1)[-1]
            data = hub.blob(sha)
            if data is None:
                self._reply(404, {"Content-Length": "0"})
                return
            start = 0
            ranged = re.match(r"bytes=(\d+)-", self.headers.get("Range", ""))
            if ranged:
                start = int(ranged[1])
            chunk = data[start:]
            headers = {"Content-Length": str(len(chunk)), "ETag": f'"{sha}"',
                       "Accept-Ranges": "bytes"}
            if ranged:
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            self._reply(206 if ranged else 200, headers)
            if not body:
                return
            cut = hub.drop_after.pop(sha, None) if not ranged else None
            if cut is not None:
                self.wfile.write(chunk[:cut])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.wfile.write(chunk)

    return Handler
