"""reStructuredText and Sphinx trees: formats/rst.py (docutils) and formats/sphinx.py.

The fixture tree ``fixtures/sphinx/docs`` is a small Sphinx project: three section levels
and a fourth, labels, Sphinx roles, ``code-block`` and ``::`` blocks, admonitions, version
notes, an unknown directive, autodoc stubs, includes inside and outside the folder. The
flask-docs corpus test is skipped when ``../shared/corpora`` is absent.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docwheel.api import open_index
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.rst import parse_rst, role_text
from docwheel.formats.rst_tree import read_tree
from docwheel.formats.generators import detect
from docwheel.formats.sphinx import page_url
from docwheel.models import Page, Section
from docwheel.sources import load_source

from helpers import CORPORA, FIXTURES

TREE = FIXTURES / "sphinx" / "docs"
RAW_ROLE = re.compile(r":[a-z][\w:+-]*:`")
DIRECTIVE_LINE = re.compile(r"^[ \t]*\.\. [\w:+-]+::", re.M)


def folder_config(path: Path, base_url: str | None = "https://acme.example/docs/"):
    source = {"name": "docs", "kind": "markdown", "path": str(path)}
    if base_url:
        source["base_url"] = base_url
    return parse_config(
        {"name": "acme", "sources": [source]}, base_dir=path, origin="docwheel.yaml"
    )


@pytest.fixture(scope="module")
def tree_pages() -> dict[str, Page]:
    loaded = load_source(folder_config(TREE).sources[0], fetch=None)
    assert loaded.warnings == []
    return {page.path: page for page in loaded.pages}


def section(page: Page, anchor: str) -> Section:
    return next(s for s in page.sections if s.anchor == anchor)


def rst(text: str, **options) -> Page:
    return parse_rst(text, url="u", path="p", fallback_title="Fallback", **options)


# -- one page ----------------------------------------------------------------------------


def test_the_first_title_is_the_page_title_and_sections_split_down_to_max_level(tree_pages):
    page = tree_pages["index"]
    assert page.title == "Acme Handbook"
    assert [(s.anchor, s.level, s.path) for s in page.sections] == [
        ("", 0, ("Acme Handbook",)),
        ("signing-keys", 2, ("Acme Handbook", "Signing Keys")),
        ("rotating-keys", 3, ("Acme Handbook", "Signing Keys", "Rotating Keys")),
        ("shared-settings", 2, ("Acme Handbook", "Shared Settings")),
    ]
    shallow = rst((TREE / "index.rst").read_text(), max_level=2)
    assert [s.anchor for s in shallow.sections] == ["", "signing-keys", "shared-settings"]
    assert "### Rotating Keys" in section(shallow, "signing-keys").text


def test_sections_have_the_shape_markdown_headings_give():
    from docwheel.sources import parse_markdown  # formats.markdown on main, markdown here

    def shape(page: Page) -> list[tuple]:
        return [(s.anchor, s.heading, s.level, s.path, s.text) for s in page.sections]

    markdown = "# One\n\ntext\n\n# Two\n\nmore\n\n## Sub\n\ndeep\n"
    restructured = "One\n===\n\ntext\n\nTwo\n===\n\nmore\n\nSub\n---\n\ndeep\n"
    md = parse_markdown(markdown, url="u", path="p", fallback_title="Fallback")
    assert shape(rst(restructured)) == shape(md)


def test_deeper_titles_and_labels_are_anchors_at_their_place_in_the_text(tree_pages):
    page = tree_pages["index"]
    intro = page.sections[0]
    assert [(a.anchor, a.heading, a.level, a.offset) for a in intro.anchors] == [
        ("acme-handbook", "Acme Handbook", 1, 0),
        ("acme-home", "", 0, 0),
    ]
    rotating = section(page, "rotating-keys")
    label, deeper = rotating.anchors
    assert (label.anchor, label.offset) == ("rotation", 0)  # `.. _rotation:` before the title
    assert (deeper.anchor, deeper.heading, deeper.level) == (
        "emergency-revocation",
        "Emergency Revocation",
        4,
    )
    assert rotating.text[deeper.offset :].startswith("#### Emergency Revocation\n")
    shared = section(page, "shared-settings")
    table = next(a for a in shared.anchors if a.anchor == "settings-table")
    assert shared.text[table.offset :].startswith("| Setting | Meaning |")


def test_roles_read_as_the_text_sphinx_shows(tree_pages):
    intro = tree_pages["index"].sections[0].text
    assert "`acme.sign_request()`" in intro  # :func: is code, with the call parentheses
    assert "`Client`" in intro and "`Client.rotate()`" in intro  # ~ shortens, a leading . goes
    assert "the rotation notes" in intro  # an explicit title
    assert "Installing Acme" in intro  # :doc: shows the page's title
    assert "Read Rotating Keys before" in section(tree_pages["index"], "signing-keys").text
    install = tree_pages["guide/install"].sections[0].text
    assert "Then read User Guide and Acme Handbook." in install  # relative and /absolute :doc:


@pytest.mark.parametrize(
    ("role", "text", "shown"),
    [
        ("func", "flask.url_for", "flask.url_for()"),
        ("func", "~flask.url_for", "url_for()"),
        ("meth", "dict.update()", "dict.update()"),
        ("class", "!Flask", "Flask"),
        ("data", ".current_app", "current_app"),
        ("ref", "Title <some-label>", "Title"),
        ("ref", "some-label", "some-label"),
        ("doc", "the guide </guide/index>", "the guide"),
        ("py:attr", "~a.b.c", "c"),
    ],
)
def test_role_text_follows_sphinx_display_rules(role, text, shown):
    assert role_text(role, text) == shown


def test_code_blocks_are_fences_with_their_language_and_admonitions_are_prose(tree_pages):
    text = section(tree_pages["index"], "signing-keys").text
    assert '`sign.py`\n\n```python\nimport acme\nacme.sign_request(b"payload")\n```' in text
    assert "double colon:\n\n```\n$ acme keys list --all\n```" in text
    assert "Note\n\nKeep the old key" in text
    assert "Warning\n\nNever commit a key" in text
    assert "Connection Reset Issue\n\nProxies drop idle" in text
    assert "Added in version 2.1: Keys can carry an expiry date." in text
    assert "Changed in version 3.0: The keyring moved to `~/.acme/keys`." in text
    install = tree_pages["guide/install"].sections[0].text
    assert "```console\n$ pip install acme\n```" in install  # sourcecode


def test_unknown_directives_keep_their_text_and_stubs_and_toctrees_add_none(tree_pages):
    page = tree_pages["index"]
    every = "\n".join(s.text for s in page.sections)
    assert "Hidden Treasure\n\nThe gazebo keeps its secrets in the mystery box." in every
    assert "colour" not in every and "gold" not in every  # its options are not words
    for stub in ("acme.client.Client", "acme.internals", "members", "maxdepth", "guide/index"):
        assert stub not in every
    assert not RAW_ROLE.search(every) and not DIRECTIVE_LINE.search(every)
    assert "orphan" not in every  # page metadata


def test_code_tabs_are_code_and_only_blocks_for_other_builders_are_left_out():
    text = (
        rst(
            "T\n=\n\n.. tabs::\n\n   .. code-tab:: py Python Client\n\n      import acme\n\n"
            ".. only:: latex\n\n   Printed words.\n\n.. only:: html or epub\n\n   Web words.\n\n"
            ".. only:: not latex\n\n   Screen words.\n"
        )
        .sections[0]
        .text
    )
    assert text == "Python Client\n\n```py\nimport acme\n```\n\nWeb words.\n\nScreen words."


def test_tables_and_footnotes_are_readable_text(tree_pages):
    text = section(tree_pages["index"], "shared-settings").text
    assert "| Setting | Meaning |\n| --- | --- |\n| `timeout` | Seconds to wait. |" in text
    assert "Footnotes work too [1]." in text and "[1] Unsure what that is?" in text


def test_includes_inside_the_folder_are_read_and_outside_dropped_never_as_words(tree_pages):
    text = section(tree_pages["index"], "shared-settings").text
    assert text.startswith("Every client reads the shared settings file, `acme.toml`.")
    assert "```python\nimport acme\n\nclient = acme.Client(timeout=30)" in text  # literalinclude
    assert "zeppelin" not in text and "outside" not in text and "include" not in text


def test_a_file_other_pages_include_is_not_a_page(tree_pages):
    assert sorted(tree_pages) == ["guide", "guide/install", "index"]


def test_include_targets_are_asked_for_relative_to_the_file_that_includes_them():
    asked = []
    files = {"parts/a.rst": "Part A.\n\n.. include:: b.rst\n", "parts/b.rst": "Part B.\n"}

    def read(target: str) -> str | None:
        asked.append(target)
        return files.get(target)

    page = rst("T\n=\n\n.. include:: parts/a.rst\n\n.. include:: missing.rst\n", include=read)
    assert asked == ["parts/a.rst", "parts/b.rst", "missing.rst"]
    assert page.sections[0].text == "Part A.\n\nPart B."
    assert rst("T\n=\n\n.. include:: parts/a.rst\n\nafter\n").sections[0].text == "after"


def test_a_tree_resolves_nested_includes_under_the_keys_the_parser_asks_for():
    texts = {
        "guide/page.rst": "Page\n====\n\n.. include:: ../parts/a.rst\n\n.. include:: /parts/c.rst\n",
        "parts/a.rst": "Part A.\n\n.. include:: b.rst\n",
        "parts/b.rst": "Part B.\n",
        "parts/c.rst": "Part C.\n\n.. literalinclude:: ../../elsewhere.py\n",
    }
    tree = read_tree(texts, lambda rel: None)
    assert tree.fragments == {"parts/a.rst", "parts/b.rst", "parts/c.rst"}
    includes = dict(tree.includes["guide/page.rst"])
    assert sorted(includes) == ["../parts/a.rst", "../parts/b.rst", "/parts/c.rst"]
    page = rst(texts["guide/page.rst"], include=includes.get)
    assert page.sections[0].text == "Part A.\n\nPart B.\n\nPart C."


@pytest.mark.parametrize(
    "text",
    [
        "Title\n=====\n\n.. code-block::\n",  # no content
        "Title\n=====\n\n:func:`unclosed\n\n`also *broken\n",
        "Title\n===\n\nshort underline, then a stray\n\n----\n\n====\nOnly\n====\n",
        ".. image::\n\n.. figure:: nothing.png\n   :bogus: 1\n\n|undefined| substitution_\n",
        "Title\n=====\n\n.. raw:: html\n\n   <script>alert(1)</script>\n\n.. [#] lonely footnote\n",
        "A\n=\n\nB\n-\n\nC\n=\n\nD\n-\n\n" + "* " * 40 + "deep\n",
        "\ufeffTitle\r\n=====\r\n\r\nWindows text.\r\n",
        ".. seealso:: an argument and no content\n",
    ],
)
def test_broken_markup_never_raises_prints_or_loses_the_page(text, capsys):
    page = rst(text, warn=lambda message: pytest.fail(message))
    assert page.sections
    every = "\n".join(s.text for s in page.sections)
    assert "<script>" not in every and "System Message" not in every
    assert capsys.readouterr() == ("", "")


# Pieces of reStructuredText and Sphinx markup, glued in any order by the property below.
PIECES = [
    "Title\n=====\n",
    "Sub\n---\n",
    "Deep\n^^^^\n",
    "~~~~\n",
    ".. _label:\n",
    ".. note::\n",
    "   indented\n",
    "::\n",
    "    code\n",
    ":func:`x`",
    "`open",
    "``literal``",
    "*em",
    "**strong**",
    ".. code-block:: py\n",
    ".. include:: x.rst\n",
    ".. mystery:: arg\n   :opt: 1\n",
    "\n",
    "* item\n",
    "1. one\n",
    "term\n   definition\n",
    "| line\n",
    ".. [#] note\n",
    "[#]_",
    "|sub|",
    ".. |sub| replace:: text\n",
    "=== ===\na   b\n=== ===\n",
    "+--+--+\n| a| b|\n+--+--+\n",
    ".. toctree::\n",
    ".. versionadded:: 1.0\n",
    ":field: value\n",
    "--opt  desc\n",
    ">>> 1\n",
    "__ http://x\n",
    "`link <http://x>`_",
    "name_",
    ".. _name: http://y\n",
    "\t",
    "\\",
    "<b>",
    ".. contents::\n",
    ".. only:: latex\n",
    ".. tabs::\n",
    "   .. tab:: A\n",
    "      text\n",
    ".. py:function:: f(x)\n",
    ".. currentmodule:: m\n",
    ".. seealso:: x\n",
    ".. autoclass:: C\n",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", "\n", "\n\n"])), max_size=30
    )
)
def test_any_mix_of_markup_parses_without_errors_and_with_anchors_inside_the_text(parts):
    text = "".join(piece + gap for piece, gap in parts)
    page = rst(
        text, warn=lambda message: pytest.fail(message), include=lambda target: "Inc *text*\n"
    )
    for sec in page.sections:
        assert all(0 <= a.offset <= len(sec.text) for a in sec.anchors)
        assert "\ufdd1" not in sec.text and "\ufdd2" not in sec.text
        assert "Unknown directive" not in sec.text and "System Message" not in sec.text


def test_the_markdown_text_of_prose_never_reads_as_markdown_headings():
    page = rst("Title\n=====\n\n| # not a heading\n| ~~~ not a fence\n")
    assert page.sections[0].text == "\\# not a heading\n\\~~~ not a fence"


# -- Sphinx trees ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "base", "url"),
    [
        ("index.rst", "https://acme.example/docs/", "https://acme.example/docs/index.html"),
        (
            "guide/index.rst",
            "https://acme.example/docs/",
            "https://acme.example/docs/guide/index.html",
        ),
        (
            "patterns/sqlite3.rst",
            "https://x.example/en/stable/",
            "https://x.example/en/stable/patterns/sqlite3.html",
        ),
        ("tutorial/views.rst", None, "tutorial/views.html"),
    ],
)
def test_sphinx_page_urls_are_the_html_builders(rel, base, url):
    assert page_url(rel, base) == url


def test_a_sphinx_tree_has_conf_py_in_its_folder_or_up_to_three_above(tmp_path):
    deep = tmp_path / "docs" / "source" / "en" / "pages"
    deep.mkdir(parents=True)
    assert detect(deep).generator.name == "plain"
    (tmp_path / "docs" / "conf.py").write_text("project = 'x'\n")
    assert detect(deep).generator.name == detect(tmp_path / "docs").generator.name == "sphinx"
    (deep / "further").mkdir()
    assert detect(deep / "further").generator.name == "plain"  # four folders below conf.py


def test_rst_files_outside_a_sphinx_tree_keep_the_markdown_page_urls(tmp_path):
    (tmp_path / "notes.rst").write_text("Notes\n=====\n\nPlain docutils notes.\n")
    (tmp_path / "intro.md").write_text("# Intro\n\nMarkdown beside it.\n")
    loaded = load_source(folder_config(tmp_path).sources[0], fetch=None)
    urls = {page.path: page.url for page in loaded.pages}
    assert urls == {
        "notes": "https://acme.example/docs/notes.rst",
        "intro": "https://acme.example/docs/intro",
    }


def test_a_sphinx_tree_builds_into_an_index_read_by_ref_and_found_by_search(tmp_path):
    build_index(folder_config(TREE), tmp_path / "index")
    with open_index(tmp_path / "index") as docs:
        refs = [page.ref for page in docs.outline()]
        assert refs == ["docs:guide", "docs:guide/install", "docs:index"]
        doc = docs.read("docs:index#rotating-keys")
        assert doc.url == "https://acme.example/docs/index.html#rotating-keys"
        assert "once a month" in doc.text
        hit = docs.search("gazebo mystery box", limit=1).results[0]
        assert hit.ref == "docs:index#rotating-keys"
        assert (
            docs.search("acme.toml shared settings", limit=1).results[0].ref
            == "docs:index#shared-settings"
        )
        assert docs.search("zeppelin hangar").results == ()


def test_rst_pages_parsed_by_the_helper_process_are_the_pages_parsed_here(monkeypatch):
    from docwheel.build import HELPER_MIN_BYTES, _BuildHelper
    from docwheel.sources import parse_page_jobs

    jobs = []

    def keep(batch):
        jobs.extend(batch)
        return parse_page_jobs(batch)

    here = load_source(folder_config(TREE).sources[0], fetch=None, parse=keep).pages
    assert {job.syntax for job in jobs} == {"rst"} and any(job.includes for job in jobs)
    monkeypatch.setattr(_BuildHelper, "PARSE_CHARS", 1)  # one page per request
    monkeypatch.setattr(_BuildHelper, "IN_FLIGHT", 100)
    with _BuildHelper(True) as helper:
        helper.read(HELPER_MIN_BYTES)
        assert helper.process is not None and helper._ping is not None
        helper.process.reply(helper._ping)  # up: every batch goes to the helper
        helper._ping = None
        there = helper.parse(jobs)
    assert [page for page, _ in there] == here


def test_search_and_serve_never_import_docutils(tmp_path):
    build_index(folder_config(TREE), tmp_path / "index")
    script = (
        "import sys, io, contextlib\n"
        "from docwheel.cli import main\n"
        "from docwheel.server import create_server\n"
        f"idx = {str(tmp_path / 'index')!r}\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in (['search', 'rotate keys'], ['read', 'docs:index'], ['list']):\n"
        "        assert main([*argv, '--index', idx]) == 0\n"
        "import docwheel\n"
        "create_server(docwheel.open_index(idx))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'docutils'\n"
        "             or m.startswith('docwheel.formats.rst')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# -- the flask-docs corpus -----------------------------------------------------------------

FLASK = CORPORA / "flask-docs"


@pytest.mark.skipif(not FLASK.is_dir(), reason=f"{FLASK} is not available")
def test_flask_docs_build_with_every_page_and_no_raw_markup(tmp_path, capsys):
    files = sorted((FLASK / "docs").rglob("*.rst"))
    texts = [file.read_text(encoding="utf-8") for file in files]
    started, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        parse_rst(text, url="u", path="p", fallback_title="t")
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    mb = sum(len(text.encode("utf-8")) for text in texts) / 1e6
    with capsys.disabled():
        print(
            f"\nflask-docs: {len(files)} files, {mb:.2f} MB parsed in {seconds:.2f} s "
            f"({cpu:.2f} s CPU): {mb / seconds:.2f} MB/s, {mb / cpu:.2f} MB/s of CPU"
        )

    config = folder_config(FLASK / "docs", "https://flask.palletsprojects.com/en/stable/")
    manifest = build_index(config, tmp_path / "index")
    assert manifest["sources"][0]["pages"] == 76  # SOURCE.md: 76 .rst files, none only included
    with open_index(tmp_path / "index") as docs:
        for page in docs.outline():
            text = docs.read(page.ref).text
            assert not RAW_ROLE.search(text), (page.ref, RAW_ROLE.search(text))
            assert not DIRECTIVE_LINE.search(text), (page.ref, DIRECTIVE_LINE.search(text))
        url_building = docs.read("docs:quickstart#url-building")
        assert (
            url_building.url
            == "https://flask.palletsprojects.com/en/stable/quickstart.html#url-building"
        )
        assert "`url_for()`" in url_building.text
        sqlite = docs.read("docs:patterns/sqlite3")
        assert sqlite.title == "Using SQLite 3 with Flask"
        assert docs.read("docs:tutorial").url.endswith("/tutorial/index.html")
        cli = docs.read("docs:cli#run-the-development-server").text
        assert "See Deploying to Production for how to run in production." in cli
        config_text = docs.read("docs:config#builtin-configuration-values").text
        assert "`SECRET_KEY_FALLBACKS`" in config_text and "Added in version 3.1." in config_text


def test_single_backticks_follow_sphinx_default_role():
    text = "T\n=\n\nAccess `form.<NAME>.data` here.\n"
    as_code = parse_rst(text, url="u", path="p", fallback_title="t", default_role="code")
    plain = parse_rst(text, url="u", path="p", fallback_title="t")
    assert "`form.<NAME>.data`" in as_code.sections[0].text
    assert "`" not in plain.sections[0].text and "form.<NAME>.data" in plain.sections[0].text


def test_a_sphinx_tree_reads_default_role_from_conf_py(tmp_path):
    (tmp_path / "conf.py").write_text('project = "x"\ndefault_role = "code"\n')
    (tmp_path / "index.rst").write_text("Home\n====\n\nCall `app.run()` to start.\n")
    (page,) = load_source(folder_config(tmp_path).sources[0], fetch=None).pages
    assert "`app.run()`" in page.sections[0].text
