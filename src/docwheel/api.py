"""The reading side of docwheel that the CLI and the MCP server share.

``open_index()`` finds the index (bundled in the package unless a directory is given),
checks its manifest, and returns a ``DocIndex`` whose methods return the dataclasses in
``models``. Nothing here opens a network connection or writes a file.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from .anchors import from_stored, heading_marks, part_of
from .doctypes import DOC_TYPES, query_types
from .errors import IndexLoadError, QueryError, UnknownRefError
from .index import Outcome, Scope, WhooshIndex
from .models import Document, Hit, OutlineEntry, PageOutline, SearchResult
from .snippets import PlainText, placed_snippet
from .versions import newest_first, version_key

MANIFEST_NAME = "manifest.json"
# Bumped whenever the index layout changes; an index from another format is refused.
INDEX_FORMAT = 15
MAX_LIMIT = 50
SEARCH_MODES = ("hybrid", "lexical")


def bundled_index_dir() -> Path:
    return Path(__file__).resolve().parent / "_index"


def open_index(path: str | os.PathLike | None = None) -> DocIndex:
    """Open an index directory read-only; ``None`` opens the index bundled in the package."""
    directory = Path(path) if path is not None else bundled_index_dir()
    if not directory.is_dir():
        if path is None:
            raise IndexLoadError(
                f"no bundled index at {directory}; install docwheel from a wheel or with "
                "`pip install .` (which builds it), or pass --index DIR"
            )
        raise IndexLoadError(f"index directory {directory} does not exist")
    manifest = _load_manifest(directory)
    missing = [name for name in manifest.get("files", {}) if not (directory / name).is_file()]
    if missing:
        raise IndexLoadError(
            f"{directory}: index file {missing[0]} is missing"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            + "; reinstall the docs package or rebuild the index"
        )
    return DocIndex(directory, manifest)


def verify_index(path: str | os.PathLike | None = None) -> tuple[Path, dict, list[str]]:
    """Check an index's files against its manifest without opening the index itself, so a
    damaged file is named rather than failing the check. Returns (directory, manifest,
    problems)."""
    directory = Path(path) if path is not None else bundled_index_dir()
    if not directory.is_dir():
        raise IndexLoadError(f"index directory {directory} does not exist")
    manifest = _load_manifest(directory)
    return directory, manifest, _file_problems(directory, manifest)


def _file_problems(directory: Path, manifest: dict) -> list[str]:
    expected = manifest.get("files")
    if not expected:
        return ["the manifest lists no file hashes (built by an older docwheel); rebuild"]
    actual = index_file_hashes(directory)
    problems = [
        f"{name}: missing" if name not in actual else f"{name}: content differs from the manifest"
        for name, digest in sorted(expected.items())
        if actual.get(name) != digest
    ]
    problems += [f"{name}: not listed in the manifest" for name in sorted(set(actual) - set(expected))]
    return problems


def index_file_hashes(directory: Path) -> dict[str, str]:
    """sha256 of every file of an index directory except the manifest, by name."""
    return {
        path.name: _sha256(path)
        for path in sorted(directory.iterdir())
        if path.is_file() and path.name != MANIFEST_NAME
    }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _load_manifest(directory: Path) -> dict:
    path = directory / MANIFEST_NAME
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexLoadError(
            f"{path} is missing: {directory} is not a docwheel index "
            "(build one with `docwheel build --config FILE --out DIR`)"
        ) from None
    except (OSError, ValueError) as exc:
        raise IndexLoadError(f"{path} cannot be read ({exc}); rebuild the index") from None
    if not isinstance(manifest, dict) or manifest.get("index_format") != INDEX_FORMAT:
        found = manifest.get("index_format") if isinstance(manifest, dict) else None
        raise IndexLoadError(
            f"{path}: index format {found!r}, this docwheel reads format {INDEX_FORMAT}; "
            "rebuild the index with this docwheel version"
        )
    return manifest


def check_search(query: object, limit: int) -> None:
    if not isinstance(query, str) or not query.strip():
        raise QueryError("empty query: give a few words to search for")
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")


def no_results(found: SearchResult, source: str | None, version: str | None) -> SearchResult:
    """``found`` with a hint on what to try when nothing matched."""
    where = f" in source {source!r}" if source and source != "all" else ""
    where += f" at version {version!r}" if version and version != "all" else ""
    hint = f"no results for {found.query!r}{where}; try fewer or more general words"
    return dataclasses.replace(found, warnings=(hint, *found.warnings))


def wanted_types(
    query: str, document_type: str | Sequence[str] | None, present: Sequence[str]
) -> tuple[str, tuple[str, ...] | None]:
    """The query without its ``type:`` filters, and the document types a search keeps
    (None: every type). ``document_type`` ("all", a type, several, or several joined by
    commas) and the query's
    ``type:`` both filter: a page must pass both. A type outside the vocabulary, or one
    these docs have no page of, is a QueryError listing the types they have."""
    rest, in_query = query_types(query)
    if document_type is None or document_type in ("", "all"):
        given: tuple[str, ...] = ()
    elif isinstance(document_type, str):
        given = tuple(part.strip().lower() for part in document_type.split(",") if part.strip())
    else:
        given = tuple(t.strip().lower() for t in document_type if t.strip().lower() != "all")
    for name in (*given, *in_query):
        _check_type(name, present)
    if given and in_query:
        both = tuple(t for t in given if t in in_query)
        if not both:
            raise QueryError(
                f"the query asks for type:{','.join(in_query)} but document_type is "
                f"{', '.join(given)}; give one of them"
            )
        return rest, both
    return rest, (given or in_query or None)


def _check_type(name: str, present: Sequence[str]) -> None:
    listed = ", ".join(("all", *present))
    if name not in DOC_TYPES:
        raise QueryError(f"unknown document type {name!r}; these docs have: {listed}")
    if name not in present:
        raise QueryError(f"these docs have no {name!r} pages; types: {listed}")


def _only_filters(query: str) -> QueryError:
    return QueryError(
        f"query {query!r} only filters by type; add words to search for, "
        "as in 'type:reference context'"
    )


def split_ref(ref: str) -> tuple[str, str, str]:
    """``source:page/path#anchor`` -> (source, page path, anchor); the anchor may be empty."""
    source, sep, rest = ref.partition(":")
    if not sep or not source or not rest:
        raise UnknownRefError(ref)
    path, _, anchor = rest.partition("#")
    return source, path, anchor


class DocIndex:
    """A bundled or on-disk docs index. Thread-safe; every method is read-only."""

    def __init__(self, directory: Path, manifest: dict):
        self.directory = directory
        self.manifest = manifest
        self._wix = WhooshIndex(directory)
        listed = manifest.get("sources", [])
        self._sources = list(dict.fromkeys(s["name"] for s in listed))
        # Versions of each source, newest first; empty for a source that is not versioned.
        self._versions = {
            name: newest_first(s["version"] for s in listed if s["name"] == name and s.get("version"))
            for name in self._sources
        }
        self._refs: list[str] | None = None
        self.parts: tuple[DocIndex, ...] = (self,)

    def verify(self) -> list[str]:
        """Check every index file against the hashes in the manifest; return the problems."""
        return _file_problems(self.directory, self.manifest)

    @property
    def sources(self) -> list[str]:
        return list(self._sources)

    @property
    def versions(self) -> dict[str, list[str]]:
        """Docs versions of each versioned source, newest first (what ``version=`` takes)."""
        return {name: list(v) for name, v in self._versions.items() if v}

    @property
    def type_counts(self) -> dict[str, int]:
        """Pages of each document type these docs have, in ``DOC_TYPES`` order."""
        return self._wix.type_counts()

    @property
    def doc_types(self) -> list[str]:
        """The document types these docs have pages of (what ``document_type=`` takes)."""
        return list(self.type_counts)

    def scope(self, source: str | None, version: str | None) -> Scope | None:
        """The (source, version) pairs a search or listing covers: every source, or the
        named one, each at its newest version unless ``version`` pins one ("all" takes
        every version). None means the whole index. Raises QueryError for an unknown
        source, or a version no covered source has."""
        source = self._check_source(source)
        names = [source] if source else self._sources
        if version in (None, "") and not any(self._versions[n] for n in names):
            return None if source is None else ((source, ""),)
        if version == "all":
            pairs = [(n, v) for n in names for v in (self._versions[n] or [""])]
        elif version in (None, ""):
            pairs = [(n, (self._versions[n] or [""])[0]) for n in names]
        else:
            pairs = [(n, version) for n in names if version in self._versions[n]]
            if not pairs:
                known = sorted({v for n in names for v in self._versions[n]}, key=version_key)
                where = f" of source {source!r}" if source else ""
                listed = ", ".join(reversed(known)) if known else "none (its sources are not versioned)"
                raise QueryError(f"unknown version {version!r}{where}; versions: {listed}")
        return tuple(pairs)

    def close(self) -> None:
        self._wix.close()

    def __enter__(self) -> DocIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- search ------------------------------------------------------------------------

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
        """Best pages for ``query``, one result per page (its best-matching section).

        ``sections=True`` returns the best sections instead, several per page if they
        rank so; ``explain=True`` adds to each hit why it ranked (``Hit.explain``).
        A versioned source is searched at its newest version unless ``version`` pins one.
        ``mode`` is "hybrid" (words and meaning; the default when the index has semantic
        vectors) or "lexical" (words only; the default otherwise). ``document_type`` (or
        ``type:reference`` in the query) keeps the pages of that type (``doctypes``).
        """
        found = self.ranked(
            query, source=source, version=version, limit=limit, full_text=full_text,
            sections=sections, explain=explain, mode=mode, document_type=document_type,
        )
        if found.results:
            return found
        return no_results(found, source, version)

    def ranked(
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
        """``search`` without the hint added when nothing matched (a ``Library`` merges
        several of these and gives the hint once)."""
        check_search(query, limit)
        words, types = wanted_types(query, document_type, self.doc_types)
        if not words:
            raise _only_filters(query)
        semantic, notes = self._semantic_mode(mode)
        scope = self.scope(source, version)
        outcome = self._wix.search(
            words, scope=scope, limit=limit, per_page=not sections, semantic=semantic,
            types=types if types is not None and set(types) != set(self.doc_types) else None,
        )
        total = outcome.total
        terms = set(outcome.terms)
        hits = tuple(
            self._hit(
                r.fields,
                r.score,
                terms,
                full_text,
                self._explain(r.doc, outcome) if explain else None,
                r.other_versions,
            )
            for r in outcome.hits
        )
        warnings = (*notes, *outcome.warnings)
        return SearchResult(query=query, total=total, results=hits, warnings=warnings)

    def _explain(self, doc: int, outcome: Outcome) -> dict:
        lexical = self._wix.explain(
            doc, outcome.terms, outcome.pairs, outcome.named_versions, outcome.types, outcome.emphasis
        )
        if outcome.fused is None:
            return lexical
        return self._wix.explain_fused(doc, outcome.fused, lexical)

    @property
    def semantic(self) -> dict | None:
        """The semantic layer the build wrote (model, licence, dimensions), or None."""
        found = self.manifest.get("semantic")
        return dict(found) if isinstance(found, dict) and self._wix.has_semantic else None

    def _semantic_mode(self, mode: str | None) -> tuple[bool, list[str]]:
        """Whether to mix meaning in, and a note when asked for it on an index without it."""
        if mode in (None, ""):
            return self._wix.has_semantic, []
        if mode not in SEARCH_MODES:
            raise QueryError(f"mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}")
        if mode == "hybrid" and not self._wix.has_semantic:
            return False, ["these docs have no semantic vectors; searched by words only"]
        return mode == "hybrid", []

    def _check_source(self, source: str | None) -> str | None:
        if source in (None, "", "all"):
            return None
        if source not in self._sources:
            valid = ", ".join(self._sources) or "(none)"
            raise QueryError(f"unknown source {source!r}; valid sources: all, {valid}")
        return source

    def _hit(
        self,
        doc: dict,
        score: float,
        terms: set[str],
        full_text: bool,
        explain: dict | None,
        other_versions: tuple[str, ...] = (),
    ) -> Hit:
        # A match under a heading deeper than the section's: the URL points at that heading.
        offsets, names = heading_marks(from_stored(doc.get("anchors")), doc["level"])
        snippet, under = placed_snippet(
            doc["content"], terms, self._wix.word_terms, marks=offsets,
            prepared=PlainText.from_stored(doc.get("plain")),
            fences=_stored_fences(doc),
        )
        return Hit(
            ref=doc["ref"],
            title=doc["page_title"],
            url=f"{doc['url']}#{names[under]}" if under >= 0 else _section_url(doc),
            source=doc["source"],
            section=doc["section"],
            snippet=snippet,
            score=round(score, 4),
            text=doc["content"] if full_text else None,
            explain=explain,
            version=doc.get("version") or None,
            other_versions=other_versions,
            type=doc.get("type") or "guide",
        )

    # -- reading -----------------------------------------------------------------------

    def read(self, ref: str) -> Document:
        """Full text of a page (``source:path``) or one section (``source:path#anchor``)."""
        if not isinstance(ref, str) or not ref.strip():
            raise UnknownRefError(str(ref))
        ref = ref.strip()
        source, path, anchor = split_ref(ref) if ":" in ref else ("", "", "")
        if not source:
            raise UnknownRefError(ref, self._suggest(ref))
        page_ref = f"{source}:{path}"
        if anchor:
            doc = self._wix.stored(ref)
            if doc is None:
                return self._read_inside(ref, page_ref, anchor)
            return Document(
                ref=ref,
                title=doc["page_title"],
                url=_section_url(doc),
                source=doc["source"],
                section=doc["section"],
                text=_with_heading(doc),
                version=doc.get("version") or None,
                type=doc.get("type") or "guide",
            )
        docs = self._wix.stored_page(page_ref)
        if not docs:
            raise UnknownRefError(ref, self._suggest(ref))
        first = docs[0]
        body = "\n\n".join(part for part in (_with_heading(d) for d in docs) if part)
        text = f"# {first['page_title']}\n\n{body}".rstrip() + "\n"
        return Document(
            ref=page_ref,
            title=first["page_title"],
            url=first["url"],
            source=first["source"],
            section=first["page_title"],
            text=text,
            version=first.get("version") or None,
            type=first.get("type") or "guide",
        )

    def _read_inside(self, ref: str, page_ref: str, anchor: str) -> Document:
        """``read`` of an anchor inside a section (a deeper heading, an HTML anchor): the
        part of the section it stands for, its heading path down to that heading."""
        for doc in self._wix.stored_page(page_ref):
            found = part_of(doc["content"], from_stored(doc.get("anchors")), anchor, doc["level"])
            if found is None:
                continue
            text = doc["content"][found.start : found.end].strip()
            if not found.headings:  # the section itself (an alias of its heading)
                text = _with_heading(doc) if found.start == 0 else text
            return Document(
                ref=ref,
                title=doc["page_title"],
                url=f"{doc['url']}#{anchor}",
                source=doc["source"],
                section=" > ".join((doc["section"], *found.headings)),
                text=text,
                version=doc.get("version") or None,
            )
        raise UnknownRefError(ref, self._suggest(ref))

    def refs(self) -> list[str]:
        """Every ref ``read`` takes: pages (the page intro's ref), sections and the anchors
        inside sections (``page#deep-anchor``), in build order."""
        refs = []
        for doc in self._wix.all_stored():
            refs.append(doc["ref"])
            refs += [f"{doc['page_ref']}#{a.anchor}" for a in from_stored(doc.get("anchors"))]
        return refs

    def _suggest(self, ref: str) -> list[str]:
        if self._refs is None:
            self._refs = self.refs()
        return difflib.get_close_matches(ref, self._refs, n=3, cutoff=0.6)

    def sections(self) -> list[Document]:
        """Every section as ``read`` returns it (the page intro's ref is the page ref), in
        build order: one pass over the stored fields, for comparing snapshots."""
        return [
            Document(
                ref=doc["ref"],
                title=doc["page_title"],
                url=_section_url(doc),
                source=doc["source"],
                section=doc["section"],
                text=_with_heading(doc),
                version=doc.get("version") or None,
                type=doc.get("type") or "guide",
            )
            for doc in self._wix.all_stored()
        ]

    def outline(
        self,
        source: str | None = None,
        version: str | None = None,
        document_type: str | Sequence[str] | None = None,
    ) -> list[PageOutline]:
        """Every page (optionally of one source, or of some document types) with its section
        headings, in build order; versioned sources at their newest version unless
        ``version`` says ("all": every one)."""
        scope = self.scope(source, version)
        covered = set(scope) if scope is not None else None
        types = wanted_types("", document_type, self.doc_types)[1]
        pages: dict[str, PageOutline] = {}
        entries: dict[str, list[OutlineEntry]] = {}
        for doc in self._wix.all_stored():
            if covered is not None and (doc["source"], doc.get("version", "")) not in covered:
                continue
            if types is not None and (doc.get("type") or "guide") not in types:
                continue
            page_ref = doc["page_ref"]
            if page_ref not in pages:
                pages[page_ref] = PageOutline(
                    ref=page_ref,
                    title=doc["page_title"],
                    url=doc["url"],
                    source=doc["source"],
                    description=doc["page_description"],
                    version=doc.get("version") or None,
                    type=doc.get("type") or "guide",
                )
                entries[page_ref] = []
            if doc["anchor"]:
                entries[page_ref].append(
                    OutlineEntry(
                        ref=doc["ref"],
                        heading=doc["heading_text"],
                        level=doc["level"],
                        url=_section_url(doc),
                    )
                )
        return [
            dataclasses.replace(p, sections=tuple(entries[ref]))
            for ref, p in pages.items()
        ]


def _stored_fences(doc: dict) -> list[tuple[int, int, str]] | None:
    """A long section's code blocks as the build stored them (None: not stored, found at
    search time)."""
    stored = doc.get("fences")
    return None if stored is None else [(int(a), int(b), str(line)) for a, b, line in stored]


def _section_url(doc: dict) -> str:
    return f"{doc['url']}#{doc['anchor']}" if doc["anchor"] else doc["url"]


def _with_heading(doc: dict) -> str:
    """A section's Markdown with its own heading line restored (none for the page intro)."""
    content = doc["content"].strip()
    if not doc["anchor"]:
        return content
    shown = doc.get("heading_markdown") or doc["heading_text"]
    heading = f"{'#' * max(1, doc['level'])} {shown}"
    return f"{heading}\n\n{content}" if content else heading
