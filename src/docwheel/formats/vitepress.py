"""VitePress: ``.vitepress/config.{ts,mts,js,mjs}`` in the docs folder (or above it).

What its documentation says, and this module does:
- A page ``guide/install.md`` is served at ``guide/install.html``, or ``guide/install``
  when the config sets ``cleanUrls: true``; ``index.md`` is its folder's page.
- ``srcExclude`` globs are not pages.
- The page's title is its H1; frontmatter ``title`` is the browser tab's (``x | Config``)
  and names a page only when it has no H1.
- Heading ids are VitePress's slugify (accents dropped, runs of punctuation and spaces one
  '-', a leading digit prefixed '_'); ``{#custom-id}`` sets one.
- ``themeConfig.sidebar`` (an array, or an object keyed by path prefix) gives each linked
  page its groups (``Page.group``), read from the literal parts of the config.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .jsobject import read_value_after
from .markdown import page_path_from_url
from .site import Generator, Navigation, Settings, Warn, html_address, read_config, strip_suffix

_CONTAINER = re.compile(r"^[ \t]*:::[ \t]*(?:tip|warning|danger|info|details|code-group)\b", re.M)


class VitePress(Generator):
    name = "vitepress"
    config_files = tuple(f".vitepress/config.{ext}" for ext in ("ts", "mts", "js", "mjs", "cts", "cjs"))
    anchors = "vitepress"
    title_from = "heading"

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        text = read_config(config, warn, "VitePress")
        clean = read_value_after(text, ("cleanUrls",)) if text else None
        exclude = read_value_after(text, ("srcExclude",)) if text else None
        return Settings(
            clean_urls=clean if isinstance(clean, bool) else None,
            exclude=tuple(p for p in exclude if isinstance(p, str)) if isinstance(exclude, list) else (),
        )

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        path = strip_suffix(rel)
        if path == "index" or path.endswith("/index"):
            path = path[: -len("index")]
        return html_address(path, settings, clean_default=False)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        text = read_config(config, warn, "VitePress")
        sidebar = read_value_after(text, ("sidebar",)) if text else None
        if not isinstance(sidebar, (list, dict)) or config is None:
            return None
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        tops = sidebar.values() if isinstance(sidebar, dict) else [sidebar]
        for top in tops:
            for link, labels, text_ in _items(top, (), ""):
                key = page_path_from_url(link.split("#", 1)[0])
                groups.setdefault(key, labels)
                if text_:
                    titles.setdefault(key, text_)
        return Navigation(config.name, groups, titles)

    def sniff(self, rel: str, text: str) -> int:
        return len(_CONTAINER.findall(text))


GENERATOR = VitePress()




def _items(
    node: object, labels: tuple[str, ...], base: str
) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(link, group labels, item text) for each linked item of a sidebar."""
    if isinstance(node, list):
        for item in node:
            yield from _items(item, labels, base)
    elif isinstance(node, dict):
        text = node.get("text") if isinstance(node.get("text"), str) else None
        base = node.get("base") if isinstance(node.get("base"), str) else base
        link = node.get("link")
        items = node.get("items")
        if isinstance(link, str) and "://" not in link:
            full = link if link.startswith("/") or not base else base.rstrip("/") + "/" + link
            yield full, labels, text
        if isinstance(items, list):
            yield from _items(items, (*labels, text) if text else labels, base)
