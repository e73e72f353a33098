"""The MCP server, driven by the official SDK's client: in process and over stdio.

HTTP is in test_http.py. Paging runs through a generated corpus of several hundred pages,
larger than one answer at the default budget.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

import docwheel
from docwheel.build import build_from_file
from docwheel.paging import estimate_tokens, json_tokens, make_cursor, snapshot_id
from docwheel.server import RESOURCES_PER_LIST, create_server

from helpers import site_config, write_config

TOOLS = {"search_docs", "read_doc", "list_docs", "describe_docs"}
HIT_FIELDS = {"ref", "title", "url", "source", "section", "snippet", "score", "type"}
PAGED = {"truncated", "next_cursor"}
BIG_PAGES = 620  # more than one resources/list answer and many list_docs answers


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


def _long_page() -> str:
    """A page much larger than one answer: prose sections, code, one huge code block."""
    parts = [
        "---\ntitle: Long guide\ndescription: Everything at once.\n---\n\n"
        "# Long guide\n\nOverview.\n"
    ]
    for n in range(40):
        prose = " ".join(
            f"Step {n}.{i} explains the frobnicator setting number {i}." for i in range(12)
        )
        parts.append(f"\n## Part {n}\n\n{prose}\n\n```python\n# part {n}\n\nfrob({n})\n```\n")
    huge = "".join(
        f"config_{i} = load('settings-{i}.toml')\n" + ("\n" if i % 9 == 0 else "")
        for i in range(400)
    )
    parts.append(f"\n## Huge listing\n\n```python\n{huge}```\n\nThe end.\n")
    return "".join(parts)


@pytest.fixture(scope="module")
def big_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    site = root / "site"
    for i in range(BIG_PAGES):
        folder = site / f"area{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page{i}.md").write_text(
            f"---\ntitle: Page {i}\ndescription: Synthetic page number {i}.\n---\n\n# Page {i}\n\n"
            f"Synthetic intro of page {i} about gadget{i}.\n\n"
            f"## Setup {i}\n\nRun `tool{i} --setup`.\n\n"
            f"## Usage {i}\n\nSynthetic usage notes for gadget{i}.\n",
            encoding="utf-8",
        )
    (site / "long.md").write_text(_long_page(), encoding="utf-8")
    many = "".join(f"\n## Topic {n}\n\nAbout topic {n}.\n" for n in range(150))
    (site / "outline.md").write_text(
        f"# Many sections\n\nThe widest outline.\n{many}", encoding="utf-8"
    )
    config = write_config(
        root,
        f"name: big-docs\nsources:\n  - name: site\n    kind: markdown\n    path: {site}\n"
        "    base_url: https://big.example/\n",
    )
    build_from_file(config, root / "index", version="1.0", progress=lambda _m: None)
    return root / "index"


@pytest.fixture(scope="module")
def big(big_dir: Path) -> Iterator[docwheel.DocIndex]:
    with docwheel.open_index(big_dir) as index:
        yield index


@pytest.fixture
async def big_client(big: docwheel.DocIndex):
    async with Client(create_server(big)) as connected:
        yield connected


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def call_ok(client: Client, tool: str, arguments: dict) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def call_error(client: Client, tool: str, arguments: dict) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = text_of(result)
    assert text.strip() and "Traceback" not in text
    return text


async def call_within(
    client: Client, tool: str, arguments: dict, max_tokens: int
) -> tuple[dict, str]:
    """Call with ``max_tokens``; both the text and the structured answer must fit it."""
    result = await client.call_tool(tool, {**arguments, "max_tokens": max_tokens})
    assert not result.is_error, text_of(result)
    text = text_of(result)
    assert estimate_tokens(text) <= max_tokens, (tool, estimate_tokens(text))
    assert json_tokens(result.structured_content) <= max_tokens, (
        tool,
        json_tokens(result.structured_content),
    )
    return result.structured_content, text


async def follow(client: Client, tool: str, arguments: dict, max_tokens: int) -> list[dict]:
    """Every answer of a paged call, following next_cursor to the end."""
    answers: list[dict] = []
    cursor = None
    while True:
        data, _text = await call_within(client, tool, {**arguments, "cursor": cursor}, max_tokens)
        answers.append(data)
        assert data["truncated"] is (data["next_cursor"] is not None)
        if not data["truncated"]:
            return answers
        cursor = data["next_cursor"]
        assert len(answers) < 500


# -- tools and schemas -------------------------------------------------------------------


@pytest.mark.anyio
async def test_tools_are_read_only_idempotent_closed_world_with_titles_and_output_schemas(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.idempotent_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.annotations.open_world_hint is False
        assert tool.title and tool.description and tool.description.strip()
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert PAGED <= set(tool.output_schema["required"])
        properties = tool.input_schema["properties"]
        assert properties["max_tokens"]["default"] == 8000
        assert (properties["max_tokens"]["minimum"], properties["max_tokens"]["maximum"]) == (
            500,
            20000,
        )
        assert "cursor" in properties and "cursor" not in tool.input_schema.get("required", [])
    search = tools["search_docs"]
    assert search.input_schema["required"] == ["query"]
    assert (
        set(search.output_schema["required"])
        == {"query", "total", "start", "results", "warnings"} | PAGED
    )
    assert tools["read_doc"].input_schema["required"] == ["ref"]
    assert set(tools["read_doc"].output_schema["required"]) >= {"ref", "url", "text"}
    assert set(tools["list_docs"].output_schema["required"]) >= {"total", "pages"}
    assert set(tools["describe_docs"].output_schema["required"]) >= {
        "name",
        "version",
        "built_at",
        "sources",
    }


@pytest.mark.anyio
async def test_descriptions_tell_the_model_when_to_use_the_tool_and_to_cite_the_url(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "use it first" in tools["search_docs"].description.lower()
    for name in ("search_docs", "read_doc"):
        assert "cite the url" in tools[name].description.lower()
    for name in ("read_doc", "list_docs"):
        assert "next_cursor" in tools[name].description


@pytest.mark.anyio
async def test_limit_schema_is_bounded_1_to_20(client):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    limit = tools["search_docs"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 20, 5)


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["search_docs", "list_docs"])
async def test_source_is_an_enum_of_the_index_sources(client, tool):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    source = tools[tool].input_schema["properties"]["source"]
    assert source["enum"] == ["all", "site", "platform"]
    assert source["default"] == "all"
    assert "site" in source["description"] and "platform" in source["description"]


@pytest.mark.anyio
async def test_instructions_say_search_read_cite_and_continue(client):
    instructions = client.instructions
    assert instructions and "acme-docs 2026.11.01" in instructions
    for words in (
        "search_docs",
        "read_doc",
        "list_docs",
        "describe_docs",
        "cite the url",
        "next_cursor",
    ):
        assert words in instructions.lower()


def test_unknown_tool_set_is_refused(docs):
    with pytest.raises(ValueError, match="search-fetch"):
        create_server(docs, tools="everything")


# -- search_docs -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_search_docs_returns_structured_hits_with_the_answer_first(client):
    data = await call_ok(client, "search_docs", {"query": "rotate signing keys"})
    assert data["query"] == "rotate signing keys"
    assert data["total"] >= 1 and data["warnings"] == [] and data["start"] == 0
    assert data["truncated"] is False and data["next_cursor"] is None
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
async def test_search_docs_text_is_a_readable_rendering_not_json(client):
    result = await client.call_tool("search_docs", {"query": "rotate signing keys"})
    text = text_of(result)
    assert not text.lstrip().startswith("{")
    lines = text.splitlines()
    assert lines[0].startswith(
        "Search 'rotate signing keys' in acme-docs 2026.11.01 (all sources):"
    )
    assert "[1] Configuration > Rotating API keys" in lines
    assert "url: https://acme.example/docs/guides/configure#rotating-api-keys" in lines
    assert "ref: site:guides/configure#rotating-api-keys" in lines
    assert "**rotate**" in text


@pytest.mark.anyio
async def test_search_docs_names_a_pages_other_versions_instead_of_repeating_it(tmp_path):
    site = tmp_path / "site"
    for folder in ("", "v2/"):
        (site / folder / "guides").mkdir(parents=True)
        (site / folder / "guides" / "keys.md").write_text(
            "# Keys\n\nRotate signing keys with `acme keys rotate`.\n"
        )
    config = write_config(tmp_path, f"name: acme\nsources:\n  - name: site\n    kind: markdown\n    path: {site}\n")
    build_from_file(config, tmp_path / "index")
    with docwheel.open_index(tmp_path / "index") as index:
        async with Client(create_server(index)) as connected:
            data = await call_ok(connected, "search_docs", {"query": "rotate signing keys"})
            text = text_of(await connected.call_tool("search_docs", {"query": "rotate signing keys"}))
    assert [hit["ref"] for hit in data["results"]] == ["site:guides/keys"]
    assert data["results"][0]["other_versions"] == ["site:v2/guides/keys"]
    assert data["total"] == 1
    assert "other versions: site:v2/guides/keys" in text.splitlines()


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
    assert data["truncated"] is False  # more matches than `limit` is not truncation
    data = await call_ok(client, "search_docs", {"query": "project", "source": "all"})
    assert "platform" in {h["source"] for h in data["results"]}


@pytest.mark.anyio
async def test_search_docs_no_results_says_what_was_searched_and_how_to_widen(client):
    result = await client.call_tool("search_docs", {"query": "zyzzyvaqq"})
    data = result.structured_content
    assert data["results"] == [] and data["total"] == 0
    assert (
        "no results for 'zyzzyvaqq'" in data["warnings"][0]
        and "more general" in data["warnings"][0]
    )
    assert "no matching pages" in text_of(result) and "Note: no results" in text_of(result)
    narrow = await call_ok(client, "search_docs", {"query": "zyzzyvaqq", "source": "platform"})
    assert any("source='all'" in warning for warning in narrow["warnings"])


# -- read_doc, list_docs, describe_docs --------------------------------------------------


@pytest.mark.anyio
async def test_read_doc_reads_a_whole_page(client):
    result = await client.call_tool("read_doc", {"ref": "site:guides/install"})
    data = result.structured_content
    assert data["ref"] == "site:guides/install"
    assert data["title"] == "Installation"
    assert data["url"] == "https://acme.example/docs/guides/install"
    assert data["text"].startswith("# Installation\n")
    assert data["truncated"] is False and data["next_cursor"] is None
    text = data["text"]
    assert (
        text.index("## With pip") < text.index("## With Docker") < text.index("### Docker Compose")
    )
    rendered = text_of(result)
    assert rendered.startswith(
        "Installation\nurl: https://acme.example/docs/guides/install\n"
        "ref: site:guides/install\ntype: guide\n\n# Installation\n"
    )


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
    result = await client.call_tool("list_docs", {})
    data = result.structured_content
    pages = {page["ref"]: page for page in data["pages"]}
    assert data["total"] == len(pages) == docs.manifest["pages"]
    assert data["truncated"] is False and data["warnings"] == []
    assert {page["source"] for page in pages.values()} == {"site", "platform"}
    install = pages["site:guides/install"]
    assert install["description"] == "Install the Acme toolkit with pip or Docker."
    assert [s["heading"] for s in install["sections"]] == [
        "With pip",
        "With Docker",
        "Docker Compose",
    ]
    assert [s["level"] for s in install["sections"]] == [2, 2, 3]
    assert install["sections"][2]["ref"] == "site:guides/install#docker-compose"
    text = text_of(result)
    assert (
        "Installation [site:guides/install] (guide)\n  https://acme.example/docs/guides/install\n"
        in text
    )
    assert "      - Docker Compose [#docker-compose]\n" in text


@pytest.mark.anyio
async def test_list_docs_filters_by_source(client):
    data = await call_ok(client, "list_docs", {"source": "platform"})
    assert data["pages"] and {page["source"] for page in data["pages"]} == {"platform"}
    assert data["total"] == len(data["pages"])


@pytest.mark.anyio
async def test_describe_docs_names_the_snapshot_and_every_source(client, docs):
    result = await client.call_tool("describe_docs", {})
    data = result.structured_content
    manifest = docs.manifest
    assert data["name"] == "acme-docs" and data["version"] == "2026.11.01"
    assert data["description"] == "Test docs"
    assert data["built_at"] == manifest["built_at"]
    assert data["docwheel_version"] == manifest["docwheel_version"]
    assert data["server_version"] == docwheel.__version__
    assert (data["pages"], data["sections"]) == (manifest["pages"], manifest["sections"])
    assert [s["name"] for s in data["sources"]] == ["site", "platform"]
    for got, expected in zip(data["sources"], manifest["sources"], strict=True):
        for key in (
            "kind",
            "sha256",
            "bytes",
            "pages",
            "sections",
            "fetched_at",
            "path",
            "url",
            "layout",
        ):
            assert got.get(key) == expected.get(key), key
    text = text_of(result)
    assert text.startswith("acme-docs 2026.11.01: Test docs\n")
    assert "source site (markdown" in text and manifest["sources"][0]["sha256"] in text


def test_describe_docs_counts_url_lists_and_caps_warnings(index_dir, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(index_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["sources"][0].pop("path", None)
    manifest["sources"][0]["urls"] = [f"https://acme.example/docs/p{i}.md" for i in range(3000)]
    manifest["sources"][0]["warnings"] = [f"skipped p{i}.md: empty" for i in range(40)]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    async def describe() -> tuple[dict, str]:
        with docwheel.open_index(copy) as index:
            async with Client(create_server(index)) as connected:
                return await call_within(connected, "describe_docs", {}, 1000)

    data, text = anyio.run(describe)
    site = data["sources"][0]
    assert site["urls"] == 3000 and "path" not in site
    assert len(site["warnings"]) == 11 and site["warnings"][-1].startswith("… 30 more")
    assert "source site (markdown" in text and "3000 URLs" in text


# -- resources ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_pages_are_resources_with_a_template(client, docs):
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["docs://{source}/{+path}"]
    assert templates[0].mime_type == "text/markdown"
    listed = await client.list_resources()
    uris = [r.uri for r in listed.resources]
    assert len(uris) == docs.manifest["pages"] and listed.next_cursor is None
    assert "docs://site/guides/install" in uris and "docs://platform/billing" in uris
    install = next(r for r in listed.resources if r.uri == "docs://site/guides/install")
    assert install.title == "Installation" and install.name == "site:guides/install"
    page = await client.read_resource("docs://site/guides/install")
    assert page.contents[0].mime_type == "text/markdown"
    assert page.contents[0].text == docs.read("site:guides/install").text


@pytest.mark.anyio
async def test_unknown_page_resource_is_an_error_that_suggests(client):
    with pytest.raises(MCPError, match="did you mean site:guides/install"):
        await client.read_resource("docs://site/guides/instal")
    with pytest.raises(MCPError):
        await client.read_resource("docs://site/../secrets")


@pytest.mark.anyio
async def test_resources_list_pages_through_a_large_index(big_client, big):
    first = await big_client.list_resources()
    assert len(first.resources) == RESOURCES_PER_LIST and first.next_cursor
    second = await big_client.list_resources(cursor=first.next_cursor)
    assert second.next_cursor is None
    uris = [r.uri for r in first.resources + second.resources]
    assert len(uris) == len(set(uris)) == big.manifest["pages"]
    page = await big_client.read_resource("docs://site/area3/page13")
    assert page.contents[0].text.startswith("# Page 13\n")
    with pytest.raises(MCPError, match="invalid cursor"):
        await big_client.list_resources(cursor="dw1.nonsense")


# -- paging: every answer within max_tokens, cursors that continue it --------------------


@pytest.mark.anyio
async def test_list_docs_pages_through_hundreds_of_pages(big_client, big):
    answers = await follow(big_client, "list_docs", {}, 2000)
    assert len(answers) > 5
    refs = [page["ref"] for answer in answers for page in answer["pages"]]
    assert len(refs) == len(set(refs)) == big.manifest["pages"]
    assert [a["start"] for a in answers] == [
        sum(len(b["pages"]) for b in answers[:n]) for n in range(len(answers))
    ]
    assert {a["total"] for a in answers} == {big.manifest["pages"]}
    # The default budget still needs several answers for this index.
    assert (await call_ok(big_client, "list_docs", {}))["truncated"] is True


@pytest.mark.anyio
async def test_list_docs_text_says_how_to_continue(big_client):
    result = await big_client.call_tool("list_docs", {"max_tokens": 1000})
    data = result.structured_content
    text = text_of(result)
    assert text.startswith(
        f"Pages of big-docs 1.0 (all sources): 1-{len(data['pages'])} of {data['total']}."
    )
    assert f'cursor="{data["next_cursor"]}"' in text and "same arguments" in text


@pytest.mark.anyio
async def test_an_outline_larger_than_the_answer_is_cut_with_a_warning(big_client, big):
    pages = [p.ref for p in big.outline()]
    position = pages.index("site:outline")
    cursor = make_cursor("list_docs", {"source": "all"}, position, snapshot_id(big.manifest))
    data, _text = await call_within(big_client, "list_docs", {"cursor": cursor}, 600)
    assert data["pages"][0]["ref"] == "site:outline"
    assert 0 < len(data["pages"][0]["sections"]) < 150
    assert (
        "outline of site:outline was cut" in data["warnings"][0]
        and "read_doc" in data["warnings"][0]
    )
    assert data["start"] == position and data["truncated"] is (position + 1 < len(pages))


@pytest.mark.anyio
async def test_read_doc_pages_a_long_page_and_never_leaves_code_open(big_client, big):
    full = big.read("site:long").text
    assert estimate_tokens(full) > 8000  # more than one answer at the default budget
    answers = await follow(big_client, "read_doc", {"ref": "site:long"}, 1500)
    assert len(answers) > 8
    parts = [a["text"] for a in answers]
    for part in parts:
        assert part.count("```") % 2 == 0, part[-200:]
    joined = "".join(parts).replace("```\n```python\n", "")
    assert joined == full
    first = await big_client.call_tool("read_doc", {"ref": "site:long", "max_tokens": 1500})
    assert "To continue, call read_doc again with ref='site:long' and cursor=" in text_of(first)
    second = await big_client.call_tool(
        "read_doc",
        {"ref": "site:long", "max_tokens": 1500, "cursor": first.structured_content["next_cursor"]},
    )
    assert text_of(second).startswith("Long guide (continued)\n")


@pytest.mark.anyio
async def test_search_docs_pages_full_text_results_within_the_budget(big_client):
    arguments = {"query": "synthetic gadget", "limit": 20, "full_text": True}
    whole = await call_ok(big_client, "search_docs", {**arguments, "max_tokens": 20000})
    assert len(whole["results"]) == 20 and not whole["truncated"]
    answers = await follow(big_client, "search_docs", arguments, 500)
    assert len(answers) > 2
    assert [h["ref"] for a in answers for h in a["results"]] == [h["ref"] for h in whole["results"]]
    assert [a["start"] for a in answers][:2] == [0, len(answers[0]["results"])]


@pytest.mark.anyio
async def test_a_section_larger_than_the_answer_is_cut_with_a_warning(big_client):
    data, text = await call_within(
        big_client,
        "search_docs",
        {"query": "config_250 huge listing", "limit": 1, "full_text": True},
        800,
    )
    top = data["results"][0]
    assert top["ref"] == "site:long#huge-listing"
    assert top["text"].count("```") % 2 == 0
    assert any("site:long#huge-listing was cut" in w and "read_doc" in w for w in data["warnings"])


@pytest.mark.anyio
async def test_describe_docs_fits_a_small_budget(big_client):
    data, _text = await call_within(big_client, "describe_docs", {}, 500)
    assert data["name"] == "big-docs" and len(data["sources"]) == 1 and not data["truncated"]


# -- cursor errors -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_bad_cursors_are_tool_errors_that_say_what_to_do(big_client, big):
    listed = await call_ok(big_client, "list_docs", {"max_tokens": 1000})
    cursor = listed["next_cursor"]
    message = await call_error(big_client, "search_docs", {"query": "gadget", "cursor": cursor})
    assert "continues list_docs, not search_docs" in message
    message = await call_error(big_client, "list_docs", {"source": "site", "cursor": cursor})
    assert "other arguments" in message
    message = await call_error(
        big_client, "read_doc", {"ref": "site:long", "cursor": "dw1.garbage"}
    )
    assert "invalid cursor" in message and "without cursor" in message
    stale = make_cursor("list_docs", {"source": "all"}, 5, "0" * 12)
    assert "another docs snapshot" in await call_error(big_client, "list_docs", {"cursor": stale})
    past = make_cursor("read_doc", {"ref": "site:long"}, 10**7, snapshot_id(big.manifest))
    assert "past the end" in await call_error(
        big_client, "read_doc", {"ref": "site:long", "cursor": past}
    )
    # The server keeps answering, and the original cursor still works.
    assert (await call_ok(big_client, "list_docs", {"max_tokens": 1000, "cursor": cursor}))[
        "start"
    ] > 0


@pytest.mark.anyio
@pytest.mark.parametrize("max_tokens", [0, 499, 20001])
async def test_max_tokens_out_of_bounds_is_a_tool_error(client, max_tokens):
    message = await call_error(
        client, "read_doc", {"ref": "site:guides/install", "max_tokens": max_tokens}
    )
    assert "max_tokens" in message


# -- errors are tool errors with a message the model can act on -------------------------


@pytest.mark.anyio
async def test_unknown_ref_names_it_and_suggests_close_refs(client):
    message = await call_error(client, "read_doc", {"ref": "site:guides/instal"})
    assert "site:guides/instal'" in message
    assert "did you mean" in message and "site:guides/install" in message


@pytest.mark.anyio
@pytest.mark.parametrize(
    "ref", ["", "no-colon-here", "nope:guides/install", "site:guides/install#nowhere"]
)
async def test_malformed_or_missing_refs_are_tool_errors(client, ref):
    message = await call_error(client, "read_doc", {"ref": ref})
    assert "unknown ref" in message


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["search_docs", "list_docs"])
async def test_unknown_source_lists_the_valid_ones(client, tool):
    arguments = (
        {"query": "widget", "source": "nope"} if tool == "search_docs" else {"source": "nope"}
    )
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
        text = text_of(result)
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


# -- search and fetch: the two-tool convention ---------------------------------------------


@pytest.fixture
async def pair(docs: docwheel.DocIndex):
    async with Client(create_server(docs, tools="search-fetch")) as connected:
        yield connected


@pytest.mark.anyio
async def test_search_fetch_exposes_exactly_search_and_fetch(pair):
    tools = {tool.name: tool for tool in (await pair.list_tools()).tools}
    assert set(tools) == {"search", "fetch"}
    assert tools["search"].input_schema["required"] == ["query"]
    assert list(tools["search"].input_schema["properties"]) == ["query"]
    assert list(tools["fetch"].input_schema["properties"]) == ["id"]
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False


@pytest.mark.anyio
async def test_search_returns_ids_titles_and_urls_as_one_json_text(pair):
    result = await pair.call_tool("search", {"query": "rotate signing keys"})
    data = result.structured_content
    assert set(data) == {"results"}
    assert data["results"][0] == {
        "id": "site:guides/configure#rotating-api-keys",
        "title": "Configuration > Rotating API keys",
        "url": "https://acme.example/docs/guides/configure#rotating-api-keys",
    }
    assert len(result.content) == 1 and json.loads(result.content[0].text) == data


@pytest.mark.anyio
async def test_fetch_returns_the_document_for_a_search_id(pair):
    hits = (await call_ok(pair, "search", {"query": "docker compose"}))["results"]
    result = await pair.call_tool("fetch", {"id": hits[0]["id"]})
    data = result.structured_content
    assert set(data) == {"id", "title", "text", "url", "metadata"}
    assert data["id"] == hits[0]["id"] and data["url"] == hits[0]["url"]
    assert data["text"].startswith("### Docker Compose")
    assert data["metadata"]["source"] == "site" and "truncated" not in data["metadata"]
    assert json.loads(result.content[0].text) == data
    page = await call_ok(pair, "fetch", {"id": "site:guides/install"})
    assert page["text"].startswith("# Installation")


@pytest.mark.anyio
async def test_fetch_and_search_errors_are_tool_errors(pair):
    assert "did you mean" in await call_error(pair, "fetch", {"id": "site:guides/instal"})
    assert "invalid cursor" in await call_error(pair, "fetch", {"id": "dw1.bogus"})
    assert "query" in await call_error(pair, "search", {"query": "  "})
    assert (await call_ok(pair, "search", {"query": "zyzzyvaqq"}))["results"] == []


@pytest.mark.anyio
async def test_fetch_continues_a_long_document_with_next_id(big):
    async with Client(create_server(big, tools="search-fetch")) as pair:
        parts, document_id = [], "site:long"
        while document_id:
            data = await call_ok(pair, "fetch", {"id": document_id})
            assert json_tokens(data) <= 8000
            parts.append(data["text"])
            document_id = data["metadata"].get("next_id")
            assert data["metadata"].get("truncated", False) is bool(document_id)
    assert len(parts) > 1
    assert "".join(parts).replace("```\n```python\n", "") == big.read("site:long").text


# -- stdio ---------------------------------------------------------------------------------


def _server_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("no_proxy", "NO_PROXY"):
        env[name] = "127.0.0.1,localhost"
    return env


@pytest.mark.anyio
async def test_stdio_subprocess_runs_every_tool(index_dir, tmp_path):
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
            listed = await call_ok(stdio, "list_docs", {"max_tokens": 500})
            assert listed["truncated"] is True
            rest = await call_ok(
                stdio, "list_docs", {"max_tokens": 500, "cursor": listed["next_cursor"]}
            )
            assert rest["start"] == len(listed["pages"])
            assert (await call_ok(stdio, "describe_docs", {}))["version"] == "2026.11.01"
            assert "invalid cursor" in await call_error(stdio, "list_docs", {"cursor": "dw1.x"})
            await call_error(stdio, "read_doc", {"ref": "site:nowhere"})
            resource = await stdio.read_resource("docs://platform/billing")
            assert "Refunds" in resource.contents[0].text
    assert "Traceback" not in errlog.read_text()


@pytest.mark.anyio
async def test_stdio_subprocess_serves_search_fetch(index_dir, tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docwheel", "serve", "--tools", "search-fetch", "--index", str(index_dir)],
        env=_server_env(),
    )
    with (tmp_path / "stderr.txt").open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as stdio:
            assert {tool.name for tool in (await stdio.list_tools()).tools} == {"search", "fetch"}
            hit = (await call_ok(stdio, "search", {"query": "refund unused seats"}))["results"][0]
            assert hit["id"] == "platform:billing#refunds"
            assert "30 days" in (await call_ok(stdio, "fetch", {"id": hit["id"]}))["text"]


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


def test_tool_sets_and_token_variable_agree_between_cli_and_server():
    from docwheel import cli, server, web

    assert cli.TOOL_SETS == server.TOOL_SETS
    assert cli.TOKEN_ENV == web.TOKEN_ENV
    assert re.fullmatch(r"[A-Z_]+", web.TOKEN_ENV)
