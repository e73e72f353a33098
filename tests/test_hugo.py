"""Hugo docs trees, and the three frontmatter formats Hugo reads, for every folder.

Each tree is small and follows what gohugo.io documents: "Front matter" (YAML between
``---``, TOML between ``+++``, a JSON object at the top), "Page bundles" (``_index.md`` a
section's page, ``index.md`` a leaf bundle's, the bundle's other files its resources),
"URL management" (pretty URLs by default, ``uglyURLs``, ``slug``, ``url``), "Build options"
(``build.render: never``), "Configure markup" (``autoHeadingIDType``) and "Shortcodes".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import docwheel
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.markdown import parse_markdown, split_frontmatter
from docwheel.sources import load_source
from helpers import docwheel_cmd


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def config_for(base: Path, path: str = "content", **extra):
    source = {"name": "d", "kind": "markdown", "path": path, "base_url": "https://site.example/", **extra}
    return parse_config({"name": "t", "sources": [source]}, base_dir=base, origin="t.yaml")


def load(base: Path, path: str = "content", **extra):
    return load_source(config_for(base, path, **extra).sources[0], fetch=None)


def pages_by_path(loaded) -> dict:
    return {p.path: p for p in loaded.pages}


def page(text: str, **kwargs):
    return parse_markdown(text, url="https://site.example/p", path="p", fallback_title="Fallback", **kwargs)


# -- frontmatter in all three formats, in any folder ---------------------------------------

# The same metadata as gohugo.io's "Front matter" shows it in each format.
FRONTMATTER = {
    "yaml": '---\ntitle: "Installing"\ndescription: Set it up\ntags: [a, b]\n---\n',
    "toml": '+++\ntitle = "Installing"\ndescription = "Set it up"\ntags = ["a", "b"]\n'
    "date = 2024-02-02T04:14:54-08:00\n[params]\nauthor = 'John Smith'\n+++\n",
    "json": '{\n   "title": "Installing",\n   "description": "Set it up",\n   "tags": ["a", "b"]\n}\n',
}


@pytest.mark.parametrize("form", sorted(FRONTMATTER))
def test_frontmatter_in_each_format_names_the_page_and_leaves_the_body(form):
    parsed = page(FRONTMATTER[form] + "\nRun the installer.\n")
    assert (parsed.title, parsed.description) == ("Installing", "Set it up")
    assert parsed.sections[0].text == "Run the installer."


@pytest.mark.parametrize("form", sorted(FRONTMATTER))
def test_frontmatter_in_each_format_is_read_in_a_plain_folder_and_not_indexed(tmp_path, form):
    tree(tmp_path, {"docs/install.md": FRONTMATTER[form] + "\nRun the installer.\n"})
    config = config_for(tmp_path, "docs")
    build_index(config, tmp_path / "out", progress=lambda _m: None)
    with docwheel.open_index(tmp_path / "out") as index:
        (hit,) = index.search("installer").results
        assert hit.title == "Installing"
        assert index.search("John Smith").results == ()  # the TOML block is not body text
        assert index.search("tags").results == ()


def test_broken_toml_frontmatter_warns_naming_the_file_and_the_page_is_still_read(tmp_path):
    tree(tmp_path, {"docs/a.md": '+++\ntitle = "A"\nweight = = 3\ntags = []\n+++\n\n# Heading A\n\nText.\n'})
    loaded = load(tmp_path, "docs")
    (only,) = loaded.pages
    assert only.title == "Heading A" and only.sections[0].text == "Text."
    (warning,) = loaded.warnings
    assert warning.startswith("d: a.md: malformed frontmatter: ") and "line 3" in warning


def test_broken_json_frontmatter_warns_and_drops_the_block_to_its_closing_brace():
    meta, body, warning = split_frontmatter('{\n  "title": "A",\n}\nBody\n')
    assert (meta, body) == ({}, "Body\n")
    assert warning is not None and warning.startswith("malformed frontmatter: ")


def test_a_page_opening_with_an_mdx_expression_or_a_rule_of_pluses_has_no_frontmatter():
    assert split_frontmatter("{/* note */}\nBody") == ({}, "{/* note */}\nBody", None)
    assert split_frontmatter("+++\nno closing line") == ({}, "+++\nno closing line", None)
    assert split_frontmatter('{"a": 1} and more\n') == ({}, '{"a": 1} and more\n', None)


def test_an_empty_toml_block_is_no_metadata_and_no_warning():
    assert split_frontmatter("+++\n+++\nBody") == ({}, "Body", None)
