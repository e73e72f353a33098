"""Document types (issue 18): where a page's type comes from, filtering by it everywhere
(API, a real MCP session, the CLI, several snapshots), and the demotion of changelogs and
blog posts that reads it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from mcp import Client

import docwheel
from docwheel.build import build_from_file
from docwheel.config import parse_config
from docwheel.doctypes import DOC_TYPES, RULES, TypeGlobs, page_type, query_types, rule_type
from docwheel.errors import ConfigError, QueryError
from docwheel.library import Library
from docwheel.server import create_server

from helpers import CORPORA, REPO, docwheel_cmd, write_config

# -- the rules, pinned ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        # path segments
        ("api", "reference"),
        ("reference", "reference"),
        ("python-sdk", "reference"),
        ("sdk", "reference"),
        ("cli", "reference"),
        ("api-reference", "reference"),
        ("configuration-reference", "reference"),
        ("changelog", "changelog"),
        ("CHANGELOG", "changelog"),
        ("release-notes", "changelog"),
        ("release_notes", "changelog"),
        ("releases", "changelog"),
        ("whats-new", "changelog"),
        ("updates", "changelog"),
        ("blog", "blog"),
        ("news", "blog"),
        ("migration", "migration"),
        ("migrating", "migration"),
        ("upgrading", "migration"),
        ("upgrade-guide", "migration"),
        ("migrating-to-fakes", "migration"),
        ("tutorials", "tutorial"),
        ("tutorial", "tutorial"),
        ("troubleshooting", "troubleshooting"),
        ("faq", "troubleshooting"),
        ("faqs", "troubleshooting"),
        ("error-codes", "troubleshooting"),
        # navigation labels and titles
        ("SDK Reference", "reference"),
        ("Python SDK", "reference"),
        ("Config & API Reference", "reference"),
        ("What's New", "changelog"),
        ("What's New in FastMCP 4", "changelog"),
        ("Key Changes", "changelog"),
        ("Release Notes", "changelog"),
        ("Upgrading", "migration"),
        ("Frequently Asked Questions", "troubleshooting"),
        ("Tutorials", "tutorial"),
        # not a type: guides stay guides
        ("servers", "guide"),
        ("updating-tools", "guide"),
        ("AI SDKs", "guide"),
        ("gemini-cli", "guide"),
        ("writing-migrations", "guide"),
        ("getting-started", "guide"),
        ("errors", "guide"),
    ],
)
def test_one_table_of_rules_types_labels_and_path_segments(label, expected):
    assert (rule_type([label]) or "guide") == expected


def test_every_rule_gives_a_type_of_the_vocabulary():
    assert DOC_TYPES[0] == "guide" and len(set(DOC_TYPES)) == 7
    assert {rule.type for rule in RULES} == set(DOC_TYPES) - {"guide"}


def test_within_one_place_the_specific_kind_wins():
    assert rule_type(["API Reference", "Changelog"]) == "changelog"
    assert page_type(path="api/changelog") == "changelog"
    assert page_type(path="tutorials/troubleshooting") == "troubleshooting"


def test_frontmatter_then_globs_then_navigation_then_path_then_title():
    globs = TypeGlobs((("api/**", "tutorial"),))
    # frontmatter wins over everything
    assert page_type(path="api/x", declared="Reference", globs=globs, group=("Blog",)) == "reference"
    # then the sources file
    assert page_type(path="api/x", globs=globs, group=("Blog",)) == "tutorial"
    # then navigation over the path
    assert page_type(path="api/x", group=("Docs", "Blog")) == "blog"
    # then the path over the title
    assert page_type(path="api/x", title="Changelog") == "reference"
    assert page_type(path="misc/x", title="Changelog") == "changelog"
    assert page_type(path="misc/x", title="Install") == "guide"


def test_a_bad_frontmatter_type_warns_naming_the_page_and_falls_back():
    warnings: list[str] = []
    found = page_type(path="api/x", declared="howto", warn=warnings.append)
    assert found == "reference"
    assert warnings == [
        "page 'api/x': type 'howto' is not one of guide, tutorial, reference, changelog, "
        "migration, troubleshooting, blog; typed by the sources file and the page's place instead"
    ]


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("api/**", "api/context", True),
        ("api/**", "api/deep/context", True),
        ("api/**", "api", True),
        ("api/**", "apis/context", False),
        ("api/*", "api/context", True),
        ("api/*", "api/deep/context", False),
        ("**/changelog", "changelog", True),
        ("**/changelog", "a/b/changelog", True),
        ("news/20??-*", "news/2026-launch", True),
    ],
)
def test_type_globs_match_page_paths(glob, path, matches):
    assert (TypeGlobs(((glob, "blog"),)).type_of(path) == "blog") is matches


def test_type_filters_come_out_of_the_query():
    assert query_types("type:reference Context") == ("Context", ("reference",))
    assert query_types("what changed type:Changelog,blog") == ("what changed", ("changelog", "blog"))
    assert query_types("datatype:x y") == ("datatype:x y", ())


# -- the sources file ----------------------------------------------------------------------


def _config(data: dict) -> object:
    return parse_config(data, base_dir=Path("/tmp"), origin="docwheel.yaml")


def test_types_in_the_sources_file_apply_per_source_first_then_at_the_top():
    config = _config(
        {
            "name": "acme",
            "types": {"api/**": "reference", "news/**": "blog"},
            "sources": [
                {"name": "a", "kind": "markdown", "path": "/tmp", "types": {"api/legacy/**": "migration"}},
                {"name": "b", "kind": "markdown", "path": "/tmp"},
            ],
        }
    )
    first, second = config.sources
    assert first.types.type_of("api/legacy/v1") == "migration"
    assert first.types.type_of("api/context") == "reference"
    assert second.types.type_of("api/legacy/v1") == "reference"
    assert second.types.type_of("news/launch") == "blog"


def test_a_type_outside_the_vocabulary_is_a_config_error_with_its_place():
    with pytest.raises(ConfigError) as caught:
        _config(
            {
                "name": "acme",
                "types": {"api/**": "api-docs"},
                "sources": [
                    {"name": "a", "kind": "markdown", "path": "/tmp", "types": {"x/**": 3}},
                    {"name": "b", "kind": "markdown", "path": "/tmp", "types": ["api/**"]},
                ],
            }
        )
    problems = caught.value.problems
    assert any(p.startswith("types['api/**']: 'api-docs' is not one of guide, tutorial") for p in problems)
    assert any(p.startswith("sources[0].types['x/**']: expected one of guide") and "a number (3)" in p for p in problems)
    assert any(p.startswith("sources[1].types: expected a mapping of path globs to types") for p in problems)


# -- a real build --------------------------------------------------------------------------

LLMS_FULL = """\
========
URL: https://acme.example/docs/servers/tools
NAV_PATH: Servers > Tools
========
# Tools

Register a tool with the server; tools run when the model calls them.

========
URL: https://acme.example/docs/misc/one
NAV_PATH: SDK Reference > Server class
========
# Server class

The Server class holds the tools and resources.

========
URL: https://acme.example/docs/misc/two
NAV_PATH: Release Notes > 2.0
========
# 2.0

Tools can now be async. Servers register tools faster.
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site with every source of a type: frontmatter, types: globs (per source and at the
    top), Mintlify navigation, path rules, and an llms-full file with NAV_PATH groups."""
    root = tmp_path_factory.mktemp("typed")
    _write(
        root / "site",
        {
            "docs.json": json.dumps(
                {
                    "navigation": {
                        "groups": [
                            {"group": "Guides", "pages": ["guides/tools", "guides/deploy"]},
                            {"group": "Troubleshooting", "pages": ["help/timeouts"]},
                        ]
                    }
                }
            ),
            "guides/tools.md": "# Tools\n\nA guide to tools: register a tool, call the tool.\n",
            "guides/deploy.md": "# Deploy\n\nDeploy the server with Docker.\n",
            "help/timeouts.md": "# Timeouts\n\nA tool call times out after 30 seconds.\n",
            "api/server.md": "# Server API\n\nServer.add_tool(fn) registers a tool.\n",
            "changelog.md": "# Changelog\n\n## 2.0\n\nTools register faster; a tool may be async.\n",
            "tutorials/first-server.md": "# Your first server\n\nBuild a server with one tool, step by step.\n",
            "misc/launch.md": "---\ntype: blog\n---\n# We shipped tools\n\nTools are here.\n",
            "misc/oops.md": "---\ndocument_type: howto\n---\n# Oops\n\nA page with an unknown type.\n",
            # Hugo's layout type: another generator's key, not a document type
            "misc/hugo.md": "---\ntype: docs\n---\n# Hugo page\n\nA page Hugo lays out as docs.\n",
            "misc/upper.md": "---\ntype: Tutorial\n---\n# Upper\n\nA tutorial by frontmatter.\n",
            "news/2026-tools.md": "# Tools in 2026\n\nWhat we did with tools this year.\n",
            "legacy/notes.md": "# Old tool notes\n\nHow tools were registered before.\n",
        },
    )
    _write(root, {"llms-full.txt": LLMS_FULL})
    config = write_config(
        root,
        f"""\
name: typed-docs
types:
  "legacy/**": migration
sources:
  - name: site
    kind: markdown
    path: {root / "site"}
    types:
      "news/**": blog
  - name: full
    kind: llms-full
    path: {root / "llms-full.txt"}
""",
    )
    messages: list[str] = []
    build_from_file(config, root / "index", version="1.0", progress=messages.append)
    (root / "build.log").write_text("\n".join(messages), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def docs(typed: Path):
    with docwheel.open_index(typed / "index") as index:
        yield index


def _types(docs) -> dict[str, str]:
    return {page.ref: page.type for page in docs.outline()}


def test_each_source_of_a_type_types_the_pages_of_a_real_build(docs):
    assert _types(docs) == {
        "site:api/server": "reference",  # path segment
        "site:changelog": "changelog",  # path segment
        "site:guides/deploy": "guide",  # navigation, no rule: the default
        "site:guides/tools": "guide",
        "site:help/timeouts": "troubleshooting",  # navigation group
        "site:legacy/notes": "migration",  # types: at the top
        "site:misc/launch": "blog",  # frontmatter
        "site:misc/oops": "guide",  # unknown frontmatter type: falls back
        "site:misc/hugo": "guide",  # type: docs is Hugo's, not ours
        "site:misc/upper": "tutorial",  # frontmatter type:
        "site:news/2026-tools": "blog",  # the source's types:
        "site:tutorials/first-server": "tutorial",  # path segment
        "full:docs/servers/tools": "guide",
        "full:docs/misc/one": "reference",  # llms-full NAV_PATH
        "full:docs/misc/two": "changelog",  # llms-full NAV_PATH
    }


def test_a_bad_frontmatter_type_is_a_build_warning_naming_the_page(typed, docs):
    log = (typed / "build.log").read_text(encoding="utf-8")
    assert "warning: site: page 'misc/oops': type 'howto' is not one of guide" in log
    site = next(s for s in docs.manifest["sources"] if s["name"] == "site")
    assert [w for w in site["warnings"] if "type" in w] == [
        "site: page 'misc/oops': type 'howto' is not one of guide, tutorial, reference, changelog, "
        "migration, troubleshooting, blog; typed by the sources file and the page's place instead"
    ]  # type: docs (another generator's key) is no warning


def test_the_manifest_counts_the_pages_of_each_type_per_source(docs):
    counts = {s["name"]: s["types"] for s in docs.manifest["sources"]}
    assert counts["full"] == {"guide": 1, "reference": 1, "changelog": 1}
    assert counts["site"] == {
        "guide": 4, "tutorial": 2, "reference": 1, "changelog": 1,
        "migration": 1, "troubleshooting": 1, "blog": 2,
    }
    assert docs.manifest["types"] == docs.type_counts == {
        "guide": 5, "tutorial": 2, "reference": 2, "changelog": 2,
        "migration": 1, "troubleshooting": 1, "blog": 2,
    }


def test_every_hit_page_and_read_carries_its_type(docs):
    for hit in docs.search("tool", limit=20).results:
        assert hit.type == _types(docs)[hit.ref.partition("#")[0]]
    assert docs.read("site:api/server").type == "reference"
    assert docs.read("site:changelog#20").type == "changelog"


def test_search_filters_by_type_by_argument_or_query_syntax(docs):
    wanted = docs.search("tool", document_type="reference", limit=20).results
    assert {h.ref for h in wanted} == {"site:api/server", "full:docs/misc/one"}
    assert [h.ref for h in docs.search("type:reference registers", limit=20).results] == ["site:api/server"]
    both = docs.search("type:changelog,blog tool", limit=20).results
    assert {h.type for h in both} == {"changelog", "blog"}
    refs = {h.ref for h in docs.search("type:reference server", document_type="reference").results}
    assert refs == {"site:api/server", "full:docs/misc/one"}
    # operator queries filter alike
    assert {h.ref for h in docs.search('type:reference "add_tool"').results} == {"site:api/server"}
    assert {p.ref for p in docs.outline(document_type="troubleshooting")} == {"site:help/timeouts"}


def test_an_unknown_type_is_an_error_listing_the_types_the_index_has(docs):
    listed = "all, guide, tutorial, reference, changelog, migration, troubleshooting, blog"
    with pytest.raises(QueryError, match=f"unknown document type 'howto'; these docs have: {listed}"):
        docs.search("tool", document_type="howto")
    with pytest.raises(QueryError, match="unknown document type 'api'"):
        docs.search("type:api tool")
    with pytest.raises(QueryError, match="only filters by type"):
        docs.search("type:reference")
    with pytest.raises(QueryError, match="but document_type is"):
        docs.search("type:blog tool", document_type="reference")


def test_a_type_the_docs_have_no_page_of_is_an_error_naming_the_ones_they_have(tmp_path):
    _write(tmp_path / "site", {"a.md": "# A\n\nTools.\n", "api/b.md": "# B\n\nTools.\n"})
    config = write_config(
        tmp_path, f"name: small\nsources:\n  - name: site\n    kind: markdown\n    path: {tmp_path / 'site'}\n"
    )
    build_from_file(config, tmp_path / "index")
    with docwheel.open_index(tmp_path / "index") as index:
        with pytest.raises(QueryError, match=r"these docs have no 'blog' pages; types: all, guide, reference$"):
            index.search("tools", document_type="blog")


# -- the demotion reads the type -----------------------------------------------------------


def _site(root: Path, files: dict[str, str], extra: str = "") -> Path:
    _write(root / "site", files)
    config = write_config(
        root,
        f"name: demo\nsources:\n  - name: site\n    kind: markdown\n    path: {root / 'site'}\n{extra}",
    )
    build_from_file(config, root / "index")
    return root / "index"


DEMOTION_PAGES = {
    "guides/retries.md": "# Retries\n\nSet max_retries on the client to retry failed requests.\n"
    "The client waits between retries.\n",
    # short and dense in the query words: without the demotion it outranks the guide
    "changelog.md": "# Changes\n\n## 1.2\n\nClient max_retries retries failed requests.\n",
    "posts/retries.md": "# Client retries\n\nmax_retries: the client retries failed requests.\n",
}


def test_changelog_and_blog_pages_rank_below_the_guide_unless_the_query_asks(tmp_path):
    with docwheel.open_index(_site(tmp_path, DEMOTION_PAGES)) as index:
        hits = index.search("client max_retries failed requests", explain=True).results
        assert hits[0].ref == "site:guides/retries"
        factors = {h.ref: h.explain["changelog_factor"] for h in hits}
        assert factors == {"site:guides/retries": 1.0, "site:changelog#12": 0.5, "site:posts/retries": 0.5}
        asked = index.search("what changed client max_retries", explain=True).results
        assert {h.ref: h.explain["changelog_factor"] for h in asked}["site:changelog#12"] == 1.0
        named = index.search("type:changelog,guide client max_retries", explain=True).results
        assert {h.ref: h.explain["changelog_factor"] for h in named} == {
            "site:guides/retries": 1.0, "site:changelog#12": 1.0,  # the filter names the type
        }
        blog = index.search("blog post client max_retries", explain=True).results
        found = {h.ref: h.explain["changelog_factor"] for h in blog}
        assert found["site:posts/retries"] == 1.0 and found["site:changelog#12"] == 0.5
        index._wix._demotions[:] &= 2  # no demotion: the dense changelog entry would win
        assert index.search("client max_retries failed requests").results[0].ref != "site:guides/retries"


def test_a_publishers_types_refiles_a_misfiled_page_and_its_rank_follows(tmp_path):
    extra = '    types:\n      "changelog": guide\n      "posts/**": guide\n'
    with docwheel.open_index(_site(tmp_path, DEMOTION_PAGES, extra)) as index:
        assert index.doc_types == ["guide"]
        hits = index.search("client max_retries failed requests", explain=True).results
        assert all(h.explain["changelog_factor"] == 1.0 for h in hits)
        assert hits[0].ref != "site:guides/retries"


# -- every reader: a real MCP session, the CLI, several snapshots -------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_tools_filter_by_document_type_and_list_the_types_present(docs):
    async with Client(create_server(docs)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("search_docs", "list_docs"):
            schema = tools[name].input_schema["properties"]["document_type"]
            assert schema["enum"] == ["all", *DOC_TYPES]
        result = await client.call_tool("search_docs", {"query": "registers", "document_type": "reference"})
        assert not result.is_error
        hits = result.structured_content["results"]
        assert [h["ref"] for h in hits] == ["site:api/server"] and hits[0]["type"] == "reference"
        assert "type: reference" in result.content[0].text
        listed = await client.call_tool("list_docs", {"document_type": "blog"})
        assert {p["ref"] for p in listed.structured_content["pages"]} == {"site:misc/launch", "site:news/2026-tools"}
        assert all(p["type"] == "blog" for p in listed.structured_content["pages"])
        read = await client.call_tool("read_doc", {"ref": "site:changelog"})
        assert read.structured_content["type"] == "changelog"
        bad = await client.call_tool("search_docs", {"query": "tool", "document_type": "howto"})
        assert bad.is_error and "unknown document type 'howto'; these docs have: all, guide" in bad.content[0].text
        described = (await client.call_tool("describe_docs", {})).structured_content
        assert described["types"]["blog"] == 2
        assert {s["name"]: s["types"] for s in described["sources"]}["full"] == {
            "guide": 1, "reference": 1, "changelog": 1,
        }


@pytest.mark.anyio
async def test_the_fetch_profile_metadata_carries_the_type(docs):
    async with Client(create_server(docs, tools="search-fetch")) as client:
        found = (await client.call_tool("search", {"query": "type:reference registers"})).structured_content
        assert [r["id"] for r in found["results"]] == ["site:api/server"]
        fetched = (await client.call_tool("fetch", {"id": "site:api/server"})).structured_content
        assert fetched["metadata"]["type"] == "reference"


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([*docwheel_cmd(), *map(str, args)], capture_output=True, text=True, timeout=60)


def test_the_cli_filters_by_type_and_shows_it(typed):
    index = typed / "index"
    out = _cli("search", "registers", "--type", "reference", "--index", index)
    assert out.returncode == 0 and "ref: site:api/server\n   type: reference\n" in out.stdout
    assert out.stdout.endswith("1 of 1 matching pages\n")
    data = json.loads(_cli("search", "type:changelog tool", "--json", "--index", index).stdout)
    assert {r["type"] for r in data["results"]} == {"changelog"}
    several = json.loads(_cli("list", "--type", "blog,changelog", "--json", "--index", index).stdout)
    assert {p["type"] for p in several["pages"]} == {"blog", "changelog"} and several["total"] == 4
    listed = _cli("list", "--type", "troubleshooting", "--index", index).stdout
    assert listed.startswith("Timeouts  [site:help/timeouts]  (troubleshooting)\n") and listed.endswith("1 pages\n")
    info = _cli("info", "--index", index).stdout
    assert "  document types: guide 5, tutorial 2, reference 2, changelog 2, migration 1, troubleshooting 1, blog 2\n" in info
    assert "  types: guide 1, reference 1, changelog 1\n" in info
    bad = _cli("search", "tool", "--type", "howto", "--index", index)
    assert bad.returncode != 0 and bad.stdout == ""
    assert bad.stderr.startswith("docwheel: error: unknown document type 'howto'; these docs have: all, guide")


def test_several_snapshots_filter_alike(typed, tmp_path):
    other = _site(tmp_path, {"guides/tools.md": "# More tools\n\nEven more tool tips.\n"})
    with Library([docwheel.open_index(typed / "index"), docwheel.open_index(other)]) as library:
        assert library.doc_types == list(DOC_TYPES)
        wanted = library.search("registers", document_type="reference").results
        assert [h.ref for h in wanted] == ["typed-docs.site:api/server"]  # "site" is in both
        guides = library.search("type:guide tool", limit=20).results
        assert {h.type for h in guides} == {"guide"} and any("More tools" == h.title for h in guides)
        assert {p.type for p in library.outline(document_type="blog")} == {"blog"}
        with pytest.raises(QueryError, match="unknown document type 'howto'"):
            library.search("tool", document_type="howto")
        assert library.manifest["types"] == library.type_counts
        parts = library.manifest["snapshots"]
        assert parts[1]["types"] == {"guide": 1} and parts[0]["types"]["blog"] == 2


# -- a real corpus -------------------------------------------------------------------------

FASTMCP = CORPORA / "fastmcp-docs"


@pytest.mark.skipif(not FASTMCP.is_dir(), reason="needs ../shared/corpora/fastmcp-docs")
def test_fastmcp_docs_changelog_sdk_reference_and_tutorials_are_typed(tmp_path):
    config = write_config(
        tmp_path,
        f"name: fastmcp\nsources:\n  - name: docs\n    kind: markdown\n    path: {FASTMCP / 'docs'}\n",
    )
    build_from_file(config, tmp_path / "index")
    with docwheel.open_index(tmp_path / "index") as index:
        types = {page.ref.partition(":")[2]: page.type for page in index.outline()}
    assert types["changelog"] == "changelog"
    sdk = [t for path, t in types.items() if path.startswith("python-sdk/")]
    tutorials = [t for path, t in types.items() if path.startswith("tutorials/")]
    assert len(sdk) > 50 and set(sdk) == {"reference"}
    assert len(tutorials) >= 3 and set(tutorials) == {"tutorial"}
    assert types["servers/tools"] == "guide"


def test_the_docs_list_every_type_and_the_sources_file_key():
    search = (REPO / "docs" / "search.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z]+)` \|", search.split("## Document types", 1)[1], re.M)
    assert rows[: len(DOC_TYPES)] == list(DOC_TYPES)
    sources_file = (REPO / "docs" / "sources-file.md").read_text(encoding="utf-8")
    assert "## Document types" in sources_file and "| `types` |" in sources_file
