"""Antora components (formats/antora.py), read as Antora publishes them.

The rules come from Antora's documentation (docs.antora.org): standard-directories and
family directories (a module's ``pages``, ``partials``, ``examples``, ``images``,
``attachments``; files and folders starting with ``_`` are hidden), module-url-segment
(the ``ROOT`` module has no URL segment), component-version and version ``~`` (no version
segment), how-antora-builds-urls (``<component>/<version>/<module>/<page>.html``, an index
page at its folder), navigation/single-list and multiple lists (a list title is the top
item, nested items sit under the item above), navigation/xrefs-and-link-text (the xref's
text is the entry's title; ``module:page.adoc`` names another module), page/include-a-partial
and resource-id coordinates (``partial$``, ``example$``, ``module:partial$``), and
component-attributes (``asciidoc.attributes``; ``false`` unsets one). Each fixture is a
small component built for real.
"""

from __future__ import annotations

from docwheel.api import open_index
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.antora import read_nav
from docwheel.formats.generators import detect
from test_generators import load, pages_by_path, tree

DESCRIPTOR = """\
name: acme
title: Acme
version: '2.0'
nav:
- modules/ROOT/nav.adoc
- modules/admin/nav.adoc
asciidoc:
  attributes:
    product: Acme Server
    beta: false
"""

COMPONENT = {
    "docs/antora.yml": DESCRIPTOR,
    "docs/modules/ROOT/nav.adoc": (
        "* xref:index.adoc[Home]\n* Getting Started\n** xref:guide/install.adoc[Install {product}]\n"
    ),
    "docs/modules/admin/nav.adoc": ".Administration\n* xref:users.adoc[Manage users]\n",
    "docs/modules/ROOT/pages/index.adoc": "= Welcome\n\nThis is {product}.\n\ninclude::partial$shared.adoc[]\n",
    "docs/modules/ROOT/pages/guide/install.adoc": (
        "= Install\n\n== Download the archive\n\nFetch the zebra tarball from the mirror.\n\n"
        "[source,python]\n----\ninclude::example$hello.py[tag=main]\n----\n\n"
        "ifdef::beta[Beta text.]\nifndef::beta[Stable text.]\n"
    ),
    "docs/modules/ROOT/pages/_draft.adoc": "= Draft\n",
    "docs/modules/ROOT/partials/shared.adoc": "Partial text about {product}.\n",
    "docs/modules/ROOT/examples/hello.py": "import os\n# tag::main[]\nprint('hello')\n# end::main[]\n",
    "docs/modules/ROOT/examples/notes.adoc": "= Not a page\n",
    "docs/modules/admin/pages/users.adoc": "= Users\n\n[#add]\n== Add a user\n\nRun useradd.\n",
    "docs/modules/admin/images/diagram.adoc": "= Not a page either\n",
    "docs/README.md": "# About the repository\n",
}


def test_an_antora_yml_in_or_above_the_folder_names_antora(tmp_path):
    tree(tmp_path, COMPONENT)
    found = detect(tmp_path / "docs/modules/ROOT/pages")
    assert (found.generator.name, found.config) == ("antora", tmp_path / "docs/antora.yml")


def test_an_antora_yml_that_cannot_be_read_still_names_antora_and_warns(tmp_path):
    tree(tmp_path, {**COMPONENT, "docs/antora.yml": "name: [unclosed\n"})
    loaded = load(tmp_path)
    assert loaded.generator == "antora"
    assert "https://site.example/docs/guide/install.html" in [p.url for p in loaded.pages]
    assert loaded.warnings == [
        "d: " + str(tmp_path / "docs") + ": antora.yml: cannot be read (ParserError); read as a component named by its folder"
    ]


def test_pages_are_the_modules_pages_served_at_component_version_module_page_html(tmp_path):
    tree(tmp_path, COMPONENT)
    loaded = load(tmp_path)
    assert (loaded.generator, loaded.generator_reason) == ("antora", "from antora.yml")
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "acme/2.0": "https://site.example/acme/2.0/",
        "acme/2.0/guide/install": "https://site.example/acme/2.0/guide/install.html",
        "acme/2.0/admin/users": "https://site.example/acme/2.0/admin/users.html",
    }


def test_the_same_refs_whichever_folder_of_the_component_the_source_names(tmp_path):
    tree(tmp_path, COMPONENT)
    pages = pages_by_path(load(tmp_path, "docs/modules/ROOT/pages"))
    assert sorted(pages) == ["acme/2.0", "acme/2.0/guide/install"]
    assert pages["acme/2.0"].sections[0].text == "This is Acme Server.\n\nPartial text about Acme Server."


def test_a_version_of_tilde_and_a_component_named_root_have_no_url_segment(tmp_path):
    tree(tmp_path, {**COMPONENT, "docs/antora.yml": "name: acme\nversion: ~\n"})
    assert sorted(p.url for p in load(tmp_path).pages) == [
        "https://site.example/acme/",
        "https://site.example/acme/admin/users.html",
        "https://site.example/acme/guide/install.html",
    ]
    tree(tmp_path, {"docs/antora.yml": "name: ROOT\nversion: ~\n"})
    assert "https://site.example/guide/install.html" in [p.url for p in load(tmp_path).pages]


def test_a_version_from_the_git_branch_warns_and_gives_no_segment(tmp_path):
    tree(tmp_path, {**COMPONENT, "docs/antora.yml": "name: acme\nversion: true\n"})
    loaded = load(tmp_path)
    assert "https://site.example/acme/guide/install.html" in [p.url for p in loaded.pages]
    assert any("version: true" in warning for warning in loaded.warnings)


def test_the_descriptors_attributes_set_and_unset_and_includes_resolve_in_the_component(tmp_path):
    tree(tmp_path, COMPONENT)
    loaded = load(tmp_path)
    install = pages_by_path(loaded)["acme/2.0/guide/install"]
    text = install.sections[1].text
    assert "```python\nprint('hello')\n```" in text
    assert "Stable text." in text and "Beta text." not in text
    assert not loaded.warnings
    read = {r.location for r in loaded.raws}
    assert {"modules/ROOT/partials/shared.adoc", "modules/ROOT/examples/hello.py"} <= read


def test_nav_files_give_groups_and_titles_and_are_no_pages(tmp_path):
    tree(tmp_path, COMPONENT)
    loaded = load(tmp_path)
    assert loaded.navigation == "modules/ROOT/nav.adoc, modules/admin/nav.adoc"
    pages = pages_by_path(loaded)
    assert pages["acme/2.0/guide/install"].group == ("Getting Started",)
    assert pages["acme/2.0/admin/users"].group == ("Administration",)
    assert pages["acme/2.0"].group == ()


def test_read_nav_takes_list_titles_nesting_link_text_and_skips_comments():
    nav = (
        ".Guides\n* xref:a.adoc[A page]\n** xref:b.adoc[]\n// * xref:c.adoc[]\n"
        "*** xref:admin:d.adoc#part[D {x}]\n.Other\n* xref:e.adoc[E]\n"
    )
    assert read_nav(nav, {"x": "X"}) == [
        ("a.adoc", ("Guides",), "A page"),
        ("b.adoc", ("Guides", "A page"), ""),
        ("admin:d.adoc#part", ("Guides", "A page"), "D X"),  # b's title is its page's: unknown here
        ("e.adoc", ("Other",), "E"),
    ]


def test_a_built_component_finds_a_section_by_its_words_and_opens_at_its_id(tmp_path):
    tree(tmp_path, COMPONENT)
    config = parse_config(
        {"name": "t", "sources": [{"name": "a", "kind": "markdown", "path": "docs", "base_url": "https://docs.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "index", progress=messages.append)
    assert manifest["sources"][0]["generator"] == "antora"
    assert not [m for m in messages if m.startswith("warning:")]
    with open_index(tmp_path / "index") as docs:
        hit = docs.search("zebra tarball", limit=1).results[0]
        assert hit.ref == "a:acme/2.0/guide/install#_download_the_archive"
        assert hit.url == "https://docs.example/acme/2.0/guide/install.html#_download_the_archive"
        users = docs.read("a:acme/2.0/admin/users#add")
        assert users.url == "https://docs.example/acme/2.0/admin/users.html#add"
        assert "Run useradd." in users.text
