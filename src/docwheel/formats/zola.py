"""Zola: a ``config.toml`` with ``base_url`` and Zola's own settings in the docs folder or
above it; the docs folder is the site (its pages under ``content/``) or its ``content/``.

What its documentation says (getzola.org "Content > Overview", "Section", "Page",
"Shortcodes", "Configuration"), and this module does:
- Pages are the ``.md`` files under ``content/``. ``_index.md`` is its folder's (section's)
  page; a folder with an ``index.md`` is a page whose other files are its assets.
- A page is served as a folder with a trailing slash (``blog/hello.md`` -> ``blog/hello/``):
  the file name slugified (``slugify.paths``, "on" by default), a leading date
  (``2024-01-31-hello.md``) left off unless ``paths_keep_dates``. Frontmatter ``slug``
  replaces the name, ``path`` the whole address.
- ``draft = true`` pages and ``render = false`` sections are not published.
- Heading ids follow ``slugify.anchors``: ``on`` (the default, the ``slug`` crate's rules:
  the ``zola`` anchor style), ``safe`` (``zola-safe``: spaces as '_', characters that
  break a URL fragment dropped) or ``off`` (``zola-off``: the heading's text); ``{#id}``
  sets one; a repeated id takes ``-1``, ``-2``.
- Shortcodes (``{{ name(args) }}``, ``{% name(args) %}`` … ``{% end %}``) render templates
  docwheel cannot run: a call leaves no text, a body is shown as written
  (``blocks.drop_placeholders``); an escaped one, ``{{/* name() */}}``, shows as
  ``{{ name() }}``.
- The sections' ``_index.md`` titles (the section tree themes draw) label their pages.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .site import (
    Generator, Navigation, Settings, Warn, inside_folder, section_navigation, strip_suffix,
)

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Settings only Zola's config.toml has (``zola init`` writes the first four).
_ZOLA_KEYS = frozenset(
    "compile_sass build_search_index markdown default_language generate_feeds generate_feed "
    "feed_filenames taxonomies slugify search link_checker minify_html ignored_content "
    "languages generate_sitemap generate_robots_txt hard_link_static output_dir".split()
)
_STRATEGIES = {"on": "zola", "safe": "zola-safe", "off": "zola-off"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.+\-Z]+)?[_-](?=.)")
_SHORTCODE_CALL = re.compile(r"\{\{[ \t]*[A-Za-z_]\w*\(|\{%[ \t]*[A-Za-z_]\w*\(|\{%[ \t]*end[ \t]*%\}")
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$", re.M | re.S)
_ZOLA_TABLE = re.compile(r"^\[(?:extra|taxonomies)\][ \t]*$", re.M)
_ESCAPED = re.compile(r"(\{[{%])/\*(.*?)\*/([}%]\})", re.S)
_PATH_UNSAFE = re.compile(r"[<>:/|?*#\\()\[\]\n\r\t]")


@dataclass(frozen=True)
class ZolaSettings(Settings):
    content: str = ""  # the content folder inside the docs folder; "": the folder is it
    bundles: frozenset[str] = frozenset()  # folders (in the content folder) with an index.md
    paths: str = "on"  # slugify.paths
    keep_dates: bool = False
    anchors: str = "zola"


class Zola(Generator):
    name = "zola"
    config_files = ("config.toml",)
    anchors = "zola"
    reads_frontmatter = True

    def claims(self, config: Path) -> bool:
        data = _load(config, None)
        return "base_url" in data and bool(set(data) & _ZOLA_KEYS)

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        data = _load(config, warn) if config is not None else {}
        slug = data.get("slugify") if isinstance(data.get("slugify"), dict) else {}
        anchors = str(slug.get("anchors", "on")).lower()
        if anchors not in _STRATEGIES:
            warn(f"config.toml: slugify.anchors {anchors!r} is not one of on, safe, off; on assumed")
        paths = str(slug.get("paths", "on")).lower()
        content = "content" if config is not None and config.parent == root else ""
        return ZolaSettings(
            content=content,
            bundles=_bundles(root / content if content else root),
            paths=paths if paths in _STRATEGIES else "on",
            keep_dates=slug.get("paths_keep_dates") is True,
            anchors=_STRATEGIES.get(anchors, "zola"),
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        inside = _inside(rel, settings)
        if inside is None or not inside.lower().endswith(".md"):
            return False
        bundles = settings.bundles if isinstance(settings, ZolaSettings) else frozenset()
        folder, _, name = strip_suffix(inside).rpartition("/")
        parts = folder.split("/") if folder else []
        above = parts if name == "index" else parts + [""]
        if any("/".join(parts[: k + 1]) in bundles for k in range(len(above) - 1)):
            return False  # an asset of a page folder
        return super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        zola = settings if isinstance(settings, ZolaSettings) else ZolaSettings()
        given = meta.get("path")
        if isinstance(given, str) and given.strip().strip("/"):
            return given.strip().strip("/") + "/"  # Zola ends every page path in '/'
        path = strip_suffix(_inside(rel, settings) or rel)
        folder, _, name = path.rpartition("/")
        if name == "_index":
            return folder + "/" if folder else ""
        if name == "index" and folder:
            folder, _, name = folder.rpartition("/")
        slug = meta.get("slug")
        if isinstance(slug, (str, int)) and str(slug).strip():
            name = str(slug).strip()
        elif not zola.keep_dates:
            name = _DATE.sub("", name)
        name = _slug_path(name, zola.paths)
        return f"{folder}/{name}/" if folder else f"{name}/"

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        """Each page's groups: the sections above it, by their ``_index.md`` titles (a
        section without one by its folder's name); the home section is no group."""
        from .markdown import page_meta, title_from_path

        content = "content" if config is not None and config.parent == root else ""
        base = root / content if content else root
        if not base.is_dir():
            return None
        sections: dict[str, str] = {}
        for path in sorted(base.rglob("_index.md")):
            rel = path.relative_to(root)
            if path.parent == base or any(part.startswith(".") for part in rel.parts):
                continue
            try:
                title = page_meta(path.read_text(encoding="utf-8")).get("title")
            except (OSError, UnicodeDecodeError):
                title = None
            label = str(title).strip() if isinstance(title, (str, int)) and str(title).strip() else ""
            sections[rel.parent.as_posix()] = label or title_from_path(rel.parent.as_posix())
        return section_navigation(sections)

    def ref_path(self, rel: str, settings: Settings) -> str:
        """Refs read from inside ``content/``, whether the sources file names the site or
        its content folder."""
        return _inside(rel, settings) or rel

    def anchor_style(self, settings: Settings) -> str:
        return settings.anchors if isinstance(settings, ZolaSettings) else self.anchors

    def shown(self, text: str, settings: Settings) -> str:
        """An escaped shortcode (``{{/* name() */}}``, ``{%/* name() */%}``) shows as the
        shortcode itself: the way a page documents one, in code."""
        if "/*" not in text:
            return text
        return _ESCAPED.sub(lambda m: m.group(1) + m.group(2) + m.group(3), text)

    def sniff(self, rel: str, text: str) -> int:
        """Zola's own marks: shortcode calls (``{{ name(`` and ``{% name(``), ``{% end %}``,
        outside code blocks, and TOML frontmatter with an ``[extra]`` or ``[taxonomies]`` table (Hugo's pages
        use ``[params]`` and plain keys)."""
        marks = min(len(_SHORTCODE_CALL.findall(_FENCED.sub("", text))), 5)
        if text.startswith("+++") and _ZOLA_TABLE.search(text.split("\n+++", 1)[0]):
            marks += 2
        return marks

    def unpublished(self, meta: Mapping) -> str | None:
        if meta.get("draft") is True:
            return "draft = true"
        if meta.get("render") is False:
            return "render = false"
        return None


GENERATOR = Zola()


def _slug_path(name: str, strategy: str) -> str:
    """A page's file name or ``slug`` as its address segment (``slugify.paths``)."""
    if strategy == "on":
        from .headings import slugify_zola

        return slugify_zola(name, plain=True) or name
    if strategy == "safe":
        return _PATH_UNSAFE.sub("", name.rstrip(" ."))
    return name


def _inside(rel: str, settings: Settings) -> str | None:
    """``rel`` inside the content folder, or None for a file outside it."""
    return inside_folder(rel, settings.content if isinstance(settings, ZolaSettings) else "")


def _bundles(base: Path) -> frozenset[str]:
    """Folders under ``base`` holding an ``index.md``: pages with their assets."""
    found = set()
    if base.is_dir():
        for path in base.rglob("index.md"):
            rel = path.relative_to(base)
            if len(rel.parts) > 1 and not any(part.startswith(".") for part in rel.parts):
                found.add(rel.parent.as_posix())
    return frozenset(found)


def _load(config: Path, warn: Warn | None) -> dict:
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if warn is not None:
            warn(f"{config.name}: cannot be read ({type(exc).__name__}); Zola defaults assumed")
        return {}
    return data if isinstance(data, dict) else {}
