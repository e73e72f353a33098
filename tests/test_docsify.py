"""Docsify sites: read the way Docsify renders them in the browser.

The rules followed, from Docsify's documentation (docsify.js.org: "Quick start", "More
pages", "Configuration": loadSidebar, loadNavbar, coverpage, routerMode) and its source
(src/core/render/slugify.js): ``index.html`` sets ``window.$docsify``; every Markdown file
is a page except the navigation files (``_sidebar.md``, ``_navbar.md``,
``_coverpage.md``); ``README.md`` is its folder's page; routes are ``#/guide/install``
unless ``routerMode: 'history'``; the sidebar's items without a link label the items
nested in them; heading ids are its slugify.
"""

from __future__ import annotations

from pathlib import Path

from docwheel.formats.generators import detect
from docwheel.formats.headings import slugify_docsify
from helpers import load_folder, write_tree as tree

INDEX = """<!DOCTYPE html>
<html><body><div id="app"></div>
<script>
  window.$docsify = {
    name: 'Acme',
    loadSidebar: true,
    loadNavbar: true,
    coverpage: true,
    %s
  }
</script>
<script src="//cdn.jsdelivr.net/npm/docsify@4"></script>
</body></html>
"""

SIDEBAR = """- Getting started

  - [Quick start](quickstart.md)
  - [Writing more pages](more-pages.md)

- Guide
  - [Overview](guide/)
  - [Deploy](/guide/deploy)
"""

SITE = {
    "README.md": "# Acme\n\nWelcome.\n",
    "quickstart.md": "# Quick start\n\nInstall it.\n",
    "more-pages.md": "Add more pages.\n",
    "guide/README.md": "# Guide\n\nThe guide.\n",
    "guide/deploy.md": "# Deploy\n\n## GitHub Pages\n\nPush.\n\n## GitHub Pages\n\nAgain.\n",
    "_sidebar.md": SIDEBAR,
    "_navbar.md": "- [Home](/)\n- [Guide](guide/)\n",
    "_coverpage.md": "# Acme\n\n> The tagline\n",
}


def load(base: Path, path: str = "docs"):
    return load_folder(base, path, "https://acme.example/", "d")


def by_url(loaded) -> dict:
    return {p.url.removeprefix("https://acme.example/"): p for p in loaded.pages}


def test_index_html_with_docsify_names_it_only_in_the_docs_folder(tmp_path):
    tree(tmp_path / "docs", {**SITE, "index.html": INDEX % ""})
    assert detect(tmp_path / "docs").generator.name == "docsify"
    assert detect(tmp_path / "docs" / "guide").generator.name != "docsify"
    tree(tmp_path / "other", {"index.html": "<html><body>Not docsify</body></html>", "a.md": "# A\n"})
    assert detect(tmp_path / "other").generator.name == "plain"


def test_navigation_files_are_no_pages_and_readme_is_its_folders_page(tmp_path):
    tree(tmp_path / "docs", {**SITE, "index.html": INDEX % ""})
    loaded = load(tmp_path)
    assert loaded.generator == "docsify"
    assert set(by_url(loaded)) == {"#/", "#/quickstart", "#/more-pages", "#/guide/", "#/guide/deploy"}


def test_history_mode_serves_plain_paths(tmp_path):
    tree(tmp_path / "docs", {**SITE, "index.html": INDEX % "routerMode: 'history',"})
    assert set(by_url(load(tmp_path))) == {"", "quickstart", "more-pages", "guide/", "guide/deploy"}


def test_the_sidebar_labels_groups_and_titles_pages_without_h1(tmp_path):
    tree(tmp_path / "docs", {**SITE, "index.html": INDEX % ""})
    pages = by_url(load(tmp_path))
    assert pages["#/quickstart"].group == ("Getting started",)
    assert pages["#/more-pages"].title == "Writing more pages"
    assert pages["#/guide/"].group == ("Guide",)
    assert pages["#/guide/deploy"].group == ("Guide",)


def test_heading_ids_follow_docsify_slugify(tmp_path):
    assert slugify_docsify("What's new?") == "whats-new"
    assert slugify_docsify("1. Install") == "_1-install"
    assert slugify_docsify("Rocket 🚀 launch") == "rocket--launch"
    tree(tmp_path / "docs", {**SITE, "index.html": INDEX % ""})
    page = by_url(load(tmp_path))["#/guide/deploy"]
    assert [s.anchor for s in page.sections[1:]] == ["github-pages", "github-pages-1"]
