"""Markdown/MDX page parsing: frontmatter, minimal MDX cleanup, headings -> sections.

Everything here is pure (text in, values out) so sources of any kind can share it and tests
can call it directly. Headings are found only outside fenced code, because a ``# comment`` in
a bash sample is the most common way a naive splitter goes wrong.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import yaml

from .models import Page, Section

PROSE, FENCE, CODE = "prose", "fence", "code"

# Any indentation: Mintlify indents fences inside <Tab>/<Step> components.
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FRONTMATTER_FENCE = re.compile(r"^---[ \t]*$")

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_HTML_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w\\])(_+)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")

# MDX: ESM statements at the start of a line; the keyword list keeps prose and shell
# lines such as "export FOO=1" or "import the module" out.
_ESM = re.compile(
    r"^(?:import\s+(?:[\"'{*]|[\w$]+(?:\s*,\s*\{[^}]*\})?\s+from\b)"
    r"|export\s+(?:const|let|var|function|async|class|default|type|interface|\{|\*))"
)
_ATTR = (  # one JSX attribute: name, name="v", name='v', name={expr} or {...spread}
    r"""\s+(?:[\w:.-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|\{(?:[^{}]|\{[^{}]*\})*\}))?"""
    r"|\{[^{}]*\})"
)
# A JSX component tag (capitalised name); an opening tag glued to a word is not one, so
# `List<String>` survives. Inline code spans match first and are left alone.
_JSX_TAG = re.compile(rf"(`+).*?\1|(</|(?<!\w)<)([A-Z][\w.]*)((?:{_ATTR})*)\s*/?>")
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
_TITLE_ATTR = re.compile(r"""\btitle\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_DROPPED = "\ufdd0"  # marks where a tag was removed, so emptied lines can be dropped

_PAGE_EXTENSIONS = (".md", ".mdx", ".html", ".htm", ".txt")


def normalize_text(text: str) -> str:
    """Drop a UTF-8 BOM and turn CRLF/CR into LF, so every rule below sees one shape."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def classify_lines(lines: Sequence[str]) -> list[str]:
    """Tag each line PROSE, FENCE (an opening/closing fence line) or CODE.

    A fence closes only with the same character and at least the same length, so a ````
    fence can show ``` samples; an unclosed fence makes the rest of the text code.
    """
    kinds: list[str] = []
    fence: tuple[str, int] | None = None
    for line in lines:
        if fence is None:
            m = _FENCE_OPEN.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = (m.group(1)[0], len(m.group(1)))
                kinds.append(FENCE)
            else:
                kinds.append(PROSE)
            continue
        char, length = fence
        stripped = line.strip()
        if len(stripped) >= length and stripped == char * len(stripped):
            fence = None
            kinds.append(FENCE)
        else:
            kinds.append(CODE)
    return kinds


def split_code(text: str) -> tuple[str, str]:
    """Return (prose, code): the indexer weighs fenced code lower than the prose around it."""
    lines = normalize_text(text).split("\n")
    kinds = classify_lines(lines)
    prose = [line for line, kind in zip(lines, kinds) if kind == PROSE]
    code = [line for line, kind in zip(lines, kinds) if kind == CODE]
    return "\n".join(prose).strip("\n"), "\n".join(code).strip("\n")


# -- headings and anchors ----------------------------------------------------------------


def _strip_markup(text: str) -> str:
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    text = text.replace("*", "").replace("~~", "")
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return _ESCAPE.sub(r"\1", text)


def strip_inline(text: str) -> str:
    """Heading text as a reader sees it: no backticks, emphasis, link targets or tags."""
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_strip_markup(text[pos : m.start()]))
        parts.append(m.group(2).strip())
        pos = m.end()
    parts.append(_strip_markup(text[pos:]))
    return " ".join("".join(parts).split())


def slugify(heading: str) -> str:
    """The anchor GitHub and Mintlify give a heading: lowercase words joined by '-'.

    Letters (any script), digits, combining marks, '-' and '_' survive; other punctuation
    is dropped and each space becomes '-'. May return "" (see ``Slugger`` for a fallback).
    """
    text = strip_inline(heading).lower()
    kept = "".join(
        ch for ch in text if ch.isalnum() or ch in "-_ " or unicodedata.category(ch).startswith("M")
    )
    return kept.strip().replace(" ", "-")


class Slugger:
    """Unique anchors within one page, numbered the GitHub way: foo, foo-1, foo-2."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, heading: str) -> str:
        base = slugify(heading) or "section"
        candidate = base
        while candidate in self._seen:
            self._seen[base] += 1
            candidate = f"{base}-{self._seen[base]}"
        self._seen[candidate] = 0
        return candidate


class _Heading(NamedTuple):
    line: int
    level: int
    text: str


def _find_headings(lines: Sequence[str], kinds: Sequence[str]) -> list[_Heading]:
    headings = []
    for i, (line, kind) in enumerate(zip(lines, kinds)):
        m = _ATX.match(line) if kind == PROSE else None
        if not m or not m.group(2):
            continue
        raw = _ATX_CLOSING.sub("", m.group(2)).strip()
        if raw:
            headings.append(_Heading(i, len(m.group(1)), strip_inline(raw) or raw))
    return headings


# -- frontmatter and MDX -----------------------------------------------------------------


def split_frontmatter(text: str) -> tuple[dict, str, str | None]:
    """Split a leading ``---`` YAML block from the body; never raises.

    Returns (meta, body, warning). Bad YAML still removes the block, so its lines do not
    end up indexed as prose; the warning says why the metadata was ignored.
    """
    lines = normalize_text(text).split("\n")
    if not _FRONTMATTER_FENCE.match(lines[0]):
        return {}, text, None
    end = next((i for i in range(1, len(lines)) if _FRONTMATTER_FENCE.match(lines[i])), None)
    if end is None:  # a lone thematic break, not frontmatter
        return {}, text, None
    body = "\n".join(lines[end + 1 :])
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    # Besides YAMLError, PyYAML lets ValueError (an impossible date, `!!int x`) and
    # RecursionError (absurd nesting) escape; all of them mean "ignore this metadata".
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        return {}, body, f"malformed frontmatter: {_yaml_reason(exc)}"
    if meta is None:
        return {}, body, None
    if not isinstance(meta, dict):
        return {}, body, f"malformed frontmatter: expected a mapping, got {type(meta).__name__}"
    return meta, body, None


def _yaml_reason(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (line {mark.line + 2})"  # +1 for 1-based, +1 for the '---'
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _esm_end(lines: Sequence[str], kinds: Sequence[str], start: int) -> int:
    """Index of the last line of the ESM statement at ``start`` (balanced brackets)."""
    depth = 0
    for i in range(start, len(lines)):
        if kinds[i] != PROSE:
            break
        depth += sum(lines[i].count(c) for c in "([{") - sum(lines[i].count(c) for c in ")]}")
        if depth <= 0:
            return i
    return start  # never balanced: drop only the first line rather than the rest


def _replace_tag(m: re.Match[str]) -> str:
    if m.group(1):  # an inline code span: leave it alone
        return m.group(0)
    title = None if m.group(2) == "</" else _TITLE_ATTR.search(m.group(4))
    if title:
        return f"{_DROPPED}\n{title.group(1) or title.group(2) or ''}\n{_DROPPED}"
    return _DROPPED


def _clean_prose(lines: list[str]) -> list[str]:
    text = _JSX_COMMENT.sub(_DROPPED, "\n".join(lines))
    text = _JSX_TAG.sub(_replace_tag, text)
    kept = []
    for line in text.split("\n"):
        if _DROPPED in line and not line.replace(_DROPPED, "").strip():
            continue
        kept.append(line.replace(_DROPPED, ""))
    return kept


def strip_mdx(text: str) -> str:
    """Minimal MDX cleanup so component syntax does not pollute search text.

    Drops import/export statements and component tags, keeps the text inside components,
    and keeps a ``title="…"`` attribute as its own line (tab and card titles are content).
    Fenced code is never touched.
    """
    lines = normalize_text(text).split("\n")
    kinds = classify_lines(lines)
    out: list[str] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        if kinds[i] != PROSE:
            out += _clean_prose(prose) if prose else []
            prose = []
            out.append(lines[i])
        elif _ESM.match(lines[i]):
            i = _esm_end(lines, kinds, i)
        else:
            prose.append(lines[i])
        i += 1
    out += _clean_prose(prose) if prose else []
    return "\n".join(out)


# -- pages -------------------------------------------------------------------------------


def page_path_from_url(url: str) -> str:
    """The stable page id: URL path without host, query, fragment, slashes or extension."""
    parts = urlsplit(url.replace("\\", "/"))
    segments = [s for s in unquote(parts.path).split("/") if s and s != "."]
    path = "/".join(segments)
    lowered = path.lower()
    for ext in _PAGE_EXTENSIONS:
        if lowered.endswith(ext):
            path = path[: -len(ext)]
            break
    if path == "index" or path.endswith("/index"):
        path = path[: -len("index")].rstrip("/")
    return path or "index"


def title_from_path(path: str) -> str:
    """A readable fallback title from the last path segment: getting-started -> Getting started."""
    name = page_path_from_url(path).rsplit("/", 1)[-1]
    words = " ".join(name.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:] if words else "Untitled"


def _meta_str(meta: dict, key: str) -> str:
    value = meta.get(key)
    return str(value).strip() if isinstance(value, (str, int, float)) else ""


def _trimmed(lines: Sequence[str]) -> str:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


def _choose_title(
    explicit: str, headings: Sequence[_Heading], fallback: str
) -> tuple[str, int | None]:
    """Return the page title and the line of the H1 that it consumes, if any.

    A leading H1 is the title unless an explicit title exists; then it is consumed only when
    it repeats that title, so pages that carry both do not get a duplicate section.
    """
    first = headings[0] if headings else None
    leading_h1 = first if first is not None and first.level == 1 else None
    if explicit:
        consumed = leading_h1 is not None and leading_h1.text == explicit
        return explicit, leading_h1.line if consumed else None
    if leading_h1 is not None:
        return leading_h1.text, leading_h1.line
    return fallback, None


def parse_markdown(
    text: str,
    *,
    url: str,
    path: str,
    fallback_title: str,
    max_level: int = 3,
    warn: Callable[[str], None] | None = None,
    title: str | None = None,
) -> Page:
    """Parse one Markdown/MDX page into an intro section plus one section per heading.

    ``title`` forces the page title (llms-full pages carry it outside the body); otherwise
    frontmatter ``title`` wins, then a leading H1, then ``fallback_title``.
    """
    meta, body, problem = split_frontmatter(normalize_text(text))
    if problem and warn is not None:
        warn(problem)
    lines = strip_mdx(body).split("\n")
    headings = _find_headings(lines, classify_lines(lines))
    page_title, title_line = _choose_title(
        title or _meta_str(meta, "title"), headings, fallback_title
    )

    slugger = Slugger()  # every heading takes a number, as on the rendered page
    anchors = {h.line: slugger.slug(h.text) for h in headings}
    heads = [h for h in headings if h.line != title_line and h.level <= max_level]

    intro_end = heads[0].line if heads else len(lines)
    intro = [line for i, line in enumerate(lines[:intro_end]) if i != title_line]
    sections = [Section(anchor="", heading="", level=0, path=(page_title,), text=_trimmed(intro))]
    stack: list[_Heading] = []
    for k, head in enumerate(heads):
        while stack and stack[-1].level >= head.level:
            stack.pop()
        stack.append(head)
        end = heads[k + 1].line if k + 1 < len(heads) else len(lines)
        sections.append(
            Section(
                anchor=anchors[head.line],
                heading=head.text,
                level=head.level,
                path=(page_title, *(h.text for h in stack)),
                text=_trimmed(lines[head.line + 1 : end]),
            )
        )
    return Page(
        url=url,
        path=path,
        title=page_title,
        description=_meta_str(meta, "description"),
        sections=tuple(sections),
    )
