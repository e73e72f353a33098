"""Loading sources: layouts, navigation files, unlisted pages, decoding and page URLs.

Network sources use an in-memory ``fetch`` (the build injects the same seam), so these tests
pin what the loaders do with fetched text without a server.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

import docwheel
from docwheel.build import build_index
from docwheel.config import SourceConfig, parse_config
from docwheel.errors import SourceError
from docwheel.sources import load_source

PARSING = Path(__file__).parent / "fixtures" / "parsing"
SITE = PARSING / "mintlify-site"


@dataclass(frozen=True)
class Fetched:
    url: str
    text: str
    sha256: str
    size: int
    fetched_at: str = "2027-01-01T00:00:00Z"


def serve(pages: dict[str, str]):
    """A fetch function over ``{url: text}``; any other URL is a test bug."""

    def fetch(url: str) -> Fetched:
        text = pages[url]
        data = text.encode("utf-8")
        return Fetched(url, text, hashlib.sha256(data).hexdigest(), len(data))

    return fetch


def no_fetch(url: str) -> Fetched:
    raise AssertionError(f"unexpected fetch of {url}")


def folder(path: Path, **extra: object) -> SourceConfig:
    return SourceConfig("site", "markdown", path=path, **extra)  # type: ignore[arg-type]


# -- navigation files --------------------------------------------------------------------


@pytest.fixture(scope="module")
def site():
    return load_source(folder(SITE, base_url="https://widgets.example/"), no_fetch)


def test_docs_json_gives_each_page_its_navigation_group(site):
    groups = {p.path: p.group for p in site.pages}
    assert groups == {
        "guides/configure": ("v2", "Guides", "Configure"),
        "guides/install": ("v2", "Guides", "Get started"),
        "guides/orphan": (),  # not in the navigation, still indexed
        "guides/tuning": ("v2", "Guides", "Configure", "Advanced"),
        "index": ("v2", "Guides", "Get started"),
        "v1/install": ("v1", "Legacy"),  # through two levels of $ref
    }
    assert (site.layout, site.navigation) == ("markdown", "docs.json")


def test_navigation_gives_a_title_only_to_a_group_root_without_one(site):
    titles = {p.path: p.title for p in site.pages}
    assert titles["guides/configure"] == "Configure"  # group "root", no title or H1
    assert titles["guides/tuning"] == "Tuning"  # sidebarTitle
    assert titles["guides/orphan"] == "Orphan page"  # its H1


def test_noindex_and_hidden_pages_are_skipped_with_a_count(site):
    paths = {p.path for p in site.pages}
    assert not paths & {"guides/draft", "guides/internal", "snippets/badge"}
    assert site.warnings == [
        "site: skipped 2 pages whose frontmatter sets noindex or hidden: "
        "guides/draft.mdx, guides/internal.mdx"
    ]


def test_folder_urls_are_base_url_plus_the_served_path(site):
    urls = {p.path: p.url for p in site.pages}
    assert urls["index"] == "https://widgets.example/"
    assert urls["guides/install"] == "https://widgets.example/guides/install"
    assert urls["guides/orphan"] == "https://widgets.example/guides/orphan"


def test_legacy_mint_json_navigation_is_read(tmp_path: Path) -> None:
    (tmp_path / "quickstart").mkdir()
    (tmp_path / "intro.mdx").write_text("---\ntitle: Intro\n---\nHi.\n", encoding="utf-8")
    (tmp_path / "quickstart" / "server.mdx").write_text("# Server\n", encoding="utf-8")
    nav = {
        "navigation": [
            {
                "group": "Get Started",
                "pages": ["intro", {"group": "Quickstart", "pages": ["quickstart/server"]}],
            }
        ]
    }
    (tmp_path / "mint.json").write_text(json.dumps(nav), encoding="utf-8")
    loaded = load_source(folder(tmp_path), no_fetch)
    assert {p.path: p.group for p in loaded.pages} == {
        "intro": ("Get Started",),
        "quickstart/server": ("Get Started", "Quickstart"),
    }
    assert loaded.navigation == "mint.json"


def test_broken_navigation_file_is_a_warning_and_pages_are_still_indexed(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "docs.json").write_text(
        '{"navigation": {"$ref": "./missing.json"}}', encoding="utf-8"
    )
    loaded = load_source(folder(tmp_path), no_fetch)
    assert [(p.path, p.group) for p in loaded.pages] == [("a", ())]
    (warning,) = loaded.warnings
    assert warning.startswith(f"site: {tmp_path}: docs.json: navigation ignored: ")
    assert loaded.navigation is None


def test_folder_without_navigation_records_none(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    loaded = load_source(folder(tmp_path), no_fetch)
    assert (loaded.navigation, loaded.pages[0].group) == (None, ())


# -- decoding ----------------------------------------------------------------------------


def test_invalid_utf8_is_decoded_with_replacement_and_warned_about(tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes("# Caf\u00e9\n\nNa\u00efve text.\n".encode("latin-1"))
    loaded = load_source(folder(tmp_path), no_fetch)
    assert loaded.pages[0].title == "Caf\ufffd"
    assert loaded.warnings == [
        "site: latin1.md: not valid UTF-8 (first bad byte at offset 5); "
        "undecodable bytes were replaced with U+FFFD"
    ]


def test_fetched_text_with_replacement_characters_is_warned_about() -> None:
    fetch = serve({"https://x.io/a.md": "# A\n\nbad \ufffd byte\n"})
    source = SourceConfig("web", "markdown", urls=("https://x.io/a.md",))
    loaded = load_source(source, fetch)
    assert loaded.warnings == [
        "web: https://x.io/a.md: 1 characters could not be decoded and were replaced with U+FFFD"
    ]


# -- page URLs of fetched pages ----------------------------------------------------------

LISTING = "# Widgets\n\n- [Install](docs/install.md)\n- [Guide](docs/guide/index.md)\n"
PAGES = {
    "https://x.io/llms.txt": LISTING,
    "https://x.io/docs/install.md": "# Install\n",
    "https://x.io/docs/guide/index.md": "# Guide\n",
}


def test_llms_txt_pages_keep_their_fetched_url_without_base_url() -> None:
    source = SourceConfig("web", "llms-txt", url="https://x.io/llms.txt")
    loaded = load_source(source, serve(PAGES))
    assert [(p.path, p.url) for p in loaded.pages] == [
        ("docs/install", "https://x.io/docs/install.md"),
        ("docs/guide", "https://x.io/docs/guide/index.md"),
    ]


def test_llms_txt_pages_get_the_served_url_with_base_url() -> None:
    source = SourceConfig("web", "llms-txt", url="https://x.io/llms.txt", base_url="https://x.io/")
    loaded = load_source(source, serve(PAGES))
    assert [(p.path, p.url) for p in loaded.pages] == [
        ("docs/install", "https://x.io/docs/install"),
        ("docs/guide", "https://x.io/docs/guide/"),
    ]


def test_markdown_urls_get_the_served_url_with_base_url() -> None:
    urls = ("https://x.io/docs/install.md",)
    plain = load_source(SourceConfig("web", "markdown", urls=urls), serve(PAGES))
    based = load_source(
        SourceConfig("web", "markdown", urls=urls, base_url="https://x.io/"), serve(PAGES)
    )
    assert (plain.pages[0].url, based.pages[0].url) == (
        "https://x.io/docs/install.md",
        "https://x.io/docs/install",
    )


def test_unlisted_fetched_pages_are_skipped_too() -> None:
    pages = {**PAGES, "https://x.io/docs/install.md": "---\nnoindex: true\n---\n# Install\n"}
    loaded = load_source(SourceConfig("web", "llms-txt", url="https://x.io/llms.txt"), serve(pages))
    assert [p.path for p in loaded.pages] == ["docs/guide"]
    assert loaded.warnings == [
        "web: skipped 1 pages whose frontmatter sets noindex or hidden: "
        "https://x.io/docs/install.md"
    ]


# -- llms-full ---------------------------------------------------------------------------


def test_llms_full_records_the_detected_layout_and_cleans_urls_with_base_url() -> None:
    source = SourceConfig(
        "crawl",
        "llms-full",
        path=PARSING / "llms-full-rule-blocks.txt",
        base_url="https://widgets.example/docs/",
    )
    loaded = load_source(source, no_fetch)
    assert loaded.layout == "rule-blocks"
    assert loaded.pages[1].url == "https://widgets.example/docs/guide/gears"


def test_llms_full_format_forces_the_layout() -> None:
    source = SourceConfig("mint", "llms-full", path=PARSING / "llms-full.txt", format="headings")
    loaded = load_source(source, no_fetch)
    assert loaded.layout == "headings"
    assert len(loaded.pages) == 4


def test_llms_full_format_that_finds_no_pages_fails_the_source() -> None:
    source = SourceConfig(
        "mint",
        "llms-full",
        path=PARSING / "llms-full.txt",
        format="firecrawl",
        path_text="llms-full.txt",
    )
    with pytest.raises(SourceError) as info:
        load_source(source, no_fetch)
    assert str(info.value) == (
        "source 'mint' (llms-full.txt): format 'firecrawl' found no pages; "
        "remove format: to detect the layout"
    )


def test_llms_full_warnings_name_the_source_and_the_page() -> None:
    text = "# A\nSource: https://x.io/docs/a\n---\n- not: [a mapping\n---\n\n# B\nSource: https://x.io/b\n"
    source = SourceConfig("help", "llms-full", url="https://x.io/llms-full.txt")
    loaded = load_source(source, serve({"https://x.io/llms-full.txt": text}))
    (warning,) = loaded.warnings
    assert warning.startswith("help: https://x.io/llms-full.txt: docs/a: malformed frontmatter: ")


# -- the manifest --------------------------------------------------------------------------


def test_manifest_records_layout_navigation_and_warnings_per_source(tmp_path: Path) -> None:
    shutil.copytree(SITE, tmp_path / "site")
    shutil.copy(PARSING / "llms-full-firecrawl.txt", tmp_path / "crawl.txt")
    config = parse_config(
        {
            "name": "widgets",
            "sources": [
                {
                    "name": "site",
                    "kind": "markdown",
                    "path": "site",
                    "base_url": "https://widgets.example/",
                },
                {"name": "crawl", "kind": "llms-full", "path": "crawl.txt"},
            ],
        },
        base_dir=tmp_path,
        origin="docwheel.yaml",
    )
    manifest = build_index(config, tmp_path / "index", fetch=no_fetch)
    site, crawl = manifest["sources"]
    assert (site["layout"], site["navigation"], site["pages"]) == ("markdown", "docs.json", 6)
    assert site["warnings"] == [
        "site: skipped 2 pages whose frontmatter sets noindex or hidden: "
        "guides/draft.mdx, guides/internal.mdx"
    ]
    assert (crawl["layout"], crawl["pages"], crawl["warnings"]) == ("firecrawl", 2, [])
    assert "navigation" not in crawl
    with docwheel.open_index(tmp_path / "index") as docs:
        assert docs.manifest["sources"][0]["layout"] == "markdown"


def test_a_mintlify_folder_keeps_slashes_in_anchors_as_its_site_does(tmp_path: Path) -> None:
    page = "# Methods\n\n## `tools/list`\n\nx\n"
    (tmp_path / "methods.md").write_text(page, encoding="utf-8")
    plain = load_source(folder(tmp_path), no_fetch).pages[0]
    (tmp_path / "docs.json").write_text('{"navigation": []}', encoding="utf-8")
    mintlify = load_source(folder(tmp_path), no_fetch).pages[0]
    assert (plain.sections[1].anchor, mintlify.sections[1].anchor) == ("toolslist", "tools/list")


# -- includes ------------------------------------------------------------------------------


def test_includes_are_read_from_inside_the_folder_only_and_fragments_are_not_pages(
    tmp_path: Path,
) -> None:
    (tmp_path / "outside.md").write_text("SECRET outside words\n", encoding="utf-8")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "cli.md").write_text(
        "# CLI\n\n<!--@include: ./cli-generated.md-->\n\n"
        "<!--@include: ../../outside.md-->\n\n"
        '--8<-- "docs/parts/shared.md"\n\n'  # MkDocs: relative to the project, inside docs/
        '--8<-- "outside.md"\n\n'
        "<!--@include: ./linked.md-->\n",
        encoding="utf-8",
    )
    (docs / "guide" / "cli-generated.md").write_text("### --watch\n\nWatch files.\n", encoding="utf-8")
    (docs / "parts").mkdir()
    (docs / "parts" / "shared.md").write_text("Shared words.\n", encoding="utf-8")
    (docs / "guide" / "linked.md").symlink_to(tmp_path / "outside.md")
    loaded = load_source(folder(docs), no_fetch)
    (page,) = [p for p in loaded.pages if p.path == "guide/cli"]
    text = "\n".join(s.text for s in page.sections)
    assert [s.heading for s in page.sections] == ["", "--watch"]
    assert "Watch files." in text and "Shared words." in text
    assert "SECRET" not in text and "include" not in text and "--8<--" not in text
    paths = {p.path for p in loaded.pages}
    assert "guide/cli-generated" not in paths and "parts/shared" not in paths
    assert {"guide/cli-generated.md", "parts/shared.md"} <= {r.location for r in loaded.raws}


def test_a_page_keeps_the_text_of_a_snippet_it_imports_from_a_folder_of_no_pages(tmp_path: Path) -> None:
    # Mintlify: `import Note from '/snippets/note.mdx'` then `<Note />`; snippets/ holds no
    # pages, so nothing is "included" as a fragment, but the page still shows the text
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    (docs / "snippets" / "note.mdx").write_text("Pin the version you deploy.\n", encoding="utf-8")
    (docs / "apps.mdx").write_text(
        "---\ntitle: Apps\n---\nimport Note from '/snippets/note.mdx'\n\nBuild apps.\n\n<Note />\n",
        encoding="utf-8",
    )
    (page,) = load_source(folder(docs), no_fetch).pages
    assert "Pin the version you deploy." in "\n".join(s.text for s in page.sections)
