from __future__ import annotations

import hashlib
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from httpserver import HTTPTestServer

from docwheel.errors import FetchError
from docwheel import fetch
from docwheel.fetch import ACCEPT, USER_AGENT, Fetched, fetch_text

FAST = {"backoff": 0.01}  # keep retry tests quick


def fetch_error(url: str, **kwargs: object) -> FetchError:
    with pytest.raises(FetchError) as info:
        fetch_text(url, **kwargs)
    assert info.value.url == url
    return info.value


def paths(server: HTTPTestServer) -> list[str]:
    return [path for path, _ in server.requests]


def test_ok_text_has_sha256_size_type_and_utc_time(http_server: HTTPTestServer) -> None:
    body = "# Title\n\nSome text é.\n".encode()
    http_server.route("/llms-full.txt", body, content_type="text/markdown; charset=utf-8")
    got = fetch_text(http_server.url("/llms-full.txt"))
    assert isinstance(got, Fetched)
    assert got.url == http_server.url("/llms-full.txt")
    assert got.text == "# Title\n\nSome text é.\n"
    assert got.sha256 == hashlib.sha256(body).hexdigest()
    assert got.size == len(body)
    assert got.content_type == "text/markdown"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got.fetched_at)


def test_user_agent_and_accept_headers_are_sent(http_server: HTTPTestServer) -> None:
    http_server.route("/a.md", "# A\n")
    fetch_text(http_server.url("/a.md"))
    ((_, headers),) = http_server.requests
    assert headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("docwheel/")
    assert headers["Accept"] == ACCEPT == "text/markdown, text/plain;q=0.9, */*;q=0.5"


def test_404_fails_at_once_without_retry(http_server: HTTPTestServer) -> None:
    error = fetch_error(http_server.url("/missing.txt"), **FAST)
    assert error.reason == "HTTP 404 Not Found"
    assert str(error) == f"{http_server.url('/missing.txt')}: HTTP 404 Not Found"
    assert paths(http_server) == ["/missing.txt"]


def test_500_twice_then_ok_succeeds_on_third_attempt(http_server: HTTPTestServer) -> None:
    http_server.route("/flaky.txt", "finally\n")
    http_server.route_fail("/flaky.txt", times=2, status=500)
    assert fetch_text(http_server.url("/flaky.txt"), retries=2, **FAST).text == "finally\n"
    assert paths(http_server) == ["/flaky.txt"] * 3


def test_429_is_retried(http_server: HTTPTestServer) -> None:
    http_server.route("/busy.txt", "ok\n")
    http_server.route_fail("/busy.txt", times=1, status=429)
    assert fetch_text(http_server.url("/busy.txt"), **FAST).text == "ok\n"


def test_503_always_says_how_many_attempts(http_server: HTTPTestServer) -> None:
    http_server.route_fail("/down.txt", times=100, status=503)
    error = fetch_error(http_server.url("/down.txt"), retries=2, **FAST)
    assert error.reason == "HTTP 503 Service Unavailable after 3 attempts"
    assert len(http_server.requests) == 3


def test_backoff_doubles_between_attempts(http_server: HTTPTestServer) -> None:
    http_server.route_fail("/down.txt", times=100, status=502)
    start = time.monotonic()
    fetch_error(http_server.url("/down.txt"), retries=2, backoff=0.1)
    assert 0.3 <= time.monotonic() - start < 2  # 0.1 + 0.2


def test_no_answer_times_out_after_each_attempt(http_server: HTTPTestServer) -> None:
    http_server.route("/slow.txt", "late\n")
    http_server.route_slow("/slow.txt", delay=3)
    start = time.monotonic()
    error = fetch_error(http_server.url("/slow.txt"), timeout=0.5, retries=1, **FAST)
    assert time.monotonic() - start < 2.5
    assert error.reason == "timed out after 0.5s (2 attempts)"
    assert len(http_server.requests) == 2


def test_slow_drip_is_cut_off_by_the_deadline(http_server: HTTPTestServer) -> None:
    http_server.route_drip("/drip.txt", interval=0.05)
    start = time.monotonic()
    error = fetch_error(http_server.url("/drip.txt"), timeout=0.5, retries=0)
    assert time.monotonic() - start < 1.5
    assert error.reason == "timed out after 0.5s (1 attempt)"


def test_headers_dripping_in_are_cut_off_by_the_deadline(http_server: HTTPTestServer) -> None:
    http_server.route_drip("/drip.txt", interval=0.05, in_headers=True)
    start = time.monotonic()
    error = fetch_error(http_server.url("/drip.txt"), timeout=0.5, retries=0)
    assert time.monotonic() - start < 1.5
    assert error.reason == "timed out after 0.5s (1 attempt)"


def test_deadline_holds_when_each_byte_comes_just_inside_the_timeout(
    http_server: HTTPTestServer,
) -> None:
    http_server.route_drip("/drip.txt", interval=0.4)
    start = time.monotonic()
    error = fetch_error(http_server.url("/drip.txt"), timeout=0.5, retries=0)
    assert time.monotonic() - start < 0.75  # a socket timeout alone would end at 0.8
    assert error.reason == "timed out after 0.5s (1 attempt)"


def test_drip_slower_than_the_timeout_also_times_out(http_server: HTTPTestServer) -> None:
    http_server.route_drip("/drip.txt", interval=2)
    start = time.monotonic()
    error = fetch_error(http_server.url("/drip.txt"), timeout=0.3, retries=0)
    assert time.monotonic() - start < 1.5
    assert error.reason.startswith("timed out")


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "application/xhtml+xml"])
def test_html_content_type_is_rejected(http_server: HTTPTestServer, content_type: str) -> None:
    http_server.route("/page", "<p>hi</p>", content_type=content_type)
    error = fetch_error(http_server.url("/page"))
    kind = content_type.split(";")[0]
    assert error.reason == f"not text: got {kind} (an HTML page, not Markdown)"


@pytest.mark.parametrize(
    "body",
    [
        b"<!DOCTYPE html><html><body>hi</body></html>",
        b"\xef\xbb\xbf \n\t<HTML lang=en><body>hi</body></html>",
        b"\n\n<!doctype HTML>\n<html>",
    ],
)
def test_html_body_served_as_text_is_sniffed_and_rejected(
    http_server: HTTPTestServer, body: bytes
) -> None:
    http_server.route("/llms.txt", body)
    error = fetch_error(http_server.url("/llms.txt"))
    assert error.reason == "not text: got an HTML page, not Markdown (served as text/plain)"


def test_markdown_mentioning_html_is_not_mistaken_for_html(http_server: HTTPTestServer) -> None:
    http_server.route("/a.md", "# Embedding\n\n<html> tags are stripped.\n")
    assert fetch_text(http_server.url("/a.md")).text.startswith("# Embedding")


def test_a_binary_body_served_as_text_is_rejected(http_server: HTTPTestServer) -> None:
    http_server.route("/llms-full.txt", b"# Docs\n\x00\x01\x02", content_type="text/plain")
    assert fetch_error(http_server.url("/llms-full.txt")).reason == (
        "not text: got binary data (a NUL byte at offset 7), not Markdown (served as text/plain)"
    )


def test_a_utf16_body_declared_as_utf16_is_text(http_server: HTTPTestServer) -> None:
    body = "# Docs\n\nWide text.\n".encode("utf-16")
    http_server.route("/a.md", body, content_type="text/markdown; charset=utf-16")
    assert fetch_text(http_server.url("/a.md")).text == "# Docs\n\nWide text.\n"


@pytest.mark.parametrize(
    "content_type", ["image/png", "application/octet-stream", "application/pdf"]
)
def test_non_text_type_is_rejected(http_server: HTTPTestServer, content_type: str) -> None:
    http_server.route("/file", b"\x89PNG\r\n", content_type=content_type)
    assert fetch_error(http_server.url("/file")).reason == f"not text: got {content_type}"


@pytest.mark.parametrize(
    ("content_type", "recorded"),
    [
        ("text/markdown", "text/markdown"),
        ("text/x-markdown; charset=UTF-8", "text/x-markdown"),
        ("application/json", "application/json"),
        ("application/x-yaml", "application/x-yaml"),
        (None, ""),
    ],
)
def test_text_like_or_missing_type_is_accepted(
    http_server: HTTPTestServer, content_type: str | None, recorded: str
) -> None:
    http_server.route("/doc", '{"a": 1}\n', content_type=content_type)
    got = fetch_text(http_server.url("/doc"))
    assert (got.text, got.content_type) == ('{"a": 1}\n', recorded)


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"", "empty response"), (b" \n\t\r\n  ", "empty response (only whitespace)")],
)
def test_empty_or_whitespace_body_is_rejected(
    http_server: HTTPTestServer, body: bytes, reason: str
) -> None:
    http_server.route("/empty.txt", body)
    assert fetch_error(http_server.url("/empty.txt"), **FAST).reason == reason
    assert len(http_server.requests) == 1


def test_body_over_the_size_cap_is_rejected(http_server: HTTPTestServer) -> None:
    http_server.route("/big.txt", b"x" * 2000)
    error = fetch_error(http_server.url("/big.txt"), max_bytes=1000)
    assert error.reason == "response larger than 1000 bytes"
    assert fetch_text(http_server.url("/big.txt"), max_bytes=2000).size == 2000


def test_body_over_the_cap_without_content_length_is_cut_off(
    http_server: HTTPTestServer,
) -> None:
    http_server.route_drip("/endless.txt", interval=0.001)
    error = fetch_error(http_server.url("/endless.txt"), max_bytes=50, timeout=5)
    assert error.reason == "response larger than 50 bytes"


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirect_is_followed_and_final_url_reported(
    http_server: HTTPTestServer, status: int
) -> None:
    http_server.route("/new/llms.txt", "# Moved\n")
    http_server.route_redirect("/old/llms.txt", "/new/llms.txt", status=status)
    got = fetch_text(http_server.url("/old/llms.txt"))
    assert got.url == http_server.url("/new/llms.txt")
    assert got.text == "# Moved\n"
    assert paths(http_server) == ["/old/llms.txt", "/new/llms.txt"]


def test_redirect_loop_is_reported(http_server: HTTPTestServer) -> None:
    http_server.route_redirect("/a", "/b")
    http_server.route_redirect("/b", "/a")
    error = fetch_error(http_server.url("/a"), **FAST)
    assert error.reason == "HTTP 302 Found: redirect loop or too many redirects"


def test_redirect_to_a_local_file_is_refused(http_server: HTTPTestServer) -> None:
    http_server.route_redirect("/sneaky", "file:///etc/passwd")
    error = fetch_error(http_server.url("/sneaky"))
    assert error.reason == "HTTP 302 redirects to file:///etc/passwd, which is not an http(s) URL"


def test_redirect_without_location_is_reported(http_server: HTTPTestServer) -> None:
    http_server.route("/moved", b"", status=301)
    error = fetch_error(http_server.url("/moved"))
    assert error.reason == "HTTP 301 Moved Permanently: redirect without a Location header"


def test_connection_refused_on_a_closed_port() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error = fetch_error(f"http://127.0.0.1:{port}/llms.txt", retries=1, backoff=0)
    assert error.reason == "connection refused after 2 attempts"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "docs.example.com/llms.txt", "ftp://x/y"])
def test_non_http_url_is_refused_without_network(url: str) -> None:
    assert fetch_error(url).reason == "not an http(s) URL"


@pytest.mark.parametrize("url", ["http://ex..ample.com/", "http://x:abc/", "http://127.0.0.1:1/a b"])
def test_malformed_url_is_a_fetch_error_not_a_crash(url: str) -> None:
    assert fetch_error(url, retries=0).reason.startswith("invalid URL: ")


def test_declared_latin1_charset_is_decoded(http_server: HTTPTestServer) -> None:
    http_server.route(
        "/latin.txt",
        "Café crème\n".encode("latin-1"),
        content_type="text/plain; charset=ISO-8859-1",
    )
    assert fetch_text(http_server.url("/latin.txt")).text == "Café crème\n"


def test_invalid_utf8_bytes_are_replaced(http_server: HTTPTestServer) -> None:
    body = b"before \xff\xfe after\n"
    http_server.route("/bad.txt", body)
    got = fetch_text(http_server.url("/bad.txt"))
    assert got.text == "before \ufffd\ufffd after\n"
    assert got.sha256 == hashlib.sha256(body).hexdigest()


def test_utf8_byte_order_mark_is_dropped(http_server: HTTPTestServer) -> None:
    http_server.route("/bom.md", b"\xef\xbb\xbf# Title\n", content_type=None)
    assert fetch_text(http_server.url("/bom.md")).text == "# Title\n"


def test_unknown_charset_falls_back_to_utf8(http_server: HTTPTestServer) -> None:
    http_server.route("/x.txt", "é\n".encode(), content_type="text/plain; charset=klingon")
    assert fetch_text(http_server.url("/x.txt")).text == "é\n"


def test_compressed_body_is_refused_not_misread(http_server: HTTPTestServer) -> None:
    http_server.route("/z.txt", b"\x1f\x8b\x08", headers={"Content-Encoding": "gzip"})
    assert fetch_error(http_server.url("/z.txt")).reason == (
        "unsupported Content-Encoding 'gzip' (docwheel asks for none)"
    )


def test_server_serves_files_from_a_folder(http_server: HTTPTestServer, tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "install.md").write_text("# Install\n", encoding="utf-8")
    http_server.serve_dir("/docs", tmp_path)
    got = fetch_text(http_server.url("/docs/guide/install.md"))
    assert (got.text, got.content_type) == ("# Install\n", "text/markdown")
    assert fetch_error(http_server.url("/docs/../../etc/passwd")).reason == "HTTP 404 Not Found"


@pytest.fixture(scope="module")
def https_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HTTPTestServer, Path]]:
    """An https server with a fresh self-signed certificate for 127.0.0.1."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with HTTPTestServer(ssl_context=context) as server:
        yield server, cert


def test_https_with_an_untrusted_certificate_is_refused(
    https_server: tuple[HTTPTestServer, Path],
) -> None:
    server, _ = https_server
    server.route("/llms.txt", "# Secure\n")
    error = fetch_error(server.url("/llms.txt"), retries=2, **FAST)
    assert error.reason.startswith("TLS certificate verification failed: ")
    assert len(server.requests) == 0


def test_https_fetch_and_deadline_work_over_tls(
    https_server: tuple[HTTPTestServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, cert = https_server
    monkeypatch.setattr(fetch, "_ssl_context", lambda: ssl.create_default_context(cafile=cert))
    server.route("/llms.txt", "# Secure\n")
    server.route_drip("/drip.txt", interval=0.05)
    assert fetch_text(server.url("/llms.txt")).text == "# Secure\n"
    start = time.monotonic()
    error = fetch_error(server.url("/drip.txt"), timeout=0.5, retries=0)
    assert time.monotonic() - start < 1.5
    assert error.reason == "timed out after 0.5s (1 attempt)"


def test_a_body_over_the_spool_size_is_written_to_a_temporary_file(
    http_server: HTTPTestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch, "SPOOL_BYTES", 1000)
    body = "# Page\nSource: https://x.example/p\n\n" + "word " * 2000
    http_server.route("/big.txt", body)
    got = fetch_text(http_server.url("/big.txt"))
    assert got.path is not None and got.text == "" and got.data == b""
    assert got.path.read_text(encoding="utf-8") == body
    assert (got.size, got.sha256) == (len(body), hashlib.sha256(body.encode()).hexdigest())
    small = fetch_text(http_server.url("/big.txt"), max_bytes=10**6)
    assert small.path is not None  # the cap and the spool size are separate things
    got.path.unlink()
    small.path.unlink()


def test_a_large_html_page_is_refused_without_spooling(
    http_server: HTTPTestServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(fetch, "SPOOL_BYTES", 1000)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    http_server.route("/page", "<!DOCTYPE html><html>" + "<p>x</p>" * 1000, content_type="text/plain")
    with pytest.raises(FetchError, match="not text: got an HTML page"):
        fetch_text(http_server.url("/page"))
    assert list(tmp_path.iterdir()) == []
