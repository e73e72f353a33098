"""Nextra: a ``next.config.*`` (or ``theme.config.*``) that uses ``nextra``, in the docs
folder or above it.

What its documentation (nextra.site: file-conventions/content-directory, page-file,
meta-file; built-ins/tabs, steps, callout, cards, filetree) and source (remark-headings,
remark-custom-heading-id, remark-mdx-title) say, and this module does:
- Pages are the ``.md``/``.mdx`` files of ``content/`` (Nextra 4) or ``pages/`` (Nextra 2
  and 3), also under ``src/``, and the ``page.md``/``page.mdx`` files of Next.js' ``app/``
  router; a file or folder whose name starts with ``_`` (``_meta.js``, ``_app.mdx``,
  ``_document``) is no page. A page is served at its path without suffix, ``index`` (or
  ``page`` under ``app/``) at its folder, under ``contentDirBasePath`` when
  ``next.config`` sets it; ``app/`` route groups ``(name)`` leave no segment.
- ``_meta.json`` or ``_meta.{js,jsx,ts,tsx}`` (object literals, read, never run) in each
  folder titles its pages and folders (``key: 'Title'`` or ``{title}``; ``'*'`` is every
  item's default); Nextra 4's ``_meta.global`` file at the content root holds them all, a
  folder's entries in its ``items``. A folder's title labels the pages in it; an item of ``type:
  'separator'`` with a title labels the items after it; a top-level ``type: 'page'`` item
  is a navbar tab, labelling everything in it. ``display: 'hidden'`` keeps an item out of
  the sidebar but the page is still served at its URL (meta-file, "Hidden Routes"), so it
  stays a page, in no navigation group.
- A page's title is its frontmatter ``title``, else its first H1 (remark-mdx-title), else
  its ``_meta`` title, else its file name.
- Heading ids are github-slugger's; ``## Title [#custom-id]`` sets one, itself slugged.
  Headings inside a ``<Tabs.Tab>`` get no id and stay out of the TOC: they are text, not
  sections. A ``<Steps>`` block's ``###`` headings are headings in the TOC (built-ins/steps:
  only ``{<h3>…</h3>}`` keeps one out), so they stay sections.
- Components as the page shows them (``nextsite.shown_components``): a ``<Tabs
  items={[…]}>`` tab's label (and the anchor Nextra gives it), ``<FileTree>`` names,
  ``<Cards.Card title>`` titles (hrefs and icons not), a ``<Callout>``'s body (its icon
  shows no words, as an admonition without a title); ``import`` lines show nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .jsobject import read_literal, read_value_after
from .nextsite import (
    ContentRoot, ContentSettings, address, content_roots, read_json, read_text, route_segments,
    shown_components, title_case,
)
from .site import Generator, Navigation, Settings, Warn

_CONFIGS = tuple(f"next.config.{e}" for e in ("js", "mjs", "ts", "cjs", "mts")) + tuple(
    f"theme.config.{e}" for e in ("js", "jsx", "ts", "tsx")
)
# `require('nextra')`, `from 'nextra'`, `'nextra-theme-docs'`, `nextra/components`.
_USES_NEXTRA = re.compile(r"""['"]nextra(?:-theme-[\w-]+)?(?:/[\w./-]*)?['"]""")
_CONTENT = (
    ("content", False), ("src/content", False), ("pages", False), ("src/pages", False),
    ("app", True), ("src/app", True),
)
_META = ("_meta.json", "_meta.js", "_meta.ts", "_meta.jsx", "_meta.tsx", "_meta.mjs")
# Nextra 4: one `_meta.global` file at the content root, a folder's entries in `items`.
_GLOBAL = tuple(name.replace("_meta", "_meta.global") for name in _META if not name.endswith(".json"))
_PAGE = re.compile(r"(?:^|/)page\.mdx?$")
_IMPORT = re.compile(r"""^import\s.*['"]nextra(?:-theme-docs)?(?:/components)?['"]""", re.M)


class Nextra(Generator):
    name = "nextra"
    config_files = _CONFIGS
    anchors = "github"

    def claims(self, config: Path) -> bool:
        return bool(_USES_NEXTRA.search(read_text(config)))

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        text = read_text(config) if config is not None and config.name.startswith("next.") else ""
        base = read_value_after(text, ("contentDirBasePath",)) if text else None
        slash = read_value_after(text, ("trailingSlash",)) if text else None
        roots = content_roots(config.parent if config else None, root, _CONTENT)
        return ContentSettings(
            clean_urls=True,
            trailing_slash=slash is True,
            roots=roots,
            base=base.strip("/") if isinstance(base, str) else "",
        )

    def is_page(self, rel: str, settings: Settings) -> bool:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else (ContentRoot(""), rel)
        if found is None or not rel.lower().endswith((".md", ".mdx")):
            return False
        root, path = found
        parts = path.split("/")
        if any(p.startswith("_") for p in parts):
            return False
        if root.app:  # only page files; dynamic segments are no static page
            return bool(_PAGE.search(path)) and not any(p.startswith(("[", "@")) for p in parts)
        return super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else None
        if found is None:
            return super().url_path(rel, meta, settings)
        root, path = found
        base = "" if root.app else settings.base
        return address(route_segments(path, app=root.app, groups=root.app), base, bool(settings.trailing_slash))

    def ref_path(self, rel: str, settings: Settings) -> str:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else None
        if found is None:
            return rel
        root, path = found
        if not root.app:
            return path
        segments = route_segments(path, app=True, groups=True)
        return "/".join([*segments, "index.mdx"])

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return url_path.strip("/") or "index"

    def shown(self, text: str, settings: Settings) -> str:
        return shown_components(text, custom_ids="slug", tab_anchors=True, tab_headings=False)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        settings = self.settings(config, root, warn)
        assert isinstance(settings, ContentSettings)
        walk = _Walk(settings, warn)
        for content in settings.roots:
            folder = root / content.folder if content.folder else _up(root, content.inside)
            walk.folder(folder, "", (), content, top=True, hidden=False)
        if not walk.read:
            return None
        return Navigation(walk.read[0], walk.groups, walk.titles)

    def sniff(self, rel: str, text: str) -> int:
        return 3 * len(_IMPORT.findall(text)) if rel.endswith(".mdx") else 0


GENERATOR = Nextra()


def _up(root: Path, inside: str) -> Path:
    folder = root.resolve()
    for _ in [p for p in inside.split("/") if p]:
        folder = folder.parent
    return folder


def read_meta(folder: Path, warn: Warn, names: tuple[str, ...] = _META) -> tuple[str | None, dict]:
    """The ``_meta`` file of ``folder`` (its name, its entries in order), or (None, {})."""
    for name in names:
        file = folder / name
        if not file.is_file():
            continue
        value = read_json(file, warn) if name.endswith(".json") else _meta_literal(read_text(file))
        if not isinstance(value, dict):
            warn(f"{name}: no object literal found; its titles and groups are ignored")
            return name, {}
        return name, value
    return None, {}


def _meta_literal(text: str) -> object:
    """The object a ``_meta.js`` exports: ``export default {…}``, ``module.exports =
    {…}``, or a ``const meta = {…}`` exported by name (a type annotation allowed)."""
    value = read_value_after(text, ("export default", "module.exports"))
    if isinstance(value, dict):
        return value
    m = re.search(r"export\s+default\s+([A-Za-z_$][\w$]*)", text)
    if m:
        decl = re.search(rf"(?:const|let|var)\s+{re.escape(m.group(1))}\b[^=]*=\s*", text)
        if decl:
            return read_literal(text[decl.end() :])
    return value


class _Walk:
    """The ``_meta`` files of a content folder, read folder by folder into labels and
    titles keyed by page address (``Nextra.nav_key``)."""

    def __init__(self, settings: ContentSettings, warn: Warn) -> None:
        self.settings, self.warn = settings, warn
        self.groups: dict[str, tuple[str, ...]] = {}
        self.titles: dict[str, str] = {}
        self.read: list[str] = []

    def key(self, path: str, content: ContentRoot) -> str:
        base = "" if content.app else self.settings.base
        return address(route_segments(path, app=content.app, groups=content.app), base).strip("/") or "index"

    def folder(
        self, folder: Path, rel: str, labels: tuple[str, ...], content: ContentRoot, *, top: bool, hidden: bool,
        given: dict | None = None,
    ) -> None:
        """Label the pages in ``folder``; ``given``: its entries from the ``items`` of its
        parent's (a ``_meta.global`` file describes the whole tree in one object)."""
        if given is not None:
            meta = given
        else:
            name, meta = read_meta(folder, self.warn, _GLOBAL if top else _META)
            if name:
                self.read.append(f"{rel}/{name}" if rel else name)
            if top and not name:
                name, meta = read_meta(folder, self.warn)
                if name:
                    self.read.append(name)
        default = meta.get("*") if isinstance(meta.get("*"), dict) else {}
        entries = _entries(folder, content.app)
        if content.app and rel:
            entries.discard("index")  # a folder's own page.mdx: its parent's item
        seen: set[str] = set()
        label: str | None = None
        for key, raw in meta.items():
            item = {**default, **({"title": raw} if isinstance(raw, str) else raw if isinstance(raw, dict) else {})}
            if item.get("type") == "separator":
                title = item.get("title")
                label = title.strip() if isinstance(title, str) and title.strip() else None
                continue
            if key in entries and key not in seen:
                seen.add(key)
                self.item(folder, rel, key, item, labels, label, content, top=top, hidden=hidden)
        for key in sorted(entries - seen):
            self.item(folder, rel, key, dict(default), labels, label, content, top=top, hidden=hidden)

    def item(
        self, folder: Path, rel: str, key: str, item: dict, labels: tuple[str, ...], label: str | None,
        content: ContentRoot, *, top: bool, hidden: bool,
    ) -> None:
        title = item.get("title") if isinstance(item.get("title"), str) and item["title"].strip() else None
        hidden = hidden or item.get("display") == "hidden"
        tab = top and item.get("type") == "page"
        own = (title or title_case(key),) if tab else (*labels, *((label,) if label else ()))
        path = f"{rel}/{key}" if rel else key
        page = f"{path}/page.mdx" if content.app else f"{path}.mdx"
        if content.app and key == "index" and not rel:
            page = "page.mdx"
        if _has_page(folder, key, content.app):
            where = self.key(page, content)
            if title:
                self.titles.setdefault(where, title)
            if not hidden:
                self.groups.setdefault(where, own)
        sub = folder / key
        if sub.is_dir() and not (content.app and key == "index" and not rel):
            inner = own if tab else (*own, title or title_case(key))
            items = item.get("items") if isinstance(item.get("items"), dict) else None
            self.folder(sub, path, inner, content, top=False, hidden=hidden, given=items)


def _entries(folder: Path, app: bool) -> set[str]:
    """The names a folder's ``_meta`` may list: its pages (without suffix) and folders."""
    names: set[str] = set()
    try:
        children = list(folder.iterdir())
    except OSError:
        return names
    for child in children:
        if child.name.startswith((".", "_")) or child.name == "node_modules":
            continue
        if child.is_dir():
            names.add(child.name)
        elif not app and child.suffix.lower() in (".md", ".mdx"):
            names.add(child.stem)
        elif app and child.name in ("page.md", "page.mdx"):
            names.add("index")
    return names


def _has_page(folder: Path, key: str, app: bool) -> bool:
    if app:
        base = folder if key == "index" else folder / key
        return (base / "page.mdx").is_file() or (base / "page.md").is_file()
    return (folder / f"{key}.mdx").is_file() or (folder / f"{key}.md").is_file()
