"""Docusaurus: ``docusaurus.config.{js,ts,mjs,cjs}`` beside or above the docs folder.

What its documentation says, and this module does:
- A doc's id is its frontmatter ``id:`` or its file name, with number prefixes stripped
  from the name and from every folder (``01-guides/02-install.md`` -> ``guides/install``);
  the page is served at its ``slug:`` (from the docs root when it starts with '/', else
  from the doc's folder) or at its folder and id. ``index``, ``README`` and a file named
  as its folder are the folder's page. So ``GlobalAPI.md`` with ``id: api`` is ``api``.
- Files and folders whose name starts with ``_`` are partials, not pages; so are tests.
- Heading anchors are github-slugger's (GitHub's rules); ``{#custom-id}`` sets one.
- ``sidebars.json`` (or a JSON-like ``sidebars.js``) puts docs in categories (``Page.group``).

``base_url`` is the address of the docs root (with ``routeBasePath``, ``…/docs/``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .jsobject import read_value_after
from .site import Generator, Navigation, Settings, Warn, excluded, strip_suffix

# Docusaurus's default number prefix parser: ``01-intro`` and ``003 - intro`` lose the
# number, but a date or version (``2021-11-notes``, ``7.0-upgrade``) keeps it.
_NOT_A_PREFIX = re.compile(r"^\d+[-_.]\d+")
_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?=[^-_.\s])")
_TESTS = ("**/*.test.*", "**/__tests__/**")
_SIDEBARS = ("sidebars.json", "sidebars.js", "sidebars.ts", "sidebars.cjs", "sidebars.mjs")
_ADMONITION = re.compile(r"^[ \t]*:::(?:note|tip|info|warning|danger|caution)\b", re.M)
_SIDEBAR_KEYS = re.compile(r"^(?:sidebar_position|sidebar_label|sidebar_class_name|slug|id):", re.M)


class Docusaurus(Generator):
    name = "docusaurus"
    config_files = (
        "docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs",
        "docusaurus.config.cjs", "docusaurus.config.mts",
    )
    anchors = "github"
    reads_frontmatter = True

    def is_page(self, rel: str, settings: Settings) -> bool:
        parts = rel.split("/")
        if any(part.startswith("_") for part in parts):
            return False
        return not excluded(rel, _TESTS) and super().is_page(rel, settings)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        folder, name = _split(rel)
        slug = meta.get("slug")
        if isinstance(slug, str) and slug.strip():
            slug = slug.strip()
            if slug.startswith("/"):
                return slug.strip("/")
            return _join(folder, slug).strip("/")
        parent = folder.rsplit("/", 1)[-1].lower()
        if name.lower() in ("index", "readme") or (folder and name.lower() == parent):
            return folder + "/" if folder else ""
        return _join(folder, doc_id_name(name, meta))

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        folder, name = _split(rel)
        return _join(folder, doc_id_name(name, meta))

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        for base in (config.parent if config else root, root):
            for name in _SIDEBARS:
                file = base / name
                if file.is_file():
                    return _sidebars(file, warn)
        return None

    def sniff(self, rel: str, text: str) -> int:
        head = text[:600] if text.startswith("---") else ""
        return len(_ADMONITION.findall(text)) + len(_SIDEBAR_KEYS.findall(head))


GENERATOR = Docusaurus()


def _split(rel: str) -> tuple[str, str]:
    """(folder with number prefixes stripped, file name without extension or prefix)."""
    parts = [strip_number_prefix(p) for p in strip_suffix(rel).split("/")]
    return "/".join(parts[:-1]), parts[-1]


def strip_number_prefix(name: str) -> str:
    return name if _NOT_A_PREFIX.match(name) else _NUMBER_PREFIX.sub("", name, count=1)


def doc_id_name(name: str, meta: Mapping) -> str:
    given = meta.get("id")
    return str(given).strip() if isinstance(given, (str, int)) and str(given).strip() else name


def _join(folder: str, name: str) -> str:
    """``name`` resolved against ``folder`` as a relative link (``../x`` allowed)."""
    parts = [p for p in folder.split("/") if p]
    for piece in name.split("/"):
        if piece == "..":
            if parts:
                parts.pop()
        elif piece and piece != ".":
            parts.append(piece)
    joined = "/".join(parts)
    return joined + "/" if name.endswith("/") and joined else joined


def _sidebars(file: Path, warn: Warn) -> Navigation | None:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        warn(f"{file.name}: navigation ignored: {exc}")
        return None
    if file.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            warn(f"{file.name}: navigation ignored: invalid JSON at line {exc.lineno}")
            return None
    else:
        data = read_value_after(text, ("module.exports", "export default", "sidebars"))
    if not isinstance(data, dict):
        return None
    groups: dict[str, tuple[str, ...]] = {}
    titles: dict[str, str] = {}
    for sidebar in data.values():
        for doc_id, labels, label in _items(sidebar, ()):
            groups.setdefault(doc_id, labels)
            if label:
                titles.setdefault(doc_id, label)
    return Navigation(file.name, groups, titles)


def _items(
    node: object, labels: tuple[str, ...]
) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(doc id, category labels, sidebar label) for each doc of a sidebar."""
    if isinstance(node, str):
        yield node, labels, None
    elif isinstance(node, list):
        for item in node:
            yield from _items(item, labels)
    elif isinstance(node, dict):
        kind = node.get("type")
        if kind in ("doc", "ref") and isinstance(node.get("id"), str):
            label = node.get("label")
            yield node["id"], labels, label if isinstance(label, str) else None
        elif kind == "category" or "items" in node:
            label = node.get("label")
            inner = (*labels, label) if isinstance(label, str) and label else labels
            link = node.get("link")
            if isinstance(link, dict) and link.get("type") == "doc" and isinstance(link.get("id"), str):
                yield link["id"], inner, None
            yield from _items(node.get("items"), inner)
        elif kind is None:  # the shorthand {"Category": [...]}
            for label, items in node.items():
                yield from _items(items, (*labels, str(label)))
