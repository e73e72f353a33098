"""The MCP server, driven by the official SDK's client: in process, over stdio and over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

import docwheel
from docwheel.build import build_from_file
from docwheel.server import create_server

from helpers import site_config

TOOLS = {"search_docs", "read_doc", "list_docs"}
HIT_FIELDS = {"ref", "title", "url", "source", "section", "snippet", "score"}
READY_TIMEOUT = 20.0  # seconds a server subprocess gets to start listening


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("server")
    out = root / "index"
    build_from_file(site_config(root), out, version="2026.11.01")
    return out


@pytest.fixture(scope="module")
def docs(index_dir: Path) -> Iterator[docwheel.DocIndex]:
    with docwheel.open_index(index_dir) as index:
        yield index


@pytest.fixture
async def client(docs: docwheel.DocIndex):
    async with Client(create_server(docs)) as connected:
        yield connected


async def call_ok(client: Client, tool: str, arguments: dict) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def call_error(client: Client, tool: str, arguments: dict) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert text.strip() and "Traceback" not in text
    return text


# -- tools and schemas -------------------------------------------------------------------


@pytest.mark.anyio
async def test_tools_are_read_only_idempotent_and_have_output_schemas(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.idempotent_hint is True
        assert tool.annotations.destructive_hint is not True
        assert tool.annotations.open_world_hint is False
        assert tool.description and tool.description.strip()
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    search = tools["search_docs"]
    assert search.input_schema["required"] == ["query"]
    assert set(search.output_schema["required"]) == {"query", "total", "results", "warnings"}
    assert tools["read_doc"].input_schema["required"] == ["ref"]
    assert set(tools["read_doc"].output_schema["required"]) >= {"ref", "url", "text"}
    assert set(tools["list_docs"].output_schema["required"]) == {"total", "pages"}


@pytest.mark.anyio
async def test_limit_schema_is_bounded_1_to_20(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    limit = tools["search_docs"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 20, 5)


@pytest.mark.anyio
async def test_source_parameter_describes_the_valid_sources(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    description = tools["search_docs"].input_schema["properties"]["source"]["description"]
    assert "site" in description and "platform" in description


@pytest.mark.anyio
async def test_instructions_say_search_read_and_cite_the_url(client):
    instructions = client.instructions
    assert instructions
    assert "acme-docs" in instructions
    for words in ("search_docs", "read_doc", "list_docs", "cite the url"):
        assert words in instructions.lower()


# -- search_docs -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_search_docs_returns_structured_hits_with_the_answer_first(client):
    data = await call_ok(client, "search_docs", {"query": "rotate signing keys"})
    assert data["query"] == "rotate signing keys"
    assert data["total"] >= 1 and data["warnings"] == []
    top = data["results"][0]
    assert set(top) == HIT_FIELDS  # no `text: null` on every hit without full_text
    assert top["ref"] == "site:guides/configure#rotating-api-keys"
    assert top["title"] == "Configuration"
    assert top["url"] == "https://acme.example/docs/guides/configure#rotating-api-keys"
    assert top["source"] == "site"
    assert top["section"] == "Configuration > Rotating API keys"
    assert "**rotate**" in top["snippet"]
    assert isinstance(top["score"], float)


@pytest.mark.anyio
async def test_search_docs_full_text_carries_the_section_text(client):
    data = await call_ok(client, "search_docs", {"query": "permission denied", "full_text": True})
    top = data["results"][0]
    assert set(top) == HIT_FIELDS | {"text"}
    assert "acme doctor" in top["text"]


@pytest.mark.anyio
async def test_search_docs_source_and_limit(client):
    data = await call_ok(client, "search_docs", {"query": "project", "source": "platform"})
    assert data["results"] and {h["source"] for h in data["results"]} == {"platform"}
    data = await call_ok(client, "search_docs", {"query": "widget docker keys refund", "limit": 2})
    assert len(data["results"]) == 2 and data["total"] > 2
    data = await call_ok(client, "search_docs", {"query": "project", "source": "all"})
    assert "platform" in {h["source"] for h in data["results"]}


@pytest.mark.anyio
async def test_search_docs_no_results_is_a_warning(client):
    data = await call_ok(client, "search_docs", {"query": "zyzzyvaqq"})
    assert data["results"] == [] and data["total"] == 0
    assert "no results" in data["warnings"][0]


# -- read_doc and list_docs --------------------------------------------------------------


@pytest.mark.anyio
async def test_read_doc_reads_a_whole_page(client):
    data = await call_ok(client, "read_doc", {"ref": "site:guides/install"})
    assert data["ref"] == "site:guides/install"
    assert data["title"] == "Installation"
    assert data["url"] == "https://acme.example/docs/guides/install"
    assert data["text"].startswith("# Installation\n")
    text = data["text"]
    assert text.index("## With pip") < text.index("## With Docker") < text.index("### Docker Compose")


@pytest.mark.anyio
async def test_read_doc_reads_one_section(client):
    data = await call_ok(client, "read_doc", {"ref": "site:guides/install#docker-compose"})
    assert data["section"] == "Installation > With Docker > Docker Compose"
    assert data["url"] == "https://acme.example/docs/guides/install#docker-compose"
    assert data["text"].startswith("### Docker Compose")
    assert "Run the official image" not in data["text"]


@pytest.mark.anyio
async def test_every_search_result_ref_can_be_read(client):
    data = await call_ok(client, "search_docs", {"query": "widget docker keys refund", "limit": 20})
    for hit in data["results"]:
        assert (await call_ok(client, "read_doc", {"ref": hit["ref"]}))["text"]


@pytest.mark.anyio
async def test_list_docs_lists_every_page_with_its_outline(client, docs):
    data = await call_ok(client, "list_docs", {})
    pages = {page["ref"]: page for page in data["pages"]}
    assert data["total"] == len(pages) == docs.manifest["pages"]
    assert {page["source"] for page in pages.values()} == {"site", "platform"}
    install = pages["site:guides/install"]
    assert install["description"] == "Install the Acme toolkit with pip or Docker."
    assert [s["heading"] for s in install["sections"]] == ["With pip", "With Docker", "Docker Compose"]
    assert [s["level"] for s in install["sections"]] == [2, 2, 3]
    assert install["sections"][2]["ref"] == "site:guides/install#docker-compose"


@pytest.mark.anyio
async def test_list_docs_filters_by_source(client):
    data = await call_ok(client, "list_docs", {"source": "platform"})
    assert data["pages"] and {page["source"] for page in data["pages"]} == {"platform"}
    assert data["total"] == len(data["pages"])


# -- errors are tool errors with a message the model can act on -------------------------


@pytest.mark.anyio
async def test_unknown_ref_names_it_and_suggests_close_refs(client):
    message = await call_error(client, "read_doc", {"ref": "site:guides/instal"})
    assert "site:guides/instal'" in message
    assert "did you mean" in message and "site:guides/install" in message


@pytest.mark.anyio
@pytest.mark.parametrize("ref", ["", "no-colon-here", "nope:guides/install", "site:guides/install#nowhere"])
async def test_malformed_or_missing_refs_are_tool_errors(client, ref):
    message = await call_error(client, "read_doc", {"ref": ref})
    assert "unknown ref" in message


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["search_docs", "list_docs"])
async def test_unknown_source_lists_the_valid_ones(client, tool):
    arguments = {"query": "widget", "source": "nope"} if tool == "search_docs" else {"source": "nope"}
    message = await call_error(client, tool, arguments)
    assert "unknown source 'nope'" in message
    assert "all, site, platform" in message


@pytest.mark.anyio
@pytest.mark.parametrize("query", ["", "   ", "*"])
async def test_queries_without_words_are_tool_errors(client, query):
    message = await call_error(client, "search_docs", {"query": query})
    assert "query" in message


@pytest.mark.anyio
@pytest.mark.parametrize("limit", [0, 21, -1])
async def test_limit_out_of_bounds_is_a_tool_error(client, limit):
    message = await call_error(client, "search_docs", {"query": "widget", "limit": limit})
    assert "limit" in message


@pytest.mark.anyio
async def test_missing_argument_is_a_tool_error(client):
    message = await call_error(client, "search_docs", {})
    assert "query" in message


@pytest.mark.anyio
@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "(widget", "NOT NOT x", "a NOT NOT b", "NOT OR x", "x" * 5000, "widget " * 700],
    ids=["quote", "paren", "not-not", "a-not-not-b", "not-or", "5000-chars", "many-words"],
)
async def test_malformed_queries_return_results_or_a_clean_tool_error(client, query):
    result = await client.call_tool("search_docs", {"query": query})
    if result.is_error:
        text = result.content[0].text
        assert text.strip() and "Traceback" not in text and "IndexError" not in text
    else:
        assert isinstance(result.structured_content["total"], int)
        assert isinstance(result.structured_content["results"], list)


@pytest.mark.anyio
async def test_the_server_keeps_answering_after_errors(client):
    await call_error(client, "search_docs", {"query": "NOT NOT"})
    await call_error(client, "read_doc", {"ref": "x"})
    data = await call_ok(client, "search_docs", {"query": "docker"})
    assert data["results"]


@pytest.mark.anyio
async def test_concurrent_tool_calls_match_sequential_answers(client):
    # Plain-def tools run on worker threads; answers must not depend on interleaving.
    queries = ["rotate keys", "docker", "refund", "hydration error", "config file", "deploy"] * 5
    expected = {q: await call_ok(client, "search_docs", {"query": q}) for q in set(queries)}
    answers: list[tuple[str, dict]] = []

    async def ask(query: str) -> None:
        answers.append((query, await call_ok(client, "search_docs", {"query": query})))

    async with anyio.create_task_group() as group:
        for query in queries:
            group.start_soon(ask, query)
    assert len(answers) == len(queries)
    assert all(answer == expected[query] for query, answer in answers)


# -- real transports ---------------------------------------------------------------------


def _server_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("no_proxy", "NO_PROXY"):
        env[name] = "127.0.0.1,localhost"
    return env


@pytest.mark.anyio
async def test_stdio_subprocess_searches_and_reads(index_dir, tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docwheel", "serve", "--index", str(index_dir)],
        env=_server_env(),
    )
    errlog = tmp_path / "stderr.txt"
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as stdio:
            assert "cite the url" in (stdio.instructions or "").lower()
            data = await call_ok(stdio, "search_docs", {"query": "rotate signing keys"})
            assert data["results"][0]["ref"] == "site:guides/configure#rotating-api-keys"
            page = await call_ok(stdio, "read_doc", {"ref": data["results"][0]["ref"]})
            assert "acme.keys.rotate" in page["text"]
            await call_error(stdio, "read_doc", {"ref": "site:nowhere"})
    assert "Traceback" not in errlog.read_text()


def test_serve_with_a_missing_index_fails_at_once_with_one_line(tmp_path):
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "docwheel", "serve", "--index", str(tmp_path / "nonexistent")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env=_server_env(),
    )
    assert proc.returncode == 1
    assert proc.stdout == ""  # stdout is the MCP channel: nothing but protocol goes there
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("docwheel: error: ") and "does not exist" in lines[0]
    assert time.monotonic() - started < 10


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_listening(proc: subprocess.Popen, port: int, stderr: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{stderr.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"server did not listen on port {port} within {READY_TIMEOUT}s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def http_server(index_dir, tmp_path, monkeypatch) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    for name in ("no_proxy", "NO_PROXY"):  # the client must not route loopback via a proxy
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    port = _free_port()
    stderr = tmp_path / "http-stderr.txt"
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "docwheel", "serve", "--http", "--port", str(port),
             "--index", str(index_dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=_server_env(),
        )
    try:
        _wait_until_listening(proc, port, stderr)
        yield f"http://127.0.0.1:{port}/mcp", proc, stderr
    finally:
        _stop(proc)


@pytest.mark.anyio
async def test_streamable_http_subprocess_searches_and_stops_cleanly(http_server):
    url, proc, stderr = http_server
    async with Client(url) as remote:
        assert "cite the url" in (remote.instructions or "").lower()
        data = await call_ok(remote, "search_docs", {"query": "docker compose", "limit": 3})
        assert data["results"][0]["ref"].startswith("site:guides/install")
        await call_error(remote, "search_docs", {"query": "*"})
    _stop(proc)
    log = stderr.read_text()
    # SIGTERM: uvicorn shuts down gracefully, then re-raises the signal for the supervisor.
    assert proc.returncode in (0, -signal.SIGTERM), log
    assert "shutdown complete" in log.lower() and "Traceback" not in log


def test_http_port_in_use_is_one_clean_error(index_dir):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "docwheel", "serve", "--http", "--port", str(port),
             "--index", str(index_dir)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
            env=_server_env(),
        )
    assert proc.returncode == 1
    assert proc.stderr.startswith("docwheel: error: ") and str(port) in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
