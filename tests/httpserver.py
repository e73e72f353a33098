"""A real HTTP server on 127.0.0.1 for tests, with routes a test can set.

    with HTTPTestServer() as server:
        server.route("/llms.txt", "# Title\\n")
        server.route_fail("/flaky", times=2, status=503)   # then serves its normal route
        server.route_slow("/slow", delay=2)                 # waits before answering
        server.route_drip("/drip", interval=0.1)            # a byte per interval, for ~60 s
        server.route_redirect("/old", "/new")
        server.serve_dir("/docs/", tmp_path)
        fetch_text(server.url("/llms.txt"))
        server.requests                                     # [(path, headers), ...]

The ``http_server`` fixture in conftest.py gives every test the session's server with its
routes and requests cleared. Each response closes its connection (HTTP/1.0). Nothing is
logged; a client that goes away mid-response is not an error.
"""

from __future__ import annotations

import mimetypes
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.client import HTTPMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".mdx": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}
_DRIP_LIMIT = 60.0


@dataclass
class _Route:
    body: bytes = b""
    status: int = 200
    content_type: str | None = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


class HTTPTestServer:
    """A ThreadingHTTPServer on 127.0.0.1, port chosen by the OS, in a daemon thread."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        """With ``ssl_context`` (a server context holding a certificate), serve https."""
        self.requests: list[tuple[str, HTTPMessage]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._routes: dict[str, _Route] = {}
        self._failures: dict[str, list[int]] = {}  # path -> [times left, status]
        self._delays: dict[str, float] = {}
        self._drips: dict[str, tuple[float, bool]] = {}
        self._dirs: dict[str, Path] = {}
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._scheme = "http"
        if ssl_context is not None:
            self._httpd.socket = ssl_context.wrap_socket(self._httpd.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, path: str = "/") -> str:
        return f"{self._scheme}://127.0.0.1:{self.port}{_norm(path)}"

    # --- routes -------------------------------------------------------------------------

    def route(
        self,
        path: str,
        body: bytes | str = b"",
        status: int = 200,
        content_type: str | None = "text/plain; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        """Serve ``body`` at ``path``; ``content_type=None`` sends no Content-Type."""
        data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        with self._lock:
            self._routes[_norm(path)] = _Route(data, status, content_type, dict(headers or {}))

    def route_fail(self, path: str, times: int, status: int = 503) -> None:
        """Answer ``status`` the next ``times`` requests, then serve the normal route."""
        with self._lock:
            self._failures[_norm(path)] = [times, status]

    def route_slow(self, path: str, delay: float) -> None:
        """Wait ``delay`` seconds before answering (sending nothing, not even a status)."""
        with self._lock:
            self._delays[_norm(path)] = delay

    def route_drip(self, path: str, interval: float, *, in_headers: bool = False) -> None:
        """Send headers, then one byte every ``interval`` s until the client goes (<= 60 s).

        With ``in_headers``, the bytes drip into a header that never ends instead.
        """
        with self._lock:
            self._drips[_norm(path)] = (interval, in_headers)

    def route_redirect(self, path: str, to: str, status: int = 302) -> None:
        """Redirect to ``to`` (a path on this server or any URL)."""
        self.route(path, b"", status=status, content_type=None, headers={"Location": to})

    def serve_dir(self, prefix: str, directory: str | Path) -> None:
        """Serve the files under ``directory`` at ``prefix`` (``/docs/a.md`` -> ``a.md``)."""
        with self._lock:
            self._dirs[_norm(prefix).rstrip("/") + "/"] = Path(directory).resolve()

    def reset(self) -> None:
        """Forget every route and recorded request."""
        with self._lock:
            self.requests.clear()
            for table in (self._routes, self._failures, self._delays, self._drips, self._dirs):
                table.clear()

    # --- life cycle ---------------------------------------------------------------------

    def close(self) -> None:
        self._stop.set()  # ends slow and dripping responses
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> HTTPTestServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- called by the handler ----------------------------------------------------------

    def _respond(self, handler: _Handler) -> None:
        full = handler.path
        path = urlsplit(full).path
        with self._lock:
            self.requests.append((full, handler.headers))

            def pick(table: dict) -> object:  # "/a?x=1" first, then "/a"
                return table.get(full, table.get(path))

            delay = pick(self._delays) or 0.0
            drip = pick(self._drips)
            failure = pick(self._failures)
            status = None
            if failure and failure[0] > 0:
                failure[0] -= 1
                status = failure[1]
            route = pick(self._routes)
            served = self._dir_file(path) if route is None else None
        if delay and self._stop.wait(delay):
            return
        if status is not None:
            handler.reply(status, f"failing on purpose with {status}\n".encode(), "text/plain")
        elif drip is not None:
            self._drip(handler, *drip)
        elif route is not None:
            handler.reply(route.status, route.body, route.content_type, route.headers)
        elif served is not None:
            handler.reply(200, *served)
        else:
            handler.reply(404, f"no route for {path}\n".encode(), "text/plain; charset=utf-8")

    def _dir_file(self, path: str) -> tuple[bytes, str] | None:
        for prefix, root in self._dirs.items():
            if not path.startswith(prefix):
                continue
            file = (root / unquote(path[len(prefix) :])).resolve()
            if file.is_dir():
                file = file / "index.html"
            if file.is_relative_to(root) and file.is_file():
                guessed = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                return file.read_bytes(), _TYPES.get(file.suffix.lower(), guessed)
        return None

    def _drip(self, handler: _Handler, interval: float, in_headers: bool) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        if in_headers:
            handler.flush_headers()
            handler.wfile.write(b"X-Drip: ")
        else:
            handler.end_headers()
        until = time.monotonic() + _DRIP_LIMIT
        while time.monotonic() < until and not self._stop.wait(interval):
            handler.wfile.write(b"x")
            handler.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # never wait for a dripping response at close
    owner: HTTPTestServer

    def handle_error(self, request, client_address) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"
    timeout = 10  # a client that connects and says nothing does not hold a thread forever

    def do_GET(self) -> None:
        self.server.owner._respond(self)

    do_HEAD = do_GET

    def reply(
        self,
        status: int,
        body: bytes,
        content_type: str | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        headers = headers or {}
        given = {name.lower() for name in headers}
        self.send_response(status)
        if content_type is not None and "content-type" not in given:
            self.send_header("Content-Type", content_type)
        if "content-length" not in given:
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _norm(path: str) -> str:
    return path if path.startswith("/") else "/" + path
