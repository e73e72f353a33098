"""Zola sites, read the way ``zola build`` publishes them.

The rules followed, from getzola.org's documentation:
- "Content > Overview" and "Section": pages are the ``.md`` files of ``content/``; a
  folder's ``_index.md`` is its section's page; a folder with an ``index.md`` is a page and
  the files beside it are its assets; ``render = false`` sections are not rendered.
- "Page": ``about.md`` is served at ``about/``; a leading date (``2018-10-10-hello.md``)
  leaves the address (``slugify.paths_keep_dates`` keeps it); frontmatter ``slug`` replaces
  the file name and ``path`` the whole address; with ``slugify.paths = "on"`` (the default)
  the name is slugified; ``draft = true`` pages are not published; TOML ``+++`` frontmatter.
- "Internal links & deep linking": heading ids follow ``slugify.anchors``: ``on`` (the
  ``slug`` crate: ``Something exciting!`` -> ``something-exciting``), ``safe`` (spaces as
  ``_``, ``"#%<>[]()`^{|}`` dropped) or ``off`` (unchanged); a repeat takes ``-1``.
- "Shortcodes": ``{{ name(args) }}`` renders a template; ``{% name(args) %}`` … ``{% end %}``
  renders its body through one.
- "Configuration": ``config.toml`` holds ``base_url``, ``compile_sass``,
  ``build_search_index``, ``[markdown]``, ``default_language``, ``[slugify]``.
"""

from __future__ import annotations

import subprocess

import pytest

import docwheel
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.headings import Slugger
from helpers import docwheel_cmd, load_folder, write_tree

CONFIG = (
    'base_url = "https://example.com"\ncompile_sass = false\nbuild_search_index = true\n\n'
    "[markdown]\nhighlight_code = true\n"
)

SITE = {
    "site/config.toml": CONFIG,
    "site/README.md": "# The repository's readme, not a page\n",
    "site/templates/page.md": "# not content\n",
    "site/content/_index.md": '+++\ntitle = "Home"\n+++\n\nWelcome home.\n',
    "site/content/docs/_index.md": '+++\ntitle = "Documentation"\nsort_by = "weight"\n+++\n\nAll the docs.\n',
    "site/content/docs/getting-started.md": (
        '+++\ntitle = "Getting started"\nweight = 1\n+++\n\n## Something exciting!\n\n'
        '{{ youtube(id="dQw4w9WgXcQ") }}\n\n{% note(kind="tip") %}\nUse the **binary**.\n{% end %}\n\n'
        "## Something exciting!\n\nAgain.\n\n## Manual {#manual .header}\n\nSet by hand.\n"
    ),
    "site/content/docs/2024-01-31-release notes.md": '+++\ntitle = "Release notes"\n+++\n\nWhat changed.\n',
    "site/content/docs/custom.md": '+++\ntitle = "Custom"\nslug = "My Slug"\n+++\n\nBody.\n',
    "site/content/docs/moved.md": '+++\ntitle = "Moved"\npath = "elsewhere/moved"\n+++\n\nBody.\n',
    "site/content/docs/draft.md": '+++\ntitle = "Draft"\ndraft = true\n+++\n\nNot yet.\n',
    "site/content/docs/guides/_index.md": '+++\ntitle = "Guides"\n+++\n',
    "site/content/docs/guides/deploy.md": '+++\ntitle = "Deploy"\n+++\n\nShip it.\n',
    "site/content/blog/_index.md": '+++\ntitle = "Blog"\nrender = false\n+++\n',
    "site/content/blog/post/index.md": '+++\ntitle = "A post"\n+++\n\nPost body.\n',
    "site/content/blog/post/notes.md": "An asset beside the post.\n",
}


def load(tmp_path, files=None, path="site"):
    write_tree(tmp_path, SITE if files is None else files)
    return load_folder(tmp_path, path, "https://example.com/")


def pages(loaded):
    return {p.path: p for p in loaded.pages}


@pytest.mark.parametrize("docs", ["site", "site/content"])
def test_a_zola_config_toml_in_the_folder_or_above_names_zola(tmp_path, docs):
    write_tree(tmp_path, SITE)
    found = detect(tmp_path / docs)
    assert found.generator.name == "zola"
    assert found.config == tmp_path / "site" / "config.toml"


@pytest.mark.parametrize(
    ("text", "generator"),
    [
        ("base_url = 'https://x.example/'\ndefault_language = 'en'\n", "zola"),
        ("baseURL = 'https://x.example/'\ntheme = 'docsy'\n", "hugo"),  # Hugo's spelling
        ("base_url = 'https://x.example/'\n", "plain"),  # no setting only Zola has
        ("compile_sass = true\n", "plain"),  # no base_url
    ],
)
def test_a_config_toml_is_zolas_only_with_base_url_and_a_zola_setting(tmp_path, text, generator):
    write_tree(tmp_path, {"config.toml": text, "content/a.md": "# A\n"})
    assert detect(tmp_path / "content").generator.name == generator


def test_pages_are_the_md_files_of_content_without_drafts_unrendered_sections_or_assets(tmp_path):
    loaded = load(tmp_path)
    assert loaded.generator == "zola"
    assert sorted(pages(loaded)) == [
        "blog/post", "docs", "docs/2024-01-31-release notes", "docs/custom", "docs/getting-started",
        "docs/guides", "docs/guides/deploy", "docs/moved", "index",
    ]
    assert any("content/docs/draft.md (draft = true)" in w for w in loaded.warnings)
    assert any("content/blog/_index.md (render = false)" in w for w in loaded.warnings)


def test_refs_are_the_same_whether_the_site_or_its_content_folder_is_named(tmp_path):
    assert sorted(pages(load(tmp_path))) == sorted(pages(load(tmp_path, path="site/content")))


def test_urls_end_in_a_slash_slug_and_path_win_and_dates_leave_the_name(tmp_path):
    urls = {path: p.url for path, p in pages(load(tmp_path)).items()}
    assert urls == {
        "index": "https://example.com/",
        "docs": "https://example.com/docs/",
        "docs/getting-started": "https://example.com/docs/getting-started/",
        "docs/2024-01-31-release notes": "https://example.com/docs/release-notes/",
        "docs/custom": "https://example.com/docs/my-slug/",
        "docs/moved": "https://example.com/elsewhere/moved/",
        "docs/guides": "https://example.com/docs/guides/",
        "docs/guides/deploy": "https://example.com/docs/guides/deploy/",
        "blog/post": "https://example.com/blog/post/",
    }


def test_paths_keep_dates_keeps_the_date_in_the_address(tmp_path):
    files = {**SITE, "site/config.toml": CONFIG + "\n[slugify]\npaths_keep_dates = true\n"}
    page = pages(load(tmp_path, files))["docs/2024-01-31-release notes"]
    assert page.url == "https://example.com/docs/2024-01-31-release-notes/"


def test_titles_come_from_toml_frontmatter(tmp_path):
    titles = {path: p.title for path, p in pages(load(tmp_path)).items()}
    assert titles["docs/getting-started"] == "Getting started"
    assert titles["docs"] == "Documentation"


def test_anchors_are_slugs_repeats_numbered_and_a_custom_id_kept(tmp_path):
    page = pages(load(tmp_path))["docs/getting-started"]
    assert [s.anchor for s in page.sections if s.anchor] == ["something-exciting", "something-exciting-1", "manual"]


@pytest.mark.parametrize(
    ("style", "heading", "anchor"),
    [
        ("zola", "Something exciting!", "something-exciting"),
        ("zola", "Ça va, très bien", "ca-va-tres-bien"),
        ("zola", "Straße & __init__", "strasse-init"),
        ("zola-safe", "Use (the) [x] #1", "Use_the_x_1"),
        ("zola-off", "Use (the) x", "Use (the) x"),
    ],
)
def test_slug_styles_follow_slugify_anchors(style, heading, anchor):
    assert Slugger(style).slug(heading) == anchor


@pytest.mark.parametrize(("strategy", "anchor"), [("safe", "Something_exciting!"), ("off", "Something exciting!")])
def test_slugify_anchors_in_the_config_sets_the_style(tmp_path, strategy, anchor):
    files = {**SITE, "site/config.toml": CONFIG + f'\n[slugify]\nanchors = "{strategy}"\n'}
    page = pages(load(tmp_path, files))["docs/getting-started"]
    assert page.sections[1].anchor == anchor


def test_an_unknown_slugify_strategy_warns_and_slugs(tmp_path):
    files = {**SITE, "site/config.toml": CONFIG + '\n[slugify]\nanchors = "maybe"\n'}
    loaded = load(tmp_path, files)
    assert any("slugify.anchors 'maybe' is not one of on, safe, off" in w for w in loaded.warnings)
    assert pages(loaded)["docs/getting-started"].sections[1].anchor == "something-exciting"


def test_shortcode_calls_leave_no_text_and_a_body_shortcode_keeps_its_body(tmp_path):
    section = pages(load(tmp_path))["docs/getting-started"].sections[1]
    assert section.text == "Use the **binary**."


def test_sections_titles_label_their_pages(tmp_path):
    groups = {path: p.group for path, p in pages(load(tmp_path)).items()}
    assert groups["docs/getting-started"] == ("Documentation",)
    assert groups["docs/guides/deploy"] == ("Documentation", "Guides")
    assert groups["docs/guides"] == ("Documentation",)
    assert groups["docs"] == ()


def test_the_build_and_info_name_zola(tmp_path):
    write_tree(tmp_path, SITE)
    source = {"name": "d", "kind": "markdown", "path": "site/content", "base_url": "https://example.com/"}
    config = parse_config({"name": "t", "sources": [source]}, base_dir=tmp_path, origin="t.yaml")
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (built,) = manifest["sources"]
    assert (built["generator"], built["generator_from"]) == ("zola", "from ../config.toml")
    assert "d: read as zola docs (from ../config.toml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")], capture_output=True, text=True, timeout=60
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: zola (from ../config.toml)" in info.stdout.splitlines()
    with docwheel.open_index(tmp_path / "out") as index:
        hit = index.search("use the binary", limit=1).results[0]
    assert hit.url == "https://example.com/docs/getting-started/#something-exciting"


def test_an_escaped_shortcode_shows_as_the_shortcode_in_code(tmp_path):
    body = (
        '+++\ntitle = "Docs"\n+++\n\n## Use\n\nWrite `{{/* youtube(id="x") */}}`.\n\n'
        "```\n{%/* note() */%}\nbody\n{%/* end */%}\n```\n"
    )
    files = {"site/config.toml": CONFIG, "site/content/a.md": body}
    section = pages(load(tmp_path, files))["a"].sections[1]
    assert section.text == 'Write `{{ youtube(id="x") }}`.\n\n```\n{% note() %}\nbody\n{% end %}\n```'


def test_without_a_config_zola_is_told_from_its_shortcodes_and_frontmatter_tables(tmp_path):
    pages = [
        ("_index.md", '+++\ntitle = "Docs"\n[extra]\nicon = "book"\n+++\n'),
        ("a.md", '+++\ntitle = "A"\n[taxonomies]\ntags = ["x"]\n+++\n{% note() %}\nCareful\n{% end %}\n'),
    ]
    found = detect(tmp_path, pages)
    assert found.generator.name == "zola" and "from its pages" in found.reason
    hugo = [("_index.md", '+++\ntitle = "Docs"\n+++\n'), ("a.md", '+++\ntitle = "A"\n+++\n{{< note >}}x{{< /note >}}\n')]
    assert detect(tmp_path, hugo).generator.name == "hugo"
