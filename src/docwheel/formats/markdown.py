"""Markdown/MDX page parsing: frontmatter, MDX and HTML cleanup, headings -> sections.

Everything here is pure (text in, values out) so sources of any kind can share it and tests
can call it directly. Headings are found only outside fenced code, because a ``# comment`` in
a bash sample is the most common way a naive splitter goes wrong.

The cleanup keeps what a reader of the rendered page reads: text inside MDX components and
VitePress ``:::`` containers, the text of HTML blocks, decoded entities; and drops what they
never see: ESM lines, component tags, HTML comments, scripts and styles. Admonitions, tabs,
directives, include lines and code line markers are read by ``blocks`` first; heading text
and anchors come from ``headings``, the text of HTML from ``html``.
"""

from __future__ import annotations

import json
import re
import sys
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import groupby
from typing import NamedTuple
from urllib.parse import unquote, urlsplit, urlunsplit

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

from ..doctypes import known_type
from ..models import Anchor, Page, Section
from .headings import (
    CODE_SPAN,
    ESCAPE,
    IMAGE,
    LINK,
    Slugger,
    heading_markdown,
    heading_text,
    split_attr_list,
    without_components,
)
from .html import decode_entities, html_blocks
from .blocks import (
    clean_code,
    drop_markers,
    drop_placeholders,
    hugo_shortcodes,
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

_PAGE_EXTENSIONS = (".md", ".mdx", ".qmd", ".rst", ".adoc", ".asciidoc", ".html", ".htm", ".txt")


def normalize_text(text: str) -> str:
    """Drop a UTF-8 BOM and turn CRLF/CR into LF, so every rule below sees one shape."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


_MAY_OPEN = frozenset("`~<")


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
            # Only a line whose first character is `, ~ or < can open a fence or a comment.
            if line.lstrip(" \t")[:1] not in _MAY_OPEN:
                kinds.append(PROSE)
                continue
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
        if char not in line:
            kinds.append(CODE)
            continue
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
    return ESCAPE.sub(r"\1", shown).strip("\n"), "\n".join(code).strip("\n")


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
    for m in CODE_SPAN.finditer(text):
        parts.append(_visible_markup(text[pos : m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(_visible_markup(text[pos:]))
    return "".join(parts)


def _visible_markup(text: str) -> str:
    if "](" in text or "][" in text:
        text = IMAGE.sub(r"\1", text)
        text = LINK.sub(r"\1", text)
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


def _drop_heading_components(lines: list[str]) -> list[str]:
    """Badges and other components leave heading lines whole, their text too (the MDX
    cleanup after this keeps a component's text, as it should in prose)."""
    return [
        without_components(line) if "<" in line and _ATX.match(line) else line for line in lines
    ]


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
            line = CODE_SPAN.sub("", line)  # `<a id="x">` in code is shown, not a target
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
    """Split leading frontmatter from the body; never raises.

    The three formats Hugo reads (gohugo.io, "Front matter": the format is told by its
    delimiters), which Zola, Jekyll and the JavaScript generators share in part: YAML
    between ``---`` lines, TOML between ``+++`` lines, or a JSON object opening the file.
    Returns (meta, body, warning). Bad metadata still removes the block, so its lines do not
    end up indexed as prose; the warning says why the metadata was ignored.
    """
    lines = normalize_text(text).split("\n")
    first = lines[0]
    if first.startswith("{"):
        return _split_json(lines, text)
    if first.startswith("+"):
        fence, load, errors, reason = _TOML_FENCE, _load_toml, (ValueError,), _toml_reason
    elif first.startswith("-"):
        # Besides YAMLError, PyYAML lets ValueError (an impossible date, `!!int x`) and
        # RecursionError (absurd nesting) escape; all of them mean "ignore this metadata".
        fence, load, reason = _FRONTMATTER_FENCE, _load_yaml, _yaml_reason
        errors = (yaml.YAMLError, ValueError, TypeError, RecursionError)
    else:
        return {}, text, None
    if not fence.match(first):
        return {}, text, None
    end = next((i for i in range(1, len(lines)) if fence.match(lines[i])), None)
    if end is None:  # a lone thematic break (or a line of '+'), not frontmatter
        return {}, text, None
    body = "\n".join(lines[end + 1 :])
    try:
        meta = load("\n".join(lines[1:end]))
    except errors as exc:
        return {}, body, f"malformed frontmatter: {reason(exc)}"
    return _mapping(meta, body)


def _mapping(meta: object, body: str) -> tuple[dict, str, str | None]:
    if meta is None:
        return {}, body, None
    if not isinstance(meta, dict):
        return {}, body, f"malformed frontmatter: expected a mapping, got {type(meta).__name__}"
    return meta, body, None


_TOML_FENCE = re.compile(r"^\+\+\+[ \t]*$")
# A JSON object opens the file: '{' and then a key or '}', so that an MDX expression
# opening a page (`{/* a comment */}`) is not taken for one.
_JSON_OPEN = re.compile(r'\{\s*["}]')
_JSON_CLOSE = re.compile(r"^\}[ \t]*$")


def _split_json(lines: list[str], text: str) -> tuple[dict, str, str | None]:
    """A JSON object at the very top of a page (Hugo's third frontmatter format), ended by
    its closing brace; the body starts on the next line. When the object does not parse,
    the block runs to the first line that is a lone '}' (where Hugo's examples close it)."""
    joined = "\n".join(lines)
    if not _JSON_OPEN.match(joined):
        return {}, text, None
    try:
        meta, end = json.JSONDecoder().raw_decode(joined)
    except (json.JSONDecodeError, RecursionError) as exc:
        close = next((i for i, line in enumerate(lines) if _JSON_CLOSE.match(line)), None)
        if close is None:
            return {}, text, None
        if isinstance(exc, json.JSONDecodeError):
            problem = f"{exc.msg} (line {exc.lineno})"
        else:
            problem = "too deeply nested"
        return {}, "\n".join(lines[close + 1 :]), f"malformed frontmatter: {problem}"
    newline = joined.find("\n", end)
    rest = joined[end:newline] if newline >= 0 else joined[end:]
    if rest.strip():  # more after the object on its line: not a frontmatter block
        return {}, text, None
    return _mapping(meta, joined[newline + 1 :] if newline >= 0 else "")


def _load_toml(text: str) -> object:
    return tomllib.loads(text)


def _toml_reason(exc: Exception) -> str:
    """tomllib's message, its line counted in the page (the '+++' line is line 1)."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return _TOML_LINE.sub(lambda m: f"(at line {int(m.group(1)) + 1}", message)


_TOML_LINE = re.compile(r"\(at line (\d+)")


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
                end = closing_brace(text, i, limit)
                if end < 0:
                    break
                out.append(text[pos : i + 1])
                pos = end
                i = end + 1
            else:
                i += 1
    out.append(text[pos:])
    return "".join(out)


def closing_brace(text: str, start: int, limit: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start`` (quotes skipped), looked for
    before ``limit``; -1 when there is none."""
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
def _decode_prose(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if "`" not in line:
            out.append(decode_entities(line))
            continue
        parts, pos = [], 0
        for m in CODE_SPAN.finditer(line):  # code spans show entities literally
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
        html_blocks,
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


# An opening tag's line whose next line with text is indented deeper: what a body needs
# before ``unindent_components`` would shift it (its every line is indented deeper).
_INDENTED_BODY = re.compile(r"^([ \t]*)<[A-Z][^\n]*[^/\n]>[ \t]*\n(?:[ \t]*\n)*\1[ \t]+\S", re.M)


def unindent_components(text: str) -> str:
    """Component bodies de-indented to their tags' indentation, as MDX reads them.

    MDX has no indented code blocks: Mintlify indents whole tab bodies inside
    ``<Tab>`` … ``</Tab>``, and their ``    ## Heading`` lines are headings on the page (in
    CommonMark, four spaces make them code). Each body loses the indentation all its lines
    share beyond its opening tag's, outer components first; code keeps its own indentation.
    """
    if "</" not in text or not _INDENTED_BODY.search(text):
        return text  # no body is indented beyond its tag: nothing to shift
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
    if "{{<" in text or "{{%" in text:
        text = hugo_shortcodes(text, classify_lines)
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
    # Hugo's and Zola's section page, `_index.md`, is its folder's page too.
    name = path.rsplit("/", 1)[-1]
    if name in ("index", "_index"):
        path = path[: -len(name)].rstrip("/")
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
