"""Docs generators: a folder is read the way its generator's site serves it.

Each tree here is small and written to follow what the generator documents: where a page
is served, the anchors its headings get, which files are not pages, how its navigation
groups pages, and how docwheel tells which generator wrote a folder.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.errors import ConfigError
from docwheel.formats.generators import GENERATORS, detect
from docwheel.formats.jsobject import read_literal, read_value_after
from docwheel.formats.headings import Slugger, slugify_docutils, slugify_mkdocs, split_attr_list
from docwheel.sources import load_source
from helpers import docwheel_cmd, write_tree as tree


def load(base: Path, path: str = "docs", base_url: str = "https://site.example/", **extra):
    config = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": path, "base_url": base_url, **extra}]},
        base_dir=base,
        origin="t.yaml",
    )
    return load_source(config.sources[0], fetch=None)


def pages_by_path(loaded) -> dict:
    return {p.path: p for p in loaded.pages}


# -- detection -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config_file", "generator"),
    [
        ("mkdocs.yml", "mkdocs"),
        ("docusaurus.config.ts", "docusaurus"),
        ("docs/.vitepress/config.mts", "vitepress"),
        ("conf.py", "sphinx"),
    ],
)
def test_a_config_file_beside_or_in_the_folder_names_the_generator(tmp_path, config_file, generator):
    text = "extensions = []\n" if config_file == "conf.py" else "x"
    tree(tmp_path, {config_file: text, "docs/index.md": "# Home\n"})
    found = detect(tmp_path / "docs")
    assert found.generator.name == generator
    assert found.config == tmp_path / config_file


def test_a_config_file_counts_up_to_three_folders_above(tmp_path):
    tree(tmp_path, {"astro.config.mjs": "import starlight from '@astrojs/starlight';\n"})
    assert detect(tmp_path / "src/content/docs").generator.name == "starlight"
    assert detect(tmp_path / "a/src/content/docs").generator.name == "plain"


def test_an_astro_config_without_starlight_and_a_docs_json_above_the_folder_name_nothing(tmp_path):
    tree(tmp_path, {"astro.config.mjs": "export default {}\n", "docs.json": "{}", "docs/a.md": "# A\n"})
    assert detect(tmp_path / "docs").generator.name == "plain"
    assert detect(tmp_path).generator.name == "mintlify"


def test_without_a_config_file_the_pages_marks_name_the_generator(tmp_path):
    pages = [("a.md", '!!! note\n    x\n\n=== "pip"\n\n    y\n'), ("b.md", "!!! tip\n    z\n")]
    found = detect(tmp_path, pages)
    assert found.generator.name == "mkdocs"
    assert "from its pages" in found.reason
    assert detect(tmp_path, [("a.md", "# Just text\n")]).generator.name == "plain"


def test_the_sources_file_generator_wins_over_detection_and_is_reported(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\n", "docs/guide.md": "# Guide\n"})
    loaded = load(tmp_path, generator="vitepress")
    assert (loaded.generator, loaded.generator_reason) == ("vitepress", "from the sources file")
    assert loaded.pages[0].url == "https://site.example/guide.html"
    detected = load(tmp_path)
    assert (detected.generator, detected.generator_reason) == ("mkdocs", "from ../mkdocs.yml")


def test_an_unknown_generator_is_a_config_error_with_a_suggestion(tmp_path):
    with pytest.raises(ConfigError, match=r"sources\[0\]\.generator: 'mkdoc' is not one of .*did you mean 'mkdocs'"):
        parse_config(
            {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": ".", "generator": "mkdoc"}]},
            base_dir=tmp_path, origin="t.yaml",
        )
    with pytest.raises(ConfigError, match=r"sources\[0\]\.generator: only markdown sources"):
        parse_config(
            {"name": "t", "sources": [{"name": "d", "kind": "llms-full", "url": "https://x.example/llms-full.txt", "generator": "mkdocs"}]},
            base_dir=tmp_path, origin="t.yaml",
        )


def test_every_generator_in_the_table_has_a_module_of_its_own():
    assert set(GENERATORS) == {
        "mkdocs", "docusaurus", "vitepress", "starlight", "mintlify", "jupyterbook", "sphinx", "hugo", "mdbook",
        "gitbook", "docsify", "quarto", "jekyll", "nextra", "fumadocs", "antora", "vuepress", "zola", "plain",
    }
    modules = {type(g).__module__ for g in GENERATORS.values()}
    assert len(modules) == len(GENERATORS)


# -- MkDocs ----------------------------------------------------------------------------


MKDOCS_PAGES = {
    "docs/index.md": "# Home\n",
    "docs/guide/README.md": "# Guide\n",
    "docs/guide/install.md": "# Install\n\n## Über Größen { #sizes }\n\nx\n\n## Options\n\na\n\n## Options\n\nb\n\n## Options {: .wide }\n\nc\n",
    "docs/drafts/wip.md": "# WIP\n",
}


def test_mkdocs_serves_pages_as_folders_and_readme_as_the_folder_page(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\nexclude_docs: |\n  drafts/\n", **MKDOCS_PAGES})
    pages = pages_by_path(load(tmp_path))
    assert {p: pages[p].url for p in pages} == {
        "index": "https://site.example/",
        "guide/README": "https://site.example/guide/",
        "guide/install": "https://site.example/guide/install/",
    }


def test_mkdocs_without_directory_urls_serves_html_files(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\nuse_directory_urls: false\n", **MKDOCS_PAGES})
    pages = pages_by_path(load(tmp_path))
    assert pages["guide/install"].url == "https://site.example/guide/install.html"
    assert pages["guide/README"].url == "https://site.example/guide/index.html"


def test_mkdocs_anchors_follow_python_markdown_toc_and_attr_list(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\n", **MKDOCS_PAGES})
    page = pages_by_path(load(tmp_path))["guide/install"]
    assert [(s.anchor, s.heading) for s in page.sections[1:]] == [
        ("sizes", "Über Größen"),
        ("options", "Options"),
        ("options_1", "Options"),
        ("options_2", "Options"),
    ]


def test_mkdocs_slugify_folds_accents_and_drops_punctuation():
    assert slugify_mkdocs("Über Größen") == "uber-groen"
    assert slugify_mkdocs("What's new in `uv` 0.5?") == "whats-new-in-uv-05"
    assert slugify_mkdocs("A -- B") == "a-b"
    slugger = Slugger("mkdocs")
    assert [slugger.slug(h) for h in ["Foo", "Foo", "Foo", "???", "???"]] == ["foo", "foo_1", "foo_2", "_1", "_2"]


def test_mkdocs_nav_gives_sections_and_titles(tmp_path):
    nav = (
        "site_name: x\n"
        "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Home: index.md\n  - Guides:\n      - guide/README.md\n      - Setting up: guide/install.md\n"
        "  - Elsewhere: https://x.example/\n"
    )
    tree(tmp_path, {"mkdocs.yml": nav, **MKDOCS_PAGES, "docs/guide/install.md": "Text without a heading.\n"})
    loaded = load(tmp_path)
    pages = pages_by_path(loaded)
    assert pages["guide/install"].group == ("Guides",)
    assert pages["guide/install"].title == "Setting up"
    assert pages["index"].group == ()
    assert loaded.navigation == "mkdocs.yml"


# -- Docusaurus ------------------------------------------------------------------------


DOCUSAURUS = {
    "docusaurus.config.js": "module.exports = {};\n",
    "sidebars.json": '{"docs": [{"type": "category", "label": "Usage", "items": ["api", "guides/setup"]}, "intro"]}',
    "docs/GlobalAPI.md": (
        "---\nid: api\ntitle: API\n---\n\n## `format(source [, options])`\n\n## Options {#opts}\n\n"
        "## `--config <path>`\n"
    ),
    "docs/01-intro.md": "# Intro\n",
    "docs/02-guides/01-setup.md": "# Setup\n",
    "docs/02-guides/index.md": "# Guides\n",
    "docs/2021-11-notes.md": "# Notes\n",
    "docs/moved.md": "---\nslug: /elsewhere/moved-here\n---\n# Moved\n",
    "docs/guides-rel.md": "---\nslug: ../up\n---\n# Rel\n",
    "docs/_partial.md": "Shared text\n",
    "docs/_parts/piece.md": "# Piece\n",
}


def test_docusaurus_serves_a_doc_at_its_id_slug_and_folder_without_number_prefixes(tmp_path):
    tree(tmp_path, DOCUSAURUS)
    pages = pages_by_path(load(tmp_path, base_url="https://site.example/docs/"))
    assert {p: pages[p].url for p in pages} == {
        "GlobalAPI": "https://site.example/docs/api",
        "01-intro": "https://site.example/docs/intro",
        "02-guides/01-setup": "https://site.example/docs/guides/setup",
        "02-guides": "https://site.example/docs/guides/",
        "2021-11-notes": "https://site.example/docs/2021-11-notes",
        "moved": "https://site.example/docs/elsewhere/moved-here",
        "guides-rel": "https://site.example/docs/up",
    }


def test_docusaurus_anchors_are_github_sluggers_with_custom_ids(tmp_path):
    tree(tmp_path, DOCUSAURUS)
    page = pages_by_path(load(tmp_path))["GlobalAPI"]
    assert [(s.anchor, s.heading) for s in page.sections[1:]] == [
        ("formatsource--options", "format(source [, options])"),
        ("opts", "Options"),
        ("--config-path", "--config <path>"),  # a placeholder in code is its characters
    ]


def test_docusaurus_sidebars_group_docs_by_id(tmp_path):
    tree(tmp_path, DOCUSAURUS)
    pages = pages_by_path(load(tmp_path))
    assert pages["GlobalAPI"].group == ("Usage",)
    assert pages["02-guides/01-setup"].group == ("Usage",)
    assert pages["01-intro"].group == ()


# -- VitePress -------------------------------------------------------------------------


VITEPRESS_CONFIG = """\
import { defineConfig } from 'vitepress'
// the sidebar, partly computed
export default defineConfig({
  srcExclude: ['**/fragments/*', 'NOTES.md'],
  themeConfig: {
    sidebar: {
      '/guide': [
        { text: 'Introduction', items: [{ text: 'Getting Started', link: '/guide/' }, { text: 'Features', link: '/guide/features' }] },
        { text: `Computed ${x}`, items: generated() },
      ],
    },
  },
})
"""


def test_vitepress_serves_html_unless_clean_urls_and_index_as_its_folder(tmp_path):
    files = {
        "docs/.vitepress/config.ts": VITEPRESS_CONFIG,
        "docs/guide/index.md": "# Getting Started\n",
        "docs/guide/features.md": "---\ntitle: Features | Guide\n---\n\n# Features\n\n## 1. Install {#setup}\n\n## What's new?\n",
        "docs/guide/fragments/part.md": "part\n",
        "docs/NOTES.md": "# notes\n",
    }
    tree(tmp_path, files)
    loaded = load(tmp_path)
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "guide": "https://site.example/guide/",
        "guide/features": "https://site.example/guide/features.html",
    }
    features = pages["guide/features"]
    assert features.title == "Features"  # the H1, not the browser tab's frontmatter title
    assert [s.anchor for s in features.sections[1:]] == ["setup", "what-s-new"]
    assert features.group == ("Introduction",)
    (tmp_path / "docs/.vitepress/config.ts").write_text(
        VITEPRESS_CONFIG.replace("srcExclude", "cleanUrls: true,\n  srcExclude"), encoding="utf-8"
    )
    assert pages_by_path(load(tmp_path))["guide/features"].url == "https://site.example/guide/features"


def test_components_in_headings_leave_the_heading_text_and_anchor(tmp_path):
    files = {
        "docs/.vitepress/config.ts": "export default {}",
        "docs/api.md": '# api <Badge type="tip">beta</Badge>\n\n## pool <Version>4.1</Version> <CRoot />\n\n## `<Tabs>` component\n',
    }
    tree(tmp_path, files)
    page = load(tmp_path).pages[0]
    assert page.title == "api"
    assert [(s.heading, s.anchor) for s in page.sections[1:]] == [("pool", "pool"), ("<Tabs> component", "tabs-component")]


# -- Starlight -------------------------------------------------------------------------


STARLIGHT_CONFIG = """\
import starlight from '@astrojs/starlight';
export default defineConfig({
  trailingSlash: 'always',
  integrations: [starlight({
    sidebar: [
      { label: 'Start Here', items: ['getting-started', { label: 'Setup', slug: 'manual-setup' }] },
      { label: 'Guides', autogenerate: { directory: 'guides' } },
    ],
  })],
});
"""


def test_starlight_serves_slugs_with_a_trailing_slash_and_titles_from_frontmatter(tmp_path):
    files = {
        "astro.config.mjs": STARLIGHT_CONFIG,
        "src/content/docs/index.mdx": "---\ntitle: Welcome\n---\n\nHello\n",
        "src/content/docs/getting-started.mdx": "---\ntitle: Getting Started\n---\n\n## Quick Start\n\n## Quick Start\n",
        "src/content/docs/manual-setup.mdx": "---\ntitle: Manual Setup\nslug: setup/by-hand\n---\n\nText\n",
        "src/content/docs/guides/Site Search.md": "---\ntitle: Site Search\n---\n\nText\n",
    }
    tree(tmp_path, files)
    pages = pages_by_path(load(tmp_path, path="src/content/docs"))
    assert {p: pages[p].url for p in pages} == {
        "index": "https://site.example/",
        "getting-started": "https://site.example/getting-started/",
        "manual-setup": "https://site.example/setup/by-hand/",
        "guides/Site Search": "https://site.example/guides/site-search/",
    }
    assert pages["getting-started"].title == "Getting Started"
    assert [s.anchor for s in pages["getting-started"].sections[1:]] == ["quick-start", "quick-start-1"]
    assert pages["getting-started"].group == ("Start Here",)
    assert pages["guides/Site Search"].group == ("Guides",)
    assert pages["manual-setup"].group == ()  # the sidebar names it by slug: setup/by-hand


# -- Sphinx, Mintlify, plain -------------------------------------------------------------


def test_sphinx_anchors_are_docutils_ids():
    assert slugify_docutils("Quickstart: the `app` object") == "quickstart-the-app-object"
    assert slugify_docutils("2. Über Größen") == "uber-groen"


def test_a_plain_folder_keeps_github_anchors_and_extensionless_urls(tmp_path):
    tree(tmp_path, {"docs/guide/index.md": "# Guide\n\n## Tools & Resources\n", "docs/a.md": "# A\n"})
    loaded = load(tmp_path)
    assert loaded.generator == "plain"
    pages = pages_by_path(loaded)
    assert pages["guide"].url == "https://site.example/guide/"
    assert pages["a"].url == "https://site.example/a"
    assert pages["guide"].sections[1].anchor == "tools--resources"


def test_attribute_lists_leave_the_heading_text():
    assert split_attr_list("Title { #custom-id }") == ("Title", "custom-id")
    assert split_attr_list("Title {#custom-id}") == ("Title", "custom-id")
    assert split_attr_list("Title {: #id .cls data-x=1 }") == ("Title", "id")
    assert split_attr_list("Title { .wide }") == ("Title", None)
    assert split_attr_list("Set {name}") == ("Set {name}", None)


def test_the_manifest_and_info_say_which_generator_and_why(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\n", "docs/index.md": "# Home\n\nText.\n"})
    config = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": "docs"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"]) == ("mkdocs", "from ../mkdocs.yml")
    assert "d: read as mkdocs docs (from ../mkdocs.yml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: mkdocs (from ../mkdocs.yml)" in info.stdout.splitlines()


# -- the JavaScript config reader ----------------------------------------------------------


def test_the_js_reader_keeps_literals_and_skips_what_it_cannot_evaluate():
    text = """
    const x = 1;
    export default withPlugins(defineConfig({
      title: 'Docs', // a comment
      /* block */ flags: [true, false, null, 3, 2.5],
      computed: makeIt(1, [2]),
      template: `a ${x} b`,
      plain: `no substitution`,
      ...spread,
      nested: { "quoted key": ['a', "b"], [dyn]: 1, method() { return 1 } },
    }))
    """
    value = read_value_after(text, ("export default",))
    assert value == {
        "title": "Docs",
        "flags": [True, False, None, 3, 2.5],
        "computed": None,
        "template": None,
        "plain": "no substitution",
        "nested": {"quoted key": ["a", "b"]},
    }
    assert read_value_after("cleanUrls: true,", ("cleanUrls",)) is True
    assert read_literal("{ unclosed: [1, 2") == {"unclosed": [1, 2]}
    assert read_value_after("nothing here", ("sidebar",)) is None
