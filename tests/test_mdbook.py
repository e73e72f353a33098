"""mdBook books: read the way ``mdbook build`` builds them.

The rules followed, from mdBook's guide (rust-lang.github.io/mdBook) and its source:
- format/summary.md: SUMMARY.md lists the chapters ("Without this file, there is no
  book"); ``# Part`` titles (level 1 only) head the numbered chapters after them; prefix
  and suffix chapters are bare links; ``- [Draft]()`` is a draft chapter with no file.
- format/configuration/general.md: ``[book] src`` names the source folder, ``src`` by
  default, relative to the folder of book.toml.
- the ``index`` preprocessor: a ``README.md`` chapter becomes ``index.md`` (``index.html``).
- format/mdbook.md and preprocessors/links.rs: ``{{#include file:2}}`` is line 2 only,
  ``:2:10``, ``:2:``, ``::10`` ranges, ``:name`` the lines between ``ANCHOR: name`` and
  ``ANCHOR_END: name`` without anchor lines; paths are relative to the chapter; each
  included line after the first takes the text before the link; ``\\{{#…}}`` is shown as
  written; ``{{#playground f.rs editable}}`` is a ``rust,editable`` code block;
  ``{{#title …}}`` sets the page's title.
- utils ``normalize_id``/``unique_id``: heading ids keep letters, digits, '_' and '-',
  lower-case ASCII only, one '-' per space; repeats take ``-1``, ``-2``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.headings import Slugger, slugify_mdbook
from docwheel.formats.summary import read_summary
from helpers import docwheel_cmd, load_folder, write_tree as tree

SUMMARY = """# Summary

[Introduction](README.md)

# User Guide

- [Installation](guide/install.md)
    - [On Linux](guide/linux.md)
    - [Still a draft]()
- [Reading books](guide/reading.md)

# Reference

- [Configuration](reference/README.md)

---

[Contributors](misc/contributors.md)
"""

BOOK = {
    "book.toml": '[book]\ntitle = "Example book"\nauthors = ["A"]\n',
    "src/SUMMARY.md": SUMMARY,
    "src/README.md": "# Example book\n\nWhat this book is about.\n",
    "src/guide/install.md": "# Installation\n\nInstall it with cargo.\n",
    "src/guide/linux.md": "Packages for Linux distributions.\n",
    "src/guide/reading.md": "# Reading books\n\nOpen the book.\n",
    "src/reference/README.md": "# Configuration\n\nbook.toml keys.\n",
    "src/misc/contributors.md": "Everyone who helped.\n",
    "src/notes/unlisted.md": "# Unlisted notes\n\nmdBook never builds this file.\n",
}


def load(base: Path, path: str, base_url: str = "https://book.example/", **extra):
    return load_folder(base, path, base_url, "b", **extra)


def by_url(loaded) -> dict:
    return {p.url.removeprefix("https://book.example/"): p for p in loaded.pages}


def test_book_toml_above_src_names_mdbook(tmp_path):
    tree(tmp_path, BOOK)
    assert detect(tmp_path / "src").generator.name == "mdbook"
    assert detect(tmp_path).generator.name == "mdbook"
    loaded = load(tmp_path, "src")
    assert (loaded.generator, loaded.generator_reason) == ("mdbook", "from ../book.toml")


def test_only_the_chapters_summary_lists_are_pages_and_summary_is_none(tmp_path):
    tree(tmp_path, BOOK)
    pages = by_url(load(tmp_path, "src"))
    assert set(pages) == {
        "index.html", "guide/install.html", "guide/linux.html", "guide/reading.html",
        "reference/index.html", "misc/contributors.html",
    }
    assert not any("unlisted" in p.path or p.path == "SUMMARY" for p in pages.values())


def test_readme_is_its_folders_index_html(tmp_path):
    tree(tmp_path, BOOK)
    pages = by_url(load(tmp_path, "src"))
    assert pages["index.html"].title == "Example book"
    assert pages["reference/index.html"].title == "Configuration"


def test_part_titles_and_parent_chapters_are_groups_and_link_text_titles_a_page_without_h1(tmp_path):
    tree(tmp_path, BOOK)
    pages = by_url(load(tmp_path, "src"))
    assert pages["guide/install.html"].group == ("User Guide",)
    assert pages["guide/linux.html"].group == ("User Guide", "Installation")
    assert pages["guide/linux.html"].title == "On Linux"  # no H1: the summary's link text
    assert pages["reference/index.html"].group == ("Reference",)
    # prefix and suffix chapters belong to no part
    assert pages["index.html"].group == ()
    assert pages["misc/contributors.html"].group == ()
    assert pages["misc/contributors.html"].title == "Contributors"


def test_draft_chapters_have_no_file_and_no_page(tmp_path):
    entries = read_summary(SUMMARY, (1,))
    drafts = [e for e in entries if e.target is None]
    assert [(d.title, d.labels) for d in drafts] == [("Still a draft", ("User Guide", "Installation"))]
    tree(tmp_path, BOOK)
    assert len(load(tmp_path, "src").pages) == 6


def test_the_book_root_and_its_src_folder_read_the_same_book(tmp_path):
    tree(tmp_path, {**BOOK, "book.toml": '[book]\nsrc = "content"\n'})
    for rel in list(BOOK):
        if rel.startswith("src/"):
            (tmp_path / "content" / rel[4:]).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).rename(tmp_path / "content" / rel[4:])
    from_root, from_src = load(tmp_path, "."), load(tmp_path, "content")
    assert set(by_url(from_root)) == set(by_url(from_src))
    assert {p.path for p in from_root.pages} == {p.path for p in from_src.pages}  # same refs
    assert "guide/install" in {p.path for p in from_root.pages}
    assert len(from_root.pages) == 6
    assert by_url(from_root)["guide/linux.html"].group == ("User Guide", "Installation")


def test_a_book_without_summary_reads_every_file_and_says_so(tmp_path):
    tree(tmp_path, {"book.toml": "[book]\n", "src/a.md": "# A\n", "src/b.md": "# B\n"})
    loaded = load(tmp_path, "src")
    assert sorted(p.url for p in loaded.pages) == ["https://book.example/a.html", "https://book.example/b.html"]
    assert any("SUMMARY.md: not found" in w for w in loaded.warnings)


def test_a_folder_beside_the_book_is_not_read_as_its_chapters(tmp_path):
    # book.toml at the top of a project whose sources file names another folder
    tree(tmp_path, {**BOOK, "docs/api.md": "# API\n", "docs/usage.md": "# Usage\n"})
    loaded = load(tmp_path, "docs")
    assert sorted(p.path for p in loaded.pages) == ["api", "usage"]


def test_a_broken_book_toml_is_a_warning_and_the_defaults(tmp_path):
    tree(tmp_path, {**BOOK, "book.toml": "[book\ntitle = 1\n"})
    loaded = load(tmp_path, "src")
    assert len(loaded.pages) == 6
    assert any("book.toml: cannot be read" in w for w in loaded.warnings)


# -- anchors ---------------------------------------------------------------------------


def test_heading_ids_follow_mdbooks_normalize_id():
    # mdBook's own test cases (utils::normalize_id, unique_id)
    assert slugify_mdbook("`--passes`: add more rustdoc passes") == "--passes-add-more-rustdoc-passes"
    assert slugify_mdbook("Method-call 🐙 expressions \U0001f47c", plain=True) == "method-call--expressions-"
    assert slugify_mdbook("中文標題 CJK title") == "中文標題-cjk-title"
    assert slugify_mdbook("Über") == "Über"
    slugger = Slugger("mdbook")
    assert [slugger.slug("Über") for _ in range(3)] == ["Über", "Über-1", "Über-2"]


def test_a_chapters_sections_carry_mdbook_anchors(tmp_path):
    tree(tmp_path, {
        **BOOK,
        "src/guide/reading.md": "# Reading books\n\n## What's new?\n\na\n\n## What's new?\n\nb\n\n## Custom {#my-id}\n\nc\n",
    })
    page = by_url(load(tmp_path, "src"))["guide/reading.html"]
    assert [s.anchor for s in page.sections[1:]] == ["whats-new", "whats-new-1", "my-id"]


# -- links: includes and titles --------------------------------------------------------

LISTING = """use std::io;

// ANCHOR: main
fn main() {
    // ANCHOR: print
    println!("Guess the number!");
    // ANCHOR_END: print
    let secret = 42;
}
// ANCHOR_END: main
"""


def test_includes_take_line_ranges_and_anchors_relative_to_the_chapter(tmp_path):
    chapter = (
        "# Installation\n\n## Whole\n\n```rust\n{{#include ../../listings/guess.rs}}\n```\n\n"
        "## Line two to four\n\n```rust\n{{#include ../../listings/guess.rs:2:4}}\n```\n\n"
        "## Line four\n\n```rust\n{{#include ../../listings/guess.rs:4}}\n```\n\n"
        "## Anchor\n\n```rust\n{{#rustdoc_include ../../listings/guess.rs:main}}\n```\n\n"
        "## Indented\n\n- item\n\n    ```rust\n    {{#include ../../listings/guess.rs:print}}\n    ```\n\n"
        "## Escaped\n\n```hbs\n\\{{#include file.rs}}\n```\n"
    )
    tree(tmp_path, {**BOOK, "src/guide/install.md": chapter, "listings/guess.rs": LISTING})
    loaded = load(tmp_path, ".")  # the book root: listings/ is inside the book
    page = by_url(loaded)["guide/install.html"]
    text = {s.heading: s.text for s in page.sections}
    assert "use std::io;" in text["Whole"] and "ANCHOR_END: main" in text["Whole"]
    assert text["Line two to four"] == "```rust\n\n// ANCHOR: main\nfn main() {\n```"
    assert text["Line four"] == "```rust\nfn main() {\n```"
    assert "ANCHOR" not in text["Anchor"] and "use std::io" not in text["Anchor"]
    assert 'println!("Guess the number!");' in text["Anchor"] and "let secret = 42;" in text["Anchor"]
    assert '    ```rust\n        println!("Guess the number!");\n    ```' in text["Indented"]
    assert "{{#include file.rs}}" in text["Escaped"] and "\\{{" not in text["Escaped"]


def test_an_include_outside_the_source_folder_is_not_read(tmp_path):
    chapter = "# Installation\n\n```rust\n{{#include ../../../secret.rs}}\n```\n"
    tree(tmp_path / "book", {**BOOK, "src/guide/install.md": chapter})
    tree(tmp_path, {"secret.rs": "let token = 1;\n"})
    page = by_url(load(tmp_path / "book", "."))["guide/install.html"]
    assert "token" not in page.sections[0].text


def test_playground_is_a_rust_code_block_with_its_attributes(tmp_path):
    chapter = "# Installation\n\nRun this:\n\n{{#playground example.rs editable}}\n"
    tree(tmp_path, {**BOOK, "src/guide/install.md": chapter, "src/guide/example.rs": 'fn main() {}\n'})
    page = by_url(load(tmp_path, "src"))["guide/install.html"]
    assert "```rust,editable\nfn main() {}\n```" in page.sections[0].text


def test_title_directive_names_the_page_and_leaves_no_trace(tmp_path):
    chapter = "{{#title Installing mdBook from source}}\n# Installation\n\nInstall it with cargo.\n"
    tree(tmp_path, {**BOOK, "src/guide/install.md": chapter})
    page = by_url(load(tmp_path, "src"))["guide/install.html"]
    assert page.title == "Installing mdBook from source"
    assert all("{{" not in s.text and "#title" not in s.text for s in page.sections)
    assert "Install it with cargo." in "\n".join(s.text for s in page.sections)


def test_hidden_rust_lines_are_not_shown(tmp_path):
    # format/mdbook.md "Hiding code lines" and html/hide_lines.rs: in a rust block `# x`
    # and a bare `#` are hidden, `##` shows as `#`, `#[attr]` shows as written
    chapter = (
        "# Installation\n\n```rust,editable\n# fn main() {\n    let x = 5;\n#\n"
        "    ## shown\n    #[derive(Debug)]\n# }\n```\n\n```python\n# a comment\n```\n"
    )
    tree(tmp_path, {**BOOK, "src/guide/install.md": chapter})
    text = by_url(load(tmp_path, "src"))["guide/install.html"].sections[0].text
    assert text == (
        "```rust,editable\n    let x = 5;\n    # shown\n    #[derive(Debug)]\n```\n\n"
        "```python\n# a comment\n```"
    )


# -- a real build ----------------------------------------------------------------------


def test_the_build_and_info_name_mdbook_and_summary_is_no_page(tmp_path):
    tree(tmp_path, BOOK)
    config = parse_config(
        {"name": "t", "sources": [{"name": "b", "kind": "markdown", "path": "src", "base_url": "https://book.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"]) == ("mdbook", "from ../book.toml")
    assert source["pages"] == 6
    assert "b: read as mdbook docs (from ../book.toml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")], capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: mdbook (from ../book.toml)" in info.stdout.splitlines()
    listing = subprocess.run(
        [*docwheel_cmd(), "list", "--index", str(tmp_path / "out"), "--json"], capture_output=True, text=True, timeout=60,
    )
    assert listing.returncode == 0, listing.stderr
    assert "SUMMARY" not in listing.stdout and "unlisted" not in listing.stdout


def test_outside_an_mdbook_its_links_are_text(tmp_path):
    # docs that explain mdBook show `{{#title …}}` as an example: only a book reads it
    tree(tmp_path, {"docs/howto.md": "# How to\n\nWrite `{{#title My Title}}` near the top.\n"})
    (page,) = load(tmp_path, "docs").pages
    assert page.title == "How to"
    assert "{{#title My Title}}" in page.sections[0].text
