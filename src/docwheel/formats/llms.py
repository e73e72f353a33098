"""llms-full.txt splitting and llms.txt link extraction (pure; the builder does the fetching).

An llms-full.txt concatenates a site's pages, and every generator marks page boundaries its
own way. Each way is a *layout*: one small function that finds where pages start, registered
in ``LAYOUTS``. ``detect_layout`` tries them in table order (most distinctive marker first)
and the first that finds a page wins; a sources file can force one with ``format:``.

    mintlify     ``# Title`` then ``Source: URL``; no separator between pages
    vitepress    a ``---`` YAML block with ``url:`` per page (vitepress-plugin-llms)
    page-tags    ``<page>…</page>`` or ``<doc title=… url=…>…</doc>`` (llms-ctx style)
    firecrawl    ``## summary`` then ``[Skip to main content](URL)`` (crawled HTML)
    rule-blocks  ``URL:``/``DOC_PATH:`` header lines between two ``====`` rule lines
    headings     anything else: one page per top-level ``# `` heading (with a warning)

Only lines outside fenced code count, so a page never starts inside a code sample.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple
from urllib.parse import urldefrag, urljoin, urlsplit

from .headings import Slugger, strip_inline
from .html import decode_entities
from .markdown import (
    PROSE,
    classify_lines,
    normalize_text,
    page_path_from_url,
    parse_markdown,
    site_url,
    split_frontmatter,
    title_from_path,
)
from ..models import Page

Warn = Callable[[str], None]


class _Start(NamedTuple):
    """Where a page begins, as a layout found it.

    ``line`` is the first line of the page's header, ``body`` the first line handed to the
    Markdown parser, ``end`` the line after the page (None: where the next page begins).
    ``title`` forced means the header's title wins over the body's H1; otherwise it is only
    the fallback. ``url`` may be relative (resolved against base_url later) or "" (none).
    """

    line: int
    body: int
    title: str = ""
    url: str = ""
    forced: bool = False
    end: int | None = None
    group: tuple[str, ...] = ()
    description: str = ""


Finder = Callable[[Sequence[str], Sequence[str]], list[_Start]]


@dataclass(frozen=True)
class LlmsFull:
    """An llms-full.txt split into pages, with the name of the layout that split it."""

    pages: tuple[Page, ...]
    layout: str


def _blank_then(lines: Sequence[str], kinds: Sequence[str], i: int) -> int:
    """The first line at or after ``i`` that is not a blank prose line."""
    while i < len(lines) and kinds[i] == PROSE and not lines[i].strip():
        i += 1
    return i


# -- mintlify ------------------------------------------------------------------------------

_PAGE_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t]*$")
_SOURCE = re.compile(r"^Source:[ \t]*(\S+)[ \t]*$")


def _mintlify(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """A page is a ``# Title`` line followed by ``Source: URL``; pages have H1s of their own."""
    return _headed_pages(lines, kinds, _PAGE_TITLE, _SOURCE, lambda url: url, forced=True)


def _headed_pages(
    lines: Sequence[str],
    kinds: Sequence[str],
    header: re.Pattern[str],
    marker: re.Pattern[str],
    url_of: Callable[[str], str],
    *,
    forced: bool,
) -> list[_Start]:
    """Pages that start with a ``header`` line followed (after blank lines) by a ``marker``
    line carrying the URL; both outside code fences."""
    starts = []
    for i, line in enumerate(lines):
        m = header.match(line) if kinds[i] == PROSE else None
        if not m:
            continue
        j = _blank_then(lines, kinds, i + 1)
        found = marker.match(lines[j]) if j < len(lines) and kinds[j] == PROSE else None
        if found:
            starts.append(_Start(i, j + 1, m.group(1), url_of(found.group(1)), forced=forced))
    return starts


# -- vitepress -----------------------------------------------------------------------------

_YAML_LINE = re.compile(r"^(?:[A-Za-z_][\w-]*:(?:\s.*)?|\s+\S.*|)$")
_FRONTMATTER_SCAN = 60  # lines a page's frontmatter block may span


def _vitepress(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """vitepress-plugin-llms: every page opens with a ``---`` YAML block that has ``url:``.

    ``body`` is the opening ``---`` line itself, so the page keeps its frontmatter (and with
    it ``description``) for ``parse_markdown``; the title comes from the page's ``# `` line.
    Pages are joined by a bare ``---`` line, which the splitter trims from each page's end.
    """
    starts = []
    i = 0
    while i < len(lines):
        if kinds[i] != PROSE or lines[i].strip() != "---":
            i += 1
            continue
        end = _frontmatter_close(lines, i)
        url = _frontmatter_url(lines[i + 1 : end]) if end else None
        if url is None:
            i += 1
            continue
        starts.append(_Start(i, i, url=url))
        i = end + 1  # type: ignore[operator]
    return starts


def _frontmatter_close(lines: Sequence[str], start: int) -> int | None:
    stop = min(len(lines), start + _FRONTMATTER_SCAN)
    return next((j for j in range(start + 1, stop) if lines[j].strip() == "---"), None)


def _frontmatter_url(block: Sequence[str]) -> str | None:
    if not block or not all(_YAML_LINE.match(line) for line in block):
        return None
    if not any(line.startswith("url:") for line in block):
        return None
    meta = _yaml_block(block)
    url = meta.get("url")
    return url.strip() if isinstance(url, str) and url.strip() else None


def _yaml_block(block: Sequence[str]) -> dict:
    meta, _body, _warning = split_frontmatter("---\n" + "\n".join(block) + "\n---\n")
    return meta


# -- page-tags -----------------------------------------------------------------------------

_TAG_OPEN = re.compile(r"^[ \t]*<(page|doc)(\s[^<>]*)?>[ \t]*$")
_TAG_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_URL_ATTRS = ("url", "href", "source", "src", "link")
_DESCRIPTION_ATTRS = ("description", "desc", "summary")


def _page_tags(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """``<page>`` … ``</page>`` or ``<doc title="…" url="…">`` … ``</doc>``, one page each.

    A page's URL and title come from the tag's attributes or, for ``<page>`` blocks that
    open with YAML frontmatter (Cloudflare's llms-full.txt), from ``url``/``source_url``
    there. A tag without its closing line is not a page.
    """
    starts = []
    i = 0
    while i < len(lines):
        m = _TAG_OPEN.match(lines[i]) if kinds[i] == PROSE else None
        if not m:
            i += 1
            continue
        closer = f"</{m.group(1)}>"
        end = next(
            (
                j
                for j in range(i + 1, len(lines))
                if kinds[j] == PROSE and lines[j].strip() == closer
            ),
            None,
        )
        if end is None:
            i += 1
            continue
        attrs = {
            key.lower(): decode_entities(double or single)
            for key, double, single in _TAG_ATTR.findall(m.group(2) or "")
        }
        url = next((attrs[k] for k in _URL_ATTRS if attrs.get(k)), "")
        if not url:
            url = _tag_frontmatter_url(lines, kinds, i + 1, end)
        title = attrs.get("title", "").strip()
        description = next((attrs[k] for k in _DESCRIPTION_ATTRS if attrs.get(k)), "")
        starts.append(
            _Start(i, i + 1, title, url, forced=bool(title), end=end, description=description)
        )
        i = end + 1
    return starts


def _tag_frontmatter_url(lines: Sequence[str], kinds: Sequence[str], start: int, end: int) -> str:
    first = _blank_then(lines, kinds, start)
    if first >= end or lines[first].strip() != "---":
        return ""
    close = _frontmatter_close(lines, first)
    if close is None or close >= end:
        return ""
    meta = _yaml_block(lines[first + 1 : close])
    for key in ("url", "source_url", "source"):
        value = meta.get(key)
        if isinstance(value, dict):  # source_url: {html: …, md: …}
            value = value.get("html") or value.get("url")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


# -- firecrawl -----------------------------------------------------------------------------

_SUMMARY = re.compile(r"^##[ \t]+(.+?)[ \t]*$")
_SKIP_LINK = re.compile(r"^\[Skip to (?:main )?content\]\((\S+?)\)[ \t]*$", re.I)


def _firecrawl(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """A crawl: ``## <summary>`` then ``[Skip to main content](<page URL>#…)``.

    The summary is written by the crawler's model, not the page's title; the page's own
    ``# `` H1 (when the body starts with one) is the title and the summary the fallback.
    """
    return _headed_pages(
        lines, kinds, _SUMMARY, _SKIP_LINK, lambda url: urldefrag(url).url, forced=False
    )


# -- rule-blocks ---------------------------------------------------------------------------

_RULE = re.compile(r"^={8,}[ \t]*$")
_HEADER_FIELD = re.compile(r"^([A-Z][A-Z0-9_]*):[ \t]*(.*?)[ \t]*$")
_HEADER_MAX = 20  # lines a header block may hold
_ADDRESS_FIELDS = ("URL", "SOURCE", "SOURCE_URL", "DOC_PATH", "PATH")


def _rule_blocks(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """Pages open with ``KEY: value`` lines (``URL:``, ``DOC_PATH:``…) between ``====`` rules.

    ``URL:`` is the address (``DOC_PATH:`` when there is none, resolved against base_url);
    ``TITLE:`` forces the title, else the body's H1, else the last ``NAV_PATH`` crumb;
    ``NAV_PATH: A > B > Page`` gives the group (A, B).
    """
    starts = []
    i = 0
    while i < len(lines):
        if kinds[i] != PROSE or not _RULE.match(lines[i]):
            i += 1
            continue
        fields: dict[str, str] = {}
        j = i + 1
        while j < min(len(lines), i + 2 + _HEADER_MAX) and (m := _HEADER_FIELD.match(lines[j])):
            fields.setdefault(m.group(1), m.group(2))
            j += 1
        closed = j < len(lines) and kinds[j] == PROSE and _RULE.match(lines[j])
        address = next((fields[k] for k in _ADDRESS_FIELDS if fields.get(k)), None)
        if not closed or address is None:
            i += 1
            continue
        crumbs = [c.strip() for c in fields.get("NAV_PATH", "").split(">") if c.strip()]
        title = fields.get("TITLE", "")
        starts.append(
            _Start(
                i,
                j + 1,
                title or (crumbs[-1] if crumbs else ""),
                address,
                forced=bool(title),
                group=tuple(crumbs[:-1]),
            )
        )
        i = j + 1
    return starts


# -- headings ------------------------------------------------------------------------------


def _headings(lines: Sequence[str], kinds: Sequence[str]) -> list[_Start]:
    """The fallback: every top-level ``# `` heading outside code starts a page (no URL)."""
    return [
        _Start(i, i + 1, m.group(1), forced=True)
        for i, line in enumerate(lines)
        if kinds[i] == PROSE and (m := _PAGE_TITLE.match(line))
    ]


_WRAPPER_LINE = re.compile(r"^\s*(?:</?[A-Za-z][^<>]*>\s*)?$")  # <docs>, </project>, blank


class _Layout(NamedTuple):
    find: Finder
    # Lines a generator writes before the first page: skipped without a warning.
    preamble: re.Pattern[str] | None = None
    # Pages joined by a bare "---" line, which belongs to neither page.
    joined_by_rule: bool = False


# Detection order: the most distinctive page marker first. Wrapping tags come before the
# layouts their pages might contain; headings, which matches nearly anything, comes last.
LAYOUTS: dict[str, _Layout] = {
    "page-tags": _Layout(_page_tags, _WRAPPER_LINE),
    "rule-blocks": _Layout(_rule_blocks, re.compile(r"^(?:[A-Z][A-Z0-9_]*:.*|\s*)$")),
    "firecrawl": _Layout(_firecrawl, re.compile(r"^(?:#[ \t]+\S+[ \t]+llms(?:-full)?\.txt|\s*)$")),
    "mintlify": _Layout(_mintlify),
    "vitepress": _Layout(_vitepress, joined_by_rule=True),
    "headings": _Layout(_headings),
}
LAYOUT_NAMES: tuple[str, ...] = tuple(LAYOUTS)
FALLBACK = "headings"


def detect_layout(text: str) -> str:
    """The name of the layout ``split_llms_full`` would use for ``text``."""
    lines = normalize_text(text).split("\n")
    return _detect(lines, classify_lines(lines))[0]


def _detect(lines: Sequence[str], kinds: Sequence[str]) -> tuple[str, list[_Start]]:
    for name, layout in LAYOUTS.items():
        starts = layout.find(lines, kinds)
        if starts:
            return name, starts
    return FALLBACK, []


def parse_llms_full(
    text: str,
    *,
    base_url: str | None = None,
    max_level: int = 3,
    warn: Warn | None = None,
    layout: str | None = None,
    clean_urls: bool = False,
    anchors: str | None = None,
) -> LlmsFull:
    """Split an llms-full.txt into pages with the layout detected per file, or ``layout``.

    Section anchors follow the slug rules of ``anchors`` (``headings.ANCHOR_STYLES``);
    by default the generator's own for the vitepress and mintlify layouts, else GitHub's.

    Page URLs are resolved against ``base_url``; with ``clean_urls`` they are also turned
    into the addresses the site serves (``markdown.site_url``: no ``.md``/``.html``). Pages
    without a URL of their own (``headings``, tags without one) get ``base_url#slug`` and
    the slug as their path. Warnings name the page they concern.
    """
    say = warn or (lambda message: None)
    text = normalize_text(text)
    lines = text.split("\n")
    kinds = classify_lines(lines)
    if layout is None:
        layout, starts = _detect(lines, kinds)
        if layout == FALLBACK and starts:
            say(
                "no known llms-full layout found; assumed layout 'headings' (a page per "
                "top-level '# ' heading); set format: in the sources file to choose another"
            )
    else:
        starts = LAYOUTS[layout].find(lines, kinds)
        if not starts and text.strip():
            say(f"format {layout!r} found no pages in this file")
            return LlmsFull((), layout)
    if not starts:
        if not text.strip():
            return LlmsFull((), layout)
        say("no page markers or top-level '# ' headings found; the whole file is one page")
        return LlmsFull((_whole_file(text, base_url, max_level, warn, anchors or "github"),), layout)

    _check_preamble(lines[: starts[0].line], LAYOUTS[layout].preamble, say)
    style = anchors or anchor_style(layout)
    site = _Site(base_url, clean_urls, max_level, say, style)
    return LlmsFull(tuple(_pages(lines, starts, len(starts), layout, site)), layout)


@dataclass
class _Site:
    """What turning found pages into ``Page``s needs besides their lines."""

    base_url: str | None
    clean_urls: bool
    max_level: int
    say: Warn
    anchors: str = "github"  # whose slug rules section anchors follow (headings.ANCHOR_STYLES)
    slugger: Slugger = field(default_factory=Slugger)


def _pages(
    lines: Sequence[str], starts: Sequence[_Start], count: int, layout: str, site: _Site
) -> Iterator[Page]:
    """The first ``count`` pages of ``starts``; each ends where the next start begins."""
    for k in range(count):
        start = starts[k]
        following = starts[k + 1].line if k + 1 < len(starts) else len(lines)
        if start.end is not None:  # a closing tag: what lies between pages belongs to none
            _check_between(lines[start.end + 1 : following], site.say)
        body = list(lines[start.body : following if start.end is None else start.end])
        if LAYOUTS[layout].joined_by_rule:
            while body and body[-1].strip() in ("", "---"):
                body.pop()
        yield _page(
            body, start, site.slugger, site.base_url, site.clean_urls, site.max_level, site.say,
            site.anchors,
        )


# Lines read at a time when streaming a large file (see LlmsFullStream).
CHUNK_LINES = 200_000


class LlmsFullStream:
    """``parse_llms_full`` over lines read a chunk at a time, for files too large to hold
    (a 200 MB llms-full.txt is several times that as one string, its lines and its pages).

    Pages are yielded as they are found; memory holds one chunk of lines plus the page
    being read. Each chunk is split into pages and cut before its last two page starts,
    which are found again with the next chunk (so a start near a chunk's end is judged with
    the lines after it, and fences are always tracked from a page start, outside code).
    Differences from reading the whole file: the layout is detected from the first chunk,
    and an HTML comment left open across a chunk boundary counts as unclosed there.
    ``layout`` is known once the first page has been yielded; ``pages`` counts them.
    """

    def __init__(
        self,
        lines: Iterable[str],
        *,
        base_url: str | None = None,
        max_level: int = 3,
        warn: Warn | None = None,
        layout: str | None = None,
        clean_urls: bool = False,
        chunk_lines: int | None = None,
        anchors: str | None = None,
    ):
        self._lines = lines
        self._forced = layout
        self.layout = layout or FALLBACK
        self._anchors = anchors
        self._site = _Site(
            base_url, clean_urls, max_level, warn or (lambda message: None),
            anchors or anchor_style(self.layout),
        )
        self._chunk = chunk_lines or CHUNK_LINES
        self.pages = 0

    def __iter__(self) -> Iterator[Page]:
        say = self._site.say
        source = iter(self._lines)
        buffer: list[str] = []
        first = True
        seen_text = False
        while True:
            # A buffer that has not held enough page starts yet doubles with each read, so
            # a file of few, huge pages is not re-scanned once per chunk.
            wanted = max(self._chunk, len(buffer))
            batch = list(itertools.islice(source, wanted))
            final = len(batch) < wanted
            buffer.extend(batch)
            seen_text = seen_text or any(line.strip() for line in batch)
            kinds = classify_lines(buffer)
            if first and self._forced is None:
                self.layout, starts = _detect(buffer, kinds)
                self._site.anchors = self._anchors or anchor_style(self.layout)
            else:
                starts = LAYOUTS[self.layout].find(buffer, kinds)
            if not final and len(starts) < 3:
                continue  # too few page starts yet to cut safely: read on
            if first:
                if not starts:
                    yield from self._without_starts(buffer, seen_text)
                    return
                if self._forced is None and self.layout == FALLBACK:
                    say(
                        "no known llms-full layout found; assumed layout 'headings' (a page per "
                        "top-level '# ' heading); set format: in the sources file to choose another"
                    )
                _check_preamble(buffer[: starts[0].line], LAYOUTS[self.layout].preamble, say)
                first = False
            count = len(starts) if final else len(starts) - 2
            for page in _pages(buffer, starts, count, self.layout, self._site):
                self.pages += 1
                yield page
            if final:
                return
            buffer = buffer[starts[count].line :]

    def _without_starts(self, lines: list[str], seen_text: bool) -> Iterator[Page]:
        site = self._site
        if not seen_text:
            return
        if self._forced:
            site.say(f"format {self._forced!r} found no pages in this file")
            return
        site.say("no page markers or top-level '# ' headings found; the whole file is one page")
        self.pages += 1
        yield _whole_file(
            "\n".join(lines), site.base_url, site.max_level, site.say, self._anchors or "github"
        )


def anchor_style(layout: str) -> str:
    """The slug rules of the site generator a layout comes from (GitHub's when unknown)."""
    return {"vitepress": "vitepress", "mintlify": "mintlify"}.get(layout, "github")


def split_llms_full(
    text: str,
    *,
    base_url: str | None = None,
    max_level: int = 3,
    warn: Warn | None = None,
    layout: str | None = None,
    clean_urls: bool = False,
    anchors: str | None = None,
) -> list[Page]:
    """The pages of ``parse_llms_full`` as a list (for callers that need no layout name)."""
    result = parse_llms_full(
        text,
        base_url=base_url,
        max_level=max_level,
        warn=warn,
        layout=layout,
        clean_urls=clean_urls,
        anchors=anchors,
    )
    return list(result.pages)


def _whole_file(
    text: str, base_url: str | None, max_level: int, warn: Warn | None, anchors: str
) -> Page:
    url = base_url or ""
    path = page_path_from_url(url)
    return parse_markdown(
        text,
        url=url,
        path=path,
        fallback_title=title_from_path(path),
        max_level=max_level,
        warn=warn,
        anchors=anchors,
    )


def _page(
    body_lines: list[str],
    start: _Start,
    slugger: Slugger,
    base_url: str | None,
    clean_urls: bool,
    max_level: int,
    say: Warn,
    anchors: str,
) -> Page:
    title = strip_inline(decode_entities(start.title))
    if start.url:
        url = urljoin(base_url, start.url) if base_url else start.url
        url = site_url(url) if clean_urls else url
        path = page_path_from_url(url)
    else:
        path = slugger.slug(title or "page")
        url = f"{base_url}#{path}" if base_url else path
    page = parse_markdown(
        "\n".join(body_lines),
        url=url,
        path=path,
        fallback_title=title or title_from_path(path),
        max_level=max_level,
        warn=lambda message: say(f"{path}: {message}"),
        title=title if start.forced and title else None,
        anchors=anchors,
    )
    if start.group:
        page = replace(page, group=start.group)
    if start.description and not page.description:
        page = replace(page, description=" ".join(start.description.split()))
    return page


def _check_preamble(lines: Sequence[str], expected: re.Pattern[str] | None, say: Warn) -> None:
    unexpected = [line for line in lines if not (expected and expected.match(line))]
    text = "\n".join(unexpected).strip()
    if text:
        say(f"ignored {len(text)} characters before the first page")


def _check_between(lines: Sequence[str], say: Warn) -> None:
    text = "\n".join(line for line in lines if not _WRAPPER_LINE.match(line)).strip()
    if text:
        say(f"ignored {len(text)} characters outside the page tags")


# -- llms.txt ------------------------------------------------------------------------------

# An inline code span (matched so it can be skipped), or a link that is not an image. The
# target may hold one level of parentheses (wiki-style .../Gear_(device)), sit in <...>, and
# be followed by a quoted title.
_LINK = re.compile(
    r"(`+)[^\n]*?\1"
    r"|(?<!!)\[[^\]\n]*\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)"
)


def parse_llms_txt(text: str, *, base_url: str) -> list[str]:
    """Every page an llms.txt links to, as absolute http(s) URLs in first-seen order.

    Fragments are dropped (the builder fetches pages, not places in them), so two links to
    parts of one page yield one URL.
    """
    lines = normalize_text(text).split("\n")
    kinds = classify_lines(lines)
    prose = "\n".join(line for line, kind in zip(lines, kinds) if kind == PROSE)
    urls: dict[str, None] = {}
    for m in _LINK.finditer(prose):
        target = m.group(2)
        if not target or target.startswith("#") or target.lower().startswith("mailto:"):
            continue
        url = urldefrag(urljoin(base_url, target)).url
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            urls.setdefault(url, None)
    return list(urls)
