"""Building an index from real sources: a loopback HTTP server and local folders.

Everything goes through ``docwheel.build`` and is read back with ``docwheel.open_index``.
Fetching uses the real ``fetch_text``; where a test needs a short timeout or quick retries it
passes ``fetch_text`` with those settings as the builder's ``fetch``.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, child_processes, tree, write_config
from httpserver import HTTPTestServer

import docwheel
from docwheel.api import INDEX_FORMAT
from docwheel.build import build_from_file, build_index
from docwheel.config import load_config
from docwheel.errors import BuildError, ConfigError, SourceError
from docwheel.fetch import fetch_text

LLMS_FULL = FIXTURES / "llms" / "llms-full.txt"
SITE = FIXTURES / "site"
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
FAST_RETRIES = functools.partial(fetch_text, backoff=0.01)


def all_refs(index_dir: Path) -> list[str]:
    """Every page and section ref of an index, in build order."""
    with docwheel.open_index(index_dir) as docs:
        refs = []
        for page in docs.outline():
            refs.append(page.ref)
            refs.extend(section.ref for section in page.sections)
        return refs


def pages_by_ref(index_dir: Path) -> dict[str, docwheel.PageOutline]:
    with docwheel.open_index(index_dir) as docs:
        return {page.ref: page for page in docs.outline()}


# -- llms-full ---------------------------------------------------------------------------


def test_llms_full_by_url_builds_pages_sections_and_manifest(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798761600")  # 2027-01-01T00:00:00Z
    served = LLMS_FULL.read_bytes()
    http_server.route("/llms-full.txt", served, content_type="text/plain; charset=utf-8")
    url = http_server.url("/llms-full.txt")
    config = write_config(
        tmp_path,
        f"name: example-docs\ndescription: Example\nsources:\n"
        f"  - name: platform\n    kind: llms-full\n    url: {url}\n",
    )
    out = tmp_path / "index"

    manifest = build_from_file(config, out, version="2026.11.01")

    assert json.loads((out / "manifest.json").read_text(encoding="utf-8")) == manifest
    assert manifest["index_format"] == INDEX_FORMAT
    assert manifest["name"] == "example-docs"
    assert manifest["version"] == "2026.11.01"
    assert manifest["docwheel_version"] == docwheel.__version__
    assert manifest["built_at"] == "2027-01-01T00:00:00Z"
    assert manifest["pages"] == 2
    # Each page has an intro section plus one per H2: Getting started (intro, Create a
    # project, Deploy) and Billing (intro, Refunds).
    assert manifest["sections"] == 5
    (source,) = manifest["sources"]
    assert source["name"] == "platform"
    assert source["kind"] == "llms-full"
    assert source["url"] == url
    assert source["sha256"] == hashlib.sha256(served).hexdigest()
    assert source["bytes"] == len(served)
    assert ISO_UTC.fullmatch(source["fetched_at"])
    assert source["pages"] == 2
    assert source["sections"] == 5

    pages = pages_by_ref(out)
    assert list(pages) == ["platform:getting-started", "platform:billing"]
    start = pages["platform:getting-started"]
    assert start.title == "Getting started"
    assert start.url == "https://docs.example.com/getting-started"
    assert [s.ref for s in start.sections] == [
        "platform:getting-started#create-a-project",
        "platform:getting-started#deploy",
    ]
    with docwheel.open_index(out) as docs:
        top = docs.search("refund unused seats").results[0]
        assert top.ref == "platform:billing#refunds"
        assert top.url == "https://docs.example.com/billing#refunds"
        assert "30 days" in docs.read("platform:billing#refunds").text


def test_built_at_is_the_current_time_without_source_date_epoch(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    config = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: p\n    kind: llms-full\n"
        f"    url: {http_server.url('/llms-full.txt')}\n",
    )
    manifest = build_from_file(config, tmp_path / "index")
    assert ISO_UTC.fullmatch(manifest["built_at"])
    assert manifest["built_at"] >= manifest["sources"][0]["fetched_at"]


# -- llms-txt ----------------------------------------------------------------------------


def test_llms_txt_indexes_every_linked_page_with_its_url(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.serve_dir("/docs/", SITE)
    absolute = http_server.url("/docs/guides/troubleshooting.md")
    listing = (
        "# Acme Widgets\n\n> Docs for the Acme toolkit.\n\n## Guides\n\n"
        "- [Installation](guides/install.md): pip or Docker\n"
        "- [Configuration](/docs/guides/configure.mdx): every setting\n"
        f"- [Troubleshooting]({absolute}): when things break\n\n"
        "## Optional\n\n- [Home](./index.md)\n- [Install again](guides/install.md#with-pip)\n"
    )
    http_server.route("/docs/llms.txt", listing)
    url = http_server.url("/docs/llms.txt")
    config = write_config(
        tmp_path, f"name: acme\nsources:\n  - name: acme\n    kind: llms-txt\n    url: {url}\n"
    )
    out = tmp_path / "index"

    manifest = build_from_file(config, out)

    expected = {
        "acme:docs/guides/install": ("Installation", http_server.url("/docs/guides/install.md")),
        "acme:docs/guides/configure": (
            "Configuration",
            http_server.url("/docs/guides/configure.mdx"),
        ),
        "acme:docs/guides/troubleshooting": ("Troubleshooting", absolute),
        "acme:docs": ("Acme Widgets", http_server.url("/docs/index.md")),
    }
    pages = pages_by_ref(out)
    assert {ref: (p.title, p.url) for ref, p in pages.items()} == expected
    (source,) = manifest["sources"]
    assert source["url"] == url
    assert source["documents"] == 5  # the llms.txt itself and four pages (one linked twice)
    assert source["pages"] == manifest["pages"] == 4
    assert source["bytes"] == len(listing.encode()) + sum(
        len(p.read_bytes()) for p in SITE.rglob("*.md*")
    )
    requested = sorted(path for path, _ in http_server.requests)
    assert requested == sorted(
        [
            "/docs/llms.txt",
            "/docs/guides/install.md",
            "/docs/guides/configure.mdx",
            "/docs/guides/troubleshooting.md",
            "/docs/index.md",
        ]
    )
    with docwheel.open_index(out) as docs:
        top = docs.search("permission denied cache folder").results[0]
        assert top.ref == "acme:docs/guides/troubleshooting#permission-denied-when-starting"
        assert top.url == absolute + "#permission-denied-when-starting"


# -- markdown ----------------------------------------------------------------------------


def test_markdown_urls_are_indexed_with_their_urls(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.serve_dir("/docs/", SITE)
    urls = [
        http_server.url("/docs/guides/install.md"),
        http_server.url("/docs/guides/configure.mdx"),
    ]
    config = write_config(
        tmp_path,
        "name: acme\nsources:\n  - name: pages\n    kind: markdown\n    urls:\n"
        + "".join(f"      - {u}\n" for u in urls),
    )
    out = tmp_path / "index"

    manifest = build_from_file(config, out)

    pages = pages_by_ref(out)
    assert {ref: p.url for ref, p in pages.items()} == {
        "pages:docs/guides/install": urls[0],
        "pages:docs/guides/configure": urls[1],
    }
    assert pages["pages:docs/guides/install"].description == (
        "Install the Acme toolkit with pip or Docker."
    )
    (source,) = manifest["sources"]
    assert source["urls"] == urls
    listing = "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {u}\n"
        for p, u in zip([SITE / "guides/install.md", SITE / "guides/configure.mdx"], urls)
    )
    assert source["sha256"] == hashlib.sha256(listing.encode()).hexdigest()
    assert ISO_UTC.fullmatch(source["fetched_at"])


def test_markdown_folder_urls_are_base_url_plus_path_without_extension(tmp_path: Path) -> None:
    docs = tmp_path / "project" / "docs"
    shutil.copytree(SITE, docs)
    (docs / "guides" / "index.md").write_text("# Guides\n\nAll the guides.\n", encoding="utf-8")
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "draft.md").write_text("# Draft\n\nNot published.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("not a page\n", encoding="utf-8")
    config = write_config(
        tmp_path / "project",
        "name: acme\nsources:\n  - name: site\n    kind: markdown\n    path: docs/\n"
        "    base_url: https://acme.example/docs/\n",
    )
    out = tmp_path / "index"

    manifest = build_from_file(config, out)

    pages = pages_by_ref(out)
    assert {ref: p.url for ref, p in pages.items()} == {
        "site:guides/configure": "https://acme.example/docs/guides/configure",
        "site:guides": "https://acme.example/docs/guides/",
        "site:guides/install": "https://acme.example/docs/guides/install",
        "site:guides/troubleshooting": "https://acme.example/docs/guides/troubleshooting",
        "site:index": "https://acme.example/docs/",
    }
    assert pages["site:guides/configure"].title == "Configuration"
    (source,) = manifest["sources"]
    assert source["path"] == "docs"
    assert source["base_url"] == "https://acme.example/docs/"
    assert source["fetched_at"] is None
    assert source["documents"] == source["pages"] == 5
    with docwheel.open_index(out) as docs_index:
        top = docs_index.search("rotate signing keys").results[0]
        assert top.url == "https://acme.example/docs/guides/configure#rotating-api-keys"


# -- failures ----------------------------------------------------------------------------


def llms_txt(*links: str) -> str:
    return "# Docs\n\n" + "".join(f"- [{link}]({link})\n" for link in links)


# name -> (routes to set, source YAML body after "kind:", path of the failing URL, reason)
FAILURES = {
    "404": (
        {},
        "llms-full\n    url: {base}/gone.txt",
        "/gone.txt",
        "HTTP 404 Not Found",
    ),
    "500 persists": (
        {"/boom.txt": ("error\n", 500, "text/plain")},
        "llms-full\n    url: {base}/boom.txt",
        "/boom.txt",
        "HTTP 500 Internal Server Error after 3 attempts",
    ),
    "html page with status 200": (
        {"/llms-full.txt": ("<!DOCTYPE html><html><body>Sign in</body></html>", 200, "text/html")},
        "llms-full\n    url: {base}/llms-full.txt",
        "/llms-full.txt",
        "not text: got text/html (an HTML page, not Markdown)",
    ),
    "html body served as text": (
        {"/llms-full.txt": ("<!doctype html>\n<html><p>Oops</p></html>", 200, "text/plain")},
        "llms-full\n    url: {base}/llms-full.txt",
        "/llms-full.txt",
        "not text: got an HTML page, not Markdown (served as text/plain)",
    ),
    "empty file": (
        {"/llms-full.txt": ("", 200, "text/plain")},
        "llms-full\n    url: {base}/llms-full.txt",
        "/llms-full.txt",
        "empty response",
    ),
    "one page of an llms.txt list": (
        {
            "/llms.txt": (llms_txt("a.md", "missing.md", "b.md"), 200, "text/plain"),
            "/a.md": ("# A\n\nPage a.\n", 200, "text/markdown"),
            "/b.md": ("# B\n\nPage b.\n", 200, "text/markdown"),
        },
        "llms-txt\n    url: {base}/llms.txt",
        "/missing.md",
        "HTTP 404 Not Found",
    ),
    "llms.txt without links": (
        {"/llms.txt": ("# Docs\n\nNothing linked here yet.\n", 200, "text/plain")},
        "llms-txt\n    url: {base}/llms.txt",
        "/llms.txt",
        "no links found in the llms.txt file",
    ),
    "one of the markdown urls": (
        {"/a.md": ("# A\n\nPage a.\n", 200, "text/markdown")},
        "markdown\n    urls:\n      - {base}/a.md\n      - {base}/nope.md",
        "/nope.md",
        "HTTP 404 Not Found",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_broken_source_fails_naming_source_url_and_reason_and_leaves_nothing(
    case: str, http_server: HTTPTestServer, tmp_path: Path
) -> None:
    routes, kind, failing, reason = FAILURES[case]
    for path, (body, status, content_type) in routes.items():
        http_server.route(path, body, status=status, content_type=content_type)
    base = http_server.url("").rstrip("/")
    config = write_config(
        tmp_path,
        "name: broken\nsources:\n  - name: good\n    kind: markdown\n"
        f"    path: {SITE}\n    base_url: https://acme.example/\n"
        f"  - name: web\n    kind: {kind.format(base=base)}\n",
    )
    build_dir = tmp_path / "build"
    build_dir.mkdir()

    with pytest.raises(SourceError) as info:
        build_index(load_config(config), build_dir / "index", fetch=FAST_RETRIES)

    url = http_server.url(failing)
    assert str(info.value) == f"source 'web' ({url}): {reason}"
    assert (info.value.source, info.value.where, info.value.reason) == ("web", url, reason)
    assert list(build_dir.iterdir()) == []  # no index, no scratch directory


# A body that is no docs text: refused over HTTP and from a local file by the same rule.
NOT_TEXT = {
    "saved html error page": (
        b"\n<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n",
        "an HTML page, not Markdown",
    ),
    "binary file": (
        b"# Docs\n\n" + bytes(range(256)) * 4,
        "binary data (a NUL byte at offset 8), not Markdown",
    ),
}


@pytest.mark.parametrize("streamed", [False, True], ids=["held", "streamed"])
@pytest.mark.parametrize("case", list(NOT_TEXT))
def test_a_local_llms_full_that_is_not_text_fails_as_the_same_body_over_http_does(
    case: str,
    streamed: bool,
    http_server: HTTPTestServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from docwheel import sources

    body, why = NOT_TEXT[case]
    if streamed:  # a file too large to hold is refused before it is parsed
        monkeypatch.setattr(sources, "STREAM_BYTES", 0)
    http_server.route("/llms-full.txt", body, content_type="text/plain")
    (tmp_path / "llms-full.txt").write_bytes(body)
    remote = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: docs\n    kind: llms-full\n"
        f"    url: {http_server.url('/llms-full.txt')}\n",
        name="remote.yaml",
    )
    local = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: docs\n    kind: llms-full\n    path: llms-full.txt\n",
        name="local.yaml",
    )
    with pytest.raises(SourceError) as fetched:
        build_index(load_config(remote), tmp_path / "out" / "index", fetch=FAST_RETRIES)
    assert fetched.value.reason == f"not text: got {why} (served as text/plain)"
    with pytest.raises(SourceError) as read:
        build_from_file(local, tmp_path / "out" / "index")
    assert read.value.where == str(tmp_path / "llms-full.txt")
    assert read.value.reason == f"not text: {why}"
    assert not (tmp_path / "out").exists()


def test_a_binary_page_in_a_docs_folder_fails_naming_the_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(SITE, docs)
    (docs / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    config = write_config(
        tmp_path, "name: t\nsources:\n  - name: site\n    kind: markdown\n    path: docs\n"
    )
    with pytest.raises(SourceError) as info:
        build_from_file(config, tmp_path / "out" / "index")
    assert str(info.value) == (
        "source 'site' (logo.md): not text: binary data (a NUL byte at offset 8), not Markdown"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="only Linux file systems take any bytes")
def test_a_file_name_that_is_not_utf8_is_a_warning_and_the_rest_is_indexed(
    tmp_path: Path,
) -> None:
    """Linux hands such a name over as surrogate escapes, which no ref, URL or manifest can
    hold: the file is skipped with a warning that shows its bytes, the other pages build."""
    docs = tmp_path / "docs"
    shutil.copytree(SITE, docs)
    pages = build_from_file(write_config(
        tmp_path, "name: t\nsources:\n  - name: site\n    kind: markdown\n    path: docs\n"
    ), tmp_path / "before")["pages"]
    (docs / os.fsdecode(b"caf\xe9.md")).write_text("# Caf\n\nCoffee.\n", encoding="utf-8")
    (docs / os.fsdecode(b"r\xe9sum\xe9s")).mkdir()
    (docs / os.fsdecode(b"r\xe9sum\xe9s") / "cv.md").write_text("# CV\n", encoding="utf-8")
    config = tmp_path / "docwheel.yaml"
    lines: list[str] = []
    manifest = build_from_file(config, tmp_path / "index", progress=lines.append)
    expected = [
        "site: caf\\xe9.md: skipped: the file name is not valid UTF-8 (rename it)",
        "site: r\\xe9sum\\xe9s/cv.md: skipped: the file name is not valid UTF-8 (rename it)",
    ]
    assert manifest["sources"][0]["warnings"][:2] == expected
    assert [f"warning: {w}" for w in expected] == [line for line in lines if "UTF-8" in line]
    assert manifest["pages"] == pages
    assert not any("caf" in ref or "cv" in ref for ref in all_refs(tmp_path / "index"))
    json.dumps(manifest, ensure_ascii=False).encode("utf-8")  # what the manifest file holds


def test_a_persisting_500_is_retried_before_failing(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", "down\n", status=500)
    config = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: web\n    kind: llms-full\n"
        f"    url: {http_server.url('/llms-full.txt')}\n",
    )
    with pytest.raises(SourceError, match=r"HTTP 500 Internal Server Error after 3 attempts"):
        build_index(load_config(config), tmp_path / "index", fetch=FAST_RETRIES)
    assert [path for path, _ in http_server.requests] == ["/llms-full.txt"] * 3
    assert not (tmp_path / "index").exists()


def test_a_server_that_does_not_answer_times_out(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    http_server.route_slow("/llms-full.txt", delay=5)
    url = http_server.url("/llms-full.txt")
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: web\n    kind: llms-full\n    url: {url}\n"
    )
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    quick = functools.partial(fetch_text, timeout=0.3, retries=1, backoff=0.01)

    with pytest.raises(SourceError) as info:
        build_index(load_config(config), build_dir / "index", fetch=quick)

    assert str(info.value) == f"source 'web' ({url}): timed out after 0.3s (2 attempts)"
    assert list(build_dir.iterdir()) == []


def test_the_default_fetch_waits_30_seconds() -> None:
    assert inspect.signature(fetch_text).parameters["timeout"].default == 30.0


def test_an_empty_local_file_fails(tmp_path: Path) -> None:
    (tmp_path / "llms-full.txt").write_bytes(b"  \n\n")
    config = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: local\n    kind: llms-full\n    path: llms-full.txt\n",
    )
    with pytest.raises(SourceError) as info:
        build_from_file(config, tmp_path / "build" / "index")
    assert str(info.value) == f"source 'local' ({tmp_path / 'llms-full.txt'}): empty file"
    assert not (tmp_path / "build").exists()


def test_an_empty_page_in_a_folder_fails_naming_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(SITE, docs)
    (docs / "guides" / "blank.md").write_text("\n", encoding="utf-8")
    config = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: site\n    kind: markdown\n    path: docs\n"
        "    base_url: https://acme.example/\n",
    )
    with pytest.raises(SourceError) as info:
        build_from_file(config, tmp_path / "build" / "index")
    assert str(info.value) == "source 'site' (guides/blank.md): empty file"
    assert not (tmp_path / "build").exists()


def test_a_missing_local_path_fails_before_anything_is_fetched(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    config = write_config(
        tmp_path,
        "name: t\nsources:\n"
        f"  - name: web\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
        "  - name: local\n    kind: markdown\n    path: no-such-folder/\n"
        "    base_url: https://acme.example/\n",
    )
    with pytest.raises(ConfigError) as info:
        build_from_file(config, tmp_path / "build" / "index")
    assert info.value.problems == [
        f"sources[1].path: 'no-such-folder/' not found (looked for {tmp_path / 'no-such-folder'})"
    ]
    assert http_server.requests == []
    assert not (tmp_path / "build").exists()


@pytest.mark.parametrize(
    ("kind", "name", "reason"),
    [
        ("markdown", "docs", "{dir}/docs: path does not exist"),
        ("llms-full", "llms-full.txt", "llms-full.txt: cannot read: No such file or directory"),
    ],
)
def test_a_local_path_that_vanished_after_validation_fails(
    tmp_path: Path, kind: str, name: str, reason: str
) -> None:
    if name == "docs":
        shutil.copytree(SITE, tmp_path / name)
    else:
        shutil.copy(LLMS_FULL, tmp_path / name)
    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: local\n    kind: {kind}\n    path: {name}\n"
        "    base_url: https://acme.example/\n",
    )
    loaded = load_config(config)
    if name == "docs":
        shutil.rmtree(tmp_path / name)
    else:
        (tmp_path / name).unlink()

    with pytest.raises(SourceError) as info:
        build_index(loaded, tmp_path / "build" / "index")
    where, _, why = reason.format(dir=tmp_path).partition(": ")
    assert str(info.value) == f"source 'local' ({where}): {why}"
    assert not (tmp_path / "build").exists()


def test_a_failed_rebuild_leaves_the_existing_index_untouched(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    url = http_server.url("/llms-full.txt")
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: web\n    kind: llms-full\n    url: {url}\n"
    )
    build_dir = tmp_path / "build"
    out = build_dir / "index"
    build_from_file(config, out)
    before = tree(out)

    http_server.route("/llms-full.txt", "gone\n", status=404)
    with pytest.raises(SourceError, match="HTTP 404 Not Found"):
        build_from_file(config, out)

    assert tree(out) == before
    assert [p.name for p in build_dir.iterdir()] == ["index"]
    with docwheel.open_index(out) as docs:
        assert docs.search("refund").results[0].ref == "web:billing#refunds"


# -- requests and rebuilds ---------------------------------------------------------------


def test_every_request_carries_the_docwheel_user_agent(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.serve_dir("/docs/", SITE)
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    http_server.route("/docs/llms.txt", llms_txt("guides/install.md", "index.md"))
    config = write_config(
        tmp_path,
        "name: t\nsources:\n"
        f"  - name: full\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
        f"  - name: list\n    kind: llms-txt\n    url: {http_server.url('/docs/llms.txt')}\n"
        "  - name: pages\n    kind: markdown\n    urls:\n"
        f"      - {http_server.url('/docs/guides/troubleshooting.md')}\n",
    )
    build_from_file(config, tmp_path / "index")

    agents = {path: headers["User-Agent"] for path, headers in http_server.requests}
    assert len(http_server.requests) == 5
    for path, agent in agents.items():
        assert agent.startswith(f"docwheel/{docwheel.__version__} "), path


def test_rebuilding_unchanged_sources_gives_the_same_refs(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.serve_dir("/docs/", SITE)
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    http_server.route("/docs/llms.txt", llms_txt("guides/install.md", "guides/configure.mdx"))
    config = write_config(
        tmp_path,
        "name: t\nsources:\n"
        f"  - name: full\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
        f"  - name: list\n    kind: llms-txt\n    url: {http_server.url('/docs/llms.txt')}\n"
        f"  - name: site\n    kind: markdown\n    path: {SITE}\n"
        "    base_url: https://acme.example/\n",
    )
    first = build_from_file(config, tmp_path / "one")
    refs = all_refs(tmp_path / "one")
    second = build_from_file(config, tmp_path / "two")
    third = build_from_file(config, tmp_path / "one")  # in place, over the first build

    assert len(refs) > 20
    assert all_refs(tmp_path / "two") == all_refs(tmp_path / "one") == refs
    hashes = [[s["sha256"] for s in m["sources"]] for m in (first, second, third)]
    assert hashes[0] == hashes[1] == hashes[2]
    with docwheel.open_index(tmp_path / "one") as a, docwheel.open_index(tmp_path / "two") as b:
        for query in ("install with pip", "refunds", "rotate keys", "widget blank"):
            assert [h.ref for h in a.search(query).results] == [
                h.ref for h in b.search(query).results
            ]


@pytest.mark.parametrize("occupant", ["file", "folder"])
def test_build_never_replaces_something_that_is_not_an_index(tmp_path: Path, occupant: str) -> None:
    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: site\n    kind: markdown\n    path: {FIXTURES / 'site'}\n",
    )
    out = tmp_path / "precious"
    if occupant == "file":
        out.write_text("keep me")
    else:
        out.mkdir()
        (out / "notes.txt").write_text("keep me")
    with pytest.raises(BuildError, match="not a docwheel index|not a directory"):
        build_from_file(config, out)
    assert (out if occupant == "file" else out / "notes.txt").read_text() == "keep me"


def test_same_sources_build_byte_identical_indexes_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Whoosh pickles sets and stamps compound files; the build must not depend on either."""
    import subprocess
    import sys

    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: site\n    kind: markdown\n    path: {FIXTURES / 'site'}\n",
    )
    digests = []
    for seed in ("1", "2"):
        out = tmp_path / f"index-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "SOURCE_DATE_EPOCH": "1700000000"}
        subprocess.run(
            [sys.executable, "-m", "docwheel", "build", "--config", str(config), "--out", str(out), "-q"],
            check=True,
            env=env,
            timeout=120,
        )
        digests.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()})
    assert digests[0] == digests[1]


def test_max_size_in_the_sources_file_caps_a_response(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    page = "# Big\nSource: https://x.example/big\n\n" + "word " * 1000
    http_server.route("/llms-full.txt", page)
    url = http_server.url("/llms-full.txt")
    body = f"name: t\nsources:\n  - name: web\n    kind: llms-full\n    url: {url}\n"

    config = write_config(tmp_path, body + "    max_size: 2 KB\n")
    with pytest.raises(SourceError) as info:
        build_index(load_config(config), tmp_path / "index", fetch=FAST_RETRIES)
    assert str(info.value) == f"source 'web' ({url}): response larger than 2000 bytes"
    assert not (tmp_path / "index").exists()

    roomy = write_config(tmp_path, body + "    max_size: 10kb\n")
    manifest = build_index(load_config(roomy), tmp_path / "index", fetch=FAST_RETRIES)
    assert manifest["sources"][0]["bytes"] == len(page)


def test_a_large_llms_full_file_is_streamed_into_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file above STREAM_BYTES is parsed while it is indexed; the index is the same."""
    from docwheel import sources

    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: site\n    kind: markdown\n    path: {SITE}\n"
        f"  - name: local\n    kind: llms-full\n    path: {LLMS_FULL}\n",
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    held_lines: list[str] = []
    build_from_file(config, tmp_path / "held", progress=held_lines.append)
    monkeypatch.setattr(sources, "STREAM_BYTES", 0)
    monkeypatch.setattr("docwheel.formats.llms.CHUNK_LINES", 7)
    streamed_lines: list[str] = []
    build_from_file(config, tmp_path / "streamed", progress=streamed_lines.append)
    assert tree(tmp_path / "streamed") == tree(tmp_path / "held")
    assert any("read as a stream" in line for line in streamed_lines)
    summary = [line for line in held_lines if line.startswith("local: ") and "pages" in line]
    assert summary and summary[0] in streamed_lines


@pytest.mark.parametrize("helper", [False, True], ids=["one process", "with helper"])
def test_a_streamed_file_with_no_pages_fails_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: bool
) -> None:
    from docwheel import build, sources

    (tmp_path / "llms-full.txt").write_text("# Title\n\ntext\n", encoding="utf-8")
    config = write_config(
        tmp_path,
        "name: t\nsources:\n  - name: local\n    kind: llms-full\n    path: llms-full.txt\n"
        "    format: mintlify\n",
    )
    monkeypatch.setattr(sources, "STREAM_BYTES", 0)
    if helper:
        monkeypatch.setattr(build, "HELPER_MIN_BYTES", 0)
    before = child_processes()
    with pytest.raises(SourceError, match="format 'mintlify' found no pages"):
        build_from_file(config, tmp_path / "build" / "index")
    assert not (tmp_path / "build").exists()
    assert child_processes() == before


def test_a_large_fetched_llms_full_is_spooled_and_streamed_into_the_same_index(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body above fetch.SPOOL_BYTES goes to a temporary file and is parsed from it while
    indexing; the index is the one the same text gives when held; a snapshot of it
    (docwheel fetch) rebuilds it offline the same way."""
    from docwheel import fetch, sources
    from docwheel.snapshot import SnapshotFetch, save_snapshot

    text = LLMS_FULL.read_text(encoding="utf-8")
    http_server.route("/llms-full.txt", text)
    config = load_config(write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: web\n    kind: llms-full\n"
        f"    url: {http_server.url('/llms-full.txt')}\n",
    ))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    held = build_index(config, tmp_path / "held", fetch=FAST_RETRIES)
    monkeypatch.setattr(fetch, "SPOOL_BYTES", 100)
    monkeypatch.setattr(sources, "STREAM_BYTES", 100)
    lines: list[str] = []
    spooled = build_index(config, tmp_path / "spooled", fetch=FAST_RETRIES, progress=lines.append)
    assert any("read as a stream" in line for line in lines)
    assert index_files(tmp_path / "spooled") == index_files(tmp_path / "held")
    assert (spooled["pages"], spooled["sections"]) == (held["pages"], held["sections"])
    assert spooled["sources"][0]["sha256"] == held["sources"][0]["sha256"]

    save_snapshot(config, tmp_path / "snap", fetch=FAST_RETRIES)
    saved = next((tmp_path / "snap" / "files").iterdir()).read_text(encoding="utf-8")
    assert saved == text
    build_index(config, tmp_path / "offline", fetch=SnapshotFetch(tmp_path / "snap"))
    assert index_files(tmp_path / "offline") == index_files(tmp_path / "held")


def index_files(directory: Path) -> dict[str, bytes]:
    """``tree`` without the manifest, whose fetch times differ from build to build."""
    return {name: data for name, data in tree(directory).items() if name != "manifest.json"}
