"""Which files of a Sphinx tree are pages, as Sphinx decides it from ``conf.py``:
``source_suffix`` (a string, a list or a dict of filetypes), a Markdown parser extension
(``myst_parser``) for ``.md``, ``exclude_patterns``, and Sphinx's own output (``_build``,
``_sources``) never read. ``conf.py`` is read with ``ast``, never run: what is not a
literal, or a file Python cannot parse, gives a warning and Sphinx's default.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from docwheel.api import open_index
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.pyconf import COMPUTED, read_assignments
from docwheel.formats.sphinx import excluded
from docwheel.sources import load_source

from helpers import docwheel_cmd, write_tree as tree

BASE = "https://docs.example/en/5.0/"

URLS_TXT = """\
.. _topics-http-urls:

==============
URL dispatcher
==============

A clean, elegant URL scheme is an important detail. See :doc:`/index`.

How Django processes a request
==============================

Django determines the root URLconf module to use, loads ``urlpatterns``.

.. _naming-url-patterns:

Naming URL patterns
===================

Give the pattern a ``name`` to reverse it. The gazebo pattern is the example.

Reverse resolution
------------------

Use ``reverse()`` in Python code.
"""

INDEX_TXT = """\
====================
Django documentation
====================

Everything you need to know about Django.

.. toctree::
   :hidden:

   topics/index

Getting help
============

Try the FAQ first.
"""


def config(path: Path, base_dir: Path | None = None):
    return parse_config(
        {"name": "t", "sources": [{"name": "docs", "kind": "markdown", "path": str(path), "base_url": BASE}]},
        base_dir=base_dir or path,
        origin="t.yaml",
    )


def load(path: Path):
    return load_source(config(path).sources[0], fetch=None)


def paths(loaded) -> list[str]:
    return sorted(page.path for page in loaded.pages)


def django_tree(root: Path) -> Path:
    return tree(
        root,
        {
            "conf.py": (
                "import os, sys\n"
                "sys.path.insert(0, os.path.abspath('_ext'))\n"
                "project = 'Django'\n"
                "extensions = ['djangodocs', 'sphinx.ext.intersphinx']\n"
                "source_suffix = '.txt'\n"
                "exclude_patterns = ['_theme', 'requirements.txt']\n"
            ),
            "index.txt": INDEX_TXT,
            "topics/index.txt": "Using Django\n============\n\nIntroductions to all the key parts.\n",
            "topics/http/urls.txt": URLS_TXT,
            "requirements.txt": "sphinx>=4\n",
            "_theme/djangodocs/genindex.txt": "not a page\n",
            "README.md": "# The docs\n\nHow to build them.\n",
            "legacy.rst": "Legacy\n======\n\nAn .rst file Sphinx does not read here.\n",
            "_build/html/_sources/index.txt": INDEX_TXT,
            "_build/html/_sources/topics/http/urls.txt": URLS_TXT,
            "_build/html/_sources/index.rst.txt": INDEX_TXT,
        },
    )


# -- source_suffix ---------------------------------------------------------------------


def test_a_txt_sphinx_tree_builds_rst_pages_at_html_urls_with_docutils_anchors(tmp_path):
    root = django_tree(tmp_path / "docs")
    messages: list[str] = []
    manifest = build_index(config(root), tmp_path / "index", progress=messages.append)
    assert "docs: read as sphinx docs (from conf.py; pages: .txt)" in messages
    assert manifest["sources"][0]["generator_from"] == "from conf.py; pages: .txt"
    assert not [m for m in messages if m.startswith("warning:")]
    with open_index(tmp_path / "index") as docs:
        assert sorted(page.ref for page in docs.outline()) == [
            "docs:index",
            "docs:topics",
            "docs:topics/http/urls",
        ]
        urls = docs.read("docs:topics/http/urls")
        assert urls.title == "URL dispatcher"
        assert urls.url == BASE + "topics/http/urls.html"
        assert "=====" not in urls.text and ":doc:" not in urls.text
        naming = docs.read("docs:topics/http/urls#naming-url-patterns")
        assert naming.url == BASE + "topics/http/urls.html#naming-url-patterns"
        assert "`name`" in naming.text  # ``name`` read as code, the rst way
        processes = docs.read("docs:topics/http/urls#how-django-processes-a-request")
        assert "root URLconf" in processes.text
        assert docs.read("docs:topics").url == BASE + "topics/index.html"
        hit = docs.search("gazebo pattern", limit=1).results[0]
        assert hit.ref == "docs:topics/http/urls#naming-url-patterns"
    info = subprocess.run(
        [*docwheel_cmd(), "info", "--index", str(tmp_path / "index")],
        capture_output=True, text=True, timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "  generator: sphinx (from conf.py; pages: .txt)" in info.stdout.splitlines()


def test_a_dict_source_suffix_reads_each_suffix_as_its_filetype(tmp_path):
    root = tree(
        tmp_path,
        {
            "conf.py": (
                "project = 'x'\n"
                "source_suffix = {'.rst': 'restructuredtext', '.txt': 'restructuredtext',\n"
                "                 '.ipynb': 'jupyter_notebook', '.drawio': 'diagram'}\n"
            ),
            "index.rst": "Home\n====\n\nStart here.\n",
            "howto/deploy.txt": "Deploy\n======\n\nShip it.\n\nRollback\n--------\n\nUndo it.\n",
            "notes.md": "# Notes\n",
            "demo.ipynb": "{}\n",
            "flow.drawio": "<mxfile/>\n",
        },
    )
    loaded = load(root)
    assert paths(loaded) == ["howto/deploy", "index"]
    deploy = next(p for p in loaded.pages if p.path == "howto/deploy")
    assert deploy.url == BASE + "howto/deploy.html"
    assert [s.anchor for s in deploy.sections] == ["", "rollback"]
    assert loaded.generator_reason == "from conf.py; pages: .rst, .txt, .ipynb"
    conf_warning, notebook_warning = loaded.warnings
    assert ".drawio ('diagram') not read" in conf_warning
    # a notebook filetype is read as a notebook (tests/test_notebooks.py); "{}" is none
    assert notebook_warning.startswith("docs: demo.ipynb: skipped: not a notebook")


def test_the_default_source_suffix_is_rst_and_adds_no_note(tmp_path):
    root = tree(tmp_path, {"conf.py": "project = 'x'\n", "index.rst": "Home\n====\n", "a.txt": "x\n"})
    loaded = load(root)
    assert paths(loaded) == ["index"]
    assert loaded.generator_reason == "from conf.py"


# -- Markdown needs a parser extension --------------------------------------------------

MD_TREE = {
    "index.rst": "Home\n====\n\nThe home page.\n",
    "guide/setup.md": "# Setup\n\nInstall it.\n\n## Configure\n\nSet the gazebo key.\n",
}


def test_markdown_files_are_no_pages_without_a_markdown_parser_extension(tmp_path):
    root = tree(tmp_path, {"conf.py": "extensions = ['sphinx.ext.autodoc']\n", **MD_TREE})
    loaded = load(root)
    assert paths(loaded) == ["index"]
    assert loaded.generator_reason == "from conf.py"


@pytest.mark.parametrize(
    "conf",
    [
        "extensions = ['myst_parser']\n",
        "extensions = ['sphinx.ext.autodoc']\nextensions.append('myst_parser')\n",
        "extensions = ['sphinx.ext.autodoc']\nextensions += ['myst_nb']\n",
        "extensions = ['myst_parser']\nsource_suffix = ['.rst', '.md']\n",
    ],
)
def test_myst_parser_makes_md_files_markdown_pages(tmp_path, conf):
    root = tree(tmp_path, {"conf.py": conf, **MD_TREE})
    loaded = load(root)
    assert paths(loaded) == ["guide/setup", "index"]
    setup = next(p for p in loaded.pages if p.path == "guide/setup")
    assert setup.url == BASE + "guide/setup.html"
    assert setup.title == "Setup"
    sections = [(s.anchor, s.heading) for s in setup.sections]
    assert sections == [("", ""), ("configure", "Configure")]  # as rst: no sections
    notebooks = ", .ipynb" if "myst_nb" in conf else ""  # myst_nb reads notebooks too
    assert loaded.generator_reason == "from conf.py; pages: .rst, .md" + notebooks
    assert loaded.warnings == []


# -- exclude_patterns and the build output -------------------------------------------------


def test_exclude_patterns_leave_out_matching_files_and_folders(tmp_path):
    root = tree(
        tmp_path,
        {
            "conf.py": "project = 'x'\nexclude_patterns = ['old.rst', 'drafts', '**/includes/*']\n",
            "index.rst": "Home\n====\n",
            "old.rst": "Old\n===\n",
            "drafts/idea.rst": "Idea\n====\n",
            "drafts/deep/more.rst": "More\n====\n",
            "guide/includes/snippet.rst": "Snippet\n=======\n",
            "guide/start.rst": "Start\n=====\n",
            "guide/old.rst": "Guide old\n=========\n",  # 'old.rst' is relative to the root
            "includes/top.rst": "Top\n===\n",  # '**/' needs a folder before it, as in Sphinx
        },
    )
    assert paths(load(root)) == ["guide/old", "guide/start", "includes/top", "index"]


def test_exclude_patterns_are_relative_to_the_folder_of_conf_py(tmp_path):
    tree(
        tmp_path,
        {
            "conf.py": "project = 'x'\nexclude_patterns = ['docs/drafts/*']\n",
            "docs/index.rst": "Home\n====\n",
            "docs/drafts/idea.rst": "Idea\n====\n",
        },
    )
    assert paths(load(tmp_path / "docs")) == ["index"]


def test_the_build_output_is_never_read_even_when_exclude_patterns_omit_it(tmp_path):
    root = tree(
        tmp_path,
        {
            "conf.py": "project = 'x'\nexclude_patterns = []\nsource_suffix = ['.rst', '.txt']\n",
            "index.rst": "Home\n====\n",
            "_build/html/_sources/index.rst.txt": "Home\n====\n",
            "_build/html/_sources/index.txt": "Home\n====\n",
            "_build/doctrees/index.rst": "Home\n====\n",
            "out/html/_sources/guide.txt": "Guide\n=====\n",  # any output folder's copies
        },
    )
    assert paths(load(root)) == ["index"]


def test_a_sphinx_folder_named_in_the_sources_file_without_conf_py_reads_every_page(tmp_path):
    tree(tmp_path, {"docs/index.rst": "Home\n====\n", "docs/notes.md": "# Notes\n", "docs/_build/x.rst": "X\n=\n"})
    cfg = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": "docs", "generator": "sphinx"}]},
        base_dir=tmp_path,
        origin="t.yaml",
    )
    assert paths(load_source(cfg.sources[0], fetch=None)) == ["index", "notes"]


# -- conf.py read as text ---------------------------------------------------------------


def test_a_computed_source_suffix_warns_and_reads_the_default(tmp_path):
    root = tree(
        tmp_path,
        {
            "conf.py": "project = 'x'\nSUFFIXES = ['.txt']\nsource_suffix = SUFFIXES\n",
            "index.rst": "Home\n====\n",
            "other.txt": "Other\n=====\n",
        },
    )
    loaded = load(root)
    assert paths(loaded) == ["index"]
    (warning,) = loaded.warnings
    assert "conf.py: source_suffix is computed, not a literal: read as Sphinx's default" in warning


def test_a_conf_py_that_is_not_python_warns_and_reads_the_defaults(tmp_path):
    root = tree(
        tmp_path,
        {
            "conf.py": "project = 'x'\nsource_suffix = '.txt'\nexclude_patterns = ['old.rst'\n",
            "index.rst": "Home\n====\n",
            "old.rst": "Old\n===\n",
            "other.txt": "Other\n=====\n",
        },
    )
    messages: list[str] = []
    manifest = build_index(config(root), tmp_path / "index", progress=messages.append)
    assert manifest["sources"][0]["generator"] == "sphinx"
    (warning,) = [m for m in messages if m.startswith("warning:")]
    assert "conf.py: line 3: not valid Python" in warning and "Sphinx's defaults" in warning
    assert manifest["sources"][0]["pages"] == 2  # index and old: .rst, nothing excluded


def test_a_conf_py_saved_with_a_byte_order_mark_and_crlf_lines_is_read(tmp_path):
    (tmp_path / "conf.py").write_bytes(b"\xef\xbb\xbfproject = 'x'\r\nsource_suffix = '.txt'\r\n")
    (tmp_path / "index.txt").write_text("Home\n====\n")
    loaded = load(tmp_path)
    assert (loaded.generator, paths(loaded), loaded.warnings) == ("sphinx", ["index"], [])


@pytest.mark.parametrize(
    ("conf", "value"),
    [
        ("x = [1]\nx.append(2)\nx += [3]\nx.extend((4,))\n", [1, 2, 3, 4]),
        ("x: list = ['a']\n", ["a"]),
        ("x = y = 'both'\n", "both"),
        ("x = {'.rst': 'restructuredtext'}\n", {".rst": "restructuredtext"}),
        ("x = sorted(['b', 'a'])\n", COMPUTED),
        ("x, y = 1, 2\n", COMPUTED),
        ("x = [1]\nx.append(f())\n", COMPUTED),
        ("x += [1]\n", COMPUTED),  # extends a value set elsewhere
        ("if True:\n    x = 1\n", None),  # only top-level statements are read
    ],
)
def test_conf_py_assignments_are_literals_or_computed(conf, value):
    found = read_assignments(conf, ["x"], warn=pytest.fail)
    assert found.get("x") == value if value is not COMPUTED else found["x"] is COMPUTED


@pytest.mark.parametrize(
    ("rel", "pattern", "out"),
    [
        ("old.rst", "old.rst", True),
        ("guide/old.rst", "old.rst", False),
        ("drafts/a/b.rst", "drafts", True),
        ("a/b.rst", "*.rst", False),  # '*' stays within one name
        ("a/b.rst", "**.rst", True),
        ("a/includes/x.rst", "**/includes/*", True),
        ("a/includes/deep/x.rst", "**/includes/*", True),  # the folder a/includes/deep
        ("includesx/y.rst", "includes", False),
        ("a/_sources/x.txt", "**/_sources", True),
        ("z.rst", "[!a]*", True),
        ("a.rst", "[!a]*", False),
    ],
)
def test_exclude_patterns_match_as_sphinx_matches_them(rel, pattern, out):
    assert excluded(rel, (pattern,)) is out
