"""Nextra sites: read the way Nextra builds them.

The rules followed, from Nextra's documentation (nextra.site) and source:
- file-conventions/content-directory and page-file: Nextra 4 reads ``content/``
  (``contentDirBasePath`` in ``next.config`` serves it under a path) and ``page.mdx``
  files of ``app/``; Nextra 2/3 read ``pages/``. ``_meta`` files, ``_app.mdx`` and other
  ``_`` names are no pages.
- file-conventions/meta-file: ``key: 'Title'`` or ``{ title }``; ``type: 'separator'``
  items; ``type: 'page'`` top-level items are navbar tabs; ``'*'`` gives every item's
  defaults; ``display: 'hidden'`` "will still be accessible via the URL, but it will not
  be shown in the sidebar".
- remark-mdx-title: the title is frontmatter ``title``, else the first H1, else the file
  name (the ``_meta`` title is the sidebar's, used here before the file name).
- remark-headings / remark-custom-heading-id: github-slugger ids; ``[#id]`` at a
  heading's end sets an id, itself slugged (``[#другой язык]`` -> ``другой-язык``);
  headings inside ``<Tabs.Tab>`` get no id and no TOC entry; a ``<Tabs items>`` tab gets
  a hidden ``<h3 id>`` of its label.
- built-ins/steps: ``<Steps>`` headings are TOC headings; ``{<h3>…</h3>}`` is not one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.nextra import _meta_literal
from helpers import docwheel_cmd, load_folder, write_tree as tree

NEXT_CONFIG = "import nextra from 'nextra'\n\nconst withNextra = nextra({ contentDirBasePath: '/docs' })\n\nexport default withNextra({})\n"

SITE = {
    "next.config.mjs": NEXT_CONFIG,
    "content/_meta.js": (
        "export default {\n  index: 'Home',\n  '---': { type: 'separator', title: 'Getting started' },\n"
        "  guide: { title: 'The Guide' },\n  secret: { display: 'hidden' },\n}\n"
    ),
    "content/guide/_meta.ts": (
        "import type { MetaRecord } from 'nextra'\n\n"
        "const meta: MetaRecord = {\n  install: 'Installing it',\n  usage: { title: 'Using it' },\n}\n\nexport default meta\n"
    ),
    "content/index.mdx": "# Welcome\n\nThe home page.\n",
    "content/secret.mdx": "Served at its URL, not in the sidebar.\n",
    "content/_partial.mdx": "# A partial\n",
    "content/guide/install.mdx": "Install it with npm.\n",
    "content/guide/usage.mdx": "---\ntitle: Usage in depth\n---\n\nUse it.\n",
    "content/guide/index.mdx": "# The guide\n\nStart here.\n",
    "app/layout.jsx": "export default function Layout() {}\n",
}


def load(base: Path, path: str = ".", base_url: str = "https://site.example/", **extra):
    return load_folder(base, path, base_url, "n", **extra)


def by_url(loaded) -> dict:
    return {p.url.removeprefix("https://site.example/"): p for p in loaded.pages}


def page_with(body: str) -> dict[str, str]:
    return {"next.config.js": "module.exports = require('nextra')({})\n", "pages/page.mdx": body}


def test_a_next_config_using_nextra_names_nextra_from_the_content_folder(tmp_path):
    tree(tmp_path, SITE)
    assert detect(tmp_path).generator.name == "nextra"
    assert detect(tmp_path / "content" / "guide").generator.name == "nextra"
    loaded = load(tmp_path, "content")
    assert (loaded.generator, loaded.generator_reason) == ("nextra", "from ../next.config.mjs")


def test_a_theme_config_of_nextra_2_names_nextra(tmp_path):
    tree(tmp_path, {"theme.config.tsx": "import type { DocsThemeConfig } from 'nextra-theme-docs'\n", "pages/a.mdx": "# A\n"})
    assert detect(tmp_path / "pages").generator.name == "nextra"


def test_a_plain_next_js_app_is_not_nextra(tmp_path):
    tree(tmp_path, {
        "next.config.mjs": "const nextConfig = { reactStrictMode: true }\nexport default nextConfig\n",
        "content/a.md": "# A\n\nText.\n",
    })
    assert detect(tmp_path / "content").generator.name == "plain"
    assert load(tmp_path, "content").generator == "plain"


def test_pages_are_the_content_folders_markdown_and_underscore_files_are_not(tmp_path):
    tree(tmp_path, SITE)
    pages = by_url(load(tmp_path))
    assert set(pages) == {"docs", "docs/secret", "docs/guide", "docs/guide/install", "docs/guide/usage"}
    assert not any("partial" in p.path or "meta" in p.path for p in pages.values())


def test_the_project_and_its_content_folder_read_the_same_refs_and_urls(tmp_path):
    tree(tmp_path, SITE)
    from_project, from_content = load(tmp_path), load(tmp_path, "content")
    assert {(p.path, p.url) for p in from_project.pages} == {(p.path, p.url) for p in from_content.pages}
    assert "guide/install" in {p.path for p in from_content.pages}
    below = by_url(load(tmp_path, "content/guide"))  # a folder inside content keeps its place
    assert by_url(from_content)["docs/guide/install"].path == below["docs/guide/install"].path


def test_meta_titles_a_page_without_frontmatter_title_or_h1_and_loses_to_both(tmp_path):
    tree(tmp_path, SITE)
    pages = by_url(load(tmp_path))
    assert pages["docs/guide/install"].title == "Installing it"  # _meta only
    assert pages["docs/guide/usage"].title == "Usage in depth"  # frontmatter wins
    assert pages["docs"].title == "Welcome"  # the H1 wins over _meta's 'Home'
    assert pages["docs/secret"].title == "Secret"  # nothing names it: the file name


def test_separators_and_folders_label_the_pages_after_and_in_them(tmp_path):
    tree(tmp_path, SITE)
    loaded = load(tmp_path)
    pages = by_url(loaded)
    assert pages["docs"].group == ()
    assert pages["docs/guide/install"].group == ("Getting started", "The Guide")
    assert pages["docs/guide"].group == ("Getting started", "The Guide")
    assert loaded.navigation == "_meta.js"


def test_a_hidden_page_is_still_a_page_in_no_navigation_group(tmp_path):
    tree(tmp_path, SITE)
    secret = by_url(load(tmp_path))["docs/secret"]
    assert secret.group == ()
    assert "not in the sidebar" in secret.sections[0].text


def test_top_level_page_items_are_tabs_and_the_star_key_gives_defaults(tmp_path):
    tree(tmp_path, {
        "next.config.js": "const withNextra = require('nextra')({})\nmodule.exports = withNextra()\n",
        "pages/_meta.json": '{"*": {"type": "page"}, "index": "Home", "frameworks": "Frameworks"}',
        "pages/_app.mdx": "export default function App() {}\n",
        "pages/index.mdx": "Home.\n",
        "pages/frameworks/_meta.json": '{"react": "React", "---": {"type": "separator", "title": "Others"}, "vue": "Vue"}',
        "pages/frameworks/react.mdx": "React.\n",
        "pages/frameworks/vue.mdx": "Vue.\n",
    })
    pages = by_url(load(tmp_path))
    assert set(pages) == {"", "frameworks/react", "frameworks/vue"}  # no _app, no contentDirBasePath
    assert pages["frameworks/react"].group == ("Frameworks",)
    assert pages["frameworks/vue"].group == ("Frameworks", "Others")
    assert pages["frameworks/vue"].title == "Vue"


def test_app_router_page_files_serve_their_folder_and_route_groups_leave_no_segment(tmp_path):
    tree(tmp_path, {
        "next.config.ts": "import nextra from 'nextra'\nexport default nextra({})({})\n",
        "app/page.mdx": "# Home\n",
        "app/docs/_meta.js": "export default { install: 'Install' }\n",
        "app/docs/install/page.mdx": "Install.\n",
        "app/(marketing)/about/page.mdx": "# About\n",
        "app/docs/[slug]/page.mdx": "# Dynamic\n",
        "app/docs/notes.mdx": "# Not a page file\n",
    })
    pages = by_url(load(tmp_path))
    assert set(pages) == {"", "docs/install", "about"}
    assert pages["docs/install"].path == "docs/install"
    assert pages["docs/install"].title == "Install"


def test_meta_js_object_literals_are_read_without_running_them():
    assert _meta_literal("export default {\n  a: 'A', // note\n  b: { title: 'B' }\n}\n") == {"a": "A", "b": {"title": "B"}}
    assert _meta_literal("const meta = { a: 'A' }\nexport default meta\n") == {"a": "A"}
    assert _meta_literal("module.exports = { a: 'A' }\n") == {"a": "A"}


def test_a_broken_meta_json_is_a_warning_and_the_pages_are_read(tmp_path):
    tree(tmp_path, {"next.config.js": "require('nextra')", "pages/_meta.json": "{oops", "pages/a.mdx": "# A\n"})
    loaded = load(tmp_path)
    assert [p.title for p in loaded.pages] == ["A"]
    assert any("_meta.json: cannot be read" in w for w in loaded.warnings)


def test_tabs_show_their_items_as_labels_and_headings_in_a_tab_are_no_sections(tmp_path):
    body = (
        "import { Tabs } from 'nextra/components'\n\n# Install\n\n"
        "<Tabs items={['npm', 'pnpm']}>\n  <Tabs.Tab>\n  ## Not a section\n  npm install acme\n  </Tabs.Tab>\n"
        "  <Tabs.Tab>pnpm add acme</Tabs.Tab>\n</Tabs>\n\n## After\n\nMore.\n"
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert [s.heading for s in page.sections] == ["", "After"]
    intro = page.sections[0]
    assert "npm\n" in intro.text and "pnpm\npnpm add acme" in intro.text
    assert "Not a section" in intro.text and "import" not in intro.text
    assert [a.anchor for a in intro.anchors] == ["npm", "pnpm"]  # Nextra's hidden <h3 id>


def test_a_component_a_code_span_shows_is_text(tmp_path):
    body = "# `<Tabs>` Component\n\nUse `<FileTree.File name=\"x\" />` and `<Tabs.Tab>`.\n"
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert page.title == "<Tabs> Component"
    assert '`<FileTree.File name="x" />`' in page.sections[0].text and "`<Tabs.Tab>`" in page.sections[0].text


def test_steps_headings_stay_sections_and_a_jsx_heading_is_text(tmp_path):
    body = "# Setup\n\n<Steps>\n### Create a file\n\nWrite it.\n\n### Run it\n\n{<h3>Quietly</h3>}\n\nDone.\n</Steps>\n"
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert [s.anchor for s in page.sections[1:]] == ["create-a-file", "run-it"]
    assert "Quietly" in page.sections[2].text and "<h3>" not in page.sections[2].text


def test_callouts_cards_and_file_trees_read_as_the_page_shows_them(tmp_path):
    body = (
        '# Page\n\n<Callout type="warning" emoji="⚠️">\n  Back up first.\n</Callout>\n\n'
        '<Cards>\n  <Cards.Card title="Read more" href="/docs/more" arrow />\n</Cards>\n\n'
        '<FileTree>\n  <FileTree.Folder name="content" defaultOpen>\n    <FileTree.File name="_meta.js" />\n'
        '  </FileTree.Folder>\n</FileTree>\n'
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    text = page.sections[0].text
    assert "Back up first." in text and "warning" not in text
    assert "Read more" in text and "/docs/more" not in text
    assert "content" in text and "_meta.js" in text and "FileTree" not in text


def test_custom_heading_ids_are_slugged_and_others_follow_github_slugger(tmp_path):
    body = "# Page\n\n## Some extra space [#extra-space]\n\n### nospace[#without-space]\n\n#### foo [#другой язык]\n\n## Two words\n"
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert [(s.anchor, s.heading) for s in page.sections[1:3]] == [
        ("extra-space", "Some extra space"), ("without-space", "nospace"),
    ]
    assert page.sections[-1].anchor == "two-words"
    assert any(a.anchor == "другой-язык" and a.heading == "foo" for a in page.sections[2].anchors)


def test_pages_importing_nextra_components_are_nextra_without_a_config(tmp_path):
    imports = "import { Callout } from 'nextra/components'\n\n# P\n"
    tree(tmp_path, {f"docs/p{n}.mdx": imports for n in range(2)})
    assert detect(tmp_path / "docs", [(f"p{n}.mdx", imports) for n in range(2)]).generator.name == "nextra"


def test_the_build_and_info_name_nextra(tmp_path):
    tree(tmp_path, SITE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "n", "kind": "markdown", "path": "content", "base_url": "https://site.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"]) == ("nextra", "from ../next.config.mjs")
    assert source["pages"] == 5
    assert "n: read as nextra docs (from ../next.config.mjs)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")], capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: nextra (from ../next.config.mjs)" in info.stdout.splitlines()


def test_a_meta_global_file_describes_the_whole_tree_in_items(tmp_path):
    tree(tmp_path, {
        "next.config.mjs": NEXT_CONFIG,
        "app/_meta.global.ts": (
            "export default {\n  index: { type: 'page', display: 'hidden' },\n"
            "  docs: {\n    type: 'page',\n    title: 'Documentation',\n    items: {\n      index: '',\n"
            "      _: { type: 'separator', title: 'Themes' },\n      theme: { title: 'Docs Theme', items: { start: 'Start here' } },\n"
            "    }\n  },\n}\n"
        ),
        "app/page.mdx": "# Home\n",
        "app/docs/page.mdx": "# Docs\n",
        "app/docs/theme/start/page.mdx": "Starting.\n",
    })
    pages = by_url(load(tmp_path))
    assert pages["docs/theme/start"].group == ("Documentation", "Themes", "Docs Theme")
    assert pages["docs/theme/start"].title == "Start here"
    assert pages["docs"].group == ("Documentation",)
    assert pages[""].group == ()  # hidden from the navbar, still a page
