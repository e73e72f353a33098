"""What the MCP tools answer: the models (their output schemas), a readable text rendering
of each, and answers cut to a token budget with a cursor to continue.

``Answers`` turns ``DocIndex`` results into ``Answer`` pairs — the data for structured
content and the text that most clients show the model — and knows nothing of MCP. Where
an answer may be cut and how it continues is ``paging``'s business.

How an answer fits ``max_tokens``: its envelope (everything but the items, with a cursor
as long as any) is measured first, then items are added while both the compact JSON and
the text rendering stay within the budget. Estimates round up per part, so parts add up to
at least the whole. A first item larger than the whole answer is cut (a section's text, a
page's outline) and a warning says how to read it all; a page of text is cut by
``paging.page_text`` at a block boundary.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from . import __version__
from .api import wanted_types
from .library import Docs
from .errors import QueryError
from .paging import (
    DEFAULT_MAX_TOKENS,
    CursorError,
    estimate_tokens,
    is_cursor,
    json_text_tokens,
    json_tokens,
    make_cursor,
    page_text,
    read_cursor,
    snapshot_id,
    take_items,
)

SEARCH_FETCH_RESULTS = 10
MAX_SOURCE_WARNINGS = 10

T = TypeVar("T", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)


# -- models ------------------------------------------------------------------------------------


class SearchHit(BaseModel):
    ref: str = Field(description="Stable id of the section; pass it to read_doc.")
    title: str = Field(description="Page title.")
    url: str = Field(description="Page URL with the section anchor; cite it.")
    source: str
    section: str = Field(description="Heading path, e.g. 'Guide > Install > Docker'.")
    snippet: str = Field(description="Best-matching passage, matched words in **bold**.")
    score: float
    text: str | None = Field(default=None, description="Full section text (full_text=true).")
    version: str | None = Field(default=None, description="Docs version (versioned sources).")
    other_versions: list[str] = Field(
        default_factory=list,
        description="Refs of this page in other docs versions; read_doc opens them.",
    )
    type: str = Field(default="guide", description="Document type: guide, tutorial, reference, changelog, migration, troubleshooting or blog.")

    @model_serializer(mode="wrap")
    def _omit_absent_text(self, handler: SerializerFunctionWrapHandler) -> dict:
        # Without full_text a null `text` on every hit is noise in the model's context.
        data = _without_nulls(handler(self), "text", "version")
        if not data.get("other_versions"):
            data.pop("other_versions", None)
        return data


def _without_nulls(data: dict, *keys: str) -> dict:
    for key in keys:
        if data.get(key) is None:
            data.pop(key, None)
    return data


class SearchDocsResult(BaseModel):
    query: str
    total: int = Field(description="Number of pages that matched.")
    start: int = Field(description="Position of the first result here among all results (0-based).")
    results: list[SearchHit]
    warnings: list[str]
    truncated: bool = Field(description="More results follow: call again with cursor=next_cursor.")
    next_cursor: str | None


class DocText(BaseModel):
    ref: str
    title: str
    url: str
    source: str
    section: str
    text: str = Field(description="Markdown text of the page or section, or of this part of it.")
    truncated: bool = Field(description="The text continues: call again with cursor=next_cursor.")
    next_cursor: str | None
    version: str | None = Field(default=None, description="Docs version (versioned sources).")
    type: str = Field(default="guide", description="Document type: guide, tutorial, reference, changelog, migration, troubleshooting or blog.")

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict:
        return _without_nulls(handler(self), "version")


class OutlineSection(BaseModel):
    ref: str
    heading: str
    level: int
    url: str


class PageEntry(BaseModel):
    ref: str
    title: str
    url: str
    source: str
    description: str
    sections: list[OutlineSection]
    version: str | None = Field(default=None, description="Docs version (versioned sources).")
    type: str = Field(default="guide", description="Document type: guide, tutorial, reference, changelog, migration, troubleshooting or blog.")

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict:
        return _without_nulls(handler(self), "version")


class DocList(BaseModel):
    total: int = Field(description="Number of pages in the index (or in the source).")
    start: int = Field(description="Position of the first page here among all pages (0-based).")
    pages: list[PageEntry]
    warnings: list[str]
    truncated: bool = Field(description="More pages follow: call again with cursor=next_cursor.")
    next_cursor: str | None


class SourceInfo(BaseModel):
    name: str = Field(description="The value to pass as `source`.")
    version: str | None = Field(
        default=None, description="Docs version, for one of several versions of a source."
    )
    snapshot: str | None = Field(
        default=None, description="The docs snapshot it is from, when several are served."
    )
    kind: str = Field(description="llms-full, llms-txt or markdown.")
    url: str | None = None
    urls: int | None = Field(default=None, description="How many page URLs it lists, if any.")
    path: str | None = None
    base_url: str | None = None
    layout: str | None = Field(default=None, description="How the source's pages were laid out.")
    generator: str | None = Field(
        default=None, description="The docs generator a folder was read as (mkdocs, sphinx, …)."
    )
    fetched_at: str | None = Field(default=None, description="When it was fetched (UTC).")
    sha256: str = Field(description="SHA-256 of what was read.")
    bytes: int
    pages: int
    sections: int
    types: dict[str, int] | None = Field(default=None, description="Pages of each document type.")
    warnings: list[str] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict:
        return {k: v for k, v in handler(self).items() if v is not None}


class CheckSummary(BaseModel):
    total: int = Field(description="Answer checks: queries pinned to the page they must find.")
    held: int = Field(description="How many held at build time (a build fails unless all do).")


class SnapshotPart(BaseModel):
    name: str
    version: str | None = Field(description="The snapshot's version (its wheel's version).")
    built_at: str | None
    docwheel_version: str | None
    pages: int
    sections: int
    types: dict[str, int] | None = Field(default=None, description="Pages of each document type.")
    semantic: dict[str, Any] | None = None
    checks: CheckSummary | None = None

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict:
        return _without_nulls(handler(self), "semantic", "types", "checks")


class Snapshot(BaseModel):
    name: str
    description: str | None
    version: str | None = Field(description="The docs snapshot version (the wheel's version).")
    snapshots: list[SnapshotPart] | None = Field(
        default=None, description="The snapshots served together, when there are several."
    )
    semantic: dict[str, Any] | None = Field(
        default=None,
        description="The semantic layer (model, licence, dims), when search also matches meaning.",
    )
    checks: CheckSummary | None = Field(
        default=None,
        description="The publisher's answer checks (queries that must find a given page), "
        "held when the docs were built.",
    )
    built_at: str | None = Field(description="When the index was built (UTC).")
    docwheel_version: str | None = Field(description="The docwheel that built the index.")
    server_version: str = Field(description="The docwheel serving it.")
    pages: int
    sections: int
    types: dict[str, int] = Field(
        default_factory=dict,
        description="Pages of each document type (what search_docs and list_docs document_type take).",
    )
    sources: list[SourceInfo]
    truncated: bool = Field(description="More sources follow: call again with cursor=next_cursor.")
    next_cursor: str | None

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict:
        return _without_nulls(handler(self), "snapshots", "semantic", "checks")


class FetchHit(BaseModel):
    id: str = Field(description="Pass it to fetch.")
    title: str
    url: str


class SearchResults(BaseModel):
    results: list[FetchHit]


class FetchedDoc(BaseModel):
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any]


class Answer(NamedTuple):
    """What a tool returns: the data (structured content) and its readable text."""

    data: BaseModel
    text: str


# -- text renderings ---------------------------------------------------------------------------


def heading(title: str, section: str) -> str:
    """The heading path, which normally starts with the page title: show the title once."""
    if not section or section == title or section.startswith(f"{title} > "):
        return section or title
    return f"{title} — {section}"


def _more(tool: str, args: str, cursor: str | None) -> str:
    return (
        f"\n[Truncated to fit max_tokens. To continue, call {tool} again with "
        f'{args}cursor="{cursor}"]\n'
    )


def _notes(warnings: Sequence[str]) -> str:
    return "".join(f"\nNote: {warning}\n" for warning in warnings)


def render_hit(hit: SearchHit, number: int) -> str:
    body = hit.text if hit.text is not None else hit.snippet
    title = heading(hit.title, hit.section) + (f" (version {hit.version})" if hit.version else "")
    others = f"other versions: {', '.join(hit.other_versions)}\n" if hit.other_versions else ""
    return (
        f"[{number}] {title}\nurl: {hit.url}\nref: {hit.ref}\ntype: {hit.type}\n"
        f"{others}{body.strip()}\n"
    )


def render_search(result: SearchDocsResult, where: str) -> str:
    shown = len(result.results)
    head = f"Search {result.query!r} in {where}: "
    if result.total == 0:
        head += "no matching pages."
    elif result.start == 0 and shown == result.total:
        head += f"{result.total} matching page{'s' if result.total > 1 else ''}."
    else:
        head += (
            f"results {result.start + 1}-{result.start + shown} of {result.total} matching pages."
        )
    hits = "".join(
        "\n" + render_hit(hit, result.start + n) for n, hit in enumerate(result.results, 1)
    )
    more = (
        _more("search_docs", "the same arguments and ", result.next_cursor)
        if result.truncated
        else ""
    )
    return head + "\n" + hits + _notes(result.warnings) + more


def render_doc(doc: DocText, continued: bool) -> str:
    head = heading(doc.title, doc.section) + (f" (version {doc.version})" if doc.version else "")
    head += " (continued)" if continued else ""
    text = f"{head}\nurl: {doc.url}\nref: {doc.ref}\ntype: {doc.type}\n\n{doc.text}"
    if doc.truncated:
        text = (
            text.rstrip("\n") + "\n" + _more("read_doc", f"ref={doc.ref!r} and ", doc.next_cursor)
        )
    return text


def render_page(page: PageEntry) -> str:
    version = f" (version {page.version})" if page.version else ""
    lines = [f"{page.title}{version} [{page.ref}] ({page.type})", f"  {page.url}"]
    if page.description:
        lines.append(f"  {page.description}")
    lines.extend(
        f"{'  ' * max(1, s.level)}- {s.heading} [#{s.ref.partition('#')[2]}]" for s in page.sections
    )
    return "\n".join(lines) + "\n"


def render_list(result: DocList, where: str) -> str:
    shown = len(result.pages)
    span = f"{result.start + 1}-{result.start + shown} of " if shown < result.total else ""
    pages = "".join("\n" + render_page(page) for page in result.pages)
    more = (
        _more("list_docs", "the same arguments and ", result.next_cursor)
        if result.truncated
        else ""
    )
    return f"Pages of {where}: {span}{result.total}.\n" + pages + _notes(result.warnings) + more


def render_source(s: SourceInfo) -> str:
    where = s.url or s.path or (f"{s.urls} URLs" if s.urls else "")
    layout = f", layout {s.layout}" if s.layout else ""
    layout += f", generator {s.generator}" if s.generator else ""
    version = f" version {s.version}" if s.version else ""
    snapshot = f" [from {s.snapshot}]" if s.snapshot else ""
    lines = [
        f"source {s.name}{version}{snapshot} ({s.kind}{layout}): {where}",
        f"  {s.pages} pages, {s.sections} sections, {s.bytes:,} bytes, sha256 {s.sha256}",
    ]
    if s.types:
        lines.append(f"  types: {render_types(s.types)}")
    if s.fetched_at:
        lines.append(f"  fetched {s.fetched_at}")
    lines.extend(f"  warning: {w}" for w in s.warnings)
    return "\n".join(lines) + "\n"


def render_types(counts: dict[str, int]) -> str:
    """``{"guide": 20, "reference": 5}`` -> ``guide 20, reference 5``."""
    return ", ".join(f"{name} {n}" for name, n in counts.items())


def render_snapshot(snap: Snapshot) -> str:
    title = " ".join(part for part in (snap.name, snap.version) if part)
    head = title + (f": {snap.description}" if snap.description else "") + "\n"
    for part in snap.snapshots or ():
        head += (
            f"- {part.name} {part.version or ''}".rstrip()
            + f": built {part.built_at} with docwheel {part.docwheel_version}, "
            f"{part.pages} pages, {part.sections} sections"
            + (f" ({render_types(part.types)})" if part.types else "")
            + "\n"
        )
    if snap.semantic:
        head += (
            f"search matches meaning too: query encoder from {snap.semantic.get('model')} "
            f"({snap.semantic.get('licence')})\n"
        )
    if snap.checks:
        head += (
            f"answer checks: {snap.checks.held} of {snap.checks.total} held at build time "
            "(queries the publisher pinned to the page that answers them)\n"
        )
    built = (
        f"built {snap.built_at} with docwheel {snap.docwheel_version}; "
        f"served by docwheel {snap.server_version}\n{snap.pages} pages, {snap.sections} sections\n"
    )
    if snap.types:
        built += f"document types: {render_types(snap.types)}\n"
    sources = "".join("\n" + render_source(s) for s in snap.sources)
    more = _more("describe_docs", "", snap.next_cursor) if snap.truncated else ""
    return head + built + sources + more


def _json_text(model: BaseModel) -> str:
    return json.dumps(model.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


# -- fitting a budget --------------------------------------------------------------------------


def cost(model: BaseModel, text: str) -> int:
    """What an answer or an item costs: the larger of its JSON and its text rendering."""
    return max(json_tokens(model.model_dump(mode="json")), estimate_tokens(text))


@dataclass(frozen=True)
class _Shrink(Generic[T]):
    """How to cut the first item of an answer when it alone is larger than the answer."""

    warning: Callable[[T], str]
    fit: Callable[[T, int], T]  # the item cut to a number of tokens


def _paged(
    items: Sequence[T],
    start: int,
    max_tokens: int,
    *,
    envelope: Callable[[list[T], str | None, list[str]], M],
    render: Callable[[M], str],
    item_cost: Callable[[T], int],
    cursor_at: Callable[[int], str],
    warnings: Sequence[str] = (),
    shrink: _Shrink[T] | None = None,
) -> Answer:
    """The items from ``start`` that fit ``max_tokens``, in their envelope (see the module doc)."""
    notes = list(warnings)

    def room() -> int:
        shell = envelope([], cursor_at(len(items)), notes)
        return max_tokens - cost(shell, render(shell))

    budget = room()
    costs = (item_cost(item) + 2 for item in itertools.islice(items, start, None))  # 2: separators
    entries = list(items[start : start + take_items(costs, budget)])
    if entries and shrink is not None and item_cost(entries[0]) + 2 > budget:
        notes.append(shrink.warning(entries[0]))
        entries[0] = shrink.fit(entries[0], room() - 2)
    end = start + len(entries)
    answer = envelope(entries, cursor_at(end) if end < len(items) else None, notes)
    return Answer(answer, render(answer))


def _model(model: type[T], instance: Any, **update: Any) -> T:
    """A model from a dataclass of ``api``, keeping only the fields the model has."""
    data = {k: v for k, v in asdict(instance).items() if k in model.model_fields}
    return model(**{**data, **update})


def _source_info(entry: dict) -> SourceInfo:
    """A manifest source, with its URL list as a count and at most a few build warnings."""
    data = {k: v for k, v in entry.items() if k in SourceInfo.model_fields}
    if isinstance(data.get("urls"), list):
        data["urls"] = len(data["urls"])
    warnings = list(data.get("warnings") or [])
    if len(warnings) > MAX_SOURCE_WARNINGS:
        more = len(warnings) - MAX_SOURCE_WARNINGS
        warnings = [*warnings[:MAX_SOURCE_WARNINGS], f"… {more} more (`docwheel info` lists all)"]
    return SourceInfo(**{**data, "warnings": warnings})


def _snapshot_part(entry: dict) -> SnapshotPart:
    return SnapshotPart(
        name=str(entry.get("name") or "docs"),
        version=entry.get("version"),
        built_at=entry.get("built_at"),
        docwheel_version=entry.get("docwheel_version"),
        pages=int(entry.get("pages") or 0),
        sections=int(entry.get("sections") or 0),
        types=entry.get("types") or None,
        semantic=entry.get("semantic") or None,
        checks=_check_summary([entry]),
    )


def _check_summary(manifests: list[dict]) -> CheckSummary | None:
    """How many answer checks the build of these snapshots ran and how many held; None
    when none of them has any."""
    checks = [c for m in manifests for c in (m.get("checks") or []) if isinstance(c, dict)]
    if not checks:
        return None
    return CheckSummary(total=len(checks), held=sum(1 for c in checks if c.get("passed")))


def _past_end(tool: str) -> CursorError:
    return CursorError(f"this cursor points past the end of the answer: call {tool} without cursor")


# -- the answers -------------------------------------------------------------------------------


class Answers:
    """The tools' answers over one index. Thread-safe: tools run on worker threads."""

    def __init__(self, index: Docs):
        self.index = index
        manifest = index.manifest
        self.name = str(manifest.get("name") or "docs")
        version = manifest.get("version")
        self.label = f"{self.name} {version}" if version else self.name
        self.snapshot = snapshot_id(manifest)
        self._outlines: dict[tuple[str, str | None, str | None], list[PageEntry]] = {}
        self._lock = threading.Lock()

    # -- shared --------------------------------------------------------------------------------

    def check_source(self, source: str | None) -> str:
        """'all' or a known source name; an unknown one is an error listing the valid ones."""
        if source in (None, "", "all"):
            return "all"
        if source not in self.index.sources:
            valid = ", ".join(self.index.sources) or "(none)"
            raise QueryError(f"unknown source {source!r}; valid sources: all, {valid}")
        return source

    def _where(self, source: str, document_type: str | None = None) -> str:
        where = self.label + (f" (source {source})" if source != "all" else " (all sources)")
        return where + (f", {document_type} pages" if document_type else "")

    def check_type(self, document_type: str | None) -> str | None:
        """None for every type, else the types asked for (comma-joined), each one these
        docs have (else a QueryError naming them)."""
        if document_type in (None, "", "all"):
            return None
        types = wanted_types("", document_type, self.index.doc_types)[1]
        return ",".join(types) if types else None

    def _start(self, tool: str, args: dict, cursor: str | None) -> int:
        if not cursor:
            return 0
        return read_cursor(cursor, tool=tool, snapshot=self.snapshot, args=args).offset

    def cursor(self, tool: str, args: dict, offset: int, ref: str | None = None) -> str:
        return make_cursor(tool, args, offset, self.snapshot, ref=ref)

    def start_of(self, tool: str, cursor: str | None) -> int:
        """The offset of a cursor for a tool without arguments (``resources/list``)."""
        return self._start(tool, {}, cursor)

    def outline(self) -> list[PageEntry]:
        """Every page (of every version) with its sections, read once: the index never
        changes under a server."""
        return self._pages("all", "all")

    def _pages(
        self, source: str, version: str | None, document_type: str | None = None
    ) -> list[PageEntry]:
        """The pages of a source (or "all") at a version (None: the newest; "all"), of a
        document type (None: every type)."""
        key = (source, version, document_type)
        with self._lock:
            if key not in self._outlines:
                outline = self.index.outline(
                    None if source == "all" else source, version, document_type
                )
                self._outlines[key] = [
                    _model(
                        PageEntry, page, sections=[_model(OutlineSection, s) for s in page.sections]
                    )
                    for page in outline
                ]
            return self._outlines[key]

    # -- search_docs, read_doc, list_docs, describe_docs ---------------------------------------

    def search(
        self,
        query: str,
        *,
        source: str = "all",
        version: str | None = None,
        limit: int = 5,
        full_text: bool = False,
        mode: str | None = None,
        document_type: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        cursor: str | None = None,
    ) -> Answer:
        source = self.check_source(source)
        document_type = self.check_type(document_type)
        version = version or None
        args = {"query": query, "source": source, "limit": limit, "full_text": full_text}
        if version:
            args["version"] = version
        if mode:
            args["mode"] = mode
        if document_type:
            args["document_type"] = document_type
        start = self._start("search_docs", args, cursor)
        found = self.index.search(
            query=query,
            source=None if source == "all" else source,
            version=version,
            limit=limit,
            full_text=full_text,
            mode=mode,
            document_type=document_type,
        )
        hits = [_model(SearchHit, hit) for hit in found.results]
        if start and start >= len(hits):
            raise _past_end("search_docs")
        warnings = list(found.warnings)
        if not hits and source != "all":
            warnings.append(
                f"only source {source!r} was searched; source='all' searches every source"
            )

        def envelope(
            results: list[SearchHit], next_cursor: str | None, notes: list[str]
        ) -> SearchDocsResult:
            return SearchDocsResult(
                query=found.query,
                total=found.total,
                start=start,
                results=results,
                warnings=notes,
                truncated=next_cursor is not None,
                next_cursor=next_cursor,
            )

        def hit_cost(hit: SearchHit) -> int:
            return cost(hit, render_hit(hit, len(hits)))

        def fit(hit: SearchHit, tokens: int) -> SearchHit:
            room = tokens - hit_cost(hit.model_copy(update={"text": ""}))
            return hit.model_copy(
                update={"text": page_text(hit.text or "", 0, max(room, 1), json_text_tokens).text}
            )

        return _paged(
            hits,
            start,
            max_tokens,
            envelope=envelope,
            render=lambda result: render_search(result, self._where(source, document_type)),
            item_cost=hit_cost,
            cursor_at=lambda offset: self.cursor("search_docs", args, offset),
            warnings=warnings,
            shrink=_Shrink(
                warning=lambda hit: (
                    f"the text of {hit.ref} was cut to fit max_tokens; "
                    f"read_doc(ref={hit.ref!r}) reads all of it"
                ),
                fit=fit,
            )
            if full_text
            else None,
        )

    def read(
        self, ref: str, *, max_tokens: int = DEFAULT_MAX_TOKENS, cursor: str | None = None
    ) -> Answer:
        doc = self.index.read(ref=ref)
        args = {"ref": doc.ref}
        start = self._start("read_doc", args, cursor)
        if start and start >= len(doc.text):
            raise _past_end("read_doc")
        shell = _model(
            DocText,
            doc,
            text="",
            truncated=True,
            next_cursor=self.cursor("read_doc", args, len(doc.text)),
        )
        budget = max_tokens - cost(shell, render_doc(shell, start > 0)) - 2
        part = page_text(doc.text, start, budget, json_text_tokens)
        next_cursor = (
            None if part.next_offset is None else self.cursor("read_doc", args, part.next_offset)
        )
        answer = _model(
            DocText, doc, text=part.text, truncated=next_cursor is not None, next_cursor=next_cursor
        )
        return Answer(answer, render_doc(answer, start > 0))

    def pages(
        self,
        *,
        source: str = "all",
        version: str | None = None,
        document_type: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        cursor: str | None = None,
    ) -> Answer:
        source = self.check_source(source)
        document_type = self.check_type(document_type)
        version = version or None
        args = {"source": source}
        if version:
            args["version"] = version
        if document_type:
            args["document_type"] = document_type
        start = self._start("list_docs", args, cursor)
        pages = self._pages(source, version, document_type)
        if start and start >= len(pages):
            raise _past_end("list_docs")

        def envelope(
            entries: list[PageEntry], next_cursor: str | None, notes: list[str]
        ) -> DocList:
            return DocList(
                total=len(pages),
                start=start,
                pages=entries,
                warnings=notes,
                truncated=next_cursor is not None,
                next_cursor=next_cursor,
            )

        def page_cost(page: PageEntry) -> int:
            return cost(page, render_page(page))

        def fit(page: PageEntry, tokens: int) -> PageEntry:
            room = tokens - page_cost(page.model_copy(update={"sections": []}))
            costs = (json_tokens(s.model_dump(mode="json")) + 2 for s in page.sections)
            return page.model_copy(
                update={"sections": page.sections[: take_items(costs, room, at_least_one=False)]}
            )

        return _paged(
            pages,
            start,
            max_tokens,
            envelope=envelope,
            render=lambda result: render_list(result, self._where(source, document_type)),
            item_cost=page_cost,
            cursor_at=lambda offset: self.cursor("list_docs", args, offset),
            shrink=_Shrink(
                warning=lambda page: (
                    f"the outline of {page.ref} was cut to fit max_tokens; "
                    f"read_doc(ref={page.ref!r}) shows the whole page"
                ),
                fit=fit,
            ),
        )

    def describe(
        self, *, max_tokens: int = DEFAULT_MAX_TOKENS, cursor: str | None = None
    ) -> Answer:
        manifest = self.index.manifest
        start = self._start("describe_docs", {}, cursor)
        sources = [_source_info(s) for s in manifest.get("sources", [])]
        if start and start >= len(sources):
            raise _past_end("describe_docs")

        def envelope(
            entries: list[SourceInfo], next_cursor: str | None, _notes: list[str]
        ) -> Snapshot:
            return Snapshot(
                name=self.name,
                description=manifest.get("description"),
                version=manifest.get("version"),
                snapshots=[_snapshot_part(p) for p in manifest["snapshots"]]
                if manifest.get("snapshots")
                else None,
                semantic=manifest.get("semantic") or None,
                checks=_check_summary(manifest.get("snapshots") or [manifest]),
                built_at=manifest.get("built_at"),
                docwheel_version=manifest.get("docwheel_version"),
                server_version=__version__,
                pages=int(manifest.get("pages") or 0),
                sections=int(manifest.get("sections") or 0),
                types=self.index.type_counts,
                sources=entries,
                truncated=next_cursor is not None,
                next_cursor=next_cursor,
            )

        return _paged(
            sources,
            start,
            max_tokens,
            envelope=envelope,
            render=render_snapshot,
            item_cost=lambda source: cost(source, render_source(source)),
            cursor_at=lambda offset: self.cursor("describe_docs", {}, offset),
        )

    # -- search and fetch (the two-tool convention) --------------------------------------------

    def search_ids(self, query: str) -> Answer:
        found = self.index.search(query=query, limit=SEARCH_FETCH_RESULTS)
        result = SearchResults(
            results=[
                FetchHit(id=hit.ref, title=heading(hit.title, hit.section), url=hit.url)
                for hit in found.results
            ]
        )
        return Answer(result, _json_text(result))

    def fetch(self, id: str) -> Answer:
        """A document by ref, or the next part of one by the ``next_id`` of the previous part."""
        ref, start = id, 0
        if is_cursor(id):
            cursor = read_cursor(id, tool="fetch", snapshot=self.snapshot)
            if cursor.ref is None:
                raise CursorError("this id is not a document id: use an id from search")
            ref, start = cursor.ref, cursor.offset
        doc = self.index.read(ref=ref)
        if start and start >= len(doc.text):
            raise _past_end("fetch")
        meta: dict[str, Any] = {
            "source": doc.source,
            "section": doc.section,
            "ref": doc.ref,
            "type": doc.type,
            "snapshot": self.label,
        }
        probe = {
            **meta,
            "truncated": True,
            "next_id": self.cursor("fetch", {}, len(doc.text), ref=doc.ref),
        }
        shell = FetchedDoc(id=id, title=doc.title, text="", url=doc.url, metadata=probe)
        part = page_text(
            doc.text,
            start,
            DEFAULT_MAX_TOKENS - json_tokens(shell.model_dump(mode="json")) - 2,
            json_text_tokens,
        )
        if part.next_offset is not None:
            meta.update(
                truncated=True, next_id=self.cursor("fetch", {}, part.next_offset, ref=doc.ref)
            )
        answer = FetchedDoc(id=id, title=doc.title, text=part.text, url=doc.url, metadata=meta)
        return Answer(answer, _json_text(answer))
