"""Jupyter notebooks as pages, where the docs site renders them: Sphinx with ``myst_nb`` or
``nbsphinx``, Jupyter Book 1, MkDocs with ``mkdocs-jupyter``. A notebook's page is what the
rendered page shows (``formats.notebook``); a broken notebook is a warning, not a failed
build; a folder of notebooks no generator renders is not read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docwheel.api import open_index
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.notebook import OUTPUT_LINES, NotANotebook, NotebookRules, read_notebook
from docwheel.sources import load_source
from helpers import write_tree as tree

BASE = "https://docs.example/"


def notebook(cells: list[dict], language: str | None = "python", **meta) -> str:
    metadata = dict(meta)
    if language is not None:
        metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": language})
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5})


def md(source: str, **meta) -> dict:
    return {"cell_type": "markdown", "metadata": meta, "source": source.splitlines(keepends=True)}


def code(source: str, outputs: list[dict] | None = None, tags: list[str] | None = None, **meta) -> dict:
    metadata = dict(meta)
    if tags:
        metadata["tags"] = tags
    return {
        "cell_type": "code", "execution_count": 1, "metadata": metadata,
        "outputs": outputs or [], "source": source.splitlines(keepends=True),
    }


def stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text.splitlines(keepends=True)}


def result(data: dict) -> dict:
    return {"output_type": "execute_result", "execution_count": 1, "data": data, "metadata": {}}


def config(path: Path):
    return parse_config(
        {"name": "t", "sources": [{"name": "docs", "kind": "markdown", "path": str(path), "base_url": BASE}]},
        base_dir=path,
        origin="t.yaml",
    )


def load(path: Path):
    return load_source(config(path).sources[0], fetch=None)


def by_path(loaded) -> dict:
    return {page.path: page for page in loaded.pages}


PENGUINS = notebook(
    [
        md("# Penguin tutorial\n\nWe load the **penguins** data set.\n"),
        code("import pandas as pd\nfrom seaborn import load_dataset", tags=["hide-input"]),
        md("## Load the data\n\nThe flipper measurements come from Palmer station.\n"),
        code("df = load_dataset('penguins')\ndf.head()", [result({"text/html": "<table/>", "text/plain": "   species island"})]),
        code("print(len(df))", [stream("344\n")]),
        md("## Plot the flippers\n\nA scatter plot of bill length against flipper length.\n"),
        code("df.plot.scatter('bill_length_mm', 'flipper_length_mm')", [
            {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x480>"}, "metadata": {}},
        ]),
    ]
)


# -- the reader ------------------------------------------------------------------------


def test_markdown_cells_stay_as_they_are_and_code_is_fenced_in_the_kernels_language():
    """The page shows Markdown cells as prose and code cells as code highlighted in the
    kernel's language (nbformat 4: ``metadata.kernelspec.language``, else
    ``language_info.name``)."""
    page = read_notebook(PENGUINS)
    assert page.language == "python"
    assert page.text.startswith("# Penguin tutorial\n\nWe load the **penguins** data set.\n\n```python\n")
    assert "```python\ndf = load_dataset('penguins')\ndf.head()\n```" in page.text
    julia = notebook([code("println(1)")], language=None, language_info={"name": "julia"})
    assert read_notebook(julia).text == "```julia\nprintln(1)\n```\n"
    assert read_notebook(notebook([code("x")], language=None)).text == "```\nx\n```\n"


def test_text_outputs_are_a_plain_block_and_images_or_html_leave_no_text():
    """What the rendered page shows: a stream or a ``text/plain`` result as text; an output
    with an image or HTML is shown as that (its ``text/plain`` is only a fallback), so it
    gives no text (myst-nb's and nbsphinx's render priority put them before text/plain)."""
    text = read_notebook(PENGUINS).text
    assert "```\n344\n```" in text
    assert "species island" not in text  # the DataFrame is shown as its HTML table
    assert "<Figure size" not in text and "iVBOR" not in text
    plain = notebook([code("1 + 1", [result({"text/plain": "2"})])])
    assert read_notebook(plain).text == "```python\n1 + 1\n```\n\n```\n2\n```\n"


def test_a_long_output_is_capped_and_an_error_shows_its_one_line_message():
    long = "\n".join(f"epoch {n} loss 0.{n}" for n in range(100))
    error = {"output_type": "error", "ename": "KeyError", "evalue": "'flipper'",
             "traceback": ["\x1b[0;31m---------\x1b[0m", "Traceback (most recent call last)"]}
    text = read_notebook(notebook([code("train()", [stream(long)]), code("df['flipper']", [error])])).text
    out = text.split("```\n")[2]  # the first output block
    assert out.splitlines()[:2] == ["epoch 0 loss 0.0", "epoch 1 loss 0.1"]
    assert len(out.splitlines()) == OUTPUT_LINES + 1 and out.splitlines()[-1] == "…"
    assert "epoch 99" not in text
    assert "KeyError: 'flipper'" in text and "Traceback" not in text and "\x1b" not in text


def test_ansi_colours_in_a_stream_are_dropped():
    text = read_notebook(notebook([code("warn()", [stream("\x1b[1;31mDeprecated\x1b[0m call", "stderr")])])).text
    assert "```\nDeprecated call\n```" in text


def test_raw_cells_reach_the_page_only_as_markdown_or_restructuredtext():
    """nbsphinx: a raw cell's ``raw_mimetype`` says which output it is for; Markdown and
    reStructuredText ones are the page's text, LaTeX or untyped ones are not shown."""
    cells = [
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/markdown"}, "source": "Raw *markdown* kept"},
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/restructuredtext"}, "source": "Raw rst kept"},
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/latex"}, "source": "\\newpage latex"},
        {"cell_type": "raw", "metadata": {}, "source": "untyped raw"},
    ]
    text = read_notebook(notebook(cells)).text
    assert "Raw *markdown* kept" in text and "Raw rst kept" in text
    assert "latex" not in text and "untyped" not in text


def test_attachments_are_images_and_leave_no_text():
    cell = md("# Diagram\n\n![the pipeline](attachment:pipe.png)\n")
    cell["attachments"] = {"pipe.png": {"image/png": "iVBORw0KGgoAAAANSUhEUg=="}}
    text = read_notebook(notebook([cell])).text
    assert "iVBOR" not in text and "the pipeline" in text


def test_remove_tags_take_parts_off_the_page_and_hide_tags_keep_them():
    """myst-nb (Jupyter Book): ``remove-cell``, ``remove-input``, ``remove-output``,
    ``remove-stderr`` remove that part from the built page; ``hide-*`` only collapse it
    behind a toggle, still in the page (myst-nb "Hide cell contents")."""
    cells = [
        code("secret_setup()", [stream("set up\n")], tags=["remove-cell"]),
        code("shown_output_only()", [stream("only the output\n")], tags=["remove-input"]),
        code("shown_input_only()", [stream("dropped output\n")], tags=["remove-output"]),
        code("noisy()", [stream("kept stdout\n"), stream("dropped stderr\n", "stderr")], tags=["remove-stderr"]),
        code("folded()", [stream("folded output\n")], tags=["hide-input", "hide-output"]),
        code("whole_cell_folded()", tags=["hide-cell"]),
    ]
    text = read_notebook(notebook(cells)).text
    assert "secret_setup" not in text and "set up" not in text
    assert "shown_output_only" not in text and "only the output" in text
    assert "shown_input_only()" in text and "dropped output" not in text
    assert "kept stdout" in text and "dropped stderr" not in text
    assert "folded()" in text and "folded output" in text and "whole_cell_folded()" in text


def test_nbsphinx_hidden_cells_are_left_out():
    """nbsphinx "Hidden Cells": cell metadata ``"nbsphinx": "hidden"`` removes a cell
    (code or Markdown) from the output."""
    cells = [
        md("This notebook is part of the docs.", nbsphinx="hidden"),
        md("# Hidden cells\n\nThe answer follows."),
        code("answer = 6 * 7", nbsphinx="hidden"),
        code("answer"),
    ]
    text = read_notebook(notebook(cells)).text
    assert "part of the docs" not in text and "6 * 7" not in text
    assert text.startswith("# Hidden cells") and "```python\nanswer\n```" in text


def test_a_sites_rules_decide_which_tags_remove_what():
    """mkdocs-jupyter converts with nbconvert: only the tags its ``remove_tag_config``
    names remove anything, and ``no_input`` drops all code."""
    cells = [code("kept_by_default()", tags=["remove-cell"]), code("gone()", tags=["hide_code"])]
    rules = NotebookRules(remove_cell=frozenset(), remove_input=frozenset({"hide_code"}), hidden_metadata=False)
    text = read_notebook(notebook(cells), rules).text
    assert "kept_by_default()" in text and "gone()" not in text
    no_input = NotebookRules(show_input=False)
    assert read_notebook(notebook([code("x = 1", [stream("out\n")])]), no_input).text == "```\nout\n```\n"


def test_code_holding_a_fence_gets_a_longer_one():
    text = read_notebook(notebook([code('doc = """\n```python\nx\n```\n"""')])).text
    assert text.startswith("````python\n") and text.endswith("\n````\n")


def test_an_nbformat_3_notebook_is_read_with_its_heading_cells():
    data = {
        "nbformat": 3, "nbformat_minor": 0,
        "metadata": {"name": "old", "language": "python"},
        "worksheets": [{"cells": [
            {"cell_type": "heading", "level": 1, "metadata": {}, "source": ["Old notebook"]},
            {"cell_type": "markdown", "metadata": {}, "source": ["Written in 2014."]},
            {"cell_type": "code", "language": "python", "metadata": {}, "input": ["print('hi')"],
             "outputs": [{"output_type": "stream", "stream": "stdout", "text": ["hi\n"]},
                         {"output_type": "pyout", "text": ["<matplotlib figure>"], "png": "iVBO"}]},
        ]}],
    }
    page = read_notebook(json.dumps(data))
    assert page.text == "# Old notebook\n\nWritten in 2014.\n\n```python\nprint('hi')\n```\n\n```\nhi\n```\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"cells": [', "not valid JSON (line 1)"),
        ("[1, 2]", "the JSON is no object"),
        ('{"nbformat": 2, "worksheets": []}', "nbformat 2"),
        ('{"name": "package.json"}', "no nbformat and no cells"),
        ('{"nbformat": 4, "cells": {}}', "no list of cells"),
    ],
)
def test_what_is_no_notebook_says_why(text, reason):
    with pytest.raises(NotANotebook, match=reason.replace("(", r"\(").replace(")", r"\)")):
        read_notebook(text)


# -- Sphinx ----------------------------------------------------------------------------


def test_a_sphinx_tree_with_myst_nb_builds_notebooks_as_html_pages_and_search_finds_them(tmp_path):
    """myst-nb registers ``.ipynb`` (and ``.md``) itself: conf.py's ``extensions`` is
    enough. Pages at ``.html``, section ids docutils'; a broken notebook is a warning
    naming it and the rest builds."""
    root = tree(
        tmp_path / "docs",
        {
            "conf.py": "project = 'zoo'\nextensions = ['myst_nb']\nexclude_patterns = ['drafts']\n",
            "index.md": "# Zoo docs\n\nStart with the tutorial.\n",
            "tutorials/penguins.ipynb": PENGUINS,
            "tutorials/broken.ipynb": '{"cells": [{"cell_type": "markdown", "source": "# Half',
            "drafts/wip.ipynb": notebook([md("# Draft\n\nunfinished gazebo\n")]),
            "_build/jupyter_execute/tutorials/penguins.ipynb": PENGUINS,
        },
    )
    messages: list[str] = []
    manifest = build_index(config(root), tmp_path / "index", progress=messages.append)
    assert "docs: read as sphinx docs (from conf.py; pages: .rst, .md, .ipynb)" in messages
    warnings = [m for m in messages if m.startswith("warning:")]
    assert len(warnings) == 1 and "tutorials/broken.ipynb: skipped: not valid JSON" in warnings[0]
    assert manifest["sources"][0]["pages"] == 2
    with open_index(tmp_path / "index") as docs:
        assert sorted(p.ref for p in docs.outline()) == ["docs:index", "docs:tutorials/penguins"]
        page = docs.read("docs:tutorials/penguins")
        assert page.title == "Penguin tutorial"
        assert page.url == BASE + "tutorials/penguins.html"
        hit = docs.search("flipper measurements Palmer", limit=1).results[0]
        assert hit.ref == "docs:tutorials/penguins#load-the-data"
        assert hit.url == BASE + "tutorials/penguins.html#load-the-data"
        by_code = docs.search("load_dataset", limit=1).results[0]
        assert by_code.ref.startswith("docs:tutorials/penguins")
        assert not docs.search("gazebo").results  # drafts/ is excluded


def test_a_sphinx_tree_with_nbsphinx_reads_notebooks_beside_rst_and_leaves_hidden_cells_out(tmp_path):
    """nbsphinx adds ``.ipynb`` to ``source_suffix`` itself; its ``"nbsphinx": "hidden"``
    cells are not on the page (nbsphinx "Hidden Cells"), myst-nb's tags mean nothing to
    it, and a section's id is its title with '-' for each space, case and commas kept
    (nbsphinx.py's section transform: ``title.replace(' ', '-')``, '"' as ``%22``; issue
    748 shows ``href="#Table-of-Contents"``)."""
    root = tree(
        tmp_path,
        {
            "conf.py": "extensions = ['nbsphinx', 'sphinx.ext.mathjax']\nsource_suffix = ['.rst']\n",
            "index.rst": "Home\n====\n\nThe examples.\n",
            "examples/signals.ipynb": notebook([
                md("This notebook is part of the docs.", nbsphinx="hidden"),
                md('# Signals\n\n## Sampling, again\n\nSample the sine wave.\n\n## The "fast" path\n\nx\n'),
                code("import numpy as np\nx = np.linspace(0, 1, 8)"),
                code("still_shown()", tags=["remove-cell"]),
                code("%matplotlib inline", nbsphinx="hidden"),
            ]),
            "notes.md": "# Notes\n\nNo Markdown parser in conf.py: no page.\n",
        },
    )
    loaded = load(root)
    pages = by_path(loaded)
    assert sorted(pages) == ["examples/signals", "index"]
    signals = pages["examples/signals"]
    assert signals.url == BASE + "examples/signals.html"
    assert [(s.anchor, s.heading) for s in signals.sections] == [
        ("", ""), ("Sampling,-again", "Sampling, again"), ("The-%22fast%22-path", 'The "fast" path'),
    ]
    text = "".join(s.text for s in signals.sections)
    assert "np.linspace" in text and "part of the docs" not in text and "matplotlib" not in text
    assert "still_shown()" in text
    assert [s.anchor for s in pages["index"].sections] == [""]  # rst pages: docutils ids
    assert loaded.generator_reason == "from conf.py; pages: .rst, .ipynb"
    assert loaded.warnings == []


def test_a_sphinx_tree_without_a_notebook_extension_reads_no_notebook(tmp_path):
    root = tree(tmp_path, {
        "conf.py": "extensions = ['myst_parser']\nsource_suffix = ['.rst', '.md', '.ipynb']\n",
        "index.md": "# Home\n",
        "demo.ipynb": notebook([md("# Demo\n")]),
    })
    loaded = load(root)
    assert sorted(by_path(loaded)) == ["index"]
    (warning,) = loaded.warnings
    assert ".ipynb (no notebook extension in extensions) not read" in warning


# -- MkDocs ----------------------------------------------------------------------------


def test_mkdocs_with_mkdocs_jupyter_serves_notebooks_as_its_markdown_pages(tmp_path):
    """mkdocs-jupyter (its plugin.py): a notebook is a page at the address a Markdown
    file of its name gets (``use_directory_urls``: ``demo/``), titled by its first H1;
    ``ignore`` globs keep notebooks out; heading ids are Python-Markdown's toc ids, as on
    every MkDocs page (the plugin's ``slugify`` for nbconvert's headings and its TOC)."""
    tree(
        tmp_path,
        {
            "mkdocs.yml": (
                "site_name: Zoo\nplugins:\n  - search\n  - mkdocs-jupyter:\n"
                "      include_source: true\n      ignore: ['drafts/*']\n"
                "nav:\n  - Home: index.md\n  - Examples:\n    - notebooks/penguins.ipynb\n"
            ),
            "docs/index.md": "# Zoo\n\nSee the examples.\n",
            "docs/notebooks/penguins.ipynb": PENGUINS,
            "docs/drafts/wip.ipynb": notebook([md("# WIP\n")]),
        },
    )
    loaded = load(tmp_path / "docs")
    pages = by_path(loaded)
    assert sorted(pages) == ["index", "notebooks/penguins"]
    penguins = pages["notebooks/penguins"]
    assert penguins.url == BASE + "notebooks/penguins/"
    assert penguins.title == "Penguin tutorial"
    assert penguins.group == ("Examples",)
    assert [s.anchor for s in penguins.sections] == ["", "load-the-data", "plot-the-flippers"]
    assert pages["index"].url == BASE  # the Markdown pages as before
    assert loaded.generator_reason == "from ../mkdocs.yml; notebooks: .ipynb (mkdocs-jupyter)"
    assert loaded.warnings == []


def test_mkdocs_without_the_jupyter_plugin_reads_no_notebook_and_a_plain_folder_neither(tmp_path):
    files = {"docs/index.md": "# Zoo\n", "docs/demo.ipynb": PENGUINS}
    tree(tmp_path / "mk", {"mkdocs.yml": "site_name: Zoo\nplugins: [search]\n", **files})
    assert sorted(by_path(load(tmp_path / "mk" / "docs"))) == ["index"]
    tree(tmp_path / "plain", files)  # GitHub shows a notebook, but no docs site renders it
    assert sorted(by_path(load(tmp_path / "plain" / "docs"))) == ["index"]


def test_mkdocs_jupyter_removes_only_the_tags_its_config_names(tmp_path):
    tree(
        tmp_path,
        {
            "mkdocs.yml": (
                "site_name: Zoo\nuse_directory_urls: false\nplugins:\n  - mkdocs-jupyter:\n"
                "      remove_tag_config:\n        remove_input_tags: [hide_code]\n"
            ),
            "docs/demo.ipynb": notebook([
                md("# Demo\n"), code("hidden_by_config()", tags=["hide_code"]),
                code("kept_despite_myst_tag()", tags=["remove-cell"]),
            ]),
        },
    )
    (page,) = load(tmp_path / "docs").pages
    assert page.url == BASE + "demo.html"
    text = "".join(s.text for s in page.sections)
    assert "hidden_by_config" not in text and "kept_despite_myst_tag" in text


# -- Jupyter Book ----------------------------------------------------------------------

BOOK_TOC = """\
format: jb-book
root: intro
parts:
  - caption: Getting started
    chapters:
      - file: start/install
      - file: start/penguins
        title: Penguins notebook
        sections:
          - file: start/penguins/more
  - caption: Reference
    chapters:
      - file: reference/api.rst
      - glob: reference/extra*
      - url: https://example.com
        title: Elsewhere
"""


def book(root: Path) -> Path:
    return tree(
        root,
        {
            "_config.yml": "title: Zoo book\nexclude_patterns: [reference/extra_private.md]\n",
            "_toc.yml": BOOK_TOC,
            "intro.md": "# Welcome\n\nThe zoo book.\n",
            "start/install.md": "# Install\n\n## With pip\n\nRun pip install zoo.\n",
            "start/penguins.ipynb": PENGUINS,
            "start/penguins/more.md": "# More penguins\n\nEmperor penguins.\n",
            "reference/api.rst": "API\n===\n\nThe functions.\n\nload_dataset\n------------\n\nLoads a data set.\n",
            "reference/extra_one.md": "# Extra one\n",
            "reference/extra_private.md": "# Private\n",
            "orphan.md": "# Not in the table of contents\n",
            "_build/html/intro.html": "<html/>",
            "_build/jupyter_execute/start/penguins.ipynb": PENGUINS,
        },
    )


def test_a_jupyter_book_reads_the_pages_its_toc_lists_with_parts_as_navigation_groups(tmp_path):
    """Jupyter Book 1 (``_toc.yml`` docs, "Structure the Table of Contents"): ``root``,
    ``parts`` with ``caption``, ``chapters``, ``sections``, ``glob``; ``file:`` entries
    without a suffix; ``url:`` entries are links. Built by Sphinx: pages at ``.html``,
    docutils section ids."""
    root = book(tmp_path / "book")
    loaded = load(root)
    assert loaded.generator == "jupyterbook"
    pages = by_path(loaded)
    assert sorted(pages) == [
        "intro", "reference/api", "reference/extra_one",
        "start/install", "start/penguins", "start/penguins/more",
    ]
    assert pages["intro"].url == BASE + "intro.html" and pages["intro"].group == ()
    assert pages["start/install"].group == ("Getting started",)
    assert pages["start/penguins/more"].group == ("Getting started",)
    assert pages["reference/api"].group == ("Reference",)
    assert pages["reference/extra_one"].group == ("Reference",)
    penguins = pages["start/penguins"]
    assert penguins.url == BASE + "start/penguins.html"
    assert penguins.title == "Penguin tutorial"  # the notebook's H1 names the page
    assert [s.anchor for s in pages["start/install"].sections] == ["", "with-pip"]
    assert [s.anchor for s in pages["reference/api"].sections] == ["", "load-dataset"]
    assert loaded.navigation == "_toc.yml"
    assert loaded.warnings == []


def test_a_jupyter_book_builds_and_search_finds_a_notebook_by_its_prose_and_its_code(tmp_path):
    root = book(tmp_path / "book")
    messages: list[str] = []
    build_index(config(root), tmp_path / "index", progress=messages.append)
    assert any(m.startswith("docs: read as jupyterbook docs (from _toc.yml") for m in messages)
    with open_index(tmp_path / "index") as docs:
        hit = docs.search("scatter plot bill length", limit=1).results[0]
        assert hit.ref == "docs:start/penguins#plot-the-flippers"
        assert hit.url == BASE + "start/penguins.html#plot-the-flippers"
        assert docs.search("flipper_length_mm", limit=1).results[0].ref == "docs:start/penguins#plot-the-flippers"


def test_a_toc_entry_naming_no_file_warns_and_the_book_still_builds(tmp_path):
    root = tree(tmp_path, {
        "_config.yml": "title: t\n",
        "_toc.yml": "format: jb-article\nroot: index\nsections:\n  - file: gone\n  - file: here\n",
        "index.md": "# Home\n", "here.ipynb": notebook([md("# Here\n\nA notebook.\n")]),
    })
    loaded = load(root)
    assert sorted(by_path(loaded)) == ["here", "index"]
    (warning,) = loaded.warnings
    assert "_toc.yml: 'gone' names no file (.md, .ipynb or .rst) in the book" in warning


def test_a_toc_without_a_config_yml_beside_it_is_no_jupyter_book(tmp_path):
    tree(tmp_path, {"_toc.yml": "root: intro\n", "intro.md": "# Intro\n"})
    assert load(tmp_path).generator != "jupyterbook"


# -- MyST Markdown notebooks -----------------------------------------------------------

MYST_NOTEBOOK = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
  language: python
---
# Text notebook

Some prose about otters.

```{code-cell} ipython3
:tags: [remove-input]
import secret_module
```

```{code-cell}
---
tags: [hide-output]
---
otters = count_otters()
```

```{code-cell} ipython3
:tags: [remove-cell]
cleanup()
```
"""


def test_a_myst_text_notebook_shows_code_cells_as_code_without_their_options(tmp_path):
    """myst-nb "Text-based Notebooks": a Markdown file whose top-matter names the
    ``mystnb`` format (or Jupytext's ``myst``) is a notebook; each ``{code-cell}``
    directive is a code cell, its ``:tags:`` or YAML options block read as cell tags."""
    root = tree(tmp_path, {
        "conf.py": "extensions = ['myst_nb']\n",
        "otters.md": MYST_NOTEBOOK,
        "plain.md": "# Plain\n\n```{code-cell} ipython3\n:tags: [remove-cell]\nshown_in_plain()\n```\n",
    })
    pages = by_path(load(root))
    text = "".join(s.text for s in pages["otters"].sections)
    assert pages["otters"].title == "Text notebook"
    assert "Some prose about otters." in text and "```python\notters = count_otters()\n```" in text
    assert "secret_module" not in text and "cleanup" not in text
    assert ":tags:" not in text and "hide-output" not in text and "{code-cell}" not in text
    # a Markdown page that is no notebook is left as the Markdown reader reads it
    assert "shown_in_plain()" in "".join(s.text for s in pages["plain"].sections)


def test_a_notebook_named_on_its_own_is_read_as_a_notebook(tmp_path):
    """``path:`` naming one ``.ipynb`` file asks for that notebook, whatever the folder."""
    tree(tmp_path, {"demo.ipynb": PENGUINS, "other.ipynb": notebook([md("# Other\n")])})
    cfg = parse_config(
        {"name": "t", "sources": [{"name": "nb", "kind": "markdown", "path": "demo.ipynb"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    (page,) = load_source(cfg.sources[0], fetch=None).pages
    assert page.title == "Penguin tutorial"
    assert [s.anchor for s in page.sections] == ["", "load-the-data", "plot-the-flippers"]


def test_a_broken_toc_warns_and_every_page_of_the_book_is_read(tmp_path):
    root = tree(tmp_path, {
        "_config.yml": "title: t\n",
        "_toc.yml": "format: jb-book\nroot: [unclosed\n",
        "intro.md": "# Intro\n", "nb.ipynb": notebook([md("# Notebook\n")]),
        "_build/html/x.md": "# Built\n",
    })
    loaded = load(root)
    assert loaded.generator == "jupyterbook"
    assert sorted(by_path(loaded)) == ["intro", "nb"]
    (warning,) = loaded.warnings
    assert "_toc.yml: cannot be read (ParserError); every page is read" in warning


def test_notebooks_in_a_markdown_custom_format_are_read_as_markdown_and_others_warn(tmp_path):
    """nbsphinx "Custom Notebook Formats" (``nbsphinx_custom_formats``, myst-nb's
    ``nb_custom_formats``): a suffix read through Jupytext is a page; a Markdown one is read
    as Markdown, a percent-format script is not read, with a warning."""
    root = tree(tmp_path, {
        "conf.py": (
            "extensions = ['nbsphinx']\n"
            "nbsphinx_custom_formats = {\n"
            "    '.pct.py': ['jupytext.reads', {'fmt': 'py:percent'}],\n"
            "    '.md': ['jupytext.reads', {'fmt': 'Rmd'}],\n"
            "}\n"
        ),
        "index.rst": "Home\n====\n",
        "a-markdown-file.md": "# Using Markdown Files\n\nPages from R Markdown.\n",
        "custom.pct.py": "# %% [markdown]\n# # Custom\n",
    })
    loaded = load(root)
    assert sorted(by_path(loaded)) == ["a-markdown-file", "index"]
    assert by_path(loaded)["a-markdown-file"].url == BASE + "a-markdown-file.html"
    assert loaded.generator_reason == "from conf.py; pages: .rst, .ipynb, .md"
    (warning,) = loaded.warnings
    assert "notebooks in custom formats not read: .pct.py" in warning


def test_each_renderer_shows_the_raw_cells_it_renders():
    """nbsphinx's raw-cells notebook: a raw cell with no format is shown as it is, reST,
    Markdown and HTML ones in HTML output, LaTeX and Python ones not. myst-nb renders a
    raw cell by its ``format`` mime type and skips one with none."""
    from docwheel.formats.notebook import MYST_NB_RULES, NBSPHINX_RULES

    cells = [
        {"cell_type": "raw", "metadata": {}, "source": "no format"},
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/html"}, "source": "<b>html cell</b>"},
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/x-python"}, "source": "python cell"},
        {"cell_type": "raw", "metadata": {"format": "text/markdown"}, "source": "markdown cell"},
    ]
    nbsphinx = read_notebook(notebook(cells), NBSPHINX_RULES).text
    assert "no format" in nbsphinx and "html cell" in nbsphinx and "python cell" not in nbsphinx
    myst = read_notebook(notebook(cells), MYST_NB_RULES).text
    assert "no format" not in myst and "html cell" in myst and "markdown cell" in myst
    remove = read_notebook(notebook([code("gone()", tags=["remove_input"])]), MYST_NB_RULES).text
    assert "gone()" not in remove  # myst-nb reads its tags with '_' too
