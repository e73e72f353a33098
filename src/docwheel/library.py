"""Several docs snapshots answered as one: every installed docs wheel behind one server.

``open_docs`` picks what to serve (index directories given, the installed docs wheels, or
the docs bundled with docwheel) and returns a ``DocIndex`` for one snapshot or a
``Library`` for several. A ``Library`` has the reading methods of ``DocIndex``: a search
asks each snapshot and merges the results by score; a ref, a source name or a version
is routed to the snapshot that has it. Refs start with source names, so a name two
snapshots share is shown qualified with each one's snapshot name.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from .api import DocIndex, check_search, no_results, open_index, wanted_types
from .doctypes import DOC_TYPES
from .discovery import installed_docs, normalise
from .errors import IndexLoadError, QueryError, UnknownRefError
from .index import is_absent_word_note
from .models import Document, Hit, OutlineEntry, PageOutline, SearchResult
from .versions import newest_first


def open_docs(
    indexes: Sequence[str | os.PathLike] = (), only: Sequence[str] = ()
) -> DocIndex | Library:
    """What a command serves: the index directories given; else the installed docs wheels
    (those named in ``only``, or all); else the docs bundled with docwheel."""
    return _combine(chosen_indexes(indexes, only))


def chosen_indexes(
    indexes: Sequence[str | os.PathLike] = (), only: Sequence[str] = ()
) -> list[tuple[str | None, Path | None]]:
    """The (installed name, directory) of each index ``open_docs`` opens; a directory of
    None is the bundled index. Nothing is opened, so ``verify`` can check damaged ones."""
    if indexes and only:
        raise IndexLoadError("give index directories or --only names, not both")
    if indexes:
        return [(None, Path(p)) for p in indexes]
    installed = installed_docs()
    if only:
        by_name = {d.name: d for d in installed}
        unknown = [name for name in only if normalise(name) not in by_name]
        if unknown:
            listed = ", ".join(by_name) or "none"
            raise IndexLoadError(
                f"no installed docs named {', '.join(map(repr, unknown))}; installed docs: {listed}"
            )
        installed = [by_name[normalise(name)] for name in dict.fromkeys(only)]
    if not installed:
        return [(None, None)]
    return [(d.name, d.directory) for d in installed]


def _combine(found: list[tuple[str | None, Path | None]]) -> DocIndex | Library:
    opened: list[DocIndex] = []
    try:
        for name, directory in found:
            try:
                opened.append(open_index(directory))
            except IndexLoadError as exc:
                if name is None:
                    raise
                raise IndexLoadError(f"installed docs {name!r}: {exc}") from None
        return opened[0] if len(opened) == 1 else Library(opened)
    except BaseException:
        for index in opened:
            index.close()
        raise


class Library:
    """Several ``DocIndex`` snapshots read as one. Thread-safe, read-only.

    A source name found in more than one snapshot is qualified with its snapshot's name
    (``acme-docs.site``) in everything the library returns and accepts, refs included;
    unique names are left as they are.
    """

    def __init__(self, parts: Sequence[DocIndex]):
        self.parts = tuple(parts)
        counts = Counter(source for part in self.parts for source in part.sources)
        # shown name -> (the snapshot, its own name for the source, its renames)
        self._route: dict[str, tuple[DocIndex, str, dict[str, str]]] = {}
        self._shown: list[dict[str, str]] = []  # per part: its name -> shown name
        for part in self.parts:
            shown = {
                source: f"{_snapshot_name(part)}.{source}" if counts[source] > 1 else source
                for source in part.sources
            }
            for source, name in shown.items():
                if name in self._route:
                    raise IndexLoadError(
                        f"source {name!r} is in two snapshots with the same name "
                        f"({self._route[name][0].directory} and {part.directory}); "
                        "serve one of them, with --only or --index"
                    )
                self._route[name] = (part, source, shown)
            self._shown.append(shown)
        self.manifest = _combined_manifest(self.parts, self._shown)
        # Some snapshots with semantic vectors and some without: see search().
        self._mixed_semantic = len({part.semantic is not None for part in self.parts}) > 1
        self.directory: Path | None = None
        self._refs: list[str] | None = None

    @property
    def sources(self) -> list[str]:
        return list(self._route)

    @property
    def versions(self) -> dict[str, list[str]]:
        return {
            shown[name]: v
            for part, shown in zip(self.parts, self._shown)
            for name, v in part.versions.items()
        }

    @property
    def type_counts(self) -> dict[str, int]:
        """Pages of each document type over every snapshot, in ``DOC_TYPES`` order."""
        return _summed_types(self.parts)

    @property
    def doc_types(self) -> list[str]:
        return list(self.type_counts)

    def close(self) -> None:
        for part in self.parts:
            part.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def verify(self) -> list[str]:
        return [f"{part.directory}: {problem}" for part in self.parts for problem in part.verify()]

    # -- routing -------------------------------------------------------------------------

    def _covering(
        self, source: str | None, version: str | None
    ) -> list[tuple[DocIndex, str | None, dict[str, str]]]:
        """(snapshot, its own source name or None, its renames) for every snapshot a
        request for ``source`` at ``version`` covers; unknown names raise QueryError."""
        if source not in (None, "", "all"):
            found = self._route.get(source)  # type: ignore[arg-type]
            if found is None:
                valid = ", ".join(self._route) or "(none)"
                raise QueryError(f"unknown source {source!r}; valid sources: all, {valid}")
            part, own, shown = found
            try:
                part.scope(own, version)
            except QueryError as exc:
                raise QueryError(str(exc).replace(repr(own), repr(source))) from None
            return [(part, own, shown)]
        covered = [(part, None, shown) for part, shown in zip(self.parts, self._shown)]
        if version in (None, "", "all"):
            return covered
        having = [c for c in covered if any(version in v for v in c[0].versions.values())]
        if not having:
            known = newest_first(v for p in self.parts for vs in p.versions.values() for v in vs)
            listed = ", ".join(known) if known else "none (no source is versioned)"
            raise QueryError(f"unknown version {version!r}; versions: {listed}")
        return having

    # -- reading -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        source: str | None = None,
        version: str | None = None,
        limit: int = 10,
        full_text: bool = False,
        sections: bool = False,
        explain: bool = False,
        mode: str | None = None,
        document_type: str | Sequence[str] | None = None,
    ) -> SearchResult:
        """Each covered snapshot's best results, merged by score (ties keep snapshot order).

        Hybrid scores are on a 0..1 scale and word scores are not, so when some snapshots
        have semantic vectors and others do not, all are searched by words (mode "lexical")
        unless ``mode`` says otherwise."""
        check_search(query, limit)
        # Types are checked against every snapshot's: one without the type has no results.
        words, types = wanted_types(query, document_type, self.doc_types)
        if mode in (None, "") and self._mixed_semantic:
            mode = "lexical"
        found = []
        for part, own, shown in self._covering(source, version):
            kept = None if types is None else [t for t in types if t in part.doc_types]
            if kept == []:
                continue
            result = part.ranked(
                words or query, source=own, version=version, limit=limit, full_text=full_text,
                sections=sections, explain=explain, mode=mode, document_type=kept,
            )
            found.append((result, [_renamed(hit, shown) for hit in result.results]))
        hits = sorted((hit for _, hits in found for hit in hits), key=lambda h: -h.score)
        # A word missing from one snapshot may be in another: say it is absent only when
        # it is absent from all of them.
        warnings = tuple(
            dict.fromkeys(
                w
                for result, _ in found
                for w in result.warnings
                if not is_absent_word_note(w) or all(w in other.warnings for other, _ in found)
            )
        )
        merged = SearchResult(
            query=query,
            total=sum(result.total for result, _ in found),
            results=tuple(hits[:limit]),
            warnings=warnings,
        )
        return merged if hits else no_results(merged, source, version)

    def read(self, ref: str) -> Document:
        if isinstance(ref, str):
            ref = ref.strip()
            key = ref.partition(":")[0]
            found = self._route.get(key.partition("@")[0])
            if found is not None:
                part, own, shown = found
                shown_key = key.partition("@")[0]
                try:
                    return _renamed(part.read(own + ref[len(shown_key):]), shown)
                except UnknownRefError:
                    pass
        raise UnknownRefError(str(ref), self._suggest(str(ref)))

    def refs(self) -> list[str]:
        """Every ref ``read`` takes, as the library shows them (``DocIndex.refs``)."""
        found = []
        for part, shown in zip(self.parts, self._shown):
            for ref in part.refs():
                own = ref.partition(":")[0].partition("@")[0]  # the source's name
                found.append(shown.get(own, own) + ref[len(own) :])
        return found

    def _suggest(self, ref: str) -> list[str]:
        if self._refs is None:
            self._refs = self.refs()
        return difflib.get_close_matches(ref, self._refs, n=3, cutoff=0.6)

    def sections(self) -> list[Document]:
        return [
            _renamed(doc, shown)
            for part, shown in zip(self.parts, self._shown)
            for doc in part.sections()
        ]

    def outline(
        self,
        source: str | None = None,
        version: str | None = None,
        document_type: str | Sequence[str] | None = None,
    ) -> list[PageOutline]:
        types = wanted_types("", document_type, self.doc_types)[1]
        pages = []
        for part, own, shown in self._covering(source, version):
            kept = None if types is None else [t for t in types if t in part.doc_types]
            if kept == []:
                continue
            for page in part.outline(own, version, kept):
                entries = tuple(_renamed(entry, shown, page.source) for entry in page.sections)
                pages.append(dataclasses.replace(_renamed(page, shown), sections=entries))
        return pages


_Item = TypeVar("_Item", Hit, Document, PageOutline, OutlineEntry)


def _renamed(item: _Item, shown: dict[str, str], source: str | None = None) -> _Item:
    """``item`` with its source name and ref as the library shows them."""
    own = source if source is not None else item.source  # type: ignore[union-attr]
    name = shown.get(own, own)
    if name == own:
        return item
    changes: dict = {"ref": name + item.ref[len(own):]}
    if source is None:
        changes["source"] = name
    return dataclasses.replace(item, **changes)


def _snapshot_name(part: DocIndex) -> str:
    return str(part.manifest.get("name") or part.directory.name)


def _summed_types(parts: Sequence[DocIndex]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for part in parts:
        counts.update(part.type_counts)
    return {name: counts[name] for name in DOC_TYPES if counts[name]}


# What the CLI and the MCP server read from: one snapshot or several.
Docs = DocIndex | Library


def _combined_manifest(parts: Sequence[DocIndex], shown: Sequence[dict[str, str]]) -> dict:
    """One manifest for several snapshots: each source says which snapshot it is from, and
    ``snapshots`` lists them with their versions (what describe_docs and info show)."""
    manifests = [part.manifest for part in parts]
    snapshots = [
        {
            "name": m.get("name"),
            "version": m.get("version"),
            "built_at": m.get("built_at"),
            "docwheel_version": m.get("docwheel_version"),
            "pages": m.get("pages"),
            "sections": m.get("sections"),
            "types": part.type_counts,
            "semantic": m.get("semantic"),
            "checks": m.get("checks"),
        }
        for m, part in zip(manifests, parts)
    ]
    built = [m["built_at"] for m in manifests if m.get("built_at")]
    return {
        "name": " + ".join(
            f"{s['name']} {s['version']}" if s["version"] else str(s["name"]) for s in snapshots
        ),
        "description": f"{len(parts)} documentation snapshots searched together",
        "version": None,
        "docwheel_version": None,
        "built_at": max(built) if built else None,
        "pages": sum(int(m.get("pages") or 0) for m in manifests),
        "sections": sum(int(m.get("sections") or 0) for m in manifests),
        "types": _summed_types(parts),
        "sources": [
            {**s, "name": names.get(s["name"], s["name"]), "snapshot": m.get("name")}
            for m, names in zip(manifests, shown)
            for s in m.get("sources", [])
        ],
        "snapshots": snapshots,
    }


__all__ = ["Docs", "Library", "open_docs"]
