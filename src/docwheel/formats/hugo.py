"""Hugo: ``hugo.toml`` (``.yaml``, ``.json``), a ``config.*`` holding Hugo's settings, or
``config/_default/`` in the docs folder or above it; the docs folder is usually the site's
``content/``.

What its documentation says (gohugo.io: "Page bundles", "URL management", "Build options",
"Configure markup"), and this module does:
- ``_index.md`` is its folder's (section's) page and ``index.md`` a leaf bundle's page: both
  are served at the folder's address. The other Markdown files of a leaf bundle (its folder
  and the folders below) are resources of that page, not pages.
- A page is served as a folder (``docs/install.md`` -> ``docs/install/``), or as a file with
  ``uglyURLs = true`` (``docs/install.html``, a section ``docs.html``; also a map of
  sections); the path from the file is lower-cased unless ``disablePathToLower``, with
  spaces as '-'.
- Frontmatter ``slug`` replaces the last segment of a page's address (a section's keeps
  its own), ``url`` the whole path.
- ``draft: true``, ``headless: true`` and ``build`` (or ``_build``) ``render: never`` or
  ``link`` pages are not published, so they are not pages.
- Heading ids follow ``markup.goldmark.parser.autoHeadingIDType``: ``github`` (the
  default), ``github-ascii`` or ``blackfriday``; ``{#id}`` sets one.
- When the docs folder is the site itself (its config inside it), pages are the files under
  ``contentDir`` (``content``).

Hugo's frontmatter keys are case-insensitive, and so they are read here.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .site import (
    SUFFIXES, Generator, Navigation, Settings, Warn, inside_folder, section_navigation, strip_suffix,
)

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Settings of Hugo's config: ``baseURL`` or ``contentDir``, or two of the others, name a
# ``config.*`` file as Hugo's (a ``theme`` alone may be any tool's); Zola's says ``base_url``.
_HUGO_KEYS = frozenset(
    "baseurl contentdir theme languagecode defaultcontentlanguage uglyurls disablepathtolower "
    "publishdir canonifyurls relativeurls enablerobotstxt enablegitinfo module "
    "disablekinds".split()
)
_NAMES = ("hugo", "config")
_FORMATS = ("toml", "yaml", "yml", "json")
_ID_TYPES = {
    "github": "hugo", "github-ascii": "hugo-github-ascii", "blackfriday": "hugo-blackfriday"
}
_SHORTCODE = re.compile(r"\{\{[<%]")
_NOT_RENDERED = frozenset({"never", "link", "false"})


@dataclass(frozen=True)
class HugoSettings(Settings):
    """What ``hugo.toml`` says, and which folders are leaf bundles."""

    ugly: bool = False
    ugly_sections: tuple[tuple[str, bool], ...] = ()  # ``uglyURLs`` as a map of sections
    lower: bool = True
    content: str = ""  # the content folder inside the docs folder; "": the folder is it
    bundles: frozenset[str] = frozenset()  # folders (in the content folder) with an index.md
    anchors: str = "hugo"


class Hugo(Generator):
    name = "hugo"
    config_files = tuple(
        f"{where}{name}.{ext}"
        for where in ("", "config/_default/")
        for name in _NAMES
        for ext in _FORMATS
    )
    anchors = "hugo"
    reads_frontmatter = True

    def claims(self, config: Path) -> bool:
        if config.name.startswith("hugo."):
            return True
        keys = {str(key).lower() for key in _load(config, None)} & _HUGO_KEYS
        return bool(keys & {"baseurl", "contentdir"}) or len(keys) >= 2

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        data = _lower(_load(config, warn)) if config is not None else {}
        if config is not None and config.parent.name == "_default":
            for ext in _FORMATS:  # config/_default/markup.toml holds the `markup` table
                markup = config.parent / f"markup.{ext}"
                if markup.is_file() and "markup" not in data:
                    data["markup"] = _lower(_load(markup, warn))
        ugly = data.get("uglyurls")
        by_section = ugly.items() if isinstance(ugly, dict) else ()
        sections = tuple((str(k), v) for k, v in by_section if isinstance(v, bool))
        id_type = _get(data, "markup", "goldmark", "parser", "autoheadingidtype")
        anchors = _ID_TYPES.get(str(id_type).lower(), "hugo") if id_type is not None else "hugo"
        if id_type is not None and str(id_type).lower() not in _ID_TYPES:
            warn(
                f"{config.name if config else 'config'}: autoHeadingIDType {id_type!r} is not "
                f"one of {', '.join(_ID_TYPES)}; github assumed"
            )
        content = _content_dir(config, root, data)
        return HugoSettings(
            ugly=ugly is True,
            ugly_sections=sections,
            lower=data.get("disablepathtolower") is not True,
            content=content,
            bundles=_bundles(root / content if content else root),
            anchors=anchors,
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        inside = _inside(rel, settings)
        if inside is None:
            return False
        bundles = settings.bundles if isinstance(settings, HugoSettings) else frozenset()
        folder, _, name = strip_suffix(inside).rpartition("/")
        if name == "index" and folder in bundles:
            return super().is_page(rel, settings)
        parts = folder.split("/") if folder else []
        if any("/".join(parts[: k + 1]) in bundles for k in range(len(parts))):
            return False  # a resource of a leaf bundle's page
        return super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        hugo = settings if isinstance(settings, HugoSettings) else HugoSettings()
        meta = _lower(meta)
        path = strip_suffix(_inside(rel, settings) or rel)
        folder, _, name = path.rpartition("/")
        section = name == "_index"
        segments = [s for s in (folder if name in ("_index", "index") else path).split("/") if s]
        url = meta.get("url")
        if isinstance(url, str) and url.strip().strip("/"):
            given = url.strip().lstrip("/")
            last = given.rstrip("/").rsplit("/", 1)[-1]
            return given if given.endswith("/") or "." in last else given + "/"
        segments = [_sanitize(s, hugo.lower) for s in segments]
        slug = meta.get("slug")
        if isinstance(slug, (str, int)) and str(slug).strip() and not section and segments:
            segments[-1] = str(slug).strip().strip("/")
        if not segments:
            return ""
        joined = "/".join(segments)
        return joined + ".html" if _is_ugly(hugo, segments[0]) else joined + "/"

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        """The section tree, as Hugo themes' sidebars show it (Docsy, Hextra, Book): a
        page's groups are the sections above it, each labelled by its ``_index.md``'s
        ``linkTitle``, else its ``title``, else its folder's name."""
        from .markdown import page_meta, title_from_path

        data = _lower(_load(config, warn)) if config is not None else {}
        content = _content_dir(config, root, data)
        base = root / content if content else root
        if not base.is_dir():
            return None
        sections: dict[str, str] = {}
        for path in sorted(base.rglob("_index.*")):
            rel = path.relative_to(root)
            if path.suffix.lower() not in SUFFIXES or path.parent == base:
                continue  # the home page is no group
            if any(part.startswith(".") for part in rel.parts):
                continue
            try:
                meta = _lower(page_meta(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError):
                meta = {}
            label = next(
                (str(v).strip() for v in (meta.get("linktitle"), meta.get("title"))
                 if isinstance(v, (str, int)) and str(v).strip()),
                title_from_path(rel.parent.as_posix()),
            )
            sections[rel.parent.as_posix()] = label
        return section_navigation(sections)

    def anchor_style(self, settings: Settings) -> str:
        return settings.anchors if isinstance(settings, HugoSettings) else self.anchors

    def unpublished(self, meta: Mapping) -> str | None:
        meta = _lower(meta)
        for key in ("draft", "headless"):
            if _true(meta.get(key)):
                return f"{key}: true"
        for key in ("build", "_build"):
            options = meta.get(key)
            render = _lower(options).get("render") if isinstance(options, Mapping) else None
            named = isinstance(render, str) and render.strip().lower() in _NOT_RENDERED
            if render is False or named:
                return f"{key}.render: {str(render).lower()}"
        return None

    def sniff(self, rel: str, text: str) -> int:
        marks = min(len(_SHORTCODE.findall(text)), 5)
        section = rel.rsplit("/", 1)[-1].startswith("_index.")
        return marks + (2 if text.startswith("+++") else 0) + int(section)


GENERATOR = Hugo()


def _content_dir(config: Path | None, root: Path, data: Mapping) -> str:
    """The content folder inside the docs folder: ``contentDir`` when the docs folder is
    the site itself, else "" (the docs folder is the content folder, or inside it)."""
    if config is None or _site_root(config) != root:
        return ""
    folder = data.get("contentdir")
    given = folder.strip("/") if isinstance(folder, str) else ""
    return given or "content"


def _site_root(config: Path) -> Path:
    """The folder of the site a config file belongs to (above ``config/_default/``)."""
    if config.parent.name == "_default" and config.parent.parent.name == "config":
        return config.parent.parent.parent
    return config.parent


def _inside(rel: str, settings: Settings) -> str | None:
    """``rel`` inside the content folder, or None for a file outside it."""
    return inside_folder(rel, settings.content if isinstance(settings, HugoSettings) else "")


def _bundles(base: Path) -> frozenset[str]:
    """Folders under ``base`` holding an ``index`` page: leaf bundles (not ``base`` itself)."""
    found = set()
    if base.is_dir():
        for path in base.rglob("index.*"):
            rel = path.relative_to(base)
            if path.suffix.lower() in SUFFIXES and len(rel.parts) > 1 and not any(
                part.startswith(".") for part in rel.parts
            ):
                found.add(rel.parent.as_posix())
    return frozenset(found)


def _is_ugly(settings: HugoSettings, section: str) -> bool:
    for name, ugly in settings.ugly_sections:
        if name.lower() == section.lower():
            return ugly
    return settings.ugly


def _sanitize(segment: str, lower: bool) -> str:
    """A path segment from a file or folder name as Hugo makes it: spaces as '-'."""
    segment = "-".join(segment.split(" "))
    return segment.lower() if lower else segment


def _true(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _lower(data: object) -> dict:
    return {str(k).lower(): v for k, v in data.items()} if isinstance(data, Mapping) else {}


def _get(data: Mapping, *keys: str) -> object:
    node: object = data
    for key in keys:
        node = _lower(node).get(key)
        if node is None:
            return None
    return node


def _load(config: Path, warn: Warn | None) -> dict:
    """A Hugo config file (TOML, YAML or JSON by its suffix) as a mapping; {} when unreadable."""
    try:
        text = config.read_text(encoding="utf-8")
        if config.suffix == ".toml":
            data = tomllib.loads(text)
        elif config.suffix == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError, RecursionError) as exc:
        if warn is not None:
            warn(f"{config.name}: cannot be read ({type(exc).__name__}); Hugo defaults assumed")
        return {}
    return data if isinstance(data, dict) else {}
