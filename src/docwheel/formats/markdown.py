"""Markdown/MDX page parsing: frontmatter, MDX and HTML cleanup, headings -> sections.

Everything here is pure (text in, values out) so sources of any kind can share it and tests
can call it directly. Headings are found only outside fenced code, because a ``# comment`` in
a bash sample is the most common way a naive splitter goes wrong.

The cleanup keeps what a reader of the rendered page reads: text inside MDX components and
VitePress ``:::`` containers, the text of HTML blocks, decoded entities; and drops what they
never see: ESM lines, component tags, HTML comments, scripts and styles. Admonitions, tabs,
directives, include lines and code line markers are read by ``blocks`` first.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from itertools import groupby
from typing import NamedTuple
from urllib.parse import unquote, urlsplit, urlunsplit

import yaml

from ..doctypes import known_type
from ..models import Anchor, Page, Section
from .blocks import (
    clean_code,
    drop_markers,
    drop_placeholders,
    myst_roles,
    unwrap_blocks,
    unwrap_directives,
)

PROSE, FENCE, CODE, COMMENT = "prose", "fence", "code", "comment"  # as in ``blocks``

# Any indentation: Mintlify indents fences inside <Tab>/<Step> components.
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FRONTMATTER_FENCE = re.compile(r"^---[ \t]*$")
_COMMENT_OPEN = re.compile(r"^[ \t]*<!--")
# An unclosed "<!--" would otherwise hide everything up to the next "-->" anywhere later,
# which in a concatenated llms-full.txt can be pages away.
_COMMENT_MAX_LINES = 400

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
# A tab's label (Docusaurus and Starlight `<TabItem label="npm">`); Docusaurus shows the
# value when there is no label.
_TAB_LABEL_ATTR = re.compile(r"""(?<![\w-])(label|value)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_DROPPED = "\ufdd0"  # marks where a tag was removed, so emptied lines can be dropped

_PAGE_EXTENSIONS = (".md", ".mdx", ".rst", ".html", ".htm", ".txt")


def normalize_text(text: str) -> str:
    """Drop a UTF-8 BOM and turn CRLF/CR into LF, so every rule below sees one shape."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def classify_lines(lines: Sequence[str]) -> list[str]:
    """Tag each line PROSE, FENCE (an opening/closing fence line), CODE or COMMENT.

    A fence closes only with the same character and at least the same length, so a ````
    fence can show ``` samples; an unclosed fence makes the rest of the text code. A line
    that starts an HTML comment (``<!--`` outside code) makes every line up to the one that
    closes it COMMENT, fences included, as CommonMark does; an unclosed comment is prose.
    """
    closers = [i for i, line in enumerate(lines) if "-->" in line]
    kinds: list[str] = []
    fence: tuple[str, int] | None = None
    comment_end = -1
    for i, line in enumerate(lines):
        if i <= comment_end:
            kinds.append(COMMENT)
            continue
        if fence is None:
            m = _FENCE_OPEN.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = (m.group(1)[0], len(m.group(1)))
                kinds.append(FENCE)
            elif _COMMENT_OPEN.match(line) and (end := _comment_end(lines, closers, i)) >= 0:
                comment_end = end
                kinds.append(COMMENT)
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


def _comment_end(lines: Sequence[str], closers: Sequence[int], start: int) -> int:
    """The line that closes the comment opened at ``start``, or -1 if it is not a block.

    A one-line comment is a block only when nothing follows its ``-->``; otherwise the line
    is prose and the inline comment is removed with the rest of the markup.
    """
    line = lines[start]
    after = line[line.index("<!--") + 4 :]
    if "-->" in after:
        return start if line.rstrip().endswith("-->") else -1
    k = bisect_left(closers, start + 1)
    if k < len(closers) and closers[k] - start <= _COMMENT_MAX_LINES:
        return closers[k]
    return -1


def split_code(text: str) -> tuple[str, str]:
    """Return (prose, code): the indexer weighs fenced code lower than the prose around it.

    The prose is what a reader sees (``visible_prose``). Backslash escapes in it are read as
    the characters they escape, so that ``claude\\_desktop\\_config.json`` is indexed as the
    name it shows."""
    lines = normalize_text(text).split("\n")
    kinds = classify_lines(lines)
    prose = [line for line, kind in zip(lines, kinds) if kind == PROSE]
    code = [line for line, kind in zip(lines, kinds) if kind == CODE]
    shown = "\n".join(map(visible_prose, prose))
    return _ESCAPE.sub(r"\1", shown).strip("\n"), "\n".join(code).strip("\n")


# Tag attributes a reader never sees as text: link targets, image sources, styling, icons.
_HIDDEN_ATTRIBUTES = frozenset(
    "href src srcset style class classname target rel icon icontype id key width height "
    "color align size cols img".split()
)
_PATH_STARTS = ("/", "#", "./", "../")
# An HTML tag; an opening one glued to a word is a type (List<String>), not a tag.
_SHOWN_TAG = re.compile(r"(?:</|(?<!\w)<)[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")
_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{([^{}]*)\})""")


def visible_prose(text: str) -> str:
    """Prose as the page shows it, for searching: a link's or an image's text without its
    target, and of an HTML or MDX tag only the attributes that label something
    (``<Card title="Environment">``, ``<ParamField body="dependencies">``), not the tag's
    name, links, styling or icons. Code spans are kept as written."""
    if "<" not in text and "](" not in text and "][" not in text:
        return text
    if "`" not in text:
        return _visible_markup(text)
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_visible_markup(text[pos : m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(_visible_markup(text[pos:]))
    return "".join(parts)


def _visible_markup(text: str) -> str:
    if "](" in text or "][" in text:
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
    if "<" in text:
        text = _SHOWN_TAG.sub(_shown_attributes, text)
    return text


def _shown_attributes(tag: re.Match) -> str:
    text = tag.group(0)
    if "=" not in text:
        return " "
    shown = [
        value
        for name, quoted, single, braced in _ATTRIBUTE.findall(text)
        if name.lower() not in _HIDDEN_ATTRIBUTES
        and (value := quoted or single or braced)
        and "://" not in value
        and not value.startswith(_PATH_STARTS)
    ]
    return f" {' '.join(shown)} " if shown else " "


# -- headings and anchors ----------------------------------------------------------------


def _strip_markup(text: str) -> str:
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    text = text.replace("*", "").replace("~~", "")
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return _ESCAPE.sub(r"\1", text)


def heading_markdown(raw: str) -> str:
    """A heading as Markdown for reading: ``heading_text`` with its code spans kept in
    backticks (``The `app` object``), so a code span showing a tag stays code."""
    return strip_inline(_without_components(raw) if "<" in raw else raw, keep_code=True)


def strip_inline(text: str, *, keep_code: bool = False) -> str:
    """Heading text as a reader sees it: no backticks, emphasis, link targets or tags
    (``keep_code``: code spans stay as written, backticks and all)."""
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_strip_markup(text[pos : m.start()]))
        parts.append(m.group(0) if keep_code else m.group(2).strip())
        pos = m.end()
    parts.append(_strip_markup(text[pos:]))
    return " ".join("".join(parts).translate(_INVISIBLE).split())


# A component in a heading (`<Badge type="tip">beta</Badge>`, `<CRoot />`): a label the
# theme draws beside the title, not part of it.
_HEADING_COMPONENT = re.compile(r"<([A-Z][\w.]*)(?:\s[^<>]*)?(?:/>|>[^<]*</\1\s*>)")


def heading_text(raw: str) -> str:
    """A heading as its title reads: ``strip_inline`` without components (badges)."""
    return strip_inline(_without_components(raw) if "<" in raw else raw)


def _drop_heading_components(lines: list[str]) -> list[str]:
    """Badges and other components leave heading lines whole, their text too (the MDX
    cleanup after this keeps a component's text, as it should in prose)."""
    return [
        _without_components(line) if "<" in line and _ATX.match(line) else line for line in lines
    ]


def _without_components(raw: str) -> str:
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(raw):
        parts += [_HEADING_COMPONENT.sub("", raw[pos : m.start()]), m.group(0)]
        pos = m.end()
    parts.append(_HEADING_COMPONENT.sub("", raw[pos:]))
    return "".join(parts)


def slugify(heading: str, keep: str = "-_ ", *, plain: bool = False) -> str:
    """The anchor GitHub gives a heading: lowercase words joined by '-'.

    Letters (any script), digits, combining marks, '-' and '_' survive; other punctuation
    is dropped and each space becomes '-'. May return "" (see ``Slugger`` for a fallback).
    """
    text = (heading if plain else strip_inline(heading)).lower()
    kept = "".join(
        ch for ch in text if ch.isalnum() or ch in keep or unicodedata.category(ch).startswith("M")
    )
    return kept.strip().replace(" ", "-")


def slugify_mintlify(heading: str, *, plain: bool = False) -> str:
    """The anchor a Mintlify site gives a heading: GitHub's, except that '/' is kept
    (`tools/list` -> `tools/list`; the sites' own links read `#tools%2Flist`) and '_' or
    '-' at either end goes (`_meta` -> `meta`, as 27 of the MCP docs' 29 links to it read)."""
    return slugify(heading, keep="-_ /", plain=plain).strip("_-")


# VitePress (markdown-it-anchor with VitePress's slugify): accents dropped, every run of
# whitespace or ASCII punctuation (and curly quotes) becomes one '-', a leading digit gets
# '_' so the id is a valid selector.
_VP_SPECIAL = re.compile(r"""[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:"'“”‘’<>,.?/]+""")
_VP_CONTROL = re.compile(r"[\x00-\x1f]")
_VP_COMBINING = re.compile(r"[\u0300-\u036f]")


def slugify_vitepress(heading: str, *, plain: bool = False) -> str:
    """The anchor a VitePress site gives a heading (its default slugify)."""
    text = unicodedata.normalize("NFKD", heading if plain else strip_inline(heading))
    text = _VP_CONTROL.sub("", _VP_COMBINING.sub("", text))
    text = _VP_SPECIAL.sub("-", text).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


# MkDocs (Python-Markdown's toc extension, the default ``slugify``): accents folded to
# ASCII and the rest of non-ASCII dropped, then every character that is not a word
# character, space or '-' dropped, and runs of spaces and '-' become one '-'.
_MK_DROP = re.compile(r"[^\w\s-]")
_MK_JOIN = re.compile(r"[-\s]+")


def slugify_mkdocs(heading: str, *, plain: bool = False) -> str:
    """The anchor an MkDocs site gives a heading (Python-Markdown's toc slugify)."""
    text = unicodedata.normalize("NFKD", heading if plain else strip_inline(heading))
    text = text.encode("ascii", "ignore").decode("ascii")
    return _MK_JOIN.sub("-", _MK_DROP.sub("", text).strip().lower())


# Sphinx (docutils' make_id): ASCII lower case, every run of other characters one '-',
# leading digits and '-' dropped (an id starts with a letter).
_DU_OTHER = re.compile(r"[^a-z0-9]+")
_DU_ENDS = re.compile(r"^[-0-9]+|-+$")


def slugify_docutils(heading: str, *, plain: bool = False) -> str:
    """The id docutils (and so Sphinx) gives a section title."""
    text = unicodedata.normalize("NFKD", (heading if plain else strip_inline(heading)).lower())
    text = text.encode("ascii", "ignore").decode("ascii")
    return _DU_ENDS.sub("", _DU_OTHER.sub("-", " ".join(text.split())))


ANCHOR_STYLES = {
    "github": slugify,
    "docutils": slugify_docutils,
    "mintlify": slugify_mintlify,
    "vitepress": slugify_vitepress,
    "mkdocs": slugify_mkdocs,
}
# How a repeated anchor is told apart: "foo-1" (GitHub, github-slugger, markdown-it-anchor)
# or "foo_1" (Python-Markdown's toc, which also numbers an empty slug "_1").
_NUMBERING = {"mkdocs": "_"}
# A heading's attribute list (`## Title {#custom-id}`, MkDocs attr_list `{ #id .class }`,
# `{: #id }`): the id is the anchor, and the whole list leaves the heading text.
_ATTR_LIST = re.compile(
    r"[ \t]*\{:?[ \t]*((?:[#.][\w.:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]*))"
    r"(?:[ \t]+(?:[#.][\w.:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]*)))*)[ \t]*\}[ \t]*$"
)
_ATTR_ID = re.compile(r"(?:^|\s)#([A-Za-z0-9_][\w.:-]*)")


def split_attr_list(heading: str) -> tuple[str, str | None]:
    """(heading text without a trailing attribute list, the id it sets or None).

    Only a list of attributes counts (``#id``, ``.class``, ``key=value``), so a heading that
    ends in ``{name}`` as a placeholder keeps it."""
    m = _ATTR_LIST.search(heading)
    if m is None or m.start() == 0:
        return heading, None
    found = _ATTR_ID.search(m.group(1))
    return heading[: m.start()], found.group(1) if found else None


class Slugger:
    """Unique anchors within one page, numbered as the site numbers them: foo, foo-1, foo-2
    (or foo_1, foo_2 on MkDocs).

    ``style`` names the site generator whose slug rules the anchors follow (``ANCHOR_STYLES``).
    ``slug`` takes a heading as its text reads (``heading_text``): markup already gone, so a
    code span's ``<Tabs>`` counts as the characters it shows.
    """

    def __init__(self, style: str = "github") -> None:
        self._seen: dict[str, int] = {}
        self._slugify = ANCHOR_STYLES[style]
        self._join = _NUMBERING.get(style, "-")
        self._fallback = "" if self._join == "_" else "section"

    def slug(self, heading: str, custom: str | None = None) -> str:
        if custom:
            self._seen.setdefault(custom, 0)
            return custom
        base = self._slugify(heading, plain=True) or self._fallback
        candidate = base
        while candidate in self._seen or not candidate:
            self._seen[base] = self._seen.get(base, 0) + 1
            candidate = f"{base}{self._join}{self._seen[base]}"
        self._seen[candidate] = 0
        return candidate


class _Heading(NamedTuple):
    line: int
    level: int
    text: str
    anchor: str | None = None  # from a `{#custom-id}` suffix
    markdown: str = ""  # as written (inline code, emphasis), without id or components


def _find_headings(lines: Sequence[str], kinds: Sequence[str]) -> list[_Heading]:
    headings = []
    for i, (line, kind) in enumerate(zip(lines, kinds)):
        m = _ATX.match(line) if kind == PROSE else None
        if not m or not m.group(2):
            continue
        raw, anchor = split_attr_list(_ATX_CLOSING.sub("", m.group(2)).strip())
        raw = raw.strip()
        if raw:
            text = heading_text(raw) or raw
            shown = heading_markdown(raw)
            headings.append(_Heading(i, len(m.group(1)), text, anchor, shown if shown != text else ""))
    return headings


# `<a name="custom-parser-api"></a>`, `<a id="x">`: a link target a page author placed.
_HTML_ANCHOR = re.compile(
    r"""<a\s(?:[^<>]*?\s)?(?:name|id)\s*=\s*["']([^"'<>\s]+)["'][^<>]*>""", re.I
)


class _InsideAnchors:
    """The anchors inside each section's text (``Section.anchors``): headings deeper than
    the section split, and HTML anchors. An HTML anchor alone on a line before a heading
    (or inside the heading line) names that heading, as a browser scrolls to it; elsewhere
    it is a bare target. Sections are read in page order: anchors that end one section
    name the next one's heading."""

    def __init__(
        self,
        lines: Sequence[str],
        kinds: Sequence[str],
        deep: dict[int, _Heading],
        ids: dict[int, str],
    ) -> None:
        self._lines, self._kinds, self._deep, self._ids = lines, kinds, deep, ids
        self._taken = set(ids.values())  # an <a name> repeating a heading's id adds nothing
        self._carried: list[str] = []

    def _names(self, line: str) -> list[str]:
        if "<a" not in line and "<A" not in line:
            return []
        if "`" in line:
            line = _CODE_SPAN.sub("", line)  # `<a id="x">` in code is shown, not a target
        found = [n for n in _HTML_ANCHOR.findall(line) if n not in self._taken]
        self._taken.update(found)
        return found

    def read(
        self, numbers: Sequence[int], head: _Heading | None = None, last: bool = False
    ) -> tuple[str, tuple[Anchor, ...]]:
        """The text of lines ``numbers``, blank lines trimmed at both ends, and the
        anchors in it (offsets into that text). Unless it is the ``last`` section, HTML
        anchor lines that end it go with the next heading, out of this text."""
        lines, kinds = self._lines, self._kinds
        kept = _trim(numbers, lines)
        found: list[Anchor] = []
        if head is not None:  # what the previous section carried, and the heading line's own
            names = self._carried + self._names(lines[head.line])
            found += [Anchor(name, head.text, head.level, 0) for name in names]
        pending: list[tuple[str, int, int]] = []  # HTML anchors waiting for the next heading
        offset = 0
        for k, i in enumerate(kept):
            line = lines[i]
            if kinds[i] == PROSE:
                deep = self._deep.get(i)
                names = self._names(line)
                if deep is not None:
                    found.append(Anchor(self._ids[i], deep.text, deep.level, offset))
                    names = [name for name, _, _ in pending] + names
                    found += [Anchor(name, deep.text, deep.level, offset) for name in names]
                    pending = []
                elif names and not _HTML_ANCHOR.sub("", line).replace("</a>", "").strip():
                    pending += [(name, offset, k) for name in names]
                elif line.strip():
                    found += [Anchor(name, "", 0, at) for name, at, _ in pending]
                    found += [Anchor(name, "", 0, offset) for name in names]
                    pending = []
            offset += len(line) + 1
        if pending and last:
            found += [Anchor(name, "", 0, at) for name, at, _ in pending]
        elif pending:
            kept = _trim(kept[: pending[0][2]], lines)
        self._carried = [] if last else [name for name, _, _ in pending]
        return "\n".join(lines[i] for i in kept), tuple(sorted(found, key=lambda a: a.offset))


def _trim(numbers: Sequence[int], lines: Sequence[str]) -> Sequence[int]:
    """``numbers`` without the blank lines at either end."""
    start, end = 0, len(numbers)
    while start < end and not lines[numbers[start]].strip():
        start += 1
    while end > start and not lines[numbers[end - 1]].strip():
        end -= 1
    return numbers[start:end]


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
        meta = _load_yaml("\n".join(lines[1:end]))
    # Besides YAMLError, PyYAML lets ValueError (an impossible date, `!!int x`) and
    # RecursionError (absurd nesting) escape; all of them mean "ignore this metadata".
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        return {}, body, f"malformed frontmatter: {_yaml_reason(exc)}"
    if meta is None:
        return {}, body, None
    if not isinstance(meta, dict):
        return {}, body, f"malformed frontmatter: expected a mapping, got {type(meta).__name__}"
    return meta, body, None


# libyaml's parser, where PyYAML was built with it: a tenth of the pure parser's time
# (frontmatter was a third of parsing a Markdown tree). Same constructor, same values.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def _load_yaml(text: str) -> object:
    """``yaml.safe_load``, faster. Anything libyaml refuses is parsed again by the pure
    parser, so what is accepted and every error message stay PyYAML's own."""
    if _FAST_LOADER is not None:
        try:
            return yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 (a safe loader)
        except Exception:
            pass
    return yaml.safe_load(text)


def _yaml_reason(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (line {mark.line + 2})"  # +1 for 1-based, +1 for the '---'
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _esm_end(lines: Sequence[str], start: int) -> int:
    """Index of the last line of the ESM statement at ``start`` (balanced brackets)."""
    depth = 0
    for i in range(start, len(lines)):
        depth += sum(lines[i].count(c) for c in "([{") - sum(lines[i].count(c) for c in ")]}")
        if depth <= 0:
            return i
    return start  # never balanced: drop only the first line rather than the rest


def _drop_esm(lines: list[str]) -> list[str]:
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if _ESM.match(lines[i]):
            i = _esm_end(lines, i) + 1
        else:
            kept.append(lines[i])
            i += 1
    return kept


def _replace_tag(m: re.Match[str]) -> str:
    if m.group(1):  # an inline code span: leave it alone
        return m.group(0)
    title = None if m.group(2) == "</" else _TITLE_ATTR.search(m.group(4))
    if title:
        return f"{_DROPPED}\n{title.group(1) or title.group(2) or ''}\n{_DROPPED}"
    if m.group(2) != "</" and m.group(3).endswith("TabItem"):
        found = {name: a or b for name, a, b in _TAB_LABEL_ATTR.findall(m.group(4))}
        label = found.get("label") or found.get("value")
        if label:
            return f"{_DROPPED}\n{label}\n{_DROPPED}"
    return _DROPPED


# Where a component tag may start (code spans first, so a tag inside one is left alone).
_TAG_START = re.compile(r"(`+)[^\n]*?\1|(?<!\w)<[A-Z][\w.]*")
_TAG_SCAN = 20_000  # characters a tag's attributes may span


def _flatten_expressions(text: str) -> str:
    """Attribute expressions of component tags nested deeper than ``_ATTR`` reads
    (``config={[{ label: 'x', items: [{…}] }]}``, ``labels={{ note: '{{date}}' }}``) become
    ``{}``: their content is code, never shown, and the tag can then be matched whole."""
    if "={" not in text:
        return text
    out: list[str] = []
    pos = 0
    for m in _TAG_START.finditer(text):
        if m.group(1) or m.start() < pos:
            continue
        i, limit = m.end(), min(len(text), m.end() + _TAG_SCAN)
        while i < limit and text[i] not in "<>":
            if text[i] in "\"'":
                close = text.find(text[i], i + 1)
                i = close + 1 if close > 0 else limit
            elif text[i] == "{":
                end = _balanced(text, i, limit)
                if end < 0:
                    break
                out.append(text[pos : i + 1])
                pos = end
                i = end + 1
            else:
                i += 1
    out.append(text[pos:])
    return "".join(out)


def _balanced(text: str, start: int, limit: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start`` (quotes skipped), or -1."""
    depth, i = 0, start
    while i < limit:
        ch = text[i]
        if ch in "\"'`":
            close = text.find(ch, i + 1)
            if close < 0:
                return -1
            i = close
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _drop_components(lines: list[str]) -> list[str]:
    text = _JSX_COMMENT.sub(_DROPPED, "\n".join(lines))
    text = _JSX_TAG.sub(_replace_tag, _flatten_expressions(text))
    kept = []
    for line in text.split("\n"):
        if _DROPPED in line and not line.replace(_DROPPED, "").strip():
            continue
        kept.append(line.replace(_DROPPED, ""))
    return kept


def _map_prose(
    text: str, steps: Sequence[Callable[[list[str]], list[str]]], *, keep_comments: bool
) -> str:
    """Run ``steps`` over each run of prose lines; fenced code is never touched.

    Unless ``keep_comments``, comment lines join the prose run as _DROPPED markers, so the
    text on either side of a comment is one run, as a reader sees it.
    """
    lines = normalize_text(text).split("\n")
    kinds = classify_lines(lines)

    def in_run(pair: tuple[str, str]) -> bool:
        return pair[1] == PROSE or (pair[1] == COMMENT and not keep_comments)

    out: list[str] = []
    for is_run, group in groupby(zip(lines, kinds), key=in_run):
        if not is_run:
            out.extend(line for line, _kind in group)
            continue
        run = [line if kind == PROSE else _DROPPED for line, kind in group]
        for step in steps:
            run = step(run)
        out.extend(run)
    return "\n".join(out)


def _drop_marked(lines: list[str]) -> list[str]:
    return [line for line in lines if line != _DROPPED]


def _squeeze_blanks(lines: list[str]) -> list[str]:
    """One blank line where dropped markup (comments, scripts, tags) left several."""
    kept: list[str] = []
    for line in lines:
        if not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line)
    return kept


def strip_mdx(text: str) -> str:
    """Minimal MDX cleanup so component syntax does not pollute search text.

    Drops import/export statements and component tags, keeps the text inside components,
    and keeps a ``title="…"`` attribute as its own line (tab and card titles are content).
    Fenced code is never touched.
    """
    return _map_prose(text, (_drop_esm, _drop_components), keep_comments=True)


# -- containers, HTML and entities ---------------------------------------------------------

# VitePress/Docusaurus containers: "::: tip", "::: warning Custom title", ":::note[Title]",
# ":::". The marker lines go; a custom title is text the reader sees, so it stays.
_CONTAINER = re.compile(
    r"^[ \t]*:{3,}[ \t]*(?:([A-Za-z][\w-]*)|\{([\w-]+)\})?[ \t]*(.*?)[ \t]*$"
)
# Containers whose words after the name are options, not a title (`::: tabs key:provider`).
_UNTITLED_CONTAINERS = frozenset({"tabs", "code-group"})
_INLINE_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_INVISIBLE = str.maketrans({"\u00a0": " ", "\u200b": None, "\u200c": None, "\ufeff": None})


def decode_entities(text: str) -> str:
    """Decode HTML entities (``&nbsp;``, ``&#x7B;``, ``&quot;``) as a browser shows them.

    Only complete references (with ``;``) are decoded, as in CommonMark, so ``?a=1&copy=2``
    in a URL survives. A no-break space becomes a space and zero-width characters go.
    """
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    return text.translate(_INVISIBLE)


def _decode_prose(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if "`" not in line:
            out.append(decode_entities(line))
            continue
        parts, pos = [], 0
        for m in _CODE_SPAN.finditer(line):  # code spans show entities literally
            parts += [decode_entities(line[pos : m.start()]), m.group(0)]
            pos = m.end()
        out.append("".join(parts) + decode_entities(line[pos:]))
    return out


def _drop_containers(lines: list[str]) -> list[str]:
    """Container marker lines go; a custom title stays as a line."""
    out = []
    for line in lines:
        m = _CONTAINER.match(line) if ":::" in line else None
        if m is None:
            out.append(line)
            continue
        name = (m.group(1) or m.group(2) or "").lower()
        title = m.group(3).strip()
        if title.startswith("["):  # `:::note[Title]{icon="…"}`
            title = title[1 : title.index("]")] if "]" in title else title[1:]
        elif title.startswith("{") or name in _UNTITLED_CONTAINERS:
            title = ""  # attributes, or the options of a tabs container
        if name and title.strip():
            out.append(title.strip())
    return out


def _drop_inline_comments(lines: list[str]) -> list[str]:
    text = "\n".join(lines)
    return _INLINE_COMMENT.sub("", text).split("\n") if "<!--" in text else lines


# CommonMark HTML block start conditions 1, 6 and 7 (2-5, comments and declarations, are
# rare in docs; comments are classified as COMMENT lines).
_RAW_OPEN = re.compile(r"^[ \t]*<(script|pre|style|textarea)(?=[\s>]|$)", re.I)
_BLOCK_OPEN = re.compile(r"^[ \t]*</?([A-Za-z][A-Za-z0-9]*)(?=[\s/>]|$)")
_LONE_TAG = re.compile(
    r"""^[ \t]*(?:<[A-Za-z][\w.:-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*?)?/?>"""
    r"|</[A-Za-z][\w.:-]*\s*>)[ \t]*$"
)
_BLOCK_TAGS = frozenset(
    "address article aside base basefont blockquote body caption center col colgroup dd "
    "details dialog dir div dl dt fieldset figcaption figure footer form frame frameset "
    "h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav "
    "noframes ol optgroup option p param search section summary table tbody td tfoot th "
    "thead title tr track ul".split()
)


def _html_blocks(lines: list[str]) -> list[str]:
    """Replace each HTML block (tables, TypeDoc output, ``<details>``) by its text."""
    out: list[str] = []
    i, after_blank = 0, True
    while i < len(lines):
        line = lines[i]
        if "<" not in line:
            out.append(line)
            after_blank = not line.strip()
            i += 1
            continue
        raw = _RAW_OPEN.match(line)
        block = _BLOCK_OPEN.match(line)
        if raw:
            closer = f"</{raw.group(1).lower()}>"
            end = next(
                (j for j in range(i, len(lines)) if closer in lines[j].lower()), len(lines) - 1
            )
            out += html_to_text("\n".join(lines[i : end + 1])).split("\n")
            i = end + 1
        elif (block and block.group(1).lower() in _BLOCK_TAGS) or (
            after_blank and _LONE_TAG.match(line)  # a lone tag cannot interrupt a paragraph
        ):
            end = next((j for j in range(i, len(lines)) if not lines[j].strip()), len(lines))
            text = html_to_text("\n".join(lines[i:end]))
            out += text.split("\n") if text else []
            i = end
        else:
            out.append(line)
            after_blank = False
            i += 1
            continue
        after_blank = False
    return out


class _TextParser(HTMLParser):
    """Collects the text of an HTML fragment: block tags break lines, cells are joined by |."""

    _BREAKS = _BLOCK_TAGS | {"br", "pre", "textarea"}
    _HIDDEN = frozenset({"script", "style", "svg", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0
        self._row_cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self._hidden += 1
        elif tag in ("td", "th"):
            self.parts.append(" | " if self._row_cells else "\n")
            self._row_cells += 1
        elif tag == "tr":
            self._row_cells = 0
            self.parts.append("\n")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt and not self._hidden:
                self.parts.append(alt)
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self._HIDDEN:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in self._BREAKS and tag not in ("td", "th"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def html_to_text(fragment: str) -> str:
    """The text of an HTML fragment, one line per block, entities decoded, spaces collapsed."""
    parser = _TextParser()
    try:
        parser.feed(fragment)
        parser.close()
    except AssertionError:  # html.parser on a malformed "<![" section; keep the words
        parser.parts = [_HTML_TAG.sub(" ", fragment)]
    lines = (" ".join(decode_entities(line).split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


def clean_body(text: str) -> str:
    """Everything a page body needs before headings are read: MDX, containers, HTML, entities.

    Comments and scripts go; components, containers and HTML blocks leave their text.
    """
    steps = (
        _drop_marked,
        _drop_esm,
        _drop_heading_components,
        _drop_components,
        _drop_inline_comments,
        _drop_containers,
        _html_blocks,
        drop_placeholders,
        drop_markers,
        myst_roles,
        _decode_prose,
        _squeeze_blanks,
    )
    return _map_prose(_unwrap(normalize_text(text)), steps, keep_comments=False)


# Cheap tests for the block markup ``blocks`` reads, so most pages skip those passes.
_BLOCK_HINTS = ("!!!", "???", "===", "///", ":::", "--8<--", "<<<", "{*", ")=", "[!code", "twoslash")


# A line that is only a component's opening tag (``<Tab title="Python">``, not self-closing)
# or only its closing tag.
_COMPONENT_OPENS = re.compile(rf"^([ \t]*)<([A-Z][\w.]*)(?:{_ATTR})*\s*>[ \t]*$")
_COMPONENT_CLOSES = re.compile(r"^([ \t]*)</([A-Z][\w.]*)\s*>[ \t]*$")


def unindent_components(text: str) -> str:
    """Component bodies de-indented to their tags' indentation, as MDX reads them.

    MDX has no indented code blocks: Mintlify indents whole tab bodies inside
    ``<Tab>`` … ``</Tab>``, and their ``    ## Heading`` lines are headings on the page (in
    CommonMark, four spaces make them code). Each body loses the indentation all its lines
    share beyond its opening tag's, outer components first; code keeps its own indentation.
    """
    if "</" not in text:
        return text
    lines = text.split("\n")
    kinds = classify_lines(lines)
    open_tags: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    for i, (line, kind) in enumerate(zip(lines, kinds)):
        if kind != PROSE or "<" not in line:
            continue
        if m := _COMPONENT_OPENS.match(line):
            open_tags.append((m.group(2), i))
        elif m := _COMPONENT_CLOSES.match(line):
            for k in range(len(open_tags) - 1, -1, -1):
                if open_tags[k][0] == m.group(2):
                    pairs.append((open_tags[k][1], i))
                    del open_tags[k:]
                    break
    for start, end in sorted(pairs):  # an outer component opens before the ones inside it
        body = [i for i in range(start + 1, end) if lines[i].strip()]
        if not body:
            continue
        shift = min(_indent_width(lines[i]) for i in body) - _indent_width(lines[start])
        if shift > 0:
            for i in range(start + 1, end):
                lines[i] = lines[i][min(shift, _indent_width(lines[i])) :]
    return "\n".join(lines)


def _indent_width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _unwrap(text: str) -> str:
    """Admonitions, tabs, directives and code line markers as the page shows them (``blocks``)."""
    text = unindent_components(text)
    if "```{" in text or "~~~{" in text or ":::{" in text:
        text = unwrap_directives(text, classify_lines)
    if not any(hint in text for hint in _BLOCK_HINTS):
        return text
    lines = text.split("\n")
    lines = unwrap_blocks(lines, classify_lines(lines))
    return "\n".join(clean_code(lines, classify_lines(lines)))


# Mintlify serves every page as Markdown at <page>.md, opening with a note for agents:
# "> ## Documentation Index\n> Fetch the complete documentation index at: …/llms.txt".
_DOC_INDEX = re.compile(r"^>[ \t]*(?:#{1,6}[ \t]+)?\**Documentation Index\b", re.I)


def drop_doc_index(text: str) -> str:
    """Remove a leading "Documentation Index" blockquote (and the blank lines after it)."""
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start == len(lines) or not _DOC_INDEX.match(lines[start]):
        return text
    end = start
    while end < len(lines) and lines[end].lstrip().startswith(">"):
        end += 1
    while end < len(lines) and not lines[end].strip():
        end += 1
    return "\n".join(lines[end:])


# -- pages -------------------------------------------------------------------------------

_SITE_SUFFIXES = (".md", ".mdx", ".markdown", ".html", ".htm")


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


def site_url(url: str) -> str:
    """The address a docs site shows a page at, given the address of its source file.

    The rule: a final ``.md``, ``.mdx``, ``.markdown``, ``.html`` or ``.htm`` is dropped,
    and a final ``index`` segment becomes its folder (``docs/guide/index.md`` ->
    ``docs/guide/``); query and fragment are kept. Mintlify and vitepress-plugin-llms
    publish a Markdown twin of each page at ``<page>.md`` and serve the page itself without
    the extension, and static hosts serve ``<page>.html`` at ``<page>`` too. Sources apply
    it only when the sources file gives a ``base_url`` (the site's reader-facing root):
    without one docwheel cannot know how the site serves its pages.
    """
    parts = urlsplit(url)
    path = parts.path
    lowered = path.lower()
    for suffix in _SITE_SUFFIXES:
        if lowered.endswith(suffix) and not lowered.endswith("/" + suffix):
            path = path[: -len(suffix)]
            break
    if path == "index" or path.endswith("/index"):
        path = path[: -len("index")]
    return urlunsplit(parts._replace(path=path))


def title_from_path(path: str) -> str:
    """A readable fallback title from the last path segment: getting-started -> Getting started."""
    name = page_path_from_url(path).rsplit("/", 1)[-1]
    words = " ".join(name.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:] if words else "Untitled"


def _meta_str(meta: dict, key: str) -> str:
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return " ".join(decode_entities(str(value)).split())


def page_meta(text: str) -> dict:
    """A page's frontmatter as a mapping: {} when it has none or it is malformed."""
    return split_frontmatter(drop_doc_index(normalize_text(text)))[0]


def unlisted(meta: dict) -> str | None:
    """The frontmatter key that keeps a page out of the index (``noindex``/``hidden``), if any.

    Published but unlisted pages (drafts, redirects, internal notes) would otherwise show up
    in search results that their own site never shows.
    """
    for key in ("noindex", "hidden"):
        value = meta.get(key)
        if value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes")):
            return key
    return None


def _choose_title(
    explicit: str, headings: Sequence[_Heading], fallback: str, heading_first: bool = False
) -> tuple[str, int | None]:
    """Return the page title and the line of the H1 that it consumes, if any.

    A leading H1 is the title unless an explicit title exists; then it is consumed only when
    it repeats that title, so pages that carry both do not get a duplicate section. With
    ``heading_first`` a leading H1 wins over the explicit title (VitePress: frontmatter
    ``title`` is the browser tab's, ``allowOnly | Config``; the page shows its H1).
    """
    first = headings[0] if headings else None
    leading_h1 = first if first is not None and first.level == 1 else None
    if heading_first and leading_h1 is not None:
        return leading_h1.text, leading_h1.line
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
    anchors: str = "github",
    title_from: str = "frontmatter",
) -> Page:
    """Parse one Markdown/MDX page into an intro section plus one section per heading.

    ``title`` forces the page title (llms-full pages carry it outside the body); otherwise
    frontmatter ``title`` wins, then a leading H1, then frontmatter ``sidebarTitle``, then
    ``fallback_title``; with ``title_from="heading"`` a leading H1 wins over frontmatter.
    ``anchors`` is the slug style of the site (``ANCHOR_STYLES``).
    """
    meta, body, problem = split_frontmatter(drop_doc_index(normalize_text(text)))
    if problem and warn is not None:
        warn(problem)
    lines = clean_body(drop_doc_index(body)).split("\n")
    kinds = classify_lines(lines)
    headings = _find_headings(lines, kinds)
    page_title, title_line = _choose_title(
        title or _meta_str(meta, "title"),
        headings,
        _meta_str(meta, "sidebarTitle") or fallback_title,
        heading_first=title_from == "heading" and not title,
    )

    slugger = Slugger(anchors)  # every heading takes a number, as on the rendered page
    ids = {h.line: slugger.slug(h.text, h.anchor) for h in headings}
    heads = [h for h in headings if h.line != title_line and h.level <= max_level]
    deep = {h.line: h for h in headings if h.line != title_line and h.level > max_level}
    inside = _InsideAnchors(lines, kinds, deep, ids)

    intro_end = heads[0].line if heads else len(lines)
    intro = [i for i in range(intro_end) if i != title_line]
    text, found = inside.read(intro, last=not heads)
    sections = [Section(anchor="", heading="", level=0, path=(page_title,), text=text, anchors=found)]
    stack: list[_Heading] = []
    for k, head in enumerate(heads):
        while stack and stack[-1].level >= head.level:
            stack.pop()
        stack.append(head)
        end = heads[k + 1].line if k + 1 < len(heads) else len(lines)
        text, found = inside.read(range(head.line + 1, end), head, last=k + 1 == len(heads))
        sections.append(
            Section(
                anchor=ids[head.line],
                heading=head.text,
                level=head.level,
                path=(page_title, *(h.text for h in stack)),
                text=text,
                anchors=found,
                heading_markdown=head.markdown,
            )
        )
    return Page(
        url=url,
        path=path,
        title=page_title,
        description=_meta_str(meta, "description"),
        sections=tuple(sections),
        # document_type: is docwheel's own key; type: is also other generators' (Hugo's
        # layout `type: docs`), so only a value of the vocabulary is read from it.
        type=_meta_str(meta, "document_type") or known_type(_meta_str(meta, "type")),
    )
