"""VuePress 1 and 2: ``.vuepress/config.{js,ts,mjs,mts,cjs}`` in the docs folder (VuePress's
source folder holds ``.vuepress/``) or above it.

What its documentation says (vuepress.vuejs.org "Page", "Markdown", "Default theme
config"; v1.vuepress.vuejs.org "Markdown extensions", "Default theme config"), and this
module does:
- Every ``.md`` file is a page (VuePress 2's ``pagePatterns``, by default
  ``['**/*.md', '!.vuepress', '!node_modules']``, read from the config when literal).
- ``README.md`` and ``index.md`` are their folder's page (``guide/`` with its slash); any
  other page is served as ``.html`` (``guide/page.md`` -> ``guide/page.html``); frontmatter
  ``permalink:`` replaces the address.
- The title is frontmatter ``title``, else the first H1.
- Heading ids are ``@vuepress/shared``'s slugify (accents dropped, runs of whitespace and
  ASCII punctuation one '-', a leading digit prefixed '_'): the ``vuepress`` anchor style.
  A ``<Badge>`` in a heading adds nothing to its id or title.
- ``[[toc]]`` renders a table of contents: no text of the page's own. ``@[code](./f.js)``
  (v2) and ``<<< @/f.js`` (v1) import a file as a code block (``formats.includes``).
- The default theme's ``sidebar`` (v2 ``defaultTheme({ sidebar })`` or v1
  ``themeConfig.sidebar``: an array, or an object keyed by path prefix) labels each page it
  lists with its groups: a group is an item with ``text`` (v2) or ``title`` (v1) and
  ``children`` (relative to its ``prefix``, v2); a child is a path, ``[path, title]`` (v1)
  or an item with ``link``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .jsobject import read_value_after
from .site import Generator, Navigation, Settings, Warn, excluded, read_config, strip_suffix

_DEFAULT_PATTERNS = ("**/*.md", "!.vuepress", "!node_modules")
_TOC = re.compile(r"^[ \t]*\[\[toc\]\][ \t]*$", re.M | re.I)
_IMPORT = re.compile(r"^[ \t]*@\[code[^\]]*\]\([^)]+\)[ \t]*$", re.M)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


@dataclass(frozen=True)
class VuePressSettings(Settings):
    """``pagePatterns``: globs a page matches, and ``!`` globs it must not."""

    patterns: tuple[str, ...] = _DEFAULT_PATTERNS


class VuePress(Generator):
    name = "vuepress"
    config_files = tuple(f".vuepress/config.{ext}" for ext in ("ts", "js", "mts", "mjs", "cts", "cjs"))
    anchors = "vuepress"
    reads_frontmatter = True

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        text = read_config(config, warn, "VuePress")
        given = read_value_after(text, ("pagePatterns",)) if text else None
        if isinstance(given, list) and given and all(isinstance(p, str) for p in given):
            return VuePressSettings(patterns=tuple(given))
        return VuePressSettings()

    def is_page(self, rel: str, settings: Settings) -> bool:
        patterns = settings.patterns if isinstance(settings, VuePressSettings) else _DEFAULT_PATTERNS
        if not rel.lower().endswith(".md") or not super().is_page(rel, settings):
            return False
        keep = [p for p in patterns if not p.startswith("!")]
        drop = [p[1:] for p in patterns if p.startswith("!")]
        if not excluded(rel, tuple(keep)):
            return False
        return not any(_under(rel, p) for p in drop)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        permalink = meta.get("permalink")
        if isinstance(permalink, str) and permalink.strip().strip("/"):
            return permalink.strip().lstrip("/")
        path = strip_suffix(rel)
        folder, _, name = path.rpartition("/")
        if name.lower() in ("readme", "index"):
            return folder + "/" if folder else ""
        return path + ".html"

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return _key(rel)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        text = read_config(config, warn, "VuePress")
        sidebar = read_value_after(text, ("sidebar",)) if text else None
        if not isinstance(sidebar, (list, dict)) or config is None:
            return None  # 'auto', false, or not a literal
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        tops = sidebar.items() if isinstance(sidebar, dict) else [("/", sidebar)]
        for base, top in tops:
            for link, labels, title in _items(top, (), str(base)):
                key = _key(link)
                groups.setdefault(key, labels)
                if title:
                    titles.setdefault(key, title)
        return Navigation(config.name, groups, titles) if groups else None

    def shown(self, text: str, settings: Settings) -> str:
        if "[[" not in text and "@[code" not in text:
            return text
        lines, out, fence = text.split("\n"), [], False
        for line in lines:
            if _FENCE.match(line):
                fence = not fence
            if not fence and (_TOC.match(line) or _IMPORT.match(line)):
                continue  # a table of contents, or an import whose file is missing
            out.append(line)
        return "\n".join(out)

    def sniff(self, rel: str, text: str) -> int:
        return len(_TOC.findall(text)) + len(_IMPORT.findall(text))


GENERATOR = VuePress()


def _under(rel: str, pattern: str) -> bool:
    """``rel`` matches a negated pagePattern: the glob itself or a folder it names."""
    pattern = pattern.strip("/")
    return excluded(rel, (pattern,)) or rel == pattern or rel.startswith(pattern + "/") or (
        "/" + pattern + "/" in "/" + rel
    )


def _key(link: str) -> str:
    """A page path or sidebar link as one key: no leading '/', no ``#anchor``, no ``.md`` or
    ``.html``, a folder's README or index as the folder (``guide/``), the home page ""."""
    path = link.split("#", 1)[0].split("?", 1)[0].strip().lstrip("/")
    if path.lower().endswith(".html"):
        path = path[:-5]
    path = strip_suffix(path)
    folder, _, name = path.rpartition("/")
    if name.lower() in ("readme", "index", ""):
        return folder + "/" if folder else ""
    return path




def _join(base: str, link: str) -> str:
    """A sidebar link relative to its sidebar's path prefix (``{'/guide/': ['', 'install']}``)."""
    if link.startswith("/") or "://" in link:
        return link
    folder = base if base.endswith("/") else base.rsplit("/", 1)[0] + "/"
    joined = posixpath.normpath(posixpath.join("/" + folder.lstrip("/"), link))
    return joined.rstrip("/") + "/" if link.endswith("/") or not link else joined


def _items(node: object, labels: tuple[str, ...], base: str) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(link, group labels, title) for each page a sidebar lists."""
    if isinstance(node, str):
        if "://" not in node:
            yield _join(base, node), labels, None
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
                if "://" not in item[0]:
                    yield _join(base, item[0]), labels, item[1]  # v1: [path, title]
            else:
                yield from _items(item, labels, base)
    elif isinstance(node, dict):
        label = next((node[k] for k in ("text", "title") if isinstance(node.get(k), str)), None)
        link = node.get("link", node.get("path"))
        children = node.get("children")
        if isinstance(link, str) and "://" not in link:
            yield _join(base, link), labels, label
        prefix = node.get("prefix")  # v2: the children's links are relative to it
        inner = _join(base, prefix) if isinstance(prefix, str) and prefix else base
        if isinstance(children, list):
            yield from _items(children, (*labels, label) if label else labels, inner)
