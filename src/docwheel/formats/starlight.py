"""Astro Starlight: an ``astro.config.*`` that uses ``@astrojs/starlight``, above the
content folder (``src/content/docs/``).

What its documentation says, and this module does:
- A page's address is its frontmatter ``slug:``, else its path with each segment slugged
  (lower case, spaces as '-') and ``index`` as its folder; Starlight's own links end in '/'
  unless ``trailingSlash: 'never'``.
- The title is frontmatter ``title:`` (pages have no H1 of their own).
- Heading ids are github-slugger's (GitHub's rules).
- ``sidebar`` groups (with ``label:``) list slugs or ``autogenerate: {directory}`` whole
  folders; each gives its pages a group (``Page.group``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .jsobject import read_value_after
from .headings import slugify
from .site import Generator, Navigation, Settings, Warn, strip_suffix

_STARLIGHT_IMPORT = re.compile(r"""^import\s.*['"]@astrojs/starlight""", re.M)


class Starlight(Generator):
    name = "starlight"
    config_files = tuple(f"astro.config.{ext}" for ext in ("mjs", "ts", "mts", "js", "cjs"))
    anchors = "github"
    reads_frontmatter = True

    def claims(self, config: Path) -> bool:
        try:
            return "starlight" in config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        text = ""
        if config is not None:
            try:
                text = config.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                warn(f"{config.name}: cannot be read; Starlight defaults assumed")
        slash = read_value_after(text, ("trailingSlash",)) if text else None
        return Settings(clean_urls=True, trailing_slash=slash != "never")

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        slug = meta.get("slug")
        if isinstance(slug, str) and slug.strip():
            path = slug.strip().strip("/")
        else:
            segments = [slugify(s) or s for s in strip_suffix(rel).split("/")]
            if segments[-1] == "index":
                segments = segments[:-1]
            path = "/".join(segments)
        if not path:
            return ""
        return path + "/" if settings.trailing_slash is not False else path

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return url_path.strip("/") or "index"

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        if config is None:
            return None
        try:
            text = config.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        sidebar = read_value_after(text, ("sidebar",))
        if not isinstance(sidebar, list):
            return None
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        folders: dict[str, tuple[str, ...]] = {}
        for kind, key, labels, label in _items(sidebar, ()):
            if kind == "folder":
                folders.setdefault(key, labels)
            else:
                groups.setdefault(key, labels)
                if label:
                    titles.setdefault(key, label)
        return Navigation(config.name, groups, titles, folders)

    def sniff(self, rel: str, text: str) -> int:
        return 3 * len(_STARLIGHT_IMPORT.findall(text))


GENERATOR = Starlight()


def _items(
    node: object, labels: tuple[str, ...]
) -> Iterator[tuple[str, str, tuple[str, ...], str | None]]:
    """("page" or "folder", slug or directory, group labels, item label) per sidebar item."""
    if isinstance(node, str):
        yield "page", node.strip("/") or "index", labels, None
    elif isinstance(node, list):
        for item in node:
            yield from _items(item, labels)
    elif isinstance(node, dict):
        label = node.get("label") if isinstance(node.get("label"), str) else None
        inner = (*labels, label) if label else labels
        auto = node.get("autogenerate")
        if isinstance(auto, dict) and isinstance(auto.get("directory"), str):
            yield "folder", auto["directory"].strip("/"), inner, None
        if isinstance(node.get("slug"), str):
            yield "page", node["slug"].strip("/") or "index", labels, label
        elif isinstance(node.get("link"), str) and "://" not in node["link"]:
            yield "page", node["link"].strip("/") or "index", labels, label
        if isinstance(node.get("items"), list):
            yield from _items(node["items"], inner)
