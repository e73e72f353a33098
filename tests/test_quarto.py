"""Quarto websites: a folder under ``_quarto.yml`` is read as Quarto renders it.

The rules come from Quarto's own documentation (quarto.org, the quarto-web sources):
docs/projects/quarto-projects.qmd and its ``_render-targets.md`` (which files render,
``project: render:`` globs and ``!`` exclusions), docs/authoring/callouts.qmd (callout
types, ``title=`` and the first heading as the title), docs/interactive/layout tabsets
(``::: {.panel-tabset}``, one tab per heading), docs/authoring/includes
(``{{< include _file.qmd >}}``), docs/authoring/shortcodes (``{{</* x */>}}`` escapes), code
cells with ``#|`` options and ``echo: false``; Pandoc's manual for heading identifiers
(the ``auto_identifiers`` extension and its examples). Each fixture is a small tree built
for real and read through ``load_source``, or built into an index with ``build_index``.
"""

from __future__ import annotations

import subprocess

from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.generators import detect
from docwheel.formats.headings import Slugger, slugify_pandoc
from docwheel.formats.quarto import read_quarto
from helpers import docwheel_cmd
from test_generators import load, pages_by_path, tree

CONFIG = "project:\n  type: website\n  output-dir: _site\nwebsite:\n  title: Acme\n"

SITE = {
    "_quarto.yml": CONFIG,
    "docs/index.qmd": "---\ntitle: Acme docs\n---\n\nWelcome.\n",
    "docs/guide/install.qmd": "---\ntitle: Install\n---\n\n## Über Größen\n\nText.\n",
    "docs/guide/notes.md": "---\ntitle: Notes\n---\n\nPlain Markdown is a page too.\n",
    "docs/guide/_partial.qmd": "Included text.\n",
    "docs/_site/index.md": "# Output\n",
    "docs/_freeze/cell.md": "# Frozen\n",
    "docs/.quarto/x.md": "# Cache\n",
    "docs/README.md": "# About this repository\n",
    "docs/custom.qmd": "---\ntitle: Custom\noutput-file: renamed.html\n---\n\nText.\n",
}


# -- detection -----------------------------------------------------------------------------


def test_a_quarto_yml_in_or_above_the_folder_names_quarto(tmp_path):
    tree(tmp_path, {"_quarto.yaml": CONFIG, "site/docs/a.qmd": "# A\n"})
    found = detect(tmp_path / "site/docs")
    assert (found.generator.name, found.config) == ("quarto", tmp_path / "_quarto.yaml")


def test_without_a_config_qmd_files_and_callouts_mark_quarto_but_plain_markdown_does_not():
    pages = [("a.qmd", "::: {.callout-note}\nx\n:::\n"), ("b.qmd", "```{python}\n1\n```\n")]
    assert detect_pages(pages) == "quarto"
    assert detect_pages([("a.md", "# A\n\nText.\n")]) == "plain"


def detect_pages(pages):
    from pathlib import Path

    return detect(Path("/nonexistent/docs"), pages).generator.name


# -- pages and URLs ------------------------------------------------------------------------


def test_quarto_pages_are_qmd_and_md_files_outside_underscore_dot_and_readme_served_as_html(tmp_path):
    tree(tmp_path, SITE)
    loaded = load(tmp_path)
    assert (loaded.generator, loaded.generator_reason) == ("quarto", "from ../_quarto.yml")
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "index": "https://site.example/index.html",
        "guide/install": "https://site.example/guide/install.html",
        "guide/notes": "https://site.example/guide/notes.html",
        "custom": "https://site.example/renamed.html",  # output-file: renames the page
    }
    assert pages["index"].title == "Acme docs"


def test_project_render_lists_narrow_the_pages_with_globs_and_exclusions(tmp_path):
    config = CONFIG.replace("type: website\n", 'type: website\n  render:\n    - "*.qmd"\n    - "!guide/"\n')
    tree(tmp_path, {**SITE, "_quarto.yml": config})
    assert set(pages_by_path(load(tmp_path))) == {"index", "custom"}
    config = CONFIG.replace("type: website\n", "type: website\n  render:\n    - /docs/guide/install.qmd\n")
    tree(tmp_path, {"_quarto.yml": config})
    assert set(pages_by_path(load(tmp_path))) == {"guide/install"}


def test_a_qmd_file_outside_a_quarto_tree_is_not_a_page(tmp_path):
    tree(tmp_path, {"docs/a.md": "# A\n", "docs/b.qmd": "# B\n"})
    loaded = load(tmp_path)
    assert loaded.generator == "plain"
    assert set(pages_by_path(loaded)) == {"a"}


# -- anchors -------------------------------------------------------------------------------


def test_pandoc_identifiers_follow_the_manuals_examples():
    assert slugify_pandoc("Heading identifiers in HTML") == "heading-identifiers-in-html"
    assert slugify_pandoc("Maître d'hôtel") == "maître-dhôtel"
    assert slugify_pandoc("*Dogs*?--in *my* house?") == "dogs--in-my-house"
    assert slugify_pandoc("[HTML], [S5], or [RTF]?") == "html-s5-or-rtf"
    assert slugify_pandoc("3. Applications") == "applications"
    assert slugify_pandoc("Version 1.2 notes") == "version-1.2-notes"  # '.' is kept
    slugger = Slugger("pandoc")
    assert [slugger.slug(h) for h in ["33", "Options", "Options"]] == ["section", "options", "options-1"]


def test_quarto_headings_take_pandoc_ids_and_attribute_ids(tmp_path):
    page = (
        "---\ntitle: T\n---\n\n## 1. Über Größen\n\n## Setup {#sec-setup .unnumbered}\n\n"
        "## Preface {-}\n\nx\n"
    )
    tree(tmp_path, {"_quarto.yml": CONFIG, "docs/a.qmd": page})
    sections = load(tmp_path).pages[0].sections[1:]
    assert [(s.anchor, s.heading) for s in sections] == [
        ("über-größen", "1. Über Größen"),
        ("sec-setup", "Setup"),
        ("preface", "Preface"),  # {-} marks it unnumbered, it is not part of the text
    ]


# -- the page as it shows ------------------------------------------------------------------

CALLOUTS = """\
---
title: Callouts
---

::: {.callout-warning title="Data loss"}
Running `acme wipe` deletes everything.
:::

::: callout-tip
## Speed tip

Use the cache.
:::

::: {.callout-note collapse="true"}
A note without a title.
:::

## Next

After.
"""


def test_a_callout_shows_its_title_or_first_heading_as_a_label_not_a_section(tmp_path):
    tree(tmp_path, {"_quarto.yml": CONFIG, "docs/a.qmd": CALLOUTS})
    page = load(tmp_path).pages[0]
    assert [s.heading for s in page.sections] == ["", "Next"]
    intro = page.sections[0].text
    assert intro.split("\n\n") == [
        "Data loss",
        "Running `acme wipe` deletes everything.",
        "Speed tip",
        "Use the cache.",
        "A note without a title.",
    ]
    assert ":::" not in intro and "callout" not in intro


TABSET = """\
---
title: Install
---

## Install the tool

::: {.panel-tabset}
## pip

```bash
pip install acme
```

## conda

```bash
conda install acme
```
:::

## Configure

Text.
"""


def test_each_heading_of_a_tabset_is_a_tab_label_inside_the_section_around_it(tmp_path):
    tree(tmp_path, {"_quarto.yml": CONFIG, "docs/a.qmd": TABSET})
    page = load(tmp_path).pages[0]
    assert [s.heading for s in page.sections[1:]] == ["Install the tool", "Configure"]
    text = page.sections[1].text
    assert text.startswith("pip\n\n```bash\npip install acme\n```\n\nconda\n\n```bash")


def test_other_divs_keep_their_text_and_their_id_as_an_anchor(tmp_path):
    page = "---\ntitle: T\n---\n\n:::: {#special .column-margin}\nOuter text.\n\n::: aside\nInner text.\n:::\n::::\n"
    tree(tmp_path, {"_quarto.yml": CONFIG, "docs/a.qmd": page})
    intro = load(tmp_path).pages[0].sections[0]
    assert "Outer text." in intro.text and "Inner text." in intro.text and ":::" not in intro.text
    assert "special" in [a.anchor for a in intro.anchors]


CELLS = """\
---
title: Cells
---

```{python}
#| label: fig-plot
#| echo: true
import acme
acme.run()
```

```{python}
#| echo: false
hidden_setup()
```

```{r, echo=FALSE}
hidden_r()
```

```{.bash filename="Terminal"}
pip install acme
```

```{=html}
<p>Raw <b>HTML</b> text</p>
```

```{=latex}
\\newpage
```

```{{python}}
#| echo: false
1 + 1
```
"""


def test_code_cells_are_code_without_option_lines_and_hidden_cells_show_nothing():
    shown = read_quarto(CELLS)
    assert "```python\nimport acme\nacme.run()\n```" in shown
    assert "#| label" not in shown.split("````")[0]
    assert "hidden_setup" not in shown and "hidden_r" not in shown and "newpage" not in shown
    assert "```bash\npip install acme\n```" in shown
    assert "<p>Raw <b>HTML</b> text</p>" in shown and "{=html}" not in shown
    # a cell written with double braces is shown as written, options and all
    assert "````\n```{python}\n#| echo: false\n1 + 1\n```\n````" in shown


def test_code_cells_are_indexed_as_code_and_their_options_are_not_prose(tmp_path):
    tree(tmp_path, {"_quarto.yml": CONFIG, "docs/a.qmd": CELLS})
    text = load(tmp_path).pages[0].sections[0].text
    assert "acme.run()" in text and "Raw HTML text" in text
    assert "fig-plot" not in text


def test_includes_resolve_inside_the_folder_and_other_shortcodes_leave_no_trace(tmp_path):
    page = (
        "---\ntitle: T\n---\n\nVersion {{< var version >}} is out.\n\n{{< include _shared.qmd >}}\n\n"
        "{{< pagebreak >}}\n\nWrite `{{</* include file.qmd */>}}` or {{</* meta title */>}}.\n\n"
        "{{< include ../../outside.qmd >}}\n"
    )
    tree(tmp_path, {
        "_quarto.yml": CONFIG, "docs/a.qmd": page, "docs/_shared.qmd": "Shared *text*.\n",
        "outside.qmd": "Outside text.\n",
    })
    loaded = load(tmp_path)
    text = loaded.pages[0].sections[0].text
    assert text.split("\n\n") == [
        "Version is out.",
        "Shared *text*.",
        "Write `{{< include file.qmd >}}` or {\\{< meta title >}}.",  # escaped: shown as written
    ]
    assert {p.path for p in loaded.pages} == {"a"}  # nothing outside the folder was read


# -- build output --------------------------------------------------------------------------


def test_a_quarto_build_records_the_generator_and_info_names_it(tmp_path):
    tree(tmp_path, SITE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": "docs", "base_url": "https://acme.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    manifest = build_index(config, tmp_path / "out", progress=messages.append)
    (source,) = manifest["sources"]
    assert (source["generator"], source["generator_from"], source["pages"]) == ("quarto", "from ../_quarto.yml", 4)
    assert "d: read as quarto docs (from ../_quarto.yml)" in messages
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: quarto (from ../_quarto.yml)" in info.stdout.splitlines()
    found = subprocess.run(
        [*docwheel_cmd(), "search", "Über Größen", "--index", str(tmp_path / "out"), "--json"],
        capture_output=True, text=True, timeout=60,
    )
    assert found.returncode == 0, found.stderr
    assert "https://acme.example/guide/install.html#%C3%BCber-gr%C3%B6%C3%9Fen" in found.stdout or (
        "https://acme.example/guide/install.html#über-größen" in found.stdout
    )


def test_var_meta_and_kbd_shortcodes_show_their_values(tmp_path):
    # quarto.org, "Shortcodes": var reads _variables.yml beside _quarto.yml (dotted keys for
    # nested values), meta the document's metadata, kbd shows the keys.
    page = (
        "---\ntitle: Release notes\nauthor:\n  name: Ada\n---\n\nVersion {{< var version >}} by "
        "{{< meta author.name >}}: {{< meta title >}}. Mail {{< var email.info >}}, press "
        "{{< kbd Shift-Ctrl-P >}}. Unknown {{< var nope >}} shows nothing.\n\n"
        "```bash\npip install acme=={{< var version >}}\n```\n"
    )
    tree(tmp_path, {
        "_quarto.yml": CONFIG, "_variables.yml": "version: 1.2\nemail:\n  info: info@acme.example\n",
        "docs/a.qmd": page,
    })
    text = load(tmp_path).pages[0].sections[0].text
    assert text == (
        "Version 1.2 by Ada: Release notes. Mail info@acme.example, press Shift-Ctrl-P. "
        "Unknown shows nothing.\n\n```bash\npip install acme==1.2\n```"
    )


def test_execute_echo_false_hides_the_code_of_cells_unless_a_cell_shows_it(tmp_path):
    # quarto.org, "Execution Options": execute: echo: false in a document or _quarto.yml,
    # a cell's own `#| echo: true` wins.
    page = "---\ntitle: T\nexecute:\n  echo: false\n---\n\n```{ojs}\nhidden_cell()\n```\n\n```{ojs}\n//| echo: true\nshown_cell()\n```\n"
    assert "hidden_cell" not in read_quarto(page) and "shown_cell()" in read_quarto(page)
    tree(tmp_path, {
        "_quarto.yml": CONFIG + "execute:\n  echo: false\n",
        "docs/a.qmd": "---\ntitle: A\n---\n\n```{python}\nproject_hidden()\n```\n",
        "docs/b.qmd": "---\ntitle: B\nexecute:\n  echo: true\n---\n\n```{python}\npage_shown()\n```\n",
    })
    pages = pages_by_path(load(tmp_path))
    assert "project_hidden" not in pages["a"].sections[0].text
    assert "page_shown()" in pages["b"].sections[0].text


def test_the_website_sidebar_and_book_parts_give_navigation_groups(tmp_path):
    # quarto.org, "Website Navigation": sidebar contents, section: with contents:, text:/href:
    # entries; "Book Structure": part: with chapters:.
    config = CONFIG + (
        "  sidebar:\n    contents:\n      - docs/index.qmd\n      - section: Basics\n        contents:\n"
        "          - docs/guide/install.qmd\n          - text: Release notes\n            href: docs/guide/notes.md\n"
        "      - section: docs/custom.qmd\n        text: Custom\n        contents:\n          - https://x.example/\n"
        "book:\n  chapters:\n    - part: Extra\n      chapters: [docs/other.qmd]\n"
    )
    tree(tmp_path, {**SITE, "_quarto.yml": config, "docs/guide/notes.md": "Notes without a title.\n",
                    "docs/other.qmd": "---\ntitle: Other\n---\nx\n"})
    loaded = load(tmp_path)
    pages = pages_by_path(loaded)
    assert pages["guide/install"].group == ("Basics",)
    assert (pages["guide/notes"].group, pages["guide/notes"].title) == (("Basics",), "Release notes")
    assert pages["index"].group == () and pages["custom"].group == ()
    assert pages["other"].group == ("Extra",)
    assert loaded.navigation == "_quarto.yml"


def test_an_unreadable_quarto_yml_warns_and_keeps_quartos_defaults(tmp_path):
    tree(tmp_path, {**SITE, "_quarto.yml": "project: [unclosed\n"})
    loaded = load(tmp_path)
    assert loaded.generator == "quarto"
    assert any("_quarto.yml: cannot be read (" in w and "Quarto defaults assumed" in w for w in loaded.warnings)
    assert "guide/install" in pages_by_path(loaded)


def test_conditional_content_is_kept_only_when_the_html_page_shows_it():
    # quarto.org, "Conditional Content": .content-visible / .content-hidden with
    # when-format / unless-format; the site is the html format.
    page = (
        "::: {.content-visible when-format=\"html\"}\nWeb text.\n:::\n\n"
        "::: {.content-visible when-format=\"pdf\"}\nPrint text.\n\n::: callout-note\nNested print.\n:::\n\n```\ncode\n```\n:::\n\n"
        "::: {.content-hidden unless-format=\"html\"}\nAlso web.\n:::\n\n"
        "::: {.content-hidden}\nNever shown.\n:::\n\n"
        "::: {.content-visible unless-format=\"html\"}\nNot on the web.\n:::\n\n"
        "::: {.content-visible when-profile=\"advanced\"}\nA profile: kept.\n:::\n\nAfter.\n"
    )
    shown = read_quarto(page)
    for kept in ("Web text.", "Also web.", "A profile: kept.", "After."):
        assert kept in shown
    for gone in ("Print text", "Nested print", "code", "Never shown", "Not on the web"):
        assert gone not in shown
    assert ":::" not in shown
