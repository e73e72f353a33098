"""GitBook spaces synced from Git: read the way GitBook publishes them.

The rules followed, from GitBook's documentation (gitbook.com/docs, Git Sync: "Content
configuration"): ``.gitbook.yaml`` at the top of the synced folder; its ``root:`` is
where the docs are (other paths are relative to it); ``structure.readme`` (default
``README.md``) is the first page and ``structure.summary`` (default ``SUMMARY.md``) the
table of contents, whose ``## headings`` create page groups and whose nested list items
are child pages. A page's address is its path without ``.md``, a ``README.md`` its
folder's. Its blocks (``{% hint style="info" %}``, ``{% tabs %}{% tab title="…" %}``,
``{% code title="…" %}``, ``{% embed url="…" %}``) show their content and titles, never
their tags.
"""

from __future__ import annotations

from pathlib import Path

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from helpers import load_folder, write_tree as tree

SUMMARY = """# Table of contents

* [Welcome](README.md)

## Getting started

* [Quickstart](getting-started/quickstart.md)
* [Git Sync](getting-started/git-sync/README.md)
  * [Content configuration](getting-started/git-sync/content-configuration.md)

## Reference

* [API](reference/api.md)
* [Changelog](https://example.com/changelog)
"""

SPACE = {
    "SUMMARY.md": SUMMARY,
    "README.md": "# Welcome\n\nStart here.\n",
    "getting-started/quickstart.md": "# Quickstart\n\nFive minutes.\n",
    "getting-started/git-sync/README.md": "# Git Sync\n\nSync a repository.\n",
    "getting-started/git-sync/content-configuration.md": "Configure how GitBook reads your repository.\n",
    "reference/api.md": "# API\n\nEndpoints.\n",
    "drafts/idea.md": "# Idea\n\nNot in the summary.\n",
}


def load(base: Path, path: str, **extra):
    return load_folder(base, path, "https://docs.example/", "g", **extra)


def by_url(loaded) -> dict:
    return {p.url.removeprefix("https://docs.example/"): p for p in loaded.pages}


def test_a_summary_at_the_top_without_book_toml_names_gitbook(tmp_path):
    tree(tmp_path / "docs", SPACE)
    assert detect(tmp_path / "docs", [("SUMMARY.md", SUMMARY)]).generator.name == "gitbook"
    assert load(tmp_path, "docs").generator == "gitbook"
    tree(tmp_path / "book", {"book.toml": "[book]\n", **{f"src/{k}": v for k, v in SPACE.items()}})
    assert load(tmp_path, "book/src").generator == "mdbook"  # a SUMMARY.md under book.toml is mdBook's


def test_summary_lists_the_pages_and_is_none_itself(tmp_path):
    tree(tmp_path / "docs", SPACE)
    pages = by_url(load(tmp_path, "docs"))
    assert set(pages) == {
        "", "getting-started/quickstart", "getting-started/git-sync",
        "getting-started/git-sync/content-configuration", "reference/api",
    }


def test_headings_group_pages_nested_pages_sit_under_their_parent_and_link_text_titles(tmp_path):
    tree(tmp_path / "docs", SPACE)
    pages = by_url(load(tmp_path, "docs"))
    assert pages[""].group == ()
    assert pages["getting-started/quickstart"].group == ("Getting started",)
    child = pages["getting-started/git-sync/content-configuration"]
    assert child.group == ("Getting started", "Git Sync")
    assert child.title == "Content configuration"  # no H1: the summary's link text
    assert pages["reference/api"].group == ("Reference",)


def test_gitbook_yaml_root_and_structure_name_the_content(tmp_path):
    tree(tmp_path, {
        ".gitbook.yaml": "root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc.md\n",
        "docs/toc.md": "# Summary\n\n* [Intro](intro.md)\n\n## Guides\n\n* [Setup](guides/setup.md)\n",
        "docs/intro.md": "# Intro\n\nHello.\n",
        "docs/guides/setup.md": "# Setup\n\nSteps.\n",
        "docs/guides/old.md": "# Old\n\nUnlisted.\n",
        "CONTRIBUTING.md": "# Contributing\n",
    })
    for path in (".", "docs"):
        loaded = load(tmp_path, path)
        assert loaded.generator == "gitbook"
        pages = by_url(loaded)
        assert set(pages) == {"", "guides/setup"}, path
        assert pages["guides/setup"].group == ("Guides",)
        assert pages[""].title == "Intro"
        assert {p.path for p in loaded.pages} == {"intro", "guides/setup"}  # refs from root: alike


def test_without_a_summary_every_file_is_a_page_and_readme_its_folders(tmp_path):
    tree(tmp_path, {".gitbook.yaml": "root: ./\n", "README.md": "# Home\n", "guide/README.md": "# Guide\n", "guide/a.md": "# A\n"})
    assert set(by_url(load(tmp_path, "."))) == {"", "guide", "guide/a"}


def test_gitbook_blocks_show_their_content_and_titles_not_their_tags(tmp_path):
    page_text = (
        "# Quickstart\n\n"
        '{% hint style="info" %}\nYou need an account first.\n{% endhint %}\n\n'
        '{% tabs %}\n{% tab title="npm" %}\n```bash\nnpm install acme\n```\n{% endtab %}\n\n'
        '{% tab title="yarn" %}\n```bash\nyarn add acme\n```\n{% endtab %}\n{% endtabs %}\n\n'
        '{% code title="config.js" %}\n```js\nexport default {}\n```\n{% endcode %}\n\n'
        '{% embed url="https://www.youtube.com/watch?v=abc" %}\n'
    )
    tree(tmp_path / "docs", {**SPACE, "getting-started/quickstart.md": page_text})
    page = by_url(load(tmp_path, "docs"))["getting-started/quickstart"]
    text = "\n".join(s.text for s in page.sections)
    assert "{%" not in text and "%}" not in text and "youtube" not in text
    assert "You need an account first." in text
    assert "npm\n\n```bash\nnpm install acme\n```" in text
    assert "yarn\n\n```bash\nyarn add acme\n```" in text
    assert "config.js\n\n```js" in text


def test_the_build_names_gitbook(tmp_path):
    tree(tmp_path / "docs", SPACE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "g", "kind": "markdown", "path": "docs"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    manifest = build_index(config, tmp_path / "out")
    (source,) = manifest["sources"]
    assert source["generator"] == "gitbook"
    assert source["pages"] == 5
