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
from helpers import docwheel_cmd, write_tree as tree


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


# -- detection -----------------------------------------------------------------------------


def test_a_hugo_toml_one_folder_above_content_names_hugo(tmp_path):
    tree(tmp_path, {"hugo.toml": "baseURL = 'https://site.example/'\n", "content/_index.md": "Home\n"})
    found = detect(tmp_path / "content")
    assert (found.generator.name, found.config) == ("hugo", tmp_path / "hugo.toml")
    assert load(tmp_path).generator_reason == "from ../hugo.toml"


@pytest.mark.parametrize(
    ("name", "text", "generator"),
    [
        ("config.toml", "baseURL = 'https://site.example/'\ntheme = 'docsy'\n", "hugo"),
        ("config.yaml", "contentDir: content\n", "hugo"),
        ("config.json", '{"languageCode": "en-us", "theme": "ananke"}', "hugo"),
        ("config.json", '{"theme": "dark"}', "plain"),  # one setting many tools have
        ("config/_default/hugo.yaml", "title: Docs\n", "hugo"),
        ("config.toml", "base_url = 'https://site.example/'\ncompile_sass = true\n", "zola"),  # Zola's
        ("config.yaml", "not: [valid\n", "plain"),
    ],
)
def test_a_config_file_is_hugos_when_it_holds_hugo_settings(tmp_path, name, text, generator):
    tree(tmp_path, {name: text, "content/a.md": "# A\n"})
    assert detect(tmp_path / "content").generator.name == generator


def test_without_a_config_hugo_is_told_from_shortcodes_and_toml_frontmatter(tmp_path):
    pages = [
        ("_index.md", '+++\ntitle = "Docs"\n+++\n'),
        ("a.md", '+++\ntitle = "A"\n+++\n{{< note >}}Careful{{< /note >}}\n'),
    ]
    found = detect(tmp_path, pages)
    assert found.generator.name == "hugo" and "from its pages" in found.reason


# -- which files are pages, and where each is served --------------------------------------

HUGO_SITE = {
    "hugo.toml": "baseURL = 'https://site.example/'\n",
    "content/_index.md": "---\ntitle: Home\n---\nWelcome.\n",
    "content/docs/_index.md": "+++\ntitle = 'Documentation'\n+++\nAll the docs.\n",
    "content/docs/install.md": "+++\ntitle = 'Installing'\n+++\nRun it.\n",
    "content/docs/Getting Started.md": "---\ntitle: Getting started\n---\nBegin.\n",
    "content/docs/about/index.md": "---\ntitle: About\n---\nA leaf bundle.\n",
    "content/docs/about/team.md": "---\ntitle: Team\n---\nA resource of the about page.\n",
    "content/docs/about/more/notes.md": "Also a resource.\n",
    "content/docs/moved.md": "---\ntitle: Moved\nslug: relocated\n---\nHere.\n",
    "content/docs/elsewhere.md": '{\n  "title": "Elsewhere",\n  "url": "/guides/other-place/"\n}\nThere.\n',
    "content/docs/file.md": "---\ntitle: File\nurl: /downloads/file.html\n---\nA file.\n",
    "content/docs/reference/_index.md": "---\ntitle: Reference\nslug: ignored\n---\nA section keeps its folder.\n",
    "content/docs/draft.md": "---\ntitle: Draft\ndraft: true\n---\nNot yet.\n",
    "content/docs/hidden/index.md": "---\ntitle: Headless\nheadless: true\n---\nShared text.\n",
    "content/docs/never.md": "+++\ntitle = 'Never'\n[build]\nrender = 'never'\n+++\nOnly included.\n",
    "content/docs/linked.md": "---\ntitle: Linked\n_build:\n  render: link\n---\nNo file.\n",
}


def test_sections_and_leaf_bundles_are_their_folders_pages_with_pretty_urls(tmp_path):
    tree(tmp_path, HUGO_SITE)
    loaded = load(tmp_path)
    assert loaded.generator == "hugo"
    urls = {p.path: p.url for p in loaded.pages}
    assert urls == {
        "index": "https://site.example/",
        "docs": "https://site.example/docs/",
        "docs/install": "https://site.example/docs/install/",
        "docs/Getting Started": "https://site.example/docs/getting-started/",  # lower case, '-'
        "docs/about": "https://site.example/docs/about/",
        "docs/moved": "https://site.example/docs/relocated/",
        "docs/elsewhere": "https://site.example/guides/other-place/",
        "docs/file": "https://site.example/downloads/file.html",
        "docs/reference": "https://site.example/docs/reference/",
    }
    assert pages_by_path(loaded)["docs"].title == "Documentation"


def test_drafts_headless_and_unrendered_pages_are_not_pages_and_the_build_says_so(tmp_path):
    tree(tmp_path, HUGO_SITE)
    loaded = load(tmp_path)
    assert not {"docs/draft", "docs/hidden", "docs/never", "docs/linked"} & {p.path for p in loaded.pages}
    (warning,) = [w for w in loaded.warnings if "does not publish" in w]
    assert warning == (
        "d: skipped 4 pages hugo does not publish: docs/draft.md (draft: true), "
        "docs/hidden/index.md (headless: true), docs/linked.md (_build.render: link), "
        "docs/never.md (build.render: never)"
    )
    assert "docs/draft.md" in {raw.location for raw in loaded.raws}  # read and hashed all the same


def test_ugly_urls_serve_pages_and_sections_as_html_files(tmp_path):
    tree(tmp_path, {**HUGO_SITE, "hugo.toml": "uglyURLs = true\n"})
    urls = {p.path: p.url for p in load(tmp_path).pages}
    assert urls["index"] == "https://site.example/"
    assert urls["docs"] == "https://site.example/docs.html"
    assert urls["docs/install"] == "https://site.example/docs/install.html"
    assert urls["docs/about"] == "https://site.example/docs/about.html"
    assert urls["docs/moved"] == "https://site.example/docs/relocated.html"


def test_ugly_urls_by_section_and_paths_kept_in_case(tmp_path):
    files = {
        "hugo.yaml": "disablePathToLower: true\nuglyURLs:\n  blog: true\n",
        "content/blog/Post.md": "# Post\n",
        "content/docs/Guide.md": "# Guide\n",
    }
    tree(tmp_path, files)
    urls = {p.path: p.url for p in load(tmp_path).pages}
    assert urls == {
        "blog/Post": "https://site.example/blog/Post.html",
        "docs/Guide": "https://site.example/docs/Guide/",
    }


def test_a_site_folder_with_its_config_inside_reads_the_pages_of_its_content_dir(tmp_path):
    files = {
        "config.toml": "baseURL = 'https://site.example/'\ncontentDir = 'pages'\n",
        "pages/guide.md": "# Guide\n",
        "README.md": "# The site's readme\n",
        "archetypes/default.md": "+++\ntitle = '{{ .Name }}'\n+++\n",
    }
    tree(tmp_path, files)
    loaded = load(tmp_path, ".")
    assert [(p.path, p.url) for p in loaded.pages] == [("pages/guide", "https://site.example/guide/")]


def test_the_build_and_info_name_hugo(tmp_path):
    tree(tmp_path, HUGO_SITE)
    messages: list[str] = []
    manifest = build_index(config_for(tmp_path), tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"]) == ("hugo", "from ../hugo.toml")
    assert "d: read as hugo docs (from ../hugo.toml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: hugo (from ../hugo.toml)" in info.stdout.splitlines()


# -- heading ids ------------------------------------------------------------------------------

HEADINGS = (
    "# Title\n\n## Über Größen & more\n\n## Über Größen & more\n\n## 3.2 Install (Linux)\n\n"
    "## Custom {#my-id}\n\n## !!\n"
)


@pytest.mark.parametrize(
    ("id_type", "anchors"),
    [
        (None, ["über-größen--more", "über-größen--more-1", "32-install-linux", "my-id", "heading"]),
        ("github-ascii", ["uber-groen--more", "uber-groen--more-1", "32-install-linux", "my-id", "heading"]),
        ("blackfriday", ["über-größen-more", "über-größen-more-1", "3-2-install-linux", "my-id", "heading"]),
    ],
)
def test_heading_ids_follow_the_auto_heading_id_type(tmp_path, id_type, anchors):
    config = "baseURL = 'https://site.example/'\n"
    if id_type:
        config += f"[markup.goldmark.parser]\nautoHeadingIDType = '{id_type}'\n"
    tree(tmp_path, {"hugo.toml": config, "content/page.md": HEADINGS})
    (only,) = load(tmp_path).pages
    assert [s.anchor for s in only.sections[1:]] == anchors


# -- shortcodes, read as the page shows them ------------------------------------------------


def shown(body: str) -> str:
    """A page's text as search reads it (prose, then code)."""
    from docwheel.formats.markdown import split_code

    parsed = page(body)
    prose, code = split_code("\n\n".join(s.text for s in parsed.sections))
    return "\n".join(part for part in (prose, code) if part)


def test_shortcode_tags_leave_no_trace_and_paired_ones_keep_their_inner_text():
    text = shown(
        "{{< note >}}Keep this note.{{< /note >}}\n\n"
        "{{< youtube w7Ft2ymGmfc >}}\n\n"
        "A {{< param \"version\" >}} B, self{{< br />}}closing.\n"
    )
    assert text == "Keep this note.\n\nA B, selfclosing."


def test_a_docsy_alert_keeps_its_title_as_a_label_like_an_admonition():
    text = shown('{{% alert title="Warning" color="warning" %}}\nDo not delete the database.\n{{% /alert %}}\n')
    assert text == "Warning\nDo not delete the database."


def test_a_shortcode_may_span_lines_and_quote_its_closing_delimiter():
    text = shown('{{< figure src="chart.png"\n    caption="Monthly users" >}}\n\nQuoted {{< x "a >}} b" >}} end.\n')
    assert text == "Monthly users\n\nQuoted end."


def test_ref_and_relref_in_a_link_leave_the_link_text():
    text = shown(
        'See [the install guide]({{< ref "install.md" >}}) and [more]({{% relref "docs/more.md#x" %}}).\n'
    )
    assert text == "See the install guide and more."


def test_escaped_shortcodes_show_as_the_literal_shortcode_in_code_and_prose():
    text = shown(
        "Write `{{</* note */>}}` to open a note, or {{%/* alert */%}} here.\n\n"
        '```md\n{{</* details summary="More" */>}}\n```\n'
    )
    assert text == 'Write `{{< note >}}` to open a note, or {{% alert %}} here.\n{{< details summary="More" >}}'


def test_an_escaped_shortcode_spanning_lines_in_code_is_unescaped_at_both_ends():
    text = shown('```\n{{</* myshortcode `Some <b>HTML</b>,\nand a new line.` */>}}\n```\n')
    assert text == "{{< myshortcode `Some <b>HTML</b>,\nand a new line.` >}}"


def test_a_paired_shortcode_keeps_a_worded_first_argument_as_its_label_but_not_an_id():
    text = shown(
        '{{% note "More on Syntax Highlighting" %}}\nSee the tools.\n{{% /note %}}\n\n'
        '{{< tabs "install-tabs" >}}\n{{< tab "macOS" >}}\nUse brew.\n{{< /tab >}}\n{{< /tabs >}}\n\n'
        '[Neat]({{< ref "blog/neat.md" >}})\n'
    )
    assert text == "More on Syntax Highlighting\nSee the tools.\n\nmacOS\nUse brew.\n\nNeat"


def test_code_shortcodes_are_code_blocks_and_their_escaped_tags_show_unescaped():
    parsed = page(
        '{{< code file="learn-html.md" >}}\n{{</* highlight html */>}}\n<h1 id="title">{{ .Title }}</h1>\n'
        "{{</* /highlight */>}}\n{{< /code >}}\n\n"
        '{{< tab header="Linux" lang="bash" >}}\n# install it\napt install hugo\n{{< /tab >}}\n'
    )
    assert len(parsed.sections) == 1  # `# install it` is code, not a heading
    assert parsed.sections[0].text == (
        '```\n{{< highlight html >}}\n<h1 id="title">{{ .Title }}</h1>\n{{< /highlight >}}\n```\n\n'
        "```bash\n# install it\napt install hugo\n```"
    )


def test_shortcodes_inside_code_blocks_and_code_spans_are_shown_as_written():
    text = shown("Use `{{< note >}}`.\n\n```go-html-template\n{{< note >}}x{{< /note >}}\n```\n")
    assert text == "Use `{{< note >}}`.\n{{< note >}}x{{< /note >}}"


def test_the_highlight_shortcode_is_a_code_block():
    parsed = page(
        'Intro.\n\n{{< highlight go "linenos=table" >}}\n# not a heading\nfunc main() {}\n{{< /highlight >}}\n'
    )
    assert len(parsed.sections) == 1  # its `# comment` is code, not a heading
    assert parsed.sections[0].text == "Intro.\n\n```go\n# not a heading\nfunc main() {}\n```"


def test_shortcodes_are_read_in_a_hugo_tree_build(tmp_path):
    files = {
        "hugo.toml": "baseURL = 'https://site.example/'\n",
        "content/docs/backup.md": (
            "+++\ntitle = 'Backups'\n+++\n\n"
            '{{% alert title="Careful" %}}\nRestoring overwrites the volume.\n{{% /alert %}}\n'
        ),
    }
    tree(tmp_path, files)
    build_index(config_for(tmp_path), tmp_path / "out", progress=lambda _m: None)
    with docwheel.open_index(tmp_path / "out") as index:
        (hit,) = index.search("restoring overwrites").results
        text = index.read(hit.ref).text
    assert "alert" not in text and "{{" not in text
    assert "Careful\nRestoring overwrites the volume." in text


def test_a_section_or_bundle_without_a_title_is_named_after_its_folder(tmp_path):
    files = {
        "hugo.toml": "baseURL = 'https://site.example/'\n",
        "content/user-guides/_index.md": "Everything users need.\n",
        "content/user-guides/backups/index.md": "How backups work.\n",
        "content/user-guides/restore.md": "# Restoring a backup\n\nSteps.\n",
    }
    tree(tmp_path, files)
    titles = {p.path: p.title for p in load(tmp_path).pages}
    assert titles == {
        "user-guides": "User guides",
        "user-guides/backups": "Backups",
        "user-guides/restore": "Restoring a backup",
    }


def test_the_section_tree_groups_pages_by_their_sections_link_titles(tmp_path):
    files = {
        "hugo.toml": "baseURL = 'https://site.example/'\n",
        "content/_index.md": "---\ntitle: Home\n---\n",
        "content/docs/_index.md": "---\ntitle: Documentation\nlinkTitle: Docs\n---\n",
        "content/docs/install.md": "# Install\n",
        "content/docs/reference/_index.md": "+++\ntitle = 'API reference'\n+++\n",
        "content/docs/reference/cli/index.md": "# CLI\n",
        "content/docs/reference/plain/more.md": "# More\n",  # a folder with no _index.md
        "content/blog/post.md": "# Post\n",
    }
    tree(tmp_path, files)
    loaded = load(tmp_path)
    groups = {p.path: p.group for p in loaded.pages}
    assert groups == {
        "index": (),
        "docs": (),
        "docs/install": ("Docs",),
        "docs/reference": ("Docs",),
        "docs/reference/cli": ("Docs", "API reference"),
        "docs/reference/plain/more": ("Docs", "API reference"),
        "blog/post": (),
    }
    assert loaded.navigation == "_index.md"
