"""Jekyll sites: a folder under a Jekyll ``_config.yml`` is read as Jekyll builds it.

The rules come from Jekyll's documentation (jekyllrb.com: Front Matter — only a file with
frontmatter is processed, ``published: false``; Directory Structure — ``_includes``,
``_layouts``, ``_data``, ``_site``, ``_posts``; Collections — ``output: true`` and
``/:collection/:path``; Permalinks — the ``date``/``pretty``/``none``/``ordinal`` styles and
frontmatter ``permalink:``; Configuration — ``exclude:``/``include:`` and the kramdown
defaults, ``input: GFM``; Liquid — ``raw``, ``comment``, ``highlight`` and ``include``), from
Jekyll's ``lib/jekyll/configuration.rb`` (the defaults), and from kramdown's documentation
(automatic header ids: "12. Another one 1 here" -> ``another-one-1-here``) and
kramdown-parser-gfm (GitHub's ids under ``input: GFM``).
"""

from __future__ import annotations

import subprocess

import pytest

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.headings import slugify_kramdown
from docwheel.formats.jekyll import read_liquid
from helpers import docwheel_cmd
from test_generators import load, pages_by_path, tree

CONFIG = """\
title: Acme
theme: just-the-docs
baseurl: /acme
exclude:
  - vendor/
  - NOTES.md
collections:
  tutorials:
    output: true
  recipes:
    output: false
"""

SITE = {
    "docs/_config.yml": CONFIG,
    "docs/index.md": "---\ntitle: Home\n---\n\nWelcome.\n",
    "docs/guide/index.md": "---\ntitle: Guide\n---\n\nGuide.\n",
    "docs/guide/install.md": "---\n---\n# Install guide\n\n## Setup {: #custom}\n\nText.\n",
    "docs/guide/plain.md": "# A file without frontmatter is copied, not rendered\n",
    "docs/about.md": "---\ntitle: About\npermalink: /about-us/\n---\n\nAbout.\n",
    "docs/draft.md": "---\ntitle: Draft\npublished: false\n---\n\nNot yet.\n",
    "docs/NOTES.md": "---\ntitle: Notes\n---\n\nExcluded.\n",
    "docs/vendor/lib.md": "---\ntitle: Vendor\n---\n\nExcluded.\n",
    "docs/_posts/2024-01-15-welcome.md": "---\ntitle: Welcome post\ncategories: [News]\n---\n\nHello.\n",
    "docs/_tutorials/first.md": "---\ntitle: First tutorial\n---\n\nStep.\n",
    "docs/_recipes/cake.md": "---\ntitle: Cake\n---\n\nNot output.\n",
    "docs/_layouts/page.md": "---\ntitle: Layout\n---\n\nx\n",
    "docs/_includes/note.md": "Note from the include.\n",
    "docs/_drafts/idea.md": "---\ntitle: Idea\n---\n\nx\n",
    "docs/_site/index.md": "---\ntitle: Output\n---\n\nx\n",
    "docs/component.mdx": "---\ntitle: MDX\n---\n\nJekyll does not render MDX.\n",
}


# -- detection -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        "theme: minima\n",
        "remote_theme: just-the-docs/just-the-docs\n",
        "markdown: kramdown\n",
        "collections:\n  docs:\n    output: true\n",
        'baseurl: "/project"\n',
    ],
)
def test_a_config_yml_with_jekyll_settings_names_jekyll(tmp_path, config):
    tree(tmp_path, {"_config.yml": config, "docs/a.md": "---\n---\n# A\n"})
    found = detect(tmp_path / "docs")
    assert (found.generator.name, found.config) == ("jekyll", tmp_path / "_config.yml")


@pytest.mark.parametrize(
    "config",
    [
        "title: Just a title\nauthor: me\n",  # no Jekyll setting
        "title: Blog\ntheme: landscape\nnew_post_name: :title.md\nsource_dir: source\n",  # Hexo
        "title: Book\nexecute:\n  execute_notebooks: force\nsphinx:\n  config: {}\n",  # Jupyter Book
        "- not\n- a mapping\n",
        "key: [unclosed\n",
    ],
)
def test_a_config_yml_of_another_tool_or_without_jekyll_settings_is_not_jekyll(tmp_path, config):
    tree(tmp_path, {"_config.yml": config, "docs/a.md": "# A\n"})
    assert detect(tmp_path / "docs").generator.name == "plain"


def test_a_jupyter_book_toc_beside_the_config_means_a_jupyter_book_not_jekyll(tmp_path):
    tree(tmp_path, {"_config.yml": "title: x\nbaseurl: /b\n", "_toc.yml": "format: jb-book\n", "docs/a.md": "# A\n"})
    assert detect(tmp_path / "docs").generator.name == "jupyterbook"


def test_mkdocs_and_quarto_configs_are_never_taken_for_jekyll(tmp_path):
    tree(tmp_path, {"mkdocs.yml": "site_name: x\ntheme: material\n", "docs/a.md": "# A\n"})
    assert detect(tmp_path / "docs").generator.name == "mkdocs"
    tree(tmp_path / "q", {"_quarto.yml": "project:\n  type: website\n", "_config.yml": "theme: minima\n", "a.md": "# A\n"})
    assert detect(tmp_path / "q").generator.name == "quarto"


# -- pages and URLs ------------------------------------------------------------------------


def test_jekyll_pages_have_frontmatter_and_live_outside_underscore_folders_unless_output(tmp_path):
    tree(tmp_path, SITE)
    loaded = load(tmp_path)
    assert (loaded.generator, loaded.generator_reason) == ("jekyll", "from _config.yml")
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "index": "https://site.example/",
        "guide": "https://site.example/guide/",
        "guide/install": "https://site.example/guide/install.html",
        "about": "https://site.example/about-us/",
        "_posts/2024-01-15-welcome": "https://site.example/news/2024/01/15/welcome.html",
        "_tutorials/first": "https://site.example/tutorials/first.html",
    }
    assert pages["_posts/2024-01-15-welcome"].title == "Welcome post"


def test_the_optional_front_matter_plugin_makes_a_file_without_frontmatter_a_page(tmp_path):
    tree(tmp_path, {**SITE, "docs/_config.yml": CONFIG + "plugins:\n  - jekyll-optional-front-matter\n"})
    assert "guide/plain" in pages_by_path(load(tmp_path))


def test_permalink_styles_set_page_and_post_addresses(tmp_path):
    tree(tmp_path, {**SITE, "docs/_config.yml": CONFIG + "permalink: pretty\n"})
    pages = pages_by_path(load(tmp_path))
    assert pages["guide/install"].url == "https://site.example/guide/install/"
    assert pages["_posts/2024-01-15-welcome"].url == "https://site.example/news/2024/01/15/welcome/"
    assert pages["_tutorials/first"].url == "https://site.example/tutorials/first/"
    tree(tmp_path, {"docs/_config.yml": CONFIG + "permalink: /blog/:year/:title/\n"})
    pages = pages_by_path(load(tmp_path))
    assert pages["_posts/2024-01-15-welcome"].url == "https://site.example/blog/2024/welcome/"
    assert pages["guide/install"].url == "https://site.example/guide/install/"


def test_posts_are_typed_blog_in_a_build(tmp_path):
    tree(tmp_path, SITE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": "docs", "base_url": "https://acme.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"], source["pages"]) == ("jekyll", "from _config.yml", 6)
    assert source["types"].get("blog") == 1
    assert "d: read as jekyll docs (from _config.yml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: jekyll (from _config.yml)" in info.stdout.splitlines()


# -- titles and anchors --------------------------------------------------------------------


def test_titles_come_from_frontmatter_else_the_first_h1_and_ids_are_gfm_by_default(tmp_path):
    page = "---\n---\n# Templates guide\n\n## 2. Templates & Tags\n\n## Über uns\n\n## Setup {: #custom}\n"
    tree(tmp_path, {"docs/_config.yml": CONFIG, "docs/t.md": page})
    loaded = pages_by_path(load(tmp_path))["t"]
    assert loaded.title == "Templates guide"
    assert [s.anchor for s in loaded.sections[1:]] == ["2-templates--tags", "über-uns", "custom"]


def test_kramdown_input_gives_kramdowns_own_ids(tmp_path):
    page = "---\ntitle: T\n---\n\n## 12. Another one 1 here\n\n## Do ^& it now\n\n## Über uns\n"
    tree(tmp_path, {"docs/_config.yml": CONFIG + "kramdown:\n  input: kramdown\n", "docs/t.md": page})
    loaded = pages_by_path(load(tmp_path))["t"]
    assert [s.anchor for s in loaded.sections[1:]] == ["another-one-1-here", "do--it-now", "ber-uns"]
    assert slugify_kramdown("This is a header") == "this-is-a-header"


# -- Liquid --------------------------------------------------------------------------------

LIQUID = """\
---
title: Liquid
---

Welcome to {{ site.title }}.

{% include note.md %}

{% include callout.html content="Mind the gap between trains." type="warning" %}

{% include missing.md %}

{% comment %}
An author's note, never shown.
{% endcomment %}

Write {% raw %}{{ page.title }}{% endraw %} in a page, or `{% raw %}{% include x.html %}{% endraw %}`.

{% highlight ruby linenos %}
def hello
  puts "hi {{ name }}"
end
{% endhighlight %}

```liquid
{% raw %}{% if user %}Hello {{ user.name }}{% endif %}{% endraw %}
```

{% if site.beta %}Beta text stays.{% endif %}
"""


def test_liquid_tags_read_as_the_page_shows_them(tmp_path):
    tree(tmp_path, {"docs/_config.yml": CONFIG, "docs/l.md": LIQUID, "docs/_includes/note.md": "Note from the include.\n"})
    text = pages_by_path(load(tmp_path))["l"].sections[0].text
    assert text.split("\n\n") == [
        "Welcome to.",
        "Note from the include.",
        "Mind the gap between trains.",  # an HTML include shows the words it is given
        "Write {\\{ page.title }} in a page, or `{% include x.html %}`.",
        '```ruby\ndef hello\n  puts "hi {{ name }}"\nend\n```',
        "```liquid\n{% if user %}Hello {{ user.name }}{% endif %}\n```",
        "Beta text stays.",
    ]


def test_raw_text_in_prose_is_indexed_as_written():
    shown = read_liquid("---\n---\nUse {% raw %}{{ page.url }}{% endraw %} here.\n")
    assert shown == "---\n---\nUse {\\{ page.url }} here.\n"
    assert read_liquid("No tags here.\n") == "No tags here.\n"


def test_just_the_docs_parent_and_grand_parent_give_navigation_groups(tmp_path):
    # Just the Docs, "Navigation structure": parent names the parent page's title,
    # grand_parent the one above it.
    tree(tmp_path, {
        "docs/_config.yml": "remote_theme: just-the-docs/just-the-docs\n",
        "docs/guides.md": "---\ntitle: Guides\nnav_order: 2\nhas_children: true\n---\nAll guides.\n",
        "docs/guides/setup.md": "---\ntitle: Setup\nparent: Guides\nhas_children: true\n---\nSetup.\n",
        "docs/guides/setup/linux.md": "---\ntitle: Linux\nparent: Setup\ngrand_parent: Guides\n---\nLinux.\n",
        "docs/index.md": "---\ntitle: Home\n---\nHome.\n",
    })
    loaded = load(tmp_path)
    pages = pages_by_path(loaded)
    assert pages["guides/setup/linux"].group == ("Guides", "Setup")
    assert pages["guides/setup"].group == ("Guides",)
    assert pages["guides"].group == () and pages["index"].group == ()
    assert loaded.navigation == "frontmatter parent:"


def test_include_brings_back_an_underscore_folder_as_plain_pages(tmp_path):
    tree(tmp_path, {
        "docs/_config.yml": "theme: minima\ninclude:\n  - _pages\n",
        "docs/_pages/faq.md": "---\ntitle: FAQ\n---\nAnswers.\n",
        "docs/_other/x.md": "---\ntitle: X\n---\nx\n",
    })
    pages = pages_by_path(load(tmp_path))
    assert {p: pages[p].url for p in pages} == {"_pages/faq": "https://site.example/_pages/faq.html"}


def test_odd_config_and_frontmatter_values_fall_back_to_jekylls_defaults(tmp_path):
    tree(tmp_path, {
        "docs/_config.yml": "theme: minima\ncollections: 5\nexclude: 7\npermalink: [x]\nkramdown: nope\n",
        "docs/_posts/2024-02-30-bad-date.md": "---\ncategories: 5\ndate: soon\n---\n# Bad date\n",
        "docs/a.md": "---\npermalink: 3\n---\n# A\n",
    })
    pages = pages_by_path(load(tmp_path))
    assert pages["a"].url == "https://site.example/a.html"
    assert pages["_posts/2024-02-30-bad-date"].url == "https://site.example/bad-date.html"


def test_a_docs_folder_below_the_site_source_reads_exclude_and_permalinks_from_the_source(tmp_path):
    # The site's source is where _config.yml is; the sources file's folder and base_url
    # name the docs/ part of it.
    tree(tmp_path, {
        "_config.yml": "theme: minima\nexclude:\n  - docs/drafts/\n",
        "docs/guide.md": "---\ntitle: Guide\n---\nx\n",
        "docs/drafts/wip.md": "---\ntitle: WIP\n---\nx\n",
        "docs/moved.md": "---\ntitle: Moved\npermalink: /docs/elsewhere/\n---\nx\n",
    })
    loaded = load(tmp_path, base_url="https://site.example/docs/")
    assert loaded.generator_reason == "from ../_config.yml"
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "guide": "https://site.example/docs/guide.html",
        "moved": "https://site.example/docs/elsewhere/",
    }


def test_just_the_docs_callouts_show_the_title_the_config_gives_them(tmp_path):
    # Just the Docs, "Callouts": callouts: in _config.yml, {: .name } before the block.
    config = "remote_theme: just-the-docs/just-the-docs\ncallouts:\n  warning:\n    title: Warning\n    color: red\n  plain:\n    color: grey\n"
    page = "---\ntitle: T\n---\n\n{: .warning }\nThis deletes everything.\n\n{: .plain }\nNo title here.\n\n{: .other }\nUnknown class.\n"
    tree(tmp_path, {"docs/_config.yml": config, "docs/t.md": page})
    text = pages_by_path(load(tmp_path))["t"].sections[0].text
    assert text.split("\n\n") == ["Warning", "This deletes everything.", "No title here.", "Unknown class."]
