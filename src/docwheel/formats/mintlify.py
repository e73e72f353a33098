"""Mintlify: ``docs.json`` (or the legacy ``mint.json``) at the docs root.

Pages are served at their path without the extension; anchors are GitHub's with '/' kept
(``slugify_mintlify``); the navigation's tabs, versions, dropdowns and groups label each
page, ``$ref`` includes followed. ``snippets/`` holds fragments that pages import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from .markdown import page_path_from_url
from .site import Generator, Navigation, Settings, Warn

NAV_FILES = ("docs.json", "mint.json")  # Mintlify's current and legacy configuration
# Keys whose values hold navigation entries, and keys that label a level of it.
_NAV_CHILDREN = (
    "navigation", "tabs", "versions", "dropdowns", "anchors", "languages", "products",
    "menu", "groups", "pages",
)
_NAV_LABELS = ("tab", "version", "dropdown", "anchor", "language", "product", "item", "group")
_MAX_REF_DEPTH = 8
_FRAGMENT_DIRS = frozenset({"snippets", "_snippets"})
_COMPONENT = re.compile(r"^\s*<(?:Note|Tip|Warning|Info|Card|CardGroup|Steps|Step|CodeGroup|ParamField|ResponseField|Accordion|Tabs|Tab|Frame|Check)\b", re.M)


class Mintlify(Generator):
    name = "mintlify"
    config_files = NAV_FILES
    anchors = "mintlify"

    def claims(self, config: Path) -> bool:
        # Only at the docs root (a docs.json elsewhere may be anything) — see generators.detect.
        return True

    def is_page(self, rel: str, settings: Settings) -> bool:
        return not (_FRAGMENT_DIRS & set(rel.split("/")[:-1])) and super().is_page(rel, settings)

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        return read_navigation(root, warn)

    def sniff(self, rel: str, text: str) -> int:
        return 2 if rel.endswith(".mdx") and _COMPONENT.search(text) else 0


GENERATOR = Mintlify()


def read_navigation(root: Path, warn: Warn) -> Navigation | None:
    """Read ``docs.json`` (or the legacy ``mint.json``) at ``root``, following ``$ref``s.

    A broken file is a warning: the pages are still indexed, only without groups.
    """
    for name in NAV_FILES:
        file = root / name
        if not file.is_file():
            continue
        try:
            data = _resolve_refs(_load_json(file), file.parent, 0)
        except (OSError, ValueError, RecursionError) as exc:
            warn(f"{name}: navigation ignored: {exc}")
            return None
        nav = data.get("navigation") if isinstance(data, dict) else None
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        for path, labels, is_root in _nav_pages(nav, ()):
            groups.setdefault(path, labels)
            if is_root and labels:
                titles.setdefault(path, labels[-1])
        return Navigation(name, groups, titles)
    return None


def _load_json(file: Path) -> object:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{file.name} is not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file.name}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _resolve_refs(node: object, here: Path, depth: int) -> object:
    """Replace ``{"$ref": "./other.json"}`` by that file's content (paths relative to here)."""
    if isinstance(node, list):
        return [_resolve_refs(item, here, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if depth >= _MAX_REF_DEPTH:
            raise ValueError(f"$ref {ref!r} nested more than {_MAX_REF_DEPTH} deep")
        target = (here / ref).resolve()
        content = _resolve_refs(_load_json(target), target.parent, depth + 1)
        rest = {k: _resolve_refs(v, here, depth) for k, v in node.items() if k != "$ref"}
        return {**content, **rest} if isinstance(content, dict) else content
    return {k: _resolve_refs(v, here, depth) for k, v in node.items()}


def _nav_pages(
    node: object, labels: tuple[str, ...]
) -> Iterator[tuple[str, tuple[str, ...], bool]]:
    """(page path, labels, is the group's root page) for every page entry under ``node``."""
    if isinstance(node, str):
        if node.strip() and " " not in node.strip() and "://" not in node:
            yield page_path_from_url(node), labels, False
    elif isinstance(node, list):
        for item in node:
            yield from _nav_pages(item, labels)
    elif isinstance(node, dict):
        label = next((node[k] for k in _NAV_LABELS if isinstance(node.get(k), str)), None)
        inner = (*labels, label.strip()) if label and label.strip() else labels
        if isinstance(node.get("root"), str):
            yield page_path_from_url(node["root"]), inner, True
        for key in _NAV_CHILDREN:
            if key in node:
                yield from _nav_pages(node[key], inner)
