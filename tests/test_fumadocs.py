"""Fumadocs sites: read the way Fumadocs builds them.

The rules followed, from Fumadocs' documentation (fumadocs.dev) and source:
- headless/page-conventions: pages are MDX/Markdown files with ``title`` and
  ``description`` frontmatter; ``meta.json`` gives a folder's ``title`` and ``pages``
  (``"---Separator---"``, ``"..."`` for the rest, ``"...folder"`` to extract one, ``"!name"``
  to leave one out of the rest; "when a meta file presents, items are not included unless
  you have explicitly add them to pages"); ``root: true`` makes a folder a root of its own
  page tree; a ``(group)`` folder does not change its pages' slugs.
- headless/source-api: the loader's ``baseUrl`` (``/docs`` in every template) prefixes each
  page's URL; Fumadocs MDX reads ``defineDocs({ dir })``, ``content/docs`` by default.
- core remark-heading: github-slugger ids; ``[#custom-id]`` at a heading's end is the id as
  written.
- mdx remark-include: ``<include>./file.mdx</include>`` from the including file's folder,
  frontmatter dropped; another file type is a code block in its language.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from helpers import docwheel_cmd, load_folder, write_tree as tree

PACKAGE = json.dumps({"name": "site", "dependencies": {"fumadocs-core": "15.0.0", "fumadocs-ui": "15.0.0", "next": "15.0.0"}})
SOURCE_CONFIG = (
    "import { defineDocs, defineConfig } from 'fumadocs-mdx/config';\n\n"
    "export const docs = defineDocs({ dir: 'content/docs' });\n\nexport default defineConfig();\n"
)


def fm(title: str, body: str, description: str = "") -> str:
    extra = f"description: {description}\n" if description else ""
    return f"---\ntitle: {title}\n{extra}---\n\n{body}\n"


SITE = {
    "package.json": PACKAGE,
    "source.config.ts": SOURCE_CONFIG,
    "lib/source.ts": "import { loader } from 'fumadocs-core/source';\nexport const source = loader({ baseUrl: '/docs' });\n",
    "content/docs/meta.json": json.dumps({"title": "Docs", "pages": ["index", "---Guides---", "guide", "...", "!old"]}),
    "content/docs/index.mdx": fm("Introduction", "Welcome.", "What it is."),
    "content/docs/old.mdx": fm("Old", "An old page."),
    "content/docs/other.mdx": fm("Other", "Another page."),
    "content/docs/(extras)/extra.mdx": fm("Extra", "In a folder group."),
    "content/docs/guide/meta.json": json.dumps({"title": "The Guide", "pages": ["install"]}),
    "content/docs/guide/install.mdx": fm("Install", "Install it."),
    "content/docs/guide/unlisted.mdx": fm("Unlisted", "Not in meta.json."),
    "content/docs/api/meta.json": json.dumps({"title": "API Reference", "root": True}),
    "content/docs/api/client.mdx": fm("Client", "The client."),
}


def load(base: Path, path: str = ".", base_url: str = "https://site.example/", **extra):
    return load_folder(base, path, base_url, "f", **extra)


def by_url(loaded) -> dict:
    return {p.url.removeprefix("https://site.example/"): p for p in loaded.pages}


def page_with(body: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"source.config.ts": SOURCE_CONFIG, "content/docs/page.mdx": fm("Page", body), **(extra or {})}


def test_source_config_importing_fumadocs_mdx_names_fumadocs(tmp_path):
    tree(tmp_path, SITE)
    assert detect(tmp_path / "content" / "docs").generator.name == "fumadocs"
    loaded = load(tmp_path, "content/docs")
    assert (loaded.generator, loaded.generator_reason) == ("fumadocs", "from ../../source.config.ts")


def test_a_package_json_depending_on_fumadocs_names_it_and_another_does_not(tmp_path):
    tree(tmp_path / "a", {"package.json": PACKAGE, "content/docs/x.mdx": fm("X", "x")})
    assert detect(tmp_path / "a" / "content" / "docs").generator.name == "fumadocs"
    tree(tmp_path / "b", {
        "package.json": json.dumps({"dependencies": {"next": "15.0.0"}}),
        "source.config.ts": "export default {}\n",
        "content/docs/x.mdx": fm("X", "x"),
    })
    assert detect(tmp_path / "b" / "content" / "docs").generator.name == "plain"


def test_pages_are_the_docs_folders_served_under_the_base_url_and_a_group_adds_no_segment(tmp_path):
    tree(tmp_path, {**SITE, "README.md": "# The project\n", "app/notes.md": "# Not docs\n"})
    pages = by_url(load(tmp_path))
    assert set(pages) == {
        "docs", "docs/old", "docs/other", "docs/extra", "docs/guide/install", "docs/guide/unlisted", "docs/api/client",
    }
    assert pages["docs/extra"].path == "(extras)/extra"


def test_the_project_and_the_docs_folder_read_the_same_refs(tmp_path):
    tree(tmp_path, SITE)
    one, other = load(tmp_path), load(tmp_path, "content/docs")
    assert {(p.path, p.url) for p in one.pages} == {(p.path, p.url) for p in other.pages}


def test_a_literal_dir_and_base_url_move_the_pages_and_their_addresses(tmp_path):
    tree(tmp_path, {
        "source.config.ts": "import { defineDocs } from 'fumadocs-mdx/config';\nexport const docs = defineDocs({ dir: 'guides' });\n",
        "src/lib/source.ts": "export const source = loader({ baseUrl: '/learn', source: docs.toFumadocsSource() });\n",
        "guides/start.mdx": fm("Start", "Begin."),
        "content/docs/ignored.mdx": fm("Ignored", "Not the docs folder."),
    })
    assert set(by_url(load(tmp_path))) == {"learn/start"}


def test_only_define_docs_names_the_docs_folder_not_another_collection(tmp_path):
    tree(tmp_path, {
        "source.config.ts": (
            "import { defineCollections, defineDocs } from 'fumadocs-mdx/config';\n"
            "export const { docs, meta } = defineDocs({ docs: { async: true } });\n"
            "export const blog = defineCollections({ type: 'doc', dir: 'content/blog' });\n"
        ),
        "content/docs/start.mdx": fm("Start", "Begin."),
        "content/blog/post.mdx": fm("Post", "A post."),
    })
    assert set(by_url(load(tmp_path))) == {"docs/start"}


def test_the_title_and_description_come_from_the_frontmatter(tmp_path):
    tree(tmp_path, SITE)
    home = by_url(load(tmp_path))["docs"]
    assert (home.title, home.description) == ("Introduction", "What it is.")


def test_meta_json_folders_separators_and_root_folders_label_pages(tmp_path):
    tree(tmp_path, SITE)
    loaded = load(tmp_path)
    pages = by_url(loaded)
    assert pages["docs/guide/install"].group == ("Guides", "The Guide")
    assert pages["docs/other"].group == ("Guides",)  # placed by "..."
    assert pages["docs/extra"].group == ("Guides", "Extras")
    assert pages["docs/api/client"].group == ("API Reference",)  # root: a tab of its own
    assert pages["docs"].group == ()
    assert loaded.navigation == "meta.json"


def test_pages_left_out_of_the_tree_are_still_pages_in_no_group(tmp_path):
    tree(tmp_path, SITE)
    pages = by_url(load(tmp_path))
    assert pages["docs/old"].group == ()  # "!old"
    assert pages["docs/guide/unlisted"].group == ()  # pages: lists only install
    assert pages["docs/old"].title == "Old"


def test_extracting_a_folder_puts_its_pages_at_that_level(tmp_path):
    tree(tmp_path, page_with("x", {
        "content/docs/meta.json": json.dumps({"pages": ["---Start---", "...basics"]}),
        "content/docs/basics/meta.json": json.dumps({"title": "Basics"}),
        "content/docs/basics/one.mdx": fm("One", "1"),
    }))
    assert by_url(load(tmp_path))["docs/basics/one"].group == ("Start",)


def test_tabs_take_their_value_or_their_items_label(tmp_path):
    body = (
        "import { Tab, Tabs } from 'fumadocs-ui/components/tabs';\n\n"
        "<Tabs items={['npm', 'pnpm']}>\n  <Tab value=\"npm\">npm i acme</Tab>\n  <Tab>pnpm add acme</Tab>\n</Tabs>\n"
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert page.sections[0].text.split("\n")[:2] == ["npm", "npm i acme"]
    assert "pnpm\npnpm add acme" in page.sections[0].text and "import" not in page.sections[0].text


def test_a_tab_with_an_id_is_a_link_target(tmp_path):
    body = "<Tabs items={['C', 'C++']}>\n  <Tab value=\"C\">c</Tab>\n  <Tab id=\"tab-cpp\" value=\"C++\">cpp</Tab>\n</Tabs>\n"
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    assert [a.anchor for a in page.sections[0].anchors] == ["tab-cpp"]


def test_callout_accordion_and_file_names_are_text_and_steps_keep_their_headings(tmp_path):
    body = (
        '<Callout title="Heads up" type="warn">Read this.</Callout>\n\n'
        '<Accordions>\n<Accordion title="Why?">Because.</Accordion>\n</Accordions>\n\n'
        '<Files>\n  <Folder name="app" defaultOpen>\n    <File name="layout.tsx" />\n  </Folder>\n</Files>\n\n'
        "<Steps>\n<Step>\n\n### Install\n\nRun it.\n\n</Step>\n</Steps>\n"
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    intro = page.sections[0].text
    assert "Heads up" in intro and "Read this." in intro and "warn" not in intro
    assert "Why?" in intro and "Because." in intro
    assert "app" in intro and "layout.tsx" in intro
    assert [s.anchor for s in page.sections[1:]] == ["install"]


def test_a_type_table_shows_its_properties_types_and_descriptions(tmp_path):
    body = (
        "## Options\n\n<TypeTable\n  type={{\n    timeout: { description: 'How long to wait, in seconds', type: 'number', default: 30 },\n"
        "    retry: { description: 'Try again', type: 'boolean' },\n  }}\n/>\n"
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    text = page.sections[1].text
    assert "timeout — type: number — default: 30 — How long to wait, in seconds" in text
    assert "retry — type: boolean — Try again" in text and "TypeTable" not in text


def test_a_type_table_in_a_code_sample_stays_as_written(tmp_path):
    sample = "```mdx\n<TypeTable type={{ a: { description: 'A', type: 'string' } }} />\n```"
    tree(tmp_path, page_with(f"## Usage\n\n{sample}\n"))
    (page,) = load(tmp_path).pages
    assert page.sections[1].text == sample


def test_a_custom_id_is_kept_as_written(tmp_path):
    tree(tmp_path, page_with("## Options [#opts]\n\nText.\n\n## Two words\n\nMore.\n"))
    (page,) = load(tmp_path).pages
    assert [(s.anchor, s.heading) for s in page.sections[1:]] == [("opts", "Options"), ("two-words", "Two words")]


def test_include_reads_the_file_from_the_pages_folder_and_it_is_no_page(tmp_path):
    tree(tmp_path, page_with("<include>./shared/part.mdx</include>\n\n<include>./shared/run.sh</include>\n\n<include>./missing.mdx</include>\n", {
        "content/docs/shared/part.mdx": "---\ntitle: Part\n---\n\nShared words.\n",
        "content/docs/shared/run.sh": "echo hi\n",
    }))
    loaded = load(tmp_path)
    (page,) = loaded.pages
    assert "Shared words." in page.sections[0].text and "title: Part" not in page.sections[0].text
    assert "echo hi" in page.sections[0].text
    assert "include" not in page.sections[0].text and "missing" not in page.sections[0].text


def test_the_build_and_info_name_fumadocs(tmp_path):
    tree(tmp_path, SITE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "f", "kind": "markdown", "path": ".", "base_url": "https://site.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"]) == ("fumadocs", "from source.config.ts")
    assert source["pages"] == 7
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")], capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: fumadocs (from source.config.ts)" in info.stdout.splitlines()


def test_code_blocks_with_a_tab_name_show_it_and_a_wrapped_tabs_tag_keeps_its_items(tmp_path):
    body = (
        '```bash tab="npm"\nnpm i acme\n```\n\n```bash tab="pnpm"\npnpm add acme\n```\n\n'
        "<Tabs\n  groupId=\"pm\"\n  items={['yarn', 'bun']}\n>\n  <Tab>yarn add acme</Tab>\n  <Tab>bun add acme</Tab>\n</Tabs>\n"
    )
    tree(tmp_path, page_with(body))
    (page,) = load(tmp_path).pages
    text = page.sections[0].text
    assert text.startswith("npm\n\n```bash\nnpm i acme\n```")
    assert "pnpm\n\n```bash\npnpm add acme" in text and 'tab="' not in text
    assert "yarn\nyarn add acme" in text and "bun\nbun add acme" in text


def test_named_in_the_sources_file_without_a_config_the_folder_is_the_docs_folder(tmp_path):
    tree(tmp_path, {"docs/meta.json": json.dumps({"title": "Guide"}), "docs/sub/a.mdx": fm("A", "a")})
    loaded = load(tmp_path, "docs", generator="fumadocs")
    assert (loaded.generator, loaded.generator_reason) == ("fumadocs", "from the sources file")
    (page,) = loaded.pages
    assert (page.url, page.path, page.group) == ("https://site.example/docs/sub/a", "sub/a", ("Sub",))


def test_pages_importing_fumadocs_components_are_fumadocs_without_a_config(tmp_path):
    imports = "---\ntitle: P\n---\n\nimport { Tab, Tabs } from 'fumadocs-ui/components/tabs';\n\nText.\n"
    pages = [(f"p{n}.mdx", imports) for n in range(2)]
    tree(tmp_path, {f"docs/{rel}": text for rel, text in pages})
    assert detect(tmp_path / "docs", pages).generator.name == "fumadocs"
