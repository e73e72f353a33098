"""`docwheel serve --http`: real servers on loopback, real HTTP requests, real MCP clients.

Covers the binding policy (loopback unless --allow-remote with a token), DNS-rebinding
protection, the bearer token, /healthz, stateless mode, a clean shutdown, and many
concurrent clients getting the same answers as one client alone.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

import docwheel
from docwheel.build import build_from_file
from docwheel.server import create_server
from docwheel.web import check_binding, http_app, is_loopback

from helpers import site_config

TOKEN = "test-token-0123456789abcdef"
READY_TIMEOUT = 20.0  # seconds a server gets to answer /healthz
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module", autouse=True)
def _no_proxy() -> Iterator[None]:
    """Loopback requests must not be routed through a proxy from the environment."""
    saved = {name: os.environ.get(name) for name in ("no_proxy", "NO_PROXY")}
    for name in saved:
        os.environ[name] = "127.0.0.1,127.0.0.2,localhost"
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("http")
    out = root / "index"
    build_from_file(site_config(root), out, version="2026.11.01")
    return out


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DOCWHEEL_TOKEN"}
    return {**env, **extra}


def wait_healthy(base: str, proc: subprocess.Popen | None, log: Path | None) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text() if log else ''}")
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.05)
    pytest.fail(f"{base} did not answer /healthz within {READY_TIMEOUT}s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextlib.contextmanager
def serving(
    index_dir: Path, log: Path, *args: str, host: str = "127.0.0.1", env: dict | None = None
):
    """`docwheel serve --http` in a subprocess; yields (base URL, process)."""
    port = free_port(host)
    with log.open("w") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "docwheel",
                "serve",
                "--http",
                "--host",
                host,
                "--port",
                str(port),
                "--index",
                str(index_dir),
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env or server_env(),
        )
    base = f"http://{host}:{port}"
    try:
        wait_healthy(base, proc, log)
        yield base, proc
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def open_server(index_dir, tmp_path_factory) -> Iterator[str]:
    with serving(index_dir, tmp_path_factory.mktemp("open") / "stderr.txt") as (base, _proc):
        yield base


@pytest.fixture(scope="module")
def token_server(index_dir, tmp_path_factory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("token") / "stderr.txt"
    with serving(index_dir, log, env=server_env(DOCWHEEL_TOKEN=TOKEN)) as (base, _proc):
        yield base


def post_initialize(base: str, **headers: str) -> httpx2.Response:
    return httpx2.post(
        f"{base}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=10
    )


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    inner = getattr(error, "exceptions", None)
    return [leaf for e in inner for leaf in leaves(e)] if inner else [error]


async def search(client: Client, query: str, **arguments) -> dict:
    result = await client.call_tool("search_docs", {"query": query, **arguments})
    assert not result.is_error, result.content
    return result.structured_content


# -- the binding policy, before anything listens -----------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]"]
)
def test_loopback_hosts(host):
    assert is_loopback(host)
    check_binding(host, allow_remote=False, token=None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "docs.example.com", ""])
def test_other_hosts_need_allow_remote_and_a_token(host):
    assert not is_loopback(host)
    with pytest.raises(docwheel.DocwheelError, match="--allow-remote"):
        check_binding(host, allow_remote=False, token=TOKEN)
    with pytest.raises(docwheel.DocwheelError, match="needs a bearer token"):
        check_binding(host, allow_remote=True, token=None)
    check_binding(host, allow_remote=True, token=TOKEN)


def test_a_short_token_is_refused_anywhere():
    with pytest.raises(docwheel.DocwheelError, match="too short"):
        check_binding("127.0.0.1", allow_remote=False, token="secret")


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docwheel", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=env or server_env(),
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--host", "0.0.0.0"], {}, "add --allow-remote and a bearer token"),
        (["--host", "0.0.0.0", "--allow-remote"], {}, "--allow-remote needs a bearer token"),
        (["--host", "0.0.0.0", "--allow-remote", "--token", "short"], {}, "too short"),
        (["--host", "0.0.0.0", "--allow-remote"], {"DOCWHEEL_TOKEN": "short"}, "too short"),
        (["--host", "192.0.2.10", "--token", TOKEN], {}, "--allow-remote"),
    ],
    ids=["no-flag", "no-token", "short-token", "short-env-token", "token-without-flag"],
)
def test_serve_refuses_remote_hosts_without_opt_in_and_token(index_dir, args, env, message):
    proc = run_cli(
        "serve",
        "--http",
        "--port",
        str(free_port()),
        "--index",
        str(index_dir),
        *args,
        env=server_env(**env),
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("docwheel: error: ") and message in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stdout == ""


@pytest.mark.parametrize(
    "flags", [["--token", TOKEN], ["--allow-remote"], ["--stateless"], ["--host", "::1"]]
)
def test_http_options_without_http_are_usage_errors(flags):
    proc = run_cli("serve", *flags)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1].endswith("--http")


# -- loopback, no token: DNS-rebinding protection ----------------------------------------------


@pytest.mark.anyio
async def test_loopback_server_answers_an_mcp_client(open_server):
    async with Client(f"{open_server}/mcp") as remote:
        assert "cite the url" in (remote.instructions or "").lower()
        data = await search(remote, "docker compose", limit=3)
        assert data["results"][0]["ref"].startswith("site:guides/install")
        listed = await remote.call_tool("list_docs", {"max_tokens": 500})
        assert listed.structured_content["truncated"] is True


def test_healthz_answers_without_revealing_anything(open_server):
    response = httpx2.get(f"{open_server}/healthz", timeout=10)
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_requests_naming_another_host_are_refused(open_server):
    port = open_server.rsplit(":", 1)[1]
    assert post_initialize(open_server).status_code == 200
    assert post_initialize(open_server, Host=f"localhost:{port}").status_code == 200
    refused = post_initialize(open_server, Host=f"evil.example:{port}")
    assert refused.status_code == 421
    assert post_initialize(open_server, Host="evil.example").status_code == 421


def test_requests_from_another_origin_are_refused(open_server):
    port = open_server.rsplit(":", 1)[1]
    assert post_initialize(open_server, Origin=f"http://localhost:{port}").status_code == 200
    assert post_initialize(open_server, Origin="http://evil.example").status_code == 403
    assert post_initialize(open_server, Origin="https://127.0.0.1.evil.example").status_code == 403


def test_sessions_are_kept_unless_stateless(open_server, index_dir, tmp_path):
    assert post_initialize(open_server).headers.get("mcp-session-id")
    with serving(index_dir, tmp_path / "stderr.txt", "--stateless") as (base, _proc):
        response = post_initialize(base)
        assert response.status_code == 200 and "mcp-session-id" not in response.headers


@pytest.mark.anyio
async def test_stateless_server_answers_a_session_based_client(index_dir, tmp_path):
    with serving(index_dir, tmp_path / "stderr.txt", "--stateless") as (base, _proc):
        async with Client(f"{base}/mcp", mode="legacy") as remote:
            assert (await search(remote, "refund"))["results"][0][
                "ref"
            ] == "platform:billing#refunds"
        async with Client(f"{base}/mcp") as remote:
            assert (await search(remote, "refund"))["results"][0][
                "ref"
            ] == "platform:billing#refunds"


def test_another_loopback_address_gets_the_same_protection(index_dir, tmp_path):
    try:
        free_port("127.0.0.2")
    except OSError:
        pytest.skip("127.0.0.2 is not a loopback address here")
    with serving(index_dir, tmp_path / "stderr.txt", host="127.0.0.2") as (base, _proc):
        assert post_initialize(base).status_code == 200
        assert post_initialize(base, Host="evil.example").status_code == 421


# -- the bearer token --------------------------------------------------------------------------


def test_requests_without_the_token_get_401(token_server):
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": TOKEN},
        {"Authorization": f"Basic {TOKEN}"},
    ):
        response = post_initialize(token_server, **headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json()["error"] == "unauthorized"
    assert httpx2.get(f"{token_server}/mcp", timeout=10).status_code == 401


def test_requests_with_the_token_pass_and_host_checks_still_apply(token_server):
    assert post_initialize(token_server, Authorization=f"Bearer {TOKEN}").status_code == 200
    assert post_initialize(token_server, Authorization=f"bearer {TOKEN}").status_code == 200
    refused = post_initialize(token_server, Authorization=f"Bearer {TOKEN}", Host="evil.example")
    assert refused.status_code == 421


def test_healthz_needs_no_token(token_server):
    response = httpx2.get(f"{token_server}/healthz", timeout=10, headers={"Host": "lb.internal"})
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.anyio
async def test_mcp_client_with_the_token_works_and_without_it_fails(token_server):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
        async with Client(
            streamable_http_client(f"{token_server}/mcp", http_client=http)
        ) as remote:
            data = await search(remote, "rotate signing keys")
            assert data["results"][0]["ref"] == "site:guides/configure#rotating-api-keys"
    with pytest.raises(BaseException) as refused:
        async with Client(f"{token_server}/mcp") as remote:
            await search(remote, "rotate signing keys")
    # The SDK reports the 401 as an MCPError ("Server returned an error response"), inside
    # task-group exception groups.
    assert any(isinstance(error, MCPError) for error in leaves(refused.value)), refused.value


@contextlib.contextmanager
def in_thread(app) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on a loopback port, in a thread of this process."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, None, None)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def test_an_app_built_for_a_remote_host_relies_on_the_token(index_dir):
    # Configured as for --host 0.0.0.0 --allow-remote, but listening on loopback only: any
    # Host header is accepted (a proxy or DNS name in front), and the token is what guards.
    with docwheel.open_index(index_dir) as index:
        app = http_app(create_server(index), host="0.0.0.0", token=TOKEN)
        with in_thread(app) as base:
            named = {"Host": "docs.internal.example"}
            assert post_initialize(base, **named).status_code == 401
            assert (
                post_initialize(base, **named, Authorization=f"Bearer {TOKEN}").status_code == 200
            )
            assert httpx2.get(f"{base}/healthz", headers=named, timeout=10).status_code == 200


# -- process lifecycle -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_streamable_http_subprocess_stops_cleanly_on_sigterm(index_dir, tmp_path):
    log = tmp_path / "stderr.txt"
    with serving(index_dir, log) as (base, proc):
        async with Client(f"{base}/mcp") as remote:
            assert (await search(remote, "docker compose"))["results"]
            error = await remote.call_tool("search_docs", {"query": "*"})
            assert error.is_error
        stop(proc)
    text = log.read_text()
    # SIGTERM: uvicorn shuts down gracefully, then re-raises the signal for the supervisor.
    assert proc.returncode in (0, -signal.SIGTERM), text
    assert "shutdown complete" in text.lower() and "Traceback" not in text


def test_http_port_in_use_is_one_clean_error(index_dir):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run_cli("serve", "--http", "--port", str(port), "--index", str(index_dir))
    assert proc.returncode == 1
    assert proc.stderr.startswith("docwheel: error: ") and str(port) in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


# -- many clients at once ----------------------------------------------------------------------

CLIENTS = 8
CALLS_PER_CLIENT = 25
CALLS = [
    ("search_docs", {"query": query, **extra})
    # Plain words take the precomputed path; phrases, AND and wildcards go through Whoosh.
    for query in (
        "rotate signing keys",
        "docker",
        "refund",
        "hydration error",
        "permission denied",
        '"signing keys"',
        "docker AND compose",
        "deplo*",
    )
    for extra in ({}, {"limit": 2}, {"full_text": True})
][: CALLS_PER_CLIENT - 3] + [
    ("search_docs", {"query": "project", "source": "platform"}),
    ("read_doc", {"ref": "site:guides/install", "max_tokens": 500}),
    ("list_docs", {"max_tokens": 500}),
]


@pytest.mark.anyio
async def test_concurrent_clients_get_the_single_client_answers(open_server):
    """8 clients x 25 calls at once over HTTP, each answer equal to the one-at-a-time answer."""
    assert len(CALLS) == CALLS_PER_CLIENT
    url = f"{open_server}/mcp"
    expected: list[tuple[dict, str]] = []
    async with Client(url) as alone:
        for tool, arguments in CALLS:
            result = await alone.call_tool(tool, arguments)
            assert not result.is_error, result.content
            expected.append((result.structured_content, result.content[0].text))
    mismatches: list[str] = []
    done = 0

    async def client(seed: int) -> None:
        nonlocal done
        order = list(range(len(CALLS)))
        random.Random(seed).shuffle(order)
        async with Client(url) as remote:
            for n in order:
                tool, arguments = CALLS[n]
                result = await remote.call_tool(tool, arguments)
                got = (result.structured_content, result.content[0].text if result.content else "")
                if result.is_error or got != expected[n]:
                    mismatches.append(f"client {seed}, {tool}({arguments})")
                done += 1

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for seed in range(CLIENTS):
                group.start_soon(client, seed)
    assert done == CLIENTS * CALLS_PER_CLIENT
    assert not mismatches, mismatches
