"""Compare two docs snapshots: which pages and sections were added, removed or changed.

A snapshot is an index directory or a wheel that carries one (``docwheel/_index/``, or
``<package>/_docwheel_index/`` for docs wheels). Pages
and sections are matched by ref; a section changed when the sha256 of its text (as ``read``
returns it, heading included) differs, a page when any of its sections or its title, URL or
description did. ``diff_indexes`` is the library call; ``render`` the readable text.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .api import DocIndex, open_index
from .scaffold import INDEX_FOLDER
from .errors import IndexLoadError

INDEX_IN_WHEEL = "docwheel/_index/"


@dataclass(frozen=True)
class PageSummary:
    ref: str
    title: str
    sections: int


@dataclass(frozen=True)
class PageChange:
    """A page in both snapshots that differs; ``fields`` names changed page metadata."""

    ref: str
    title: str
    fields: tuple[str, ...]
    sections_added: tuple[str, ...]
    sections_removed: tuple[str, ...]
    sections_changed: tuple[str, ...]


@dataclass(frozen=True)
class IndexDiff:
    old: str
    new: str
    pages_added: tuple[PageSummary, ...]
    pages_removed: tuple[PageSummary, ...]
    pages_changed: tuple[PageChange, ...]
    pages_unchanged: int


@dataclass(frozen=True)
class _Page:
    title: str
    url: str
    description: str
    sections: dict[str, str]  # ref -> sha256 of its text, in build order


def diff_indexes(old: str | os.PathLike, new: str | os.PathLike) -> IndexDiff:
    """Compare two snapshots, each an index directory or a ``.whl`` holding one."""
    with open_snapshot(old) as before, open_snapshot(new) as after:
        return diff_pages(
            _label(before, old), _label(after, new), _pages(before), _pages(after)
        )


def diff_pages(
    old_label: str, new_label: str, old: dict[str, _Page], new: dict[str, _Page]
) -> IndexDiff:
    changed = []
    for ref in (r for r in new if r in old):
        a, b = old[ref], new[ref]
        fields = tuple(f for f in ("title", "url", "description") if getattr(a, f) != getattr(b, f))
        added = tuple(s for s in b.sections if s not in a.sections)
        removed = tuple(s for s in a.sections if s not in b.sections)
        edited = tuple(s for s in b.sections if s in a.sections and a.sections[s] != b.sections[s])
        if fields or added or removed or edited:
            changed.append(PageChange(ref, b.title, fields, added, removed, edited))
    return IndexDiff(
        old=old_label,
        new=new_label,
        pages_added=tuple(_summary(r, p) for r, p in new.items() if r not in old),
        pages_removed=tuple(_summary(r, p) for r, p in old.items() if r not in new),
        pages_changed=tuple(changed),
        pages_unchanged=sum(1 for r in new if r in old) - len(changed),
    )


def _summary(ref: str, page: _Page) -> PageSummary:
    return PageSummary(ref, page.title, len(page.sections))


def _pages(index: DocIndex) -> dict[str, _Page]:
    pages = {p.ref: _Page(p.title, p.url, p.description, {}) for p in index.outline(version="all")}
    for section in index.sections():
        digest = hashlib.sha256(section.text.encode("utf-8")).hexdigest()
        pages[section.ref.partition("#")[0]].sections[section.ref] = digest
    return pages


def _label(index: DocIndex, given: str | os.PathLike) -> str:
    manifest = index.manifest
    name = " ".join(str(manifest[k]) for k in ("name", "version") if manifest.get(k))
    return f"{name} (built {manifest.get('built_at')}) from {os.fspath(given)}"


@contextmanager
def open_snapshot(path: str | os.PathLike) -> Iterator[DocIndex]:
    """Open an index directory, or the index inside a wheel (extracted to a temp folder)."""
    given = Path(path)
    if given.is_dir():
        with open_index(given) as index:
            yield index
        return
    if not given.exists():
        raise IndexLoadError(f"{given} does not exist (give an index directory or a .whl file)")
    if given.suffix != ".whl":
        raise IndexLoadError(f"{given} is neither an index directory nor a wheel (.whl) file")
    with tempfile.TemporaryDirectory(prefix="docwheel-diff-") as scratch:
        _extract_index(given, Path(scratch))
        with open_index(scratch) as index:
            yield index


def _index_folder(names: list[str]) -> str | None:
    """Where a wheel keeps its index: ``docwheel/_index/`` (docwheel's own) or
    ``<package>/_docwheel_index/`` (a docs wheel built with the hatch plugin)."""
    folders = {f"{PurePosixPath(n).parent.as_posix()}/" for n in names}
    if INDEX_IN_WHEEL in folders:
        return INDEX_IN_WHEEL
    docs = sorted(f for f in folders if f.count("/") == 2 and f.endswith(f"/{INDEX_FOLDER}/"))
    return docs[0] if docs else None


def _extract_index(wheel: Path, into: Path) -> None:
    """Copy the flat index folder out of a wheel; nothing else, no subpaths."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            folder = _index_folder(archive.namelist())
            if folder is None:
                raise IndexLoadError(
                    f"{wheel} holds no docs index (nothing under {INDEX_IN_WHEEL} "
                    f"or <package>/{INDEX_FOLDER}/)"
                )
            for name in archive.namelist():
                if f"{PurePosixPath(name).parent.as_posix()}/" == folder:
                    (into / PurePosixPath(name).name).write_bytes(archive.read(name))
    except (zipfile.BadZipFile, OSError) as exc:
        raise IndexLoadError(f"{wheel} cannot be read as a wheel: {exc}") from None


def render(diff: IndexDiff) -> str:
    """The readable report: ``+`` added, ``-`` removed, ``~`` changed, then a summary."""
    lines = [f"old: {diff.old}", f"new: {diff.new}"]
    for page in diff.pages_added:
        lines.append(f"+ {page.ref}  {page.title} ({page.sections} sections)")
    for page in diff.pages_removed:
        lines.append(f"- {page.ref}  {page.title} ({page.sections} sections)")
    for change in diff.pages_changed:
        fields = f" ({', '.join(change.fields)} changed)" if change.fields else ""
        lines.append(f"~ {change.ref}  {change.title}{fields}")
        for mark, refs in (
            ("+", change.sections_added),
            ("-", change.sections_removed),
            ("~", change.sections_changed),
        ):
            lines.extend(f"    {mark} {ref}" for ref in refs)
    if not (diff.pages_added or diff.pages_removed or diff.pages_changed):
        lines.append("no differences")
    lines.append(
        f"pages: {len(diff.pages_added)} added, {len(diff.pages_removed)} removed, "
        f"{len(diff.pages_changed)} changed, {diff.pages_unchanged} unchanged"
    )
    return "\n".join(lines) + "\n"
