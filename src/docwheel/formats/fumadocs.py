"""Fumadocs: a ``source.config.ts`` importing ``fumadocs-mdx``, or a ``package.json``
depending on ``fumadocs-core``/``fumadocs-ui``/``fumadocs-mdx``, in the docs folder or above.

What its documentation (fumadocs.dev: page conventions, Source API, Fumadocs MDX) and
source (``remark-heading``) say, and this module does:
- Pages are the ``.md``/``.mdx`` files of ``content/docs/``, or of the folder
  ``defineDocs({ dir })`` names in ``source.config.ts`` when it is a literal. A page is
  served at the loader's ``baseUrl`` (``/docs`` unless ``lib/source.ts`` sets a literal
  one) and its path without suffix, ``index`` at its folder; a ``(group)`` folder leaves
  no segment. ``base_url`` is the site's root.
- ``meta.json`` in a folder: ``title`` labels the pages in it (else the folder's name);
  ``pages`` orders them: ``"---Label---"`` labels the items after it, ``"..."`` places the
  rest, ``"...folder"`` the items of a sub-folder, ``"!name"`` leaves one out of the rest;
  ``root: true`` makes the folder a tab of its own (its title the outermost label). A page
  the tree leaves out (``"!name"``, or unlisted with no ``"..."``) is still a page served at
  its URL, as the site's own search finds it, in no navigation group.
- A page's title is its frontmatter ``title`` (Fumadocs pages have no H1 of their own),
  its ``description`` the page's description.
- Heading ids are github-slugger's; ``## Title [#custom-id]`` at a heading's end sets the
  id as written (remark-heading).
- Components as the page shows them (``nextsite.shown_components``): ``<Tab value>`` or the
  ``<Tabs items>`` label at its place, ``<Callout title>``, ``<Accordion title>`` and
  ``<Card title>`` titles, ``<Files>``/``<Folder>``/``<File>`` names, a ``<TypeTable>``'s
  properties with their types and descriptions; ``<Steps>``/``<Step>`` keep their headings;
  a code block with ``tab="npm"`` in its info string shows that label (remark-code-tab).
- ``<include>./part.mdx</include>`` shows that file's text (from the page's folder; its
  frontmatter not shown), a file that is not Markdown (or ``lang=``) as a code block; the
  included file is part of the page, no page of its own (remark-include). One that cannot
  be read (missing, outside the docs folder, ``file.mdx#section``) shows nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from .jsobject import read_literal, read_value_after
from .nextsite import (
    ContentRoot, ContentSettings, address, content_roots, read_json, read_text, route_segments,
    shown_components, title_case,
)
from .site import Generator, Navigation, Settings, Warn

_SOURCE_CONFIGS = ("source.config.ts", "source.config.mts", "source.config.js", "source.config.mjs")
_PACKAGES = ("fumadocs-core", "fumadocs-ui", "fumadocs-mdx")
_LOADERS = ("lib/source.ts", "src/lib/source.ts", "lib/source.tsx", "src/lib/source.tsx", "lib/source.js")
_DEFAULT_DIR = "content/docs"
_DEFAULT_BASE = "docs"
_IMPORT = re.compile(r"""^import\s.*['"]fumadocs-(?:ui|core)/""", re.M)
_SEPARATOR = re.compile(r"^---(.*?)---$")
_UNREAD_INCLUDE = re.compile(r"^[ \t]*<include(?:\s[^<>]*)?>[^<>\n]*</include>[ \t]*$", re.M)


class Fumadocs(Generator):
    name = "fumadocs"
    config_files = (*_SOURCE_CONFIGS, "package.json")
    anchors = "github"

    def claims(self, config: Path) -> bool:
        text = read_text(config)
        if config.name != "package.json":
            return "fumadocs-mdx" in text
        try:
            data = json.loads(text)
        except ValueError:
            return False
        if not isinstance(data, dict):
            return False
        deps = [data.get(k) for k in ("dependencies", "devDependencies", "peerDependencies")]
        return any(isinstance(d, dict) and any(p in d for p in _PACKAGES) for d in deps)

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        project = config.parent if config is not None else None
        folder, base = _DEFAULT_DIR, _DEFAULT_BASE
        if project is not None:
            for name in _SOURCE_CONFIGS:
                if (project / name).is_file():
                    found = _docs_dir(read_text(project / name))
                    if found:
                        folder = found
                    break
            for name in _LOADERS:
                if (project / name).is_file():
                    found = read_value_after(read_text(project / name), ("baseUrl",))
                    if isinstance(found, str):
                        base = found.strip("/")
                    break
        roots = content_roots(project, root, ((folder, False),))
        return ContentSettings(clean_urls=True, trailing_slash=False, roots=roots, base=base)

    def is_page(self, rel: str, settings: Settings) -> bool:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else (ContentRoot(""), rel)
        return found is not None and rel.lower().endswith((".md", ".mdx")) and super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else None
        if found is None:
            return super().url_path(rel, meta, settings)
        return address(route_segments(found[1], app=False, groups=True), settings.base)

    def ref_path(self, rel: str, settings: Settings) -> str:
        found = settings.locate(rel) if isinstance(settings, ContentSettings) else None
        return found[1] if found is not None else rel

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return url_path.strip("/") or "index"

    def shown(self, text: str, settings: Settings) -> str:
        if "<include" in text:  # one the loader could not read (missing, outside, a section)
            text = _UNREAD_INCLUDE.sub("", text)
        return shown_components(text, custom_ids="verbatim", code_tabs=True)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        settings = self.settings(config, root, warn)
        assert isinstance(settings, ContentSettings)
        content = settings.roots[0]
        folder = root / content.folder if content.folder else _up(root, content.inside)
        walk = _Walk(settings.base, warn)
        walk.folder(folder, "", (), hidden=False)
        return Navigation(walk.read[0], walk.groups) if walk.read else None

    def sniff(self, rel: str, text: str) -> int:
        return 3 * len(_IMPORT.findall(text)) if rel.endswith(".mdx") else 0


GENERATOR = Fumadocs()


def _docs_dir(text: str) -> str | None:
    """The literal ``dir`` of ``defineDocs({ dir })`` (not another collection's)."""
    m = re.search(r"\bdefineDocs\s*\(", text)
    value = read_literal(text[m.end() :]) if m else None
    found = value.get("dir") if isinstance(value, dict) else None
    if isinstance(found, str) and found.strip().strip("./"):
        return found.strip().removeprefix("./").strip("/")
    return None


def _up(root: Path, inside: str) -> Path:
    folder = root.resolve()
    for _ in [p for p in inside.split("/") if p]:
        folder = folder.parent
    return folder


class _Walk:
    """The ``meta.json`` files of the content folder, read into labels by page address."""

    def __init__(self, base: str, warn: Warn) -> None:
        self.base, self.warn = base, warn
        self.groups: dict[str, tuple[str, ...]] = {}
        self.read: list[str] = []

    def meta(self, folder: Path, rel: str) -> dict:
        file = folder / "meta.json"
        if not file.is_file():
            return {}
        self.read.append(f"{rel}/meta.json" if rel else "meta.json")
        value = read_json(file, self.warn)
        return value if isinstance(value, dict) else {}

    def folder(self, folder: Path, rel: str, labels: tuple[str, ...], *, hidden: bool) -> None:
        meta = self.meta(folder, rel)
        entries = _entries(folder)
        listed = meta.get("pages") if isinstance(meta.get("pages"), list) else None
        if listed is None:
            for name in sorted(entries):
                self.item(folder, rel, name, labels, hidden=hidden)
            return
        excluded = {p[1:] for p in listed if isinstance(p, str) and p.startswith("!")}
        named = {p for p in listed if isinstance(p, str)}
        rest = sorted(entries - named - excluded - {"index"})
        label: str | None = None
        placed: set[str] = set()
        for entry in listed:
            if not isinstance(entry, str):
                continue
            entry = entry.strip()
            here = (*labels, label) if label else labels
            if m := _SEPARATOR.match(entry):
                label = m.group(1).strip() or None
            elif entry == "...":
                for name in rest:
                    self.item(folder, rel, name, here, hidden=hidden)
                placed.update(rest)
            elif entry.startswith("...") and (folder / entry[3:]).is_dir():
                name = entry[3:]
                self.folder(folder / name, f"{rel}/{name}" if rel else name, here, hidden=hidden)
                placed.add(name)
            elif entry in entries and entry not in placed:
                self.item(folder, rel, entry, here, hidden=hidden)
                placed.add(entry)
        for name in sorted(entries - placed):  # left out of the tree: still pages
            self.item(folder, rel, name, labels, hidden=hidden or name != "index")

    def item(self, folder: Path, rel: str, name: str, labels: tuple[str, ...], *, hidden: bool) -> None:
        path = f"{rel}/{name}" if rel else name
        if not hidden and ((folder / f"{name}.mdx").is_file() or (folder / f"{name}.md").is_file()):
            key = address(route_segments(f"{path}.mdx", app=False, groups=True), self.base) or "index"
            self.groups.setdefault(key, labels)
        sub = folder / name
        if sub.is_dir():
            meta = _peek(sub / "meta.json")
            title = meta.get("title") if isinstance(meta.get("title"), str) and meta["title"].strip() else None
            title = title or title_case(name.strip("()"))
            inner = (title,) if meta.get("root") is True else (*labels, title)
            self.folder(sub, path, inner, hidden=hidden)


def _peek(file: Path) -> dict:
    if not file.is_file():
        return {}
    try:
        value = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _entries(folder: Path) -> set[str]:
    names: set[str] = set()
    try:
        children = list(folder.iterdir())
    except OSError:
        return names
    for child in children:
        if child.name.startswith(".") or child.name == "node_modules":
            continue
        if child.is_dir():
            names.add(child.name)
        elif child.suffix.lower() in (".md", ".mdx"):
            names.add(child.stem)
    return names
