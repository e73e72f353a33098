"""Sphinx: a ``conf.py`` in the docs folder or above it.

Pages are served at their path with ``.html`` for the source suffix (the ``html`` builder;
``index.rst`` is ``index.html``, a folder's too); section ids are docutils' (``make_id``
of the title). Which files are pages is what Sphinx reads from ``conf.py``: the
``source_suffix`` names (``.rst`` by default; ``.md`` once a Markdown parser extension such
as ``myst_parser`` is in ``extensions``; ``.ipynb`` notebooks once ``myst_nb`` or
``nbsphinx`` is), minus the ``exclude_patterns`` and Sphinx's own
output (``_build``, ``_sources``). ``conf.py`` is read as text, never run (``pyconf``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urljoin

from .notebook import DEFAULT_RULES, MYST_NB_RULES, NBSPHINX_RULES, NotebookRules
from .pyconf import COMPUTED, read_assignments
from .site import Generator, Settings, Warn

_SPHINX_CONF = re.compile(r"^\s*(?:extensions|html_theme|project|master_doc|root_doc)\s*=", re.M)
_READ = ("source_suffix", "exclude_patterns", "extensions", "default_role", "templates_path",
         "nbsphinx_custom_formats", "nb_custom_formats")
DEFAULT_SUFFIXES = ((".rst", "rst"),)
# Extensions that register a Markdown parser for ``.md`` (MyST's docs: it is added to
# ``source_suffix`` unless already there).
MARKDOWN_EXTENSIONS = frozenset({"myst_parser", "myst_nb", "recommonmark"})
# Extensions that read ``.ipynb`` notebooks (myst-nb's and nbsphinx's docs: each registers
# the suffix itself, so conf.py need not name it).
NOTEBOOK_EXTENSIONS = frozenset({"myst_nb", "nbsphinx"})
NOTEBOOK_SUFFIX = ".ipynb"
# The filetypes those extensions register ``.ipynb`` as.
_NOTEBOOK_FILETYPES = frozenset({"jupyter_notebook", "myst-nb", "mystnb", "ipynb"})
# Sphinx's filetypes docwheel parses; a Markdown-named file of another filetype (a MyST
# text notebook, ``myst-nb``) is Markdown too.
_FILETYPES = {"restructuredtext": "rst", "markdown": "markdown"}
_MARKDOWN_NAMES = (".md", ".markdown", ".myst")
# Never documents, whatever conf.py says: Sphinx's own (``**/_sources``, editor lock
# files) and the output folder ``sphinx-quickstart`` puts inside the source folder.
ALWAYS_EXCLUDED = ("**/_sources", ".#*", "**/.#*", "_build", "**/_build")


class Sphinx(Generator):
    name = "sphinx"
    config_files = ("conf.py",)
    anchors = "docutils"

    def claims(self, config: Path) -> bool:
        try:
            text = config.read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            return False
        return _SPHINX_CONF.search(text) is not None

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        """``source_suffix``, ``extensions``, ``exclude_patterns``, ``templates_path`` and
        ``default_role`` from ``conf.py``. Without a ``conf.py`` (``generator: sphinx``
        named in the sources file), the folder's files are listed as for any folder."""
        if config is None:
            return Settings(exclude=ALWAYS_EXCLUDED)
        try:
            text = config.read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            text = ""
        values = read_assignments(text, _READ, warn, config.name)
        read = _Reader(values, warn, config.name)
        role = read.value("default_role", (str, type(None)), "")
        extensions = read.strings("extensions", ())
        suffix = read.value("source_suffix", (str, list, tuple, dict), None)
        suffixes = _page_suffixes(suffix, extensions, read)
        suffixes = tuple(dict.fromkeys(suffixes + _custom_formats(extensions, read)))
        exclude = read.strings("exclude_patterns", ()) + read.strings("templates_path", ())
        return Settings(
            exclude=tuple(p.strip("/") for p in exclude if p.strip("/")) + ALWAYS_EXCLUDED,
            default_role=role or "",
            page_suffixes=suffixes,
            exclude_base=_relative(root, config.parent),
            notebook_rules=_notebook_rules(extensions),
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        if settings.page_suffixes and settings.syntax(rel) is None:
            return False
        where = posixpath.join(settings.exclude_base, rel) if settings.exclude_base else rel
        return not excluded(where, settings.exclude)

    def note(self, settings: Settings) -> str:
        if not settings.page_suffixes or settings.page_suffixes == DEFAULT_SUFFIXES:
            return ""
        return "pages: " + ", ".join(suffix for suffix, _ in settings.page_suffixes)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        return page_url(rel, None, tuple(s for s, _ in settings.page_suffixes))

    # No sniff: a folder of .rst files without a conf.py is no Sphinx build (GitHub shows
    # such files as they are), so only the config file names Sphinx.


GENERATOR = Sphinx()


class _Reader:
    """Values of ``conf.py`` of the expected type, or the default and a warning."""

    def __init__(self, values: Mapping[str, object], warn: Warn, shown: str) -> None:
        self.values, self.warn, self.shown = values, warn, shown

    def value(self, name: str, types: type | tuple[type, ...], default: object) -> object:
        if name not in self.values:
            return default
        value = self.values[name]
        if value is COMPUTED:
            self.warn(f"{self.shown}: {name} is computed, not a literal: read as Sphinx's default")
            return default
        if not isinstance(value, types):
            self.warn(
                f"{self.shown}: {name} = {_short(value)} is not what Sphinx takes: "
                "read as its default"
            )
            return default
        return value

    def strings(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self.value(name, (list, tuple, str), default)
        if isinstance(value, str):
            value = [value] if name == "source_suffix" else None
        if value is None or not all(isinstance(item, str) for item in value):
            self.warn(f"{self.shown}: {name} is not a list of strings: read as Sphinx's default")
            return default
        return tuple(value)


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _page_suffixes(
    value: object, extensions: tuple[str, ...], read: _Reader
) -> tuple[tuple[str, str], ...]:
    """``source_suffix`` as (suffix, syntax) pairs, in Sphinx's order: a string or list
    names reStructuredText files (``.md`` among them is Markdown when an extension parses
    it, ``.ipynb`` a notebook when one reads notebooks), a dict names each suffix's
    filetype; a Markdown extension adds ``.md``, a notebook extension ``.ipynb``."""
    markdown_ext = any(ext.split(".")[0] in MARKDOWN_EXTENSIONS for ext in extensions)
    notebook_ext = any(ext.split(".")[0] in NOTEBOOK_EXTENSIONS for ext in extensions)
    pairs: list[tuple[str, str]] = []
    skipped: list[str] = []
    if value is None:
        pairs = list(DEFAULT_SUFFIXES)
    elif isinstance(value, dict):
        for suffix, filetype in value.items():
            if not isinstance(suffix, str) or not suffix:
                continue
            syntax = _FILETYPES.get(filetype) if isinstance(filetype, str) else None
            if suffix == NOTEBOOK_SUFFIX and (filetype in _NOTEBOOK_FILETYPES or notebook_ext):
                syntax = "notebook"
            elif filetype is None:
                syntax = "markdown" if markdown_ext and suffix in _MARKDOWN_NAMES else "rst"
            elif syntax is None and suffix in _MARKDOWN_NAMES:
                syntax = "markdown"
            if syntax is None:
                skipped.append(f"{suffix} ({filetype!r})")
            else:
                pairs.append((suffix, syntax))
    else:
        suffixes = [value] if isinstance(value, str) else list(value)
        if not all(isinstance(s, str) and s for s in suffixes):
            read.warn(
                f"{read.shown}: source_suffix is not a list of strings: read as Sphinx's default"
            )
            suffixes = [".rst"]
        for suffix in suffixes:
            if suffix == NOTEBOOK_SUFFIX:
                if notebook_ext:
                    pairs.append((suffix, "notebook"))
                else:
                    skipped.append(f"{suffix} (no notebook extension in extensions)")
                continue
            markdown = markdown_ext and suffix in _MARKDOWN_NAMES
            pairs.append((suffix, "markdown" if markdown else "rst"))
    if markdown_ext and not any(suffix == ".md" for suffix, _ in pairs):
        pairs.append((".md", "markdown"))
    if notebook_ext and not any(suffix == NOTEBOOK_SUFFIX for suffix, _ in pairs):
        pairs.append((NOTEBOOK_SUFFIX, "notebook"))
    if skipped:
        read.warn(
            f"{read.shown}: source_suffix: {', '.join(skipped)} not read "
            "(docwheel reads reStructuredText, Markdown and Jupyter notebooks)"
        )
    return tuple(dict.fromkeys(pairs))


def _notebook_rules(extensions: tuple[str, ...]) -> NotebookRules:
    """How the extension that reads the tree's notebooks renders them: myst-nb (it wins
    when both are named: each registers ``.ipynb``, and myst-nb's docs say to use one)
    or nbsphinx; with neither (a ``source_suffix`` naming the filetype), both rules."""
    names = {ext.split(".")[0] for ext in extensions}
    if "myst_nb" in names:
        return MYST_NB_RULES
    if "nbsphinx" in names:
        return NBSPHINX_RULES
    return DEFAULT_RULES


_CUSTOM_FORMATS = (("nbsphinx_custom_formats", "nbsphinx"), ("nb_custom_formats", "myst_nb"))


def _custom_formats(extensions: tuple[str, ...], read: _Reader) -> tuple[tuple[str, str], ...]:
    """The suffixes a notebook extension reads as notebooks through a converter
    (``nbsphinx_custom_formats``, myst-nb's ``nb_custom_formats``: suffix -> Jupytext
    reader). A Markdown one is read as Markdown, which its notebook renders the same
    prose and code of; another (a percent-format ``.py`` script) is not read."""
    names = {ext.split(".")[0] for ext in extensions}
    pairs: list[tuple[str, str]] = []
    skipped: list[str] = []
    for setting, extension in _CUSTOM_FORMATS:
        formats = read.value(setting, dict, {}) if extension in names else {}
        for suffix in formats:  # type: ignore[union-attr]
            if not isinstance(suffix, str) or not suffix:
                continue
            if suffix in _MARKDOWN_NAMES:
                pairs.append((suffix, "markdown"))
            else:
                skipped.append(suffix)
    if skipped:
        read.warn(
            f"{read.shown}: notebooks in custom formats not read: {', '.join(skipped)} "
            "(docwheel reads Markdown ones)"
        )
    return tuple(pairs)


def _relative(root: Path, base: Path) -> str:
    """``root`` relative to ``base`` ('/'-separated), "" when it is ``base`` or not below it."""
    try:
        rel = root.resolve().relative_to(base.resolve()).as_posix()
    except (ValueError, OSError):
        return ""
    return "" if rel == "." else rel


def _translate(pattern: str) -> re.Pattern[str]:
    """Sphinx's glob: ``**`` matches across folders, ``*`` and ``?`` within one name,
    ``[...]`` a character class (``[!...]`` never matching '/'); the whole path matches."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if i < n and pattern[i] == "*":
                i += 1
                out.append(".*")
            else:
                out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
                continue
            stuff = pattern[i:j].replace("\\", "\\\\")
            i = j + 1
            if stuff.startswith("!"):
                stuff = "^/" + stuff[1:]
            elif stuff.startswith("^"):
                stuff = "\\" + stuff
            out.append(f"[{stuff}]")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out) + r"\Z")


_COMPILED: dict[str, re.Pattern[str]] = {}


def excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    """Whether Sphinx leaves the file at ``rel`` out: a pattern matches its path or the
    path of a folder it is in (Sphinx does not walk into an excluded folder)."""
    parts = rel.split("/")
    paths = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    for pattern in patterns:
        compiled = _COMPILED.get(pattern)
        if compiled is None:
            compiled = _COMPILED[pattern] = _translate(pattern)
        if any(compiled.match(path) for path in paths):
            return True
    return False


def page_url(rel_path: str, base_url: str | None, suffixes: tuple[str, ...] = ()) -> str:
    """The address the ``html`` builder gives the page from ``rel_path``: the source path
    with ``.html`` for its suffix (the first of ``suffixes`` it ends with, else its last
    extension: ``index.rst`` -> ``index.html``, ``tutorial/index.rst`` ->
    ``tutorial/index.html``), joined to ``base_url`` when there is one."""
    rel = rel_path.replace("\\", "/")
    stem = next((rel[: -len(s)] for s in suffixes if rel.endswith(s)), None)
    page = (posixpath.splitext(rel)[0] if stem is None else stem) + ".html"
    return urljoin(base_url, page) if base_url else page
