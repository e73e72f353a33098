"""llms-full.txt splitting and llms.txt link extraction (pure; the builder does the fetching).

Mintlify's llms-full.txt has no separator between pages: a page is a ``# Title`` line followed
by a ``Source: URL`` line. That pair is the only reliable boundary, since pages contain their
own H1s and code samples contain ``# comment`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple
from urllib.parse import urldefrag, urljoin, urlsplit

from .markdown import (
    PROSE,
    Slugger,
    classify_lines,
    normalize_text,
    page_path_from_url,
    parse_markdown,
    split_frontmatter,
    strip_inline,
    title_from_path,
)
from .models import Page

_PAGE_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t]*$")
_SOURCE = re.compile(r"^Source:[ \t]*(\S+)[ \t]*$")
# An inline code span (matched so it can be skipped), or a link that is not an image. The
# target may hold one level of parentheses (wiki-style .../Gear_(device)), sit in <...>, and
# be followed by a quoted title.
_LINK = re.compile(
    r"(`+)[^\n]*?\1"
    r"|(?<!!)\[[^\]\n]*\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)"
)


class _Start(NamedTuple):
    """Where a page begins: its title line, the first body line, title and URL."""

    line: int
    body: int
    title: str
    url: str


def _source_starts(
    lines: Sequence[str], kinds: Sequence[str], base_url: str | None
) -> list[_Start]:
    starts = []
    for i, line in enumerate(lines):
        m = _PAGE_TITLE.match(line) if kinds[i] == PROSE else None
        if not m:
            continue
        j = i + 1
        while j < len(lines) and kinds[j] == PROSE and not lines[j].strip():
            j += 1
        source = _SOURCE.match(lines[j]) if j < len(lines) and kinds[j] == PROSE else None
        if source:
            url = urljoin(base_url, source.group(1)) if base_url else source.group(1)
            starts.append(_Start(i, j + 1, m.group(1), url))
    return starts


_YAML_LINE = re.compile(r"^(?:[A-Za-z_][\w-]*:(?:\s.*)?|\s+\S.*|)$")
_FRONTMATTER_SCAN = 60  # lines a page's frontmatter block may span


def _frontmatter_starts(
    lines: Sequence[str], kinds: Sequence[str], base_url: str | None
) -> list[_Start]:
    """vitepress-plugin-llms: every page opens with a ``---`` YAML block that has ``url:``.

    ``body`` is the opening ``---`` line itself, so the page keeps its frontmatter (and with
    it ``description``) for ``parse_markdown``; the title comes from the page's ``# `` line.
    """
    starts = []
    i = 0
    while i < len(lines):
        if kinds[i] != PROSE or lines[i].strip() != "---":
            i += 1
            continue
        end = next(
            (j for j in range(i + 1, min(len(lines), i + _FRONTMATTER_SCAN)) if lines[j].strip() == "---"),
            None,
        )
        block = lines[i + 1 : end] if end else []
        url = _frontmatter_url(block)
        if url is None:
            i += 1
            continue
        starts.append(_Start(i, i, "", urljoin(base_url, url) if base_url else url))
        i = end + 1  # type: ignore[operator]
    return starts


def _frontmatter_url(block: Sequence[str]) -> str | None:
    if not block or not all(_YAML_LINE.match(line) for line in block):
        return None
    if not any(line.startswith("url:") for line in block):
        return None
    meta, _body, _warning = split_frontmatter("---\n" + "\n".join(block) + "\n---\n")
    url = meta.get("url")
    return url.strip() if isinstance(url, str) and url.strip() else None


def _heading_starts(
    lines: Sequence[str], kinds: Sequence[str], base_url: str | None
) -> list[_Start]:
    slugger = Slugger()
    starts = []
    for i, line in enumerate(lines):
        m = _PAGE_TITLE.match(line) if kinds[i] == PROSE else None
        if m:
            slug = slugger.slug(m.group(1))
            starts.append(_Start(i, i + 1, m.group(1), f"{base_url}#{slug}" if base_url else slug))
    return starts


def split_llms_full(
    text: str,
    *,
    base_url: str | None = None,
    max_level: int = 3,
    warn: Callable[[str], None] | None = None,
) -> list[Page]:
    """Split an llms-full.txt into pages.

    Mintlify files: one page per ``# Title`` + ``Source:`` pair. vitepress-plugin-llms files:
    one page per ``---`` frontmatter block with a ``url:``. Without either, the file is split
    at top-level ``# `` headings (with a warning), each page addressed by ``base_url#slug``
    and given the slug as its path.
    """
    say = warn or (lambda message: None)
    text = normalize_text(text)
    lines = text.split("\n")
    kinds = classify_lines(lines)
    starts = _source_starts(lines, kinds, base_url)
    by_frontmatter = False
    if not starts:
        starts = _frontmatter_starts(lines, kinds, base_url)
        by_frontmatter = bool(starts)
    by_heading = not starts
    if by_heading:
        starts = _heading_starts(lines, kinds, base_url)
        if starts:
            say("no Source: lines found; split at top-level '# ' headings")
        elif text.strip():
            say("no Source: lines or '# ' headings found; the whole file is one page")
            url = base_url or ""
            path = page_path_from_url(url)
            title = title_from_path(path)
            return [
                parse_markdown(
                    text, url=url, path=path, fallback_title=title, max_level=max_level, warn=warn
                )
            ]
        else:
            return []

    preamble = "\n".join(lines[: starts[0].line]).strip()
    if preamble:
        say(f"ignored {len(preamble)} characters before the first page")

    pages = []
    for k, start in enumerate(starts):
        end = starts[k + 1].line if k + 1 < len(starts) else len(lines)
        path = start.url.rsplit("#", 1)[-1] if by_heading else page_path_from_url(start.url)
        body_lines = lines[start.body : end]
        if by_frontmatter:
            # Pages are joined by a bare "---" line; it belongs to neither page.
            while body_lines and body_lines[-1].strip() in ("", "---"):
                body_lines.pop()
        title = strip_inline(start.title) or start.title or title_from_path(path)
        page = parse_markdown(
            "\n".join(body_lines),
            url=start.url,
            path=path,
            fallback_title=title,
            max_level=max_level,
            warn=lambda message, path=path: say(f"{path}: {message}"),
            title=None if by_frontmatter else title,
        )
        pages.append(page)
    return pages


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
