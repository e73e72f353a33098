"""Frozen dataclasses that cross module boundaries.

Parsing produces ``Page``/``Section`` (no source, no refs); the index assigns refs and
returns ``Hit``/``Document`` at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Anchor:
    """A place inside a section's text that the site gives an id: a heading deeper than the
    section split (``#### Retries`` under ``### Options``), or an extra link target
    (reStructuredText's ``.. _label:``, an HTML ``<a name="…">``).

    ``offset`` is where it begins in ``Section.text``; ``heading`` and ``level`` are "" and 0
    for a bare target. Links to ``page#anchor`` resolve to the section that holds it.
    """

    anchor: str
    heading: str
    level: int
    offset: int


@dataclass(frozen=True)
class Section:
    """A heading and the Markdown under it, up to the next heading of level <= max level.

    ``anchor`` is the fragment the docs site would generate for the heading ("" for the text
    before the first heading). ``path`` is the heading path from the page title down, e.g.
    ("Guide", "Install", "Docker"). ``text`` keeps Markdown, code fences included, without
    the heading line itself.
    """

    anchor: str
    heading: str
    level: int
    path: tuple[str, ...]
    text: str
    # Ids inside the text (deeper headings, extra targets), in order of offset.
    anchors: tuple[Anchor, ...] = ()
    # The heading as Markdown (``The `app` object``) when that differs from ``heading``,
    # its text: what ``read`` shows in the heading line.
    heading_markdown: str = ""


@dataclass(frozen=True)
class Page:
    """One documentation page as parsed from a source.

    ``url`` is where a reader opens it (absolute when known, else the source-relative path).
    ``path`` identifies the page within its source and is the stable part of every ref:
    the URL path without scheme, host, leading/trailing slash or .md/.mdx/.html extension
    (``docs/concepts/tools``); "index" for the site root. ``group`` is where the site's
    navigation puts the page, outermost first (``("Servers", "Core Components")``); empty
    when the source has no navigation or the page is not in it. ``type`` is the frontmatter's
    ``document_type:`` as written, or its ``type:`` when that names a document type ("" when
    none); the build resolves the page's document type from it (``doctypes.page_type``).
    """

    url: str
    path: str
    title: str
    description: str
    sections: tuple[Section, ...]
    group: tuple[str, ...] = ()
    type: str = ""


@dataclass(frozen=True)
class Hit:
    """One search result."""

    ref: str
    title: str
    url: str
    source: str
    section: str
    snippet: str
    score: float
    text: str | None = None
    # Why it ranked (search(..., explain=True)): matched terms with per-field contributions,
    # the page's share and the factors applied.
    explain: dict | None = None
    # The docs version of a versioned source (``version:`` in the sources file).
    version: str | None = None
    # Page refs of this page in other versions of the docs (a ``v2/`` copy, an older
    # ``version:``), current versions first; they are not listed as results of their own.
    other_versions: tuple[str, ...] = ()
    # The page's document type (``doctypes.DOC_TYPES``).
    type: str = "guide"


@dataclass(frozen=True)
class SearchResult:
    query: str
    total: int
    results: tuple[Hit, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    """The full text of a page or a section, as ``read`` returns it."""

    ref: str
    title: str
    url: str
    source: str
    section: str
    text: str
    version: str | None = None
    type: str = "guide"


@dataclass(frozen=True)
class OutlineEntry:
    """A section heading in a page outline."""

    ref: str
    heading: str
    level: int
    url: str


@dataclass(frozen=True)
class PageOutline:
    ref: str
    title: str
    url: str
    source: str
    description: str
    sections: tuple[OutlineEntry, ...] = field(default_factory=tuple)
    version: str | None = None
    type: str = "guide"
