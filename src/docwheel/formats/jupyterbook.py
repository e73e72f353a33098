"""Jupyter Book 1: a ``_toc.yml`` beside a ``_config.yml`` in the book's root folder.

Jupyter Book 1 builds with Sphinx and myst-nb, so its pages are served as Sphinx serves
them (``intro.md`` at ``intro.html``), with docutils' section ids and myst-nb's reading of
notebooks (``.ipynb``; ``remove-*`` tags). What its documentation says, and this module
does:
- The pages are the files ``_toc.yml`` lists: ``root:``, then ``chapters:`` and
  ``sections:`` (``jb-book``), ``sections:`` (``jb-article``), ``parts:`` (or
  ``subtrees:``) each with a ``caption:`` that groups its chapters in the navigation, and
  ``glob:`` patterns. A ``file:`` is relative to the book root and names a document
  without its suffix: ``.md``, ``.ipynb`` or ``.rst`` is found. ``url:`` entries are links,
  not pages. An entry's ``title:`` names the page in the navigation.
- ``_config.yml``'s ``exclude_patterns`` keep files out; ``_build`` is never read.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

from .notebook import MYST_NB_RULES
from .site import Generator, Navigation, Settings, Warn, strip_suffix
from .sphinx import ALWAYS_EXCLUDED, _relative, excluded, page_url

CONFIG = "_config.yml"
TOC = "_toc.yml"
# How a suffix-less ``file:`` is found, in this order, and how each is read.
PAGE_SUFFIXES = ((".md", "markdown"), (".ipynb", "notebook"), (".rst", "rst"))
_LIST_KEYS = ("chapters", "sections", "entries")  # lists of entries
_GROUP_KEYS = ("parts", "subtrees")  # lists of groups, each with an optional caption


class JupyterBook(Generator):
    name = "jupyterbook"
    config_files = (TOC,)
    anchors = "docutils"

    def claims(self, config: Path) -> bool:
        """A ``_toc.yml`` is a book's when ``_config.yml`` sits beside it (a broken table of
        contents then warns, rather than the folder passing for another generator's)."""
        return (config.parent / CONFIG).is_file()

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        if config is None:
            return Settings(
                exclude=ALWAYS_EXCLUDED, page_suffixes=PAGE_SUFFIXES, notebook_rules=MYST_NB_RULES
            )
        book = config.parent
        options = _yaml(book / CONFIG, warn)
        exclude = tuple(
            p.strip("/") for p in _strings(options.get("exclude_patterns")) if p.strip("/")
        )
        base = _relative(root, book)
        toc = _toc(config, warn)
        pages = None
        if toc is not None:
            files = _files(book)
            docs = [doc for doc, _, _ in _entries(toc, (), files)]
            pages = frozenset(
                found[len(base) + 1 :] if base else found
                for found in (_resolve(doc, files, warn) for doc in docs)
                if found is not None and (not base or found.startswith(base + "/"))
            )
        return Settings(
            exclude=exclude + ALWAYS_EXCLUDED,
            page_suffixes=PAGE_SUFFIXES,
            exclude_base=base,
            pages=pages,
            notebook_rules=MYST_NB_RULES,
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        if settings.syntax(rel) is None:
            return False
        if settings.pages is not None and rel not in settings.pages:
            return False
        where = posixpath.join(settings.exclude_base, rel) if settings.exclude_base else rel
        return not excluded(where, settings.exclude)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        return page_url(rel, None, tuple(s for s, _ in settings.page_suffixes))

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return strip_suffix(rel)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        if config is None:
            return None
        toc = _toc(config, None)
        if toc is None:
            return None
        base = _relative(root, config.parent)
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        for doc, labels, title in _entries(toc, (), _files(config.parent)):
            if base:
                if not doc.startswith(base + "/"):
                    continue
                doc = doc[len(base) + 1 :]
            key = strip_suffix(doc)
            groups.setdefault(key, labels)
            if title:
                titles.setdefault(key, title)
        return Navigation(TOC, groups, titles)


GENERATOR = JupyterBook()


def _yaml(path: Path, warn: Warn | None) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        if warn is not None:
            warn(
                f"{path.name}: cannot be read ({type(exc).__name__}); Jupyter Book defaults assumed"
            )
        return {}
    return data if isinstance(data, dict) else {}


def _toc(config: Path, warn: Warn | None) -> dict | list | None:
    """The table of contents: a map with ``root:`` (the format of Jupyter Book 0.11 on) or
    the older list whose first entry is the root page; None when it is neither."""
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        if warn is not None:
            warn(f"{config.name}: cannot be read ({type(exc).__name__}); every page is read")
        return None
    if isinstance(data, dict) and isinstance(data.get("root"), str):
        return data
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return data
    if warn is not None:
        warn(f"{config.name}: names no root page; every page is read")
    return None


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _files(book: Path) -> list[str]:
    """The book's files that may be pages ('/'-separated, relative to its root)."""
    suffixes = tuple(s for s, _ in PAGE_SUFFIXES)
    found = []
    for path in sorted(book.rglob("*")):
        rel = path.relative_to(book).as_posix()
        if rel.endswith(suffixes) and not any(
            part.startswith((".", "_build")) for part in rel.split("/")
        ):
            found.append(rel)
    return found


def _entries(
    node: object, labels: tuple[str, ...], files: list[str]
) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(document, navigation labels, navigation title) for each page the TOC lists, in
    its order: the root, then each entry and what nests under it."""
    if isinstance(node, list):
        for item in node:
            yield from _entries(item, labels, files)
        return
    if not isinstance(node, dict):
        return
    title = node.get("title") if isinstance(node.get("title"), str) else None
    for key in ("root", "file"):
        doc = node.get(key)
        if isinstance(doc, str) and doc.strip():
            yield _entry_path(doc), labels, title
    pattern = node.get("glob")
    if isinstance(pattern, str):
        for rel in files:
            if fnmatch.fnmatchcase(strip_suffix(rel), strip_suffix(_entry_path(pattern))):
                yield rel, labels, None
    caption = node.get("caption") if isinstance(node.get("caption"), str) else None
    if isinstance(node.get("part"), str):  # the TOC before 0.11: ``- part: Name``
        caption = node["part"]
    inner = (*labels, caption.strip()) if caption and caption.strip() else labels
    for key in _GROUP_KEYS:
        yield from _entries(node.get(key), labels, files)
    for key in _LIST_KEYS:
        yield from _entries(node.get(key), inner if caption else labels, files)


def _entry_path(entry: str) -> str:
    return entry.strip().lstrip("/").removeprefix("./")


def _resolve(doc: str, files: list[str], warn: Warn) -> str | None:
    """The file a TOC document names: itself when it has a page suffix, else the first
    of ``doc.md``, ``doc.ipynb``, ``doc.rst`` that exists."""
    present = set(files)
    if doc in present:
        return doc
    for suffix, _ in PAGE_SUFFIXES:
        if doc + suffix in present:
            return doc + suffix
    warn(f"{TOC}: {doc!r} names no file (.md, .ipynb or .rst) in the book")
    return None
