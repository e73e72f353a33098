"""VuePress 1 and 2 docs folders, read the way ``vuepress build`` publishes them.

The rules followed, from vuepress.vuejs.org (VuePress 2) and v1.vuepress.vuejs.org:
- "Page" (v2): every ``.md`` under the source folder is a page, ``pagePatterns`` by default
  ``['**/*.md', '!.vuepress', '!node_modules']``; ``README.md`` and ``index.md`` are served
  as their folder (``/guide/``), ``guide/page.md`` as ``/guide/page.html``; frontmatter
  ``permalink`` sets the address; the title is frontmatter ``title``, else the first H1.
- "Markdown" (v2) and "Markdown extensions" (v1): header anchors from ``@vuepress/shared``'s
  slugify; ``[[toc]]`` renders a table of contents; ``@[code{3-10}](./file.js)`` (v2) and
  ``<<< @/filepath`` (v1) import a file as a code block; custom containers ``::: tip
  Title`` / ``::: warning`` / ``::: details``; the ``<Badge>`` component in headings.
- "Default theme config": ``sidebar`` as an array of groups (``text`` and ``children`` in v2,
  ``title`` and ``children`` in v1, children as paths, ``[path, title]`` pairs or items with
  ``link``), or an object keyed by path prefix.
"""

from __future__ import annotations

import subprocess

import pytest

import docwheel
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.headings import Slugger, slugify_vitepress
from helpers import docwheel_cmd, load_folder, write_tree

V2_CONFIG = """import { defineUserConfig } from 'vuepress'
import { defaultTheme } from '@vuepress/theme-default'

export default defineUserConfig({
  lang: 'en-US',
  title: 'Acme',
  theme: defaultTheme({
    sidebar: [
      { text: 'Guide', children: ['/guide/README.md', '/guide/getting-started.md'] },
      { text: 'Reference', children: [{ text: 'Config', link: '/reference/config.html' }] },
    ],
  }),
})
"""

V2_SITE = {
    "docs/.vuepress/config.ts": V2_CONFIG,
    "docs/.vuepress/templates/note.md": "# a template, not a page\n",
    "docs/README.md": "---\nhome: true\ntitle: Home\n---\n\nWelcome to Acme.\n",
    "docs/guide/README.md": (
        "# Introduction\n\n[[toc]]\n\n## What is Acme <Badge text=\"beta\" type=\"tip\"/>\n\nA tool.\n\n"
        "::: tip Heads up\nRead this first.\n:::\n\n::: warning\nMind the gap.\n:::\n\n"
        "::: details Click to expand\nThe hidden body.\n:::\n"
    ),
    "docs/guide/getting-started.md": (
        "# Getting Started\n\n## 1. Install\n\n@[code{2-3}](../examples/hello.js)\n\n"
        "## Run it\n\n<<< @/examples/hello.js\n\n@[code](../examples/missing.js)\n"
    ),
    "docs/reference/config.md": "---\ntitle: Config Reference\npermalink: /ref/config/\n---\n\n# Config\n\nEvery key.\n",
    "docs/examples/hello.js": "// hello\nconst a = 1\nconst b = 2\nconsole.log(a + b)\n",
}


def load(tmp_path, files=None):
    write_tree(tmp_path, V2_SITE if files is None else files)
    return load_folder(tmp_path, "docs", "https://acme.example/")


def pages(loaded):
    return {p.path: p for p in loaded.pages}


def test_a_vuepress_config_in_the_docs_folder_names_vuepress(tmp_path):
    for ext in ("ts", "js", "mjs", "mts", "cjs"):
        folder = tmp_path / ext
        write_tree(folder, {f"docs/.vuepress/config.{ext}": "export default {}\n", "docs/README.md": "# Hi\n"})
        found = detect(folder / "docs")
        assert (found.generator.name, found.reason) == ("vuepress", f"from .vuepress/config.{ext}")


def test_vitepress_and_vuepress_trees_are_never_taken_for_each_other(tmp_path):
    write_tree(tmp_path, {
        "vite/.vitepress/config.ts": "export default { title: 'x' }\n",
        "vite/index.md": "# Hi\n\n[[toc]]\n",
        "vue/.vuepress/config.js": "module.exports = { title: 'x' }\n",
        "vue/README.md": "# Hi\n\n::: tip\nA VitePress-looking container.\n:::\n",
    })
    assert detect(tmp_path / "vite").generator.name == "vitepress"
    assert detect(tmp_path / "vue").generator.name == "vuepress"


def test_every_md_file_is_a_page_but_not_under_dot_vuepress_or_node_modules(tmp_path):
    loaded = load(tmp_path)
    assert loaded.generator == "vuepress"
    assert sorted(pages(loaded)) == ["README", "guide/README", "guide/getting-started", "reference/config"]


def test_page_patterns_from_the_config_decide_which_files_are_pages(tmp_path):
    files = dict(V2_SITE)
    files["docs/.vuepress/config.ts"] = "export default { pagePatterns: ['**/*.md', '!reference', '!.vuepress'] }\n"
    assert sorted(pages(load(tmp_path, files))) == ["README", "guide/README", "guide/getting-started"]


def test_readme_and_index_serve_their_folder_other_pages_end_in_html_and_permalink_wins(tmp_path):
    files = {**V2_SITE, "docs/api/index.md": "# API\n"}
    urls = {path: p.url for path, p in pages(load(tmp_path, files)).items()}
    assert urls == {
        "README": "https://acme.example/",
        "api": "https://acme.example/api/",
        "guide/README": "https://acme.example/guide/",
        "guide/getting-started": "https://acme.example/guide/getting-started.html",
        "reference/config": "https://acme.example/ref/config/",
    }


def test_the_title_is_frontmatter_title_else_the_first_h1(tmp_path):
    titles = {path: p.title for path, p in pages(load(tmp_path)).items()}
    assert titles["README"] == "Home"
    assert titles["reference/config"] == "Config Reference"
    assert titles["guide/getting-started"] == "Getting Started"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        # @vuepress/shared slugify: combining marks dropped after NFKD, runs of spaces and
        # ASCII punctuation one '-', trimmed, a leading digit prefixed '_', lower case.
        ("Getting Started", "getting-started"),
        ("Ça va très bien", "ca-va-tres-bien"),
        ("1. Install", "_1-install"),
        ("Use `app.use()` (v2)", "use-app-use-v2"),
        ("--- What's new? ---", "what-s-new"),
    ],
)
def test_anchors_follow_vuepress_slugify(heading, anchor):
    assert slugify_vitepress(heading) == anchor
    assert Slugger("vuepress").slug(heading) == anchor


def test_a_badge_leaves_no_part_of_the_anchor_and_toc_leaves_no_text(tmp_path):
    guide = pages(load(tmp_path))["guide/README"]
    section = next(s for s in guide.sections if s.anchor == "what-is-acme")
    assert section.heading == "What is Acme"
    assert "[[toc]]" not in "".join(s.text for s in guide.sections)


def test_containers_keep_their_custom_titles_and_bodies(tmp_path):
    text = next(s for s in pages(load(tmp_path))["guide/README"].sections if s.anchor == "what-is-acme").text
    assert text.split("\n\n") == [
        "A tool.", "Heads up\nRead this first.", "Mind the gap.", "Click to expand\nThe hidden body.",
    ]
    assert ":::" not in text


def test_code_imports_are_resolved_inside_the_folder_and_a_missing_one_leaves_nothing(tmp_path):
    page = pages(load(tmp_path))["guide/getting-started"]
    by_anchor = {s.anchor: s.text for s in page.sections}
    assert by_anchor["_1-install"] == "```js\nconst a = 1\nconst b = 2\n```"
    assert by_anchor["run-it"] == "```js\n// hello\nconst a = 1\nconst b = 2\nconsole.log(a + b)\n```"


def test_an_import_outside_the_docs_folder_is_not_read(tmp_path):
    write_tree(tmp_path, {"secret.js": "TOKEN = 1\n"})
    files = {**V2_SITE, "docs/guide/getting-started.md": "# Start\n\n@[code](../../secret.js)\n\nAfter.\n"}
    page = pages(load(tmp_path, files))["guide/getting-started"]
    assert "TOKEN" not in "".join(s.text for s in page.sections)


def test_the_v2_sidebar_groups_label_their_pages(tmp_path):
    groups = {path: p.group for path, p in pages(load(tmp_path)).items()}
    assert groups == {
        "README": (),
        "guide/README": ("Guide",),
        "guide/getting-started": ("Guide",),
        "reference/config": ("Reference",),
    }


def test_a_v1_sidebar_keyed_by_path_with_titles_and_pairs_labels_its_pages(tmp_path):
    files = {
        "docs/.vuepress/config.js": """module.exports = {
  themeConfig: {
    sidebar: {
      '/guide/': [
        { title: 'Basics', collapsable: false, children: ['', 'install'] },
        { title: 'Advanced', children: [['deploy', 'Deploying']] },
      ],
    },
  },
}
""",
        "docs/guide/README.md": "Intro without a heading.\n",
        "docs/guide/install.md": "# Install\n",
        "docs/guide/deploy.md": "Deploy text.\n",
    }
    found = pages(load(tmp_path, files))
    assert {path: p.group for path, p in found.items()} == {
        "guide/README": ("Basics",), "guide/install": ("Basics",), "guide/deploy": ("Advanced",),
    }
    assert found["guide/deploy"].title == "Deploying"


def test_the_build_and_info_name_vuepress(tmp_path):
    write_tree(tmp_path, V2_SITE)
    source = {"name": "d", "kind": "markdown", "path": "docs", "base_url": "https://acme.example/"}
    config = parse_config({"name": "t", "sources": [source]}, base_dir=tmp_path, origin="t.yaml")
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (built,) = manifest["sources"]
    assert (built["generator"], built["generator_from"]) == ("vuepress", "from .vuepress/config.ts")
    assert "d: read as vuepress docs (from .vuepress/config.ts)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")], capture_output=True, text=True, timeout=60
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: vuepress (from .vuepress/config.ts)" in info.stdout.splitlines()
    with docwheel.open_index(tmp_path / "out") as index:
        hit = index.search("hidden body expand", limit=1).results[0]
    assert hit.url == "https://acme.example/guide/#what-is-acme"


def test_a_v2_group_prefix_makes_its_children_relative_to_it(tmp_path):
    files = {
        "docs/.vuepress/config.ts": (
            "export default defineUserConfig({ theme: defaultTheme({ sidebar: {\n"
            "  '/guide/': [{ text: 'Basics', prefix: 'basics/', children: ['README.md', 'install.md'] },\n"
            "              { text: 'More', children: ['../api/', 'deploy'] }],\n"
            "} }) })\n"
        ),
        "docs/guide/basics/README.md": "# Basics\n",
        "docs/guide/basics/install.md": "# Install\n",
        "docs/guide/deploy.md": "# Deploy\n",
        "docs/api/README.md": "# API\n",
    }
    assert {path: p.group for path, p in pages(load(tmp_path, files)).items()} == {
        "api/README": ("More",),
        "guide/basics/README": ("Basics",),
        "guide/basics/install": ("Basics",),
        "guide/deploy": ("More",),
    }
