"""A book's ``SUMMARY.md``: the table of contents mdBook and GitBook build a site from.

Both tools read the same shape: an optional title heading, then links in nested lists
(``- [Title](path.md)``, ``*`` works too), bare links before and after the list (mdBook's
prefix and suffix chapters, in no part), headings that open a part or a group, and ``---``
separators. The file is navigation, never a page: it lists which files are pages, the
title each link gives, and the labels each page sits under (its part or group, then its
parent chapters). Which headings open a group is each tool's rule (mdBook: ``#`` only;
GitBook: any heading after the title), passed in as ``group_levels``.

The book's content folder is often not the folder a sources file names (mdBook's ``src/``
under the book root, GitBook's ``root:``): ``BookSettings`` maps a file's path in the docs
folder to its path in the content folder, which is what the summary's links name.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from .headings import strip_inline
from .site import Navigation, Settings

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
# `- [Title](path.md)`, `* [Title](<path with spaces.md>)`, `[Prefix](intro.md)`, and a
# draft chapter's empty target `- [Draft]()`.
_ENTRY = re.compile(r"^([ \t]*)([-*+][ \t]+)?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)>]*?)>?\s*\)")
_LABEL = re.compile(r"^([ \t]*)[-*+][ \t]+([^\[\s].*?)[ \t]*$")
_RULE = re.compile(r"^[ \t]*(?:-[ \t]*){3,}$|^[ \t]*(?:\*[ \t]*){3,}$")


@dataclass(frozen=True)
class Entry:
    """One link of a summary: its target relative to the content folder (None for a draft
    chapter, which has no file), the link text, and the labels above it."""

    target: str | None
    title: str
    labels: tuple[str, ...]


def read_summary(text: str, group_levels: Collection[int]) -> list[Entry]:
    """The entries of a ``SUMMARY.md`` text, in order; external links are left out."""
    entries: list[Entry] = []
    group: tuple[str, ...] = ()
    parents: list[tuple[int, str]] = []  # (indentation, title) of the open list items
    seen_any = False
    fence = False
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not line.strip() or _RULE.match(line):
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if not seen_any and level == 1:
                seen_any = True  # the summary's own title ("# Summary")
                continue
            seen_any = True
            if level in group_levels:
                group = (strip_inline(heading.group(2)),)
                parents = []
            continue
        entry = _ENTRY.match(line)
        if entry is None:
            label = _LABEL.match(line)
            if label:  # a list item without a link labels the items nested in it (Docsify)
                indent = len(label.group(1).expandtabs(4))
                while parents and parents[-1][0] >= indent:
                    parents.pop()
                parents.append((indent, strip_inline(label.group(2))))
            continue
        seen_any = True
        indent = len(entry.group(1).expandtabs(4))
        title = strip_inline(entry.group(3))
        if entry.group(2) is None:  # a bare link: a prefix or suffix chapter, in no part
            group, parents = (), []
        while parents and parents[-1][0] >= indent:
            parents.pop()
        target = _target(entry.group(4))
        if target != "":
            entries.append(Entry(target, title, (*group, *(t for _, t in parents))))
        parents.append((indent, title))
    return entries


def _target(link: str) -> str | None:
    """A link as a path in the content folder: None for a draft (no target), "" for a link
    that is no file of the book (another site, an anchor on the same page)."""
    link = link.strip()
    if link.startswith("#/"):  # a Docsify route
        link = link[1:]
    link = link.split("#", 1)[0].split("?", 1)[0]
    if not link:
        return None
    if "://" in link or link.startswith("mailto:"):
        return ""
    path = posixpath.normpath(unquote(link).lstrip("/") or ".")
    if path == ".":
        return "README.md"  # the book's root: its first page
    return "" if path.startswith("..") else path


@dataclass(frozen=True)
class BookSettings(Settings):
    """A book's settings: where its content folder is and which files its summary lists.

    ``into_content``: the docs folder's path inside the content folder ("" when they are the
    same, ``sub`` when the sources file names a folder inside it); ``content_at``: the
    content folder's path inside the docs folder (``src`` when the sources file names the
    book root). ``chapters``: the listed files, relative to the content folder (None: no
    summary was read, and every file is a page).
    """

    into_content: str = ""
    content_at: str = ""
    chapters: frozenset[str] | None = None
    readme: str = ""  # the file that is the site's first page (GitBook's structure.readme)

    def ref_path(self, rel: str) -> str:
        """``rel`` as a path in the content folder when it lies there, else as it is."""
        inside = self.in_content(rel) if self.content_at else None
        return inside if inside is not None else rel

    def in_content(self, rel: str) -> str | None:
        """The path of the docs folder's file ``rel`` in the content folder (None: outside)."""
        if self.content_at:
            prefix = self.content_at + "/"
            return rel[len(prefix):] if rel.startswith(prefix) else None
        return f"{self.into_content}/{rel}" if self.into_content else rel


def book_settings(root: Path, content: Path, chapters: frozenset[str] | None, **extra) -> BookSettings:
    """Settings for the docs folder ``root`` of a book whose content folder is ``content``."""
    root, content = root.resolve(), content.resolve()
    if root == content:
        return BookSettings(chapters=chapters, **extra)
    if content.is_relative_to(root):
        return BookSettings(content_at=content.relative_to(root).as_posix(), chapters=chapters, **extra)
    if root.is_relative_to(content):
        return BookSettings(into_content=root.relative_to(content).as_posix(), chapters=chapters, **extra)
    return BookSettings(**extra)  # the book is another folder: every file here is a page


def navigation(file: Path, entries: list[Entry], key) -> Navigation:
    """The navigation a summary gives: each listed page's labels and link text, keyed by
    ``key(target)`` (the generator's ``nav_key`` of the page at that path)."""
    groups: dict[str, tuple[str, ...]] = {}
    titles: dict[str, str] = {}
    for entry in entries:
        if entry.target is None:
            continue
        k = key(entry.target)
        groups.setdefault(k, entry.labels)
        if entry.title:
            titles.setdefault(k, entry.title)
    return Navigation(file.name, groups, titles)


def listed(entries: list[Entry]) -> frozenset[str]:
    return frozenset(e.target for e in entries if e.target)


def read_text(file: Path, warn) -> str | None:
    try:
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        warn(f"{file.name}: cannot be read ({os.strerror(exc.errno) if exc.errno else exc})")
        return None
