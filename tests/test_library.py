"""Versions within one snapshot, and several snapshots served as one (``library``)."""

from __future__ import annotations

import json

import pytest

import docwheel
from docwheel.build import build_from_file
from docwheel.cli import main
from docwheel.errors import ConfigError, IndexLoadError, QueryError, UnknownRefError
from docwheel.library import Library, open_docs
from docwheel.versions import newest, version_key
from helpers import FIXTURES, write_config

VERSIONS = FIXTURES / "versions"


def _versioned_config(directory, order=("1.4", "2.0")):
    entries = "".join(
        f"""\
  - name: client
    kind: markdown
    path: {VERSIONS / v}
    base_url: https://acme.example/v{v}/
    version: "{v}"
"""
        for v in order
    )
    return write_config(directory, f"name: client-docs\nsources:\n{entries}")


@pytest.fixture(scope="module")
def versioned(tmp_path_factory):
    root = tmp_path_factory.mktemp("versioned")
    build_from_file(_versioned_config(root), root / "index", version="2026.11.30")
    return root / "index"


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    """A second snapshot with a different source, and one whose source name collides."""
    root = tmp_path_factory.mktemp("other")
    config = write_config(
        root,
        f"name: hooks-docs\nsources:\n  - name: hooks\n    kind: markdown\n"
        f"    path: {FIXTURES / 'other'}\n  - name: client\n    kind: markdown\n"
        f"    path: {FIXTURES / 'other'}\n",
    )
    build_from_file(config, root / "index", version="3.1")
    return root / "index"


def test_versions_order_like_people_write_them():
    assert newest(["1.4", "2.0", "1.10"]) == "2.0"
    assert newest(["1.9", "1.10"]) == "1.10"
    assert version_key("3.0rc1") < version_key("3.0") < version_key("3.0.post1")
    assert version_key("v2")[:4] == version_key("2.0")[:4]  # same release, written apart
    assert version_key("next") < version_key("0.1")
    assert newest([]) is None


def test_search_defaults_to_the_newest_version(versioned):
    with docwheel.open_index(versioned) as index:
        top = index.search("configure retries").results[0]
        text = index.read(top.ref).text
    assert top.ref == "client@2.0:retries#configure-retries"
    assert top.version == "2.0"
    assert "RetryPolicy" in text


def test_newest_is_by_version_not_by_order_in_the_sources_file(tmp_path):
    build_from_file(_versioned_config(tmp_path, ("2.0", "1.4")), tmp_path / "ix")
    with docwheel.open_index(tmp_path / "ix") as index:
        assert index.search("install pip").results[0].version == "2.0"


def test_version_pins_another_version(versioned):
    with docwheel.open_index(versioned) as index:
        pinned = index.search("configure retries", version="1.4").results
    assert pinned[0].ref == "client@1.4:retries#configure-retries"
    assert {hit.version for hit in pinned} == {"1.4"}


def test_all_versions_list_a_page_once_at_its_newest_version_naming_the_others(versioned):
    with docwheel.open_index(versioned) as index:
        everything = index.search("install", version="all", limit=10)
        only_old = index.search("disable retries max_retries=0", version="all").results
    assert [(hit.ref, hit.other_versions) for hit in everything.results] == [
        ("client@2.0:install", ("client@1.4:install",))
    ]
    assert everything.total == 1
    # A section found only in the old version is still found, and names the page's
    # newer copy.
    assert only_old[0].ref == "client@1.4:retries#disable-retries"
    assert only_old[0].other_versions == ("client@2.0:retries",)


def test_an_unknown_version_names_the_versions_there_are(versioned):
    with docwheel.open_index(versioned) as index, pytest.raises(QueryError) as caught:
        index.search("retries", version="9.9")
    assert str(caught.value) == "unknown version '9.9'; versions: 2.0, 1.4"


def test_a_page_only_in_the_old_version_is_not_found_by_default(versioned):
    with docwheel.open_index(versioned) as index:
        default = index.search("disable retries max_retries=0").results
        old = index.search("disable retries max_retries=0", version="1.4").results
    assert all(hit.version == "2.0" for hit in default)
    assert old[0].ref == "client@1.4:retries#disable-retries"


def test_outline_and_manifest_carry_versions(versioned):
    with docwheel.open_index(versioned) as index:
        newest_pages = index.outline()
        every = index.outline(version="all")
        manifest = index.manifest
        assert index.versions == {"client": ["2.0", "1.4"]}
    assert {p.version for p in newest_pages} == {"2.0"}
    assert len(every) == 2 * len(newest_pages)
    assert [(s["name"], s["version"]) for s in manifest["sources"]] == [
        ("client", "1.4"), ("client", "2.0"),
    ]
    assert manifest["version"] == "2026.11.30"


def test_sources_file_checks_versions(tmp_path):
    body = f"""\
name: x
sources:
  - name: client
    kind: markdown
    path: {VERSIONS / "1.4"}
    version: 1.10
  - name: client
    kind: markdown
    path: {VERSIONS / "2.0"}
  - name: dup
    kind: markdown
    path: {VERSIONS / "2.0"}
    version: "2"
  - name: dup
    kind: markdown
    path: {VERSIONS / "1.4"}
    version: "2"
  - name: odd
    kind: markdown
    path: {VERSIONS / "1.4"}
    version: "has space"
"""
    with pytest.raises(ConfigError) as caught:
        docwheel.config.load_config(write_config(tmp_path, body))
    text = str(caught.value)
    assert 'sources[0].version: write it in quotes (version: "1.1")' in text
    assert "sources[3].name: 'dup' version '2' is already used by sources[2]" in text
    assert "sources[4].version: 'has space' must be" in text


def test_mixing_versioned_and_unversioned_sources_of_one_name_is_refused(tmp_path):
    body = f"""\
name: x
sources:
  - name: client
    kind: markdown
    path: {VERSIONS / "1.4"}
    version: "1.4"
  - name: client
    kind: markdown
    path: {VERSIONS / "2.0"}
"""
    with pytest.raises(ConfigError) as caught:
        docwheel.config.load_config(write_config(tmp_path, body))
    assert "sources[1].version: several sources are named 'client'" in str(caught.value)


def test_a_library_merges_results_by_score_and_routes_refs(versioned, other):
    with open_docs([versioned, other]) as docs:
        assert isinstance(docs, Library)
        # The source name both snapshots use is qualified with the snapshot's name.
        assert docs.sources == ["client-docs.client", "hooks", "hooks-docs.client"]
        found = docs.search("verify webhook signatures", limit=5)
        assert found.results[0].ref == "hooks:webhooks#verify-webhook-signatures"
        scores = [hit.score for hit in found.results]
        assert scores == sorted(scores, reverse=True)
        retry = docs.search("configure retries").results[0]
        assert retry.ref == "client-docs.client@2.0:retries#configure-retries"
        assert retry.source == "client-docs.client"
        assert "RetryPolicy" in docs.read(retry.ref).text
        page = docs.read("hooks-docs.client:webhooks")
        assert page.source == "hooks-docs.client" and page.title == "Webhooks"


def test_a_word_is_reported_absent_only_when_no_snapshot_has_it(versioned, other):
    with docwheel.open_index(versioned) as alone:
        assert "'webhook' does not appear in these docs" in alone.search("webhook retries").warnings
    with open_docs([versioned, other]) as docs:
        warnings = docs.search("webhook retries zyzzyvaqq").warnings
        assert warnings == ("'zyzzyvaqq' does not appear in these docs",)


def test_a_library_filters_by_source_and_version_across_snapshots(versioned, other):
    with open_docs([versioned, other]) as docs:
        only = docs.search("retries", source="hooks", limit=10).results
        assert only and {hit.source for hit in only} == {"hooks"}
        pinned = docs.search("retries", version="1.4", limit=10).results
        assert pinned and {hit.version for hit in pinned} == {"1.4"}
        with pytest.raises(QueryError, match="unknown source 'client'; valid sources: all, "):
            docs.search("retries", source="client")
        with pytest.raises(QueryError, match=r"unknown version '7'; versions: 2.0, 1.4"):
            docs.search("retries", version="7")
        with pytest.raises(UnknownRefError):
            docs.read("client:retries")
        pages = docs.outline(source="client-docs.client", version="1.4")
        assert {p.ref for p in pages} == {"client-docs.client@1.4:retries", "client-docs.client@1.4:install"}
        assert all(e.ref.startswith("client-docs.client@1.4:") for p in pages for e in p.sections)


def test_a_library_manifest_lists_the_snapshots_with_their_versions(versioned, other):
    with open_docs([versioned, other]) as docs:
        manifest = docs.manifest
    assert [(s["name"], s["version"]) for s in manifest["snapshots"]] == [
        ("client-docs", "2026.11.30"), ("hooks-docs", "3.1"),
    ]
    assert manifest["name"] == "client-docs 2026.11.30 + hooks-docs 3.1"
    assert {s["snapshot"] for s in manifest["sources"]} == {"client-docs", "hooks-docs"}


def test_cli_searches_several_indexes_and_pins_a_version(versioned, other, capsys):
    assert main(["search", "configure retries", "--index", str(versioned), "--index", str(other),
                 "--docs-version", "1.4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["results"][0]["ref"] == "client-docs.client@1.4:retries#configure-retries"
    assert data["results"][0]["version"] == "1.4"
    assert main(["info", "--index", str(versioned), "--index", str(other)]) == 0
    out = capsys.readouterr().out
    assert "client-docs 2026.11.30\n" in out and "hooks-docs 3.1\n" in out
    assert "source client version 1.4 (markdown)" in out


def test_only_names_an_installed_docs_wheel(capsys):
    assert main(["search", "x", "--only", "no-such-docs"]) == 1
    assert "no installed docs named 'no-such-docs'; installed docs:" in capsys.readouterr().err


def test_index_and_only_together_are_refused(versioned):
    with pytest.raises(IndexLoadError, match="not both"):
        open_docs([versioned], ["acme-docs"])


# -- over MCP -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_search_docs_takes_a_version_and_describe_docs_lists_snapshots(versioned, other):
    from mcp import Client

    from docwheel.server import create_server

    with open_docs([versioned, other]) as docs:
        async with Client(create_server(docs)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = tools["search_docs"].input_schema["properties"]["version"]
            assert "client-docs.client: 2.0, 1.4" in schema["description"]
            found = await client.call_tool(
                "search_docs", {"query": "configure retries", "version": "1.4"}
            )
            top = found.structured_content["results"][0]
            assert (top["ref"], top["version"]) == (
                "client-docs.client@1.4:retries#configure-retries", "1.4"
            )
            assert "(version 1.4)" in found.content[0].text
            bad = await client.call_tool("search_docs", {"query": "retries", "version": "0.1"})
            assert bad.is_error and "unknown version '0.1'" in bad.content[0].text
            listed = await client.call_tool("list_docs", {"source": "client-docs.client"})
            assert {p["version"] for p in listed.structured_content["pages"]} == {"2.0"}
            described = await client.call_tool("describe_docs", {})
            data = described.structured_content
            assert [(s["name"], s["version"]) for s in data["snapshots"]] == [
                ("client-docs", "2026.11.30"), ("hooks-docs", "3.1"),
            ]
            assert {(s["name"], s.get("version"), s["snapshot"]) for s in data["sources"]} >= {
                ("client-docs.client", "1.4", "client-docs"), ("hooks", None, "hooks-docs"),
            }
            assert "- hooks-docs 3.1: built" in described.content[0].text
