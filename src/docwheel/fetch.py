"""Fetch one URL as text: the only network code in docwheel.

Used at build time only; serving and searching never import this module.

Every failure becomes a ``FetchError(url, reason)`` with a short reason a person can act on
(``HTTP 404 Not Found``, ``timed out after 30s (3 attempts)``, ``not text: got text/html …``).
Timeouts, dropped connections, HTTP 429 and 5xx are retried with a doubling backoff; other
failures are not, since asking again gives the same answer.

``timeout`` bounds a whole attempt, not just each socket operation: a watchdog shuts the
attempt's sockets down when time is up, so a server that drips a byte a second (in the
headers or the body) cannot hold a build for longer than ``timeout`` per attempt.
"""

from __future__ import annotations

import atexit
import codecs
import functools
import hashlib
import http.client
import os
import socket
import ssl
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import Message
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from . import __version__
from .errors import FetchError
from .sniff import HEAD_BYTES, not_text

USER_AGENT = (
    f"docwheel/{__version__} (+https://github.com/docwheel/docwheel; documentation indexer)"
)
ACCEPT = "text/markdown, text/plain;q=0.9, */*;q=0.5"

SAVED_HEADERS = ("ETag", "Last-Modified", "Content-Type")

_CHUNK = 64 * 1024
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/x-yaml",
        "application/yaml",
        "application/markdown",
        "application/x-markdown",
    }
)


@dataclass(frozen=True)
class Fetched:
    """The decoded body of one successful fetch, with what the manifest records about it."""

    url: str
    text: str
    sha256: str
    size: int
    content_type: str  # "" when the server sent none
    fetched_at: str
    # What `docwheel fetch` saves beside the text: the bytes as received, and the headers
    # worth keeping (ETag, Last-Modified, Content-Type) as the server sent them.
    data: bytes = field(default=b"", repr=False, compare=False)
    headers: dict[str, str] = field(default_factory=dict, compare=False)
    # A body larger than SPOOL_BYTES is not held: it is written to this temporary file
    # (removed when the process ends) and ``text`` and ``data`` are empty.
    path: Path | None = field(default=None, compare=False)


# Bodies above this size go to a temporary file instead of memory (a 200 MB llms-full.txt
# would otherwise be held as bytes, as text and as parsed pages at once). The same size as
# sources.STREAM_BYTES, above which a file is parsed as a stream; not imported from there,
# so that fetching needs no parsing code.
SPOOL_BYTES = 32 * 1024 * 1024


def fetch_text(
    url: str,
    *,
    timeout: float = 30.0,
    retries: int = 2,
    backoff: float = 0.5,
    max_bytes: int = 100 * 1024 * 1024,
) -> Fetched:
    """GET ``url`` and return its text; raise ``FetchError`` with a specific reason.

    Makes at most ``retries + 1`` attempts, each bounded by ``timeout`` seconds, sleeping
    ``backoff``, then twice that, … between them.
    """
    if not _is_http_url(url):
        raise FetchError(url, "not an http(s) URL")
    attempts = max(retries, 0) + 1
    for attempt in range(1, attempts + 1):
        try:
            return _attempt(url, timeout, max_bytes)
        except _Transient as e:
            if attempt == attempts:
                raise FetchError(url, e.final(attempts, timeout)) from None
        except _Permanent as e:
            raise FetchError(url, e.reason) from None
        time.sleep(max(backoff, 0.0) * 2 ** (attempt - 1))
    raise AssertionError("unreachable")  # pragma: no cover


class _Permanent(Exception):
    """A failure that asking again will not fix."""

    def __init__(self, reason: str):
        self.reason = reason


class _Transient(Exception):
    """A failure worth another attempt; ``final`` words it once the attempts run out."""

    def __init__(self, reason: str = "", *, timed_out: bool = False):
        self.reason = reason
        self.timed_out = timed_out

    def final(self, attempts: int, timeout: float) -> str:
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        if self.timed_out:
            return f"timed out after {timeout:g}s ({tries})"
        return f"{self.reason} after {tries}" if attempts > 1 else self.reason


def _attempt(url: str, timeout: float, max_bytes: int) -> Fetched:
    deadline = _Deadline(timeout)
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": ACCEPT})
    try:
        with _opener(deadline).open(request, timeout=timeout) as response:
            try:
                return _read(response, max_bytes, deadline)
            finally:
                deadline.cancel()  # before the socket closes, so the watchdog never races it
    except urllib.error.HTTPError as e:
        e.close()
        raise _http_error(e) from None
    except (OSError, http.client.HTTPException) as e:  # URLError is an OSError
        if deadline.expired:
            raise _Transient(timed_out=True) from None
        raise _connection_error(e) from None
    except ValueError as e:  # e.g. a host name IDNA cannot encode
        raise _Permanent(f"invalid URL: {e}") from None
    finally:
        deadline.cancel()


def _read(response: http.client.HTTPResponse, max_bytes: int, deadline: _Deadline) -> Fetched:
    raw_type = response.headers.get("Content-Type", "").strip()
    header = Message()
    if raw_type:
        header["Content-Type"] = raw_type
    content_type = header.get_content_type() if raw_type else ""
    charset = header.get_content_charset()
    if content_type in _HTML_TYPES:
        raise _Permanent(f"not text: got {content_type} (an HTML page, not Markdown)")
    if not _is_text_type(content_type):
        raise _Permanent(f"not text: got {content_type}")
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise _Permanent(f"unsupported Content-Encoding {encoding!r} (docwheel asks for none)")
    length = response.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise _Permanent(f"response larger than {max_bytes} bytes")

    body = bytearray()
    digest = hashlib.sha256()
    size = 0
    spool = None
    try:
        while True:
            # read1 returns as soon as some bytes arrive, so the deadline is checked per
            # chunk; a read blocked past the deadline is ended by the watchdog.
            chunk = response.read1(min(_CHUNK, max_bytes + 1 - size))
            if deadline.expired:
                raise TimeoutError
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise _Permanent(f"response larger than {max_bytes} bytes")
            digest.update(chunk)
            if spool is not None:
                spool.write(chunk)
                continue
            body += chunk
            if len(body) > SPOOL_BYTES:
                if not_text(bytes(body[:HEAD_BYTES]), charset):
                    break  # refused below, without writing a large page to disk
                spool = tempfile.NamedTemporaryFile(prefix="docwheel-fetch-", delete=False)  # noqa: SIM115
                atexit.register(_remove, spool.name)
                spool.write(body)
                body = bytearray(body[:HEAD_BYTES])  # what the checks below look at
        if spool is not None:
            spool.close()
    except BaseException:
        if spool is not None:
            spool.close()
            _remove(spool.name)
        raise

    data = bytes(body)
    if not data:
        raise _Permanent("empty response")
    refused = not_text(data, charset)  # the rule local files follow too (sniff)
    if refused:
        if spool is not None:
            _remove(spool.name)
        served_as = content_type or "no content type"
        raise _Permanent(f"not text: got {refused} (served as {served_as})")
    text = "" if spool is not None else _decode(data, charset)
    if spool is None and not text.strip():
        raise _Permanent("empty response (only whitespace)")
    return Fetched(
        url=response.geturl(),
        text=text,
        sha256=digest.hexdigest(),
        size=size,
        content_type=content_type,
        fetched_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        data=b"" if spool is not None else data,
        headers={k: response.headers[k] for k in SAVED_HEADERS if response.headers.get(k)},
        path=Path(spool.name) if spool is not None else None,
    )


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _is_text_type(content_type: str) -> bool:
    return (
        not content_type
        or content_type.startswith("text/")
        or content_type in _TEXT_TYPES
        or content_type.endswith(("+json", "+yaml", "+markdown"))
    )


def _decode(data: bytes, charset: str | None) -> str:
    try:
        encoding = codecs.lookup(charset or "utf-8").name
    except LookupError:
        encoding = "utf-8"
    if encoding == "utf-8":
        encoding = "utf-8-sig"  # drop a byte-order mark
    return data.decode(encoding, errors="replace")


def _http_error(error: urllib.error.HTTPError) -> Exception:
    code = error.code
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        phrase = str(error.reason or "").strip()
    status = f"HTTP {code} {phrase}".rstrip()
    if 300 <= code < 400:
        if str(error.msg).startswith(urllib.request.HTTPRedirectHandler.inf_msg):
            return _Permanent(f"{status}: redirect loop or too many redirects")
        if not (error.headers.get("Location") or error.headers.get("URI")):
            return _Permanent(f"{status}: redirect without a Location header")
        return _Permanent(f"{status}: redirect not followed ({error.msg})")
    if code == 429 or code >= 500:
        return _Transient(status)
    return _Permanent(status)


def _connection_error(error: BaseException) -> Exception:
    """Word an error from urllib, http.client, socket or ssl; decide whether to retry."""
    if isinstance(error, urllib.error.URLError):
        reason = error.reason
        if not isinstance(reason, BaseException):  # e.g. "unknown url type: ftp" (redirect)
            return _Permanent(str(reason))
        error = reason
    if isinstance(error, TimeoutError):  # socket.timeout is TimeoutError since 3.10
        return _Transient(timed_out=True)
    if isinstance(error, ssl.SSLCertVerificationError):
        return _Permanent(f"TLS certificate verification failed: {error.verify_message}")
    if isinstance(error, ssl.SSLError):
        return _Permanent(f"TLS error: {error.reason or error}")
    if isinstance(error, socket.gaierror):
        retry = error.errno == getattr(socket, "EAI_AGAIN", None)
        reason = f"cannot resolve host ({_lower(error.strerror or str(error))})"
        return _Transient(reason) if retry else _Permanent(reason)
    if isinstance(error, http.client.RemoteDisconnected):
        return _Transient("server closed the connection without a response")
    if isinstance(error, http.client.InvalidURL):
        return _Permanent(f"invalid URL: {error}")
    if isinstance(error, http.client.HTTPException):
        return _Transient(f"bad HTTP response ({type(error).__name__})")
    if isinstance(error, OSError):
        return _Transient(_lower(error.strerror or str(error) or type(error).__name__))
    return _Transient(str(error) or type(error).__name__)


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class _Deadline:
    """A watchdog for one attempt: at ``seconds``, shut down every socket it was given.

    A shut-down socket makes a blocked read return or raise at once; ``expired`` tells the
    reader that this was the deadline and not the end of the body.
    """

    def __init__(self, seconds: float):
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self.expired:
                _shutdown(sock)
            else:
                self._sockets.append(sock)

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._sockets.clear()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)
            self._sockets.clear()


def _shutdown(sock: socket.socket) -> None:
    try:
        # The plain-socket method, also for an SSLSocket: it only ends the OS-level
        # stream and leaves the TLS object alone, which another thread may be using.
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _Watched:
    """Mixin for http.client connections: hand the connected socket to the deadline."""

    sock: socket.socket

    def __init__(self, *args, deadline: _Deadline, **kwargs):
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._deadline.watch(self.sock)


class _HTTPConnection(_Watched, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_Watched, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline):
        super().__init__()
        self._deadline = deadline

    def http_open(self, req):
        return self.do_open(functools.partial(_HTTPConnection, deadline=self._deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline):
        super().__init__()
        self._deadline = deadline

    def https_open(self, req):
        connection = functools.partial(_HTTPSConnection, deadline=self._deadline)
        return self.do_open(connection, req, context=_ssl_context())


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follows 308 too (urllib learned it only in Python 3.11); says why a redirect to a
    non-http(s) URL is refused."""

    def http_error_302(self, req, fp, code, msg, headers):
        location = headers.get("Location") or headers.get("URI")
        if location:
            target = urljoin(req.full_url, location.strip())
            if not _is_http_url(target):
                fp.close()
                raise _Permanent(f"HTTP {code} redirects to {target}, which is not an http(s) URL")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return super().redirect_request(req, fp, 307 if code == 308 else code, msg, headers, newurl)


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return ssl.create_default_context()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """http and https only (no file:, ftp: or data:, even after a redirect); proxies from
    the environment are honoured."""
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        _HTTPHandler(deadline),
        _HTTPSHandler(deadline),
        urllib.request.HTTPDefaultErrorHandler(),
        _RedirectHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener
