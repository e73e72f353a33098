"""Docsify: an ``index.html`` that sets ``window.$docsify`` in the docs folder.

What its documentation (docsify.js.org: quick start, more pages, configuration) and source
say, and this module does:
- Docsify renders Markdown in the browser: every ``.md`` file is a page, except the
  navigation files it loads beside them (``_sidebar.md``, ``_navbar.md``,
  ``_coverpage.md``, or the names ``loadSidebar``/``loadNavbar``/``coverpage`` give).
- A page ``guide/install.md`` is at ``#/guide/install`` (hash routing, the default) or
  ``guide/install`` with ``routerMode: 'history'``; a ``README.md`` is its folder's page.
- ``_sidebar.md`` is a nested list: a linked item names its page, an item without a link
  labels the items nested in it (``Page.group``).
- Heading ids are its slugify (``headings.slugify_docsify``). Docsify links a heading as
  ``?id=slug`` inside the route; a section URL is its page's URL and ``#slug`` (read at
  search time), which opens the page in history mode but not with hash routing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .jsobject import read_value_after
from .markdown import page_path_from_url
from .site import Generator, Navigation, Settings, Warn, strip_suffix
from .summary import navigation, read_summary, read_text

_NAV_FILES = ("_sidebar.md", "_navbar.md", "_coverpage.md")
_HISTORY = re.compile(r"""routerMode\s*:\s*['"]history['"]""")


class Docsify(Generator):
    name = "docsify"
    config_files = ("index.html",)
    anchors = "docsify"

    def claims(self, config: Path) -> bool:
        try:
            return "$docsify" in config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        text = _script(config)
        names = set(_NAV_FILES)
        for key in ("loadSidebar", "loadNavbar", "coverpage"):
            value = read_value_after(text, (key,)) if key in text else None
            if isinstance(value, str) and value.endswith(".md"):
                names.add(value.lstrip("/"))
        return Settings(
            clean_urls=bool(_HISTORY.search(text)),
            exclude=tuple(sorted(f"**/{name.rsplit('/', 1)[-1]}" for name in names)),
        )

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        path = strip_suffix(rel)
        folder, _, name = path.rpartition("/")
        if name.lower() == "readme":
            path = f"{folder}/" if folder else ""
        return path if settings.clean_urls else "#/" + path

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return _key(rel)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        value = read_value_after(_script(config), ("loadSidebar",)) if config else None
        name = value.lstrip("/") if isinstance(value, str) and value.endswith(".md") else "_sidebar.md"
        sidebar = root / name
        text = read_text(sidebar, warn) if sidebar.is_file() else None
        if text is None:
            return None
        return navigation(sidebar, read_summary(text, ()), _key)


GENERATOR = Docsify()


def _key(target: str) -> str:
    """A sidebar link as the page it opens: ``guide/install`` (``.md`` or not), ``guide/``
    for its README."""
    path = page_path_from_url(target)
    if path.lower() == "readme":
        return "index"
    return path[: -len("/README")] if path.lower().endswith("/readme") else path


def _script(config: Path | None) -> str:
    if config is None:
        return ""
    try:
        return config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
