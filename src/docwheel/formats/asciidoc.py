"""AsciiDoc pages (Asciidoctor, Antora) read as the Markdown text of the page they render.

Asciidoctor's rules, as its documentation states them (docs.asciidoctor.org): a
preprocessor first resolves ``include::`` lines (``lines=``, ``tag=``/``tags=``,
``leveloffset=``) and ``ifdef::``/``ifndef::``/``ifeval::`` conditionals against the
attributes set so far; then the header gives the title (``= Title`` or ``:doctitle:``) and
attribute entries, and the body is read block by block: sections ``==`` … ``======`` (and
Markdown ``#`` headings) with the ids Asciidoctor generates (``idprefix``/``idseparator``,
``_`` by default, unless ``:sectids!:``; a ``[#id]``/``[[id]]`` anchor wins), paragraphs,
lists, tables, listing/literal blocks as code, admonitions with their label, compound blocks
(example, sidebar, quote, open) keeping their text, comments dropped, passthrough HTML read
as text. Inline markup reads as the page shows it.

The result is Markdown with an explicit ``{#id}`` on every heading, so the Markdown parser
cuts it into the same pages and sections as any other page. ``asciidoc_pre`` is the
preprocessor and the attributes, ``asciidoc_inline`` the inline markup, this module the
header and the blocks. Pure: files are read only through the ``read`` callback the caller
gives. No third-party AsciiDoc library for Python
is kept up (asciidoc-py is the retired Python AsciiDoc, not Asciidoctor, and renders HTML
through config files): this reader implements the subset of rules a page's words need.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .asciidoc_inline import INTERNAL, inline, plain_text, protect, xref_text
from .asciidoc_pre import (
    ATTR_ENTRY, BUILTIN, DELIMITER, Preprocessor, Read, parse_attrlist, set_attribute, substitute, to_int,
)
from .headings import asciidoctor_id
from .html import html_to_text

_ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
_SECTION = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_FENCE = re.compile(r"^(```+)[ \t]*([\w+#.-]*)")
_ANCHOR_LINE = re.compile(r"^\[\[([^\[\],\s]+)(?:,[^\]]*)?\]\][ \t]*$")
_ATTR_LINE = re.compile(r"^\[([^\[\]]*|\[[^\]]*\][^\]]*)\][ \t]*$")
_TITLE_LINE = re.compile(r"^\.([^\s.].*)$")
_ADMONITION_PARA = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.|[a-zA-Z]\.|<(?:\d+|\.)>)[ \t]+(.*)$")
_DLIST_ITEM = re.compile(r"^[ \t]*(?!//)(\S.*?)(:{2,4}|;;)(?:[ \t]+(.*))?$")
_BREAK = re.compile(r"^(?:'{3,}|<{3}|-{3}|\*{3}|_{3}|- - -|\* \* \*)$")
_BLOCK_MACRO = re.compile(r"^([a-z][\w-]*)::(\S*?)\[(.*)\]$")
_CALLOUT = re.compile(r"(?:[ \t]*(?://|#|--|;;)?[ \t]*<(?:\d+|!--\d+--)>)+[ \t]*$")



@dataclass(frozen=True)
class Converted:
    """A page's Markdown, its title and description (None: the page sets none), and the
    files its includes read (their paths as ``read`` gave them)."""

    markdown: str
    title: str | None
    description: str | None
    included: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = ()


def to_markdown(
    text: str,
    path: str = "",
    read: Read | None = None,
    attributes: Mapping[str, str | None] | None = None,
) -> Converted:
    """The Markdown a reader sees for the AsciiDoc page ``text`` at ``path``. ``attributes``
    are set before the page's own (Antora's ``asciidoc.attributes``; None unsets one)."""
    attrs: dict[str, str] = dict(BUILTIN)
    for name, value in (attributes or {}).items():
        if value is None:
            attrs.pop(name, None)
        else:
            attrs[name] = value
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    pre = Preprocessor(read, dict(attrs))
    lines = pre.lines(text.split("\n"), path, 0)
    doc = _Document(lines, attrs)  # which reads the entries again, each where it stands
    body = doc.convert()
    if "\ufdd7" in body:
        body = INTERNAL.sub(lambda m: doc.titles.get(m.group(1)) or xref_text(m.group(1)), body)
    title = doc.title
    head = {}
    if title:
        head["title"] = title
    description = doc.attrs.get("description")
    if description:
        head["description"] = " ".join(description.split())
    front = "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in head.items())
    markdown = (f"---\n{front}---\n\n" if front else "") + body + "\n"
    return Converted(markdown, title, description, frozenset(pre.included), tuple(pre.warnings))


# -- blocks --------------------------------------------------------------------------------


@dataclass
class _Pending:
    """What block attribute, anchor and title lines say about the block after them."""

    attrs: dict[str, str] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    title: str = ""

    @property
    def style(self) -> str:
        first = self.attrs.get("1", "")
        return re.split(r"[#.%]", first, maxsplit=1)[0].strip().lower()

    def options(self) -> set[str]:
        found = set(re.findall(r"%([\w-]+)", self.attrs.get("1", "")))
        for key in ("options", "opts"):
            found |= {o.strip() for o in self.attrs.get(key, "").split(",") if o.strip()}
        return found


class _Document:
    """One page: its attributes as the body reaches them, its title, and the ids taken
    (a generated id must not repeat one, custom or generated)."""

    def __init__(self, lines: list[str], attrs: dict[str, str]) -> None:
        self.lines = lines
        self.attrs = attrs
        self.title: str | None = None
        self.ids: set[str] = set()
        self.titles: dict[str, str] = {}  # section id -> its title, for <<id>> links

    def convert(self) -> str:
        start = self._header()
        body = _Blocks(self, self.lines[start:]).read()
        if self.title is None and self.attrs.get("doctitle"):
            self.title = self.attrs["doctitle"]
        return body

    def _header(self) -> int:
        """Reads the header (title, author and revision lines, attribute entries) and
        returns where the body starts."""
        i, n = 0, len(self.lines)
        comment = False
        while i < n:  # blank lines, comments and entries before the title
            line = self.lines[i]
            if comment:
                comment = not re.match(r"^/{4,}\s*$", line)
            elif re.match(r"^/{4,}\s*$", line):
                comment = True
            elif not line.strip() or line.startswith("//"):
                pass
            elif line.startswith(":") and (entry := ATTR_ENTRY.match(line)):
                set_attribute(self.attrs, entry)
            else:
                break
            i += 1
        if i >= n:
            return i
        m = re.match(r"^(=|#)[ \t]+(\S.*?)[ \t]*$", self.lines[i])
        if not m:
            return i
        raw = m.group(2)
        self.title = plain_text(inline(raw, self.attrs))
        i += 1
        byline = 0
        while i < n and self.lines[i].strip():
            line = self.lines[i]
            if line.startswith(":") and (entry := ATTR_ENTRY.match(line)):
                set_attribute(self.attrs, entry)
            elif line.startswith("//"):
                pass
            elif byline < 2 and not _ATTR_LINE.match(line):
                byline += 1  # the author line, then the revision line: not page text
            else:
                break
            i += 1
        if self.attrs.get("doctitle"):  # :doctitle: in the header names the page instead
            self.title = plain_text(inline(self.attrs["doctitle"], self.attrs))
        return i

    def section_id(self, title_text: str) -> str | None:
        """The id Asciidoctor generates for a section titled ``title_text`` (as it reads)."""
        if "sectids" not in self.attrs:
            return None
        sep = self.attrs.get("idseparator", "_")[:1]
        base = asciidoctor_id(title_text, self.attrs.get("idprefix", "_"), sep)
        candidate, n = base, 2
        while candidate in self.ids or not candidate:
            candidate = f"{base}{sep}{n}"
            n += 1
        return candidate


class _Blocks:
    """The blocks of a run of lines (the body, or a compound block's content), as Markdown."""

    def __init__(self, doc: _Document, lines: list[str]) -> None:
        self.doc = doc
        self.lines = lines
        self.i = 0
        self.pending = _Pending()

    @property
    def attrs(self) -> dict[str, str]:
        return self.doc.attrs

    def read(self) -> str:
        parts: list[str] = []
        while self.i < len(self.lines):
            part = self.block()
            if part is not None and part.strip():
                parts.append(part)
        return "\n\n".join(parts)

    def block(self) -> str | None:
        """One block from ``self.i`` (or a line that only sets something up: None)."""
        line = self.lines[self.i]
        stripped = line.strip()
        if not stripped:
            self.i += 1
            return None
        if line.startswith("//") and not re.match(r"^/{4,}\s*$", line):
            self.i += 1
            return None
        if line.startswith(":") and (entry := ATTR_ENTRY.match(line)):
            set_attribute(self.attrs, entry)
            self.i += 1
            return None
        if m := _ANCHOR_LINE.match(line):
            self.pending.ids.append(m.group(1))
            self.i += 1
            return None
        if line.startswith("[") and not line.startswith("[[") and _ATTR_LINE.match(line.rstrip()):
            attrs = parse_attrlist(substitute(line.strip()[1:-1], self.attrs))
            first = attrs.get("1", "")
            if m := re.search(r"#([^.%#,\s]+)", first):
                self.pending.ids.append(m.group(1))
            if "id" in attrs:
                self.pending.ids.append(attrs["id"])
            self.pending.attrs.update(attrs)
            self.i += 1
            return None
        if (m := _TITLE_LINE.match(line)) and not DELIMITER.match(stripped):
            self.pending.title = m.group(1)
            self.i += 1
            return None
        pending, self.pending = self.pending, _Pending()
        if m := _SECTION.match(line):
            self.i += 1
            return self._heading(m, pending)
        if DELIMITER.match(stripped) or _FENCE.match(stripped):
            return self._mark(pending, self._delimited(stripped, pending))
        if _BREAK.match(stripped):  # a thematic or page break: nothing to read
            self.i += 1
            return None
        if m := _BLOCK_MACRO.match(stripped):  # image::, video::, toc::[] on a line of their own
            self.i += 1
            alt = parse_attrlist(m.group(3)).get("1", "") if m.group(1) == "image" else ""
            return self._mark(pending, _escape(inline(alt, self.attrs)) if alt else "")
        if _LIST_ITEM.match(line) or _dlist(line):
            return self._mark(pending, self._list(pending))
        return self._mark(pending, self._paragraph(pending))

    def _label(self, kind: str) -> str:
        """An admonition's label: its ``:note-caption:`` when the page sets one."""
        caption = self.attrs.get(f"{kind.lower()}-caption")
        return _escape(inline(caption, self.attrs)) if caption else kind.capitalize()

    def _mark(self, pending: _Pending, text: str) -> str:
        """A block's ids as HTML anchors before it (the Markdown parser's link targets),
        its title as a line above it."""
        head = "".join(f'<a id="{a}"></a>' for a in pending.ids if re.fullmatch(r"[^\s\"<>]+", a))
        title = _escape(inline(pending.title, self.attrs)) if pending.title else ""
        parts = [p for p in (title, text) if p]
        out = "\n\n".join(parts)
        return head + ("\n" if head and out else "") + out

    def _heading(self, m: re.Match, pending: _Pending) -> str:
        marks = m.group(1)
        offset = to_int(self.attrs.get("leveloffset", "0"), 0)
        level = min(max(len(marks) - 1 + offset, 1), 5)
        shown = inline(m.group(2), self.attrs)
        text = plain_text(shown)
        custom = pending.ids[-1] if pending.ids else None
        anchor = custom or self.doc.section_id(text)
        if anchor:
            self.doc.ids.add(anchor)
            self.doc.titles.setdefault(anchor, protect(text))
        attr = f" {{#{anchor}}}" if anchor and re.fullmatch(r"[\w][\w.:-]*", anchor) else ""
        return f"{'#' * (level + 1)} {shown}{attr}"

    # -- delimited blocks

    def _take(self, closing: str) -> list[str]:
        """The lines up to the closing delimiter (or the end), the delimiter line skipped."""
        self.i += 1
        start = self.i
        while self.i < len(self.lines) and self.lines[self.i].rstrip() != closing:
            self.i += 1
        inner = self.lines[start : self.i]
        self.i += 1
        return inner

    def _delimited(self, opener: str, pending: _Pending) -> str:
        fence = _FENCE.match(opener)
        if fence:
            inner = self._take(fence.group(1))
            return _code("\n".join(inner), fence.group(2) or pending.attrs.get("2", ""))
        inner = self._take(opener)
        kind = opener[:2]
        style = pending.style
        if kind == "//":
            return ""
        if kind == "..":
            return self._verbatim(inner, pending, literal=True)
        if kind == "--" and (opener != "--" or style in ("source", "listing", "literal")):
            return self._verbatim(inner, pending)
        if kind == "++":
            return _escape(html_to_text("\n".join(inner)))
        if kind in ("|=", "!=", ",=", ":="):
            return self._table(inner, pending, opener[0])
        body = _Blocks(self.doc, inner).read()
        if style.upper() in _ADMONITIONS:
            return _join([self._label(style), body])
        if kind == "__" and style in ("quote", "verse", ""):
            if style == "verse":
                body = _escape("\n".join(inline(line, self.attrs) for line in inner))
            credit = ", ".join(pending.attrs[k] for k in ("2", "3") if pending.attrs.get(k))
            return _join([body, f"— {_escape(inline(credit, self.attrs))}" if credit else ""])
        return body

    def _verbatim(self, inner: list[str], pending: _Pending, literal: bool = False) -> str:
        style = pending.style
        language = ""
        if style == "source" or (not literal and style not in ("listing", "literal")):
            language = pending.attrs.get("2", "") or (
                self.attrs.get("source-language", "") if style == "source" else ""
            )
        subs = pending.attrs.get("subs", "")
        text = "\n".join(_CALLOUT.sub("", line) for line in inner)
        if "attributes" in subs or "normal" in subs:
            text = substitute(text, self.attrs)
        return _code(text, language)

    def _table(self, inner: list[str], pending: _Pending, sep: str) -> str:
        cols = pending.attrs.get("cols", "")
        width = 0
        for spec in (c.strip() for c in re.split(r"[,;]", cols) if c.strip()):
            m = re.match(r"^(\d+)\*", spec)
            width += int(m.group(1)) if m else 1
        separator = "|" if sep == "|" else "!"
        if sep in ",:":  # CSV and DSV tables: one row a line
            rows = [re.split(r"," if sep == "," else r":", line) for line in inner if line.strip()]
            header = "header" in pending.options()
            return _markdown_table([[inline(c.strip(), self.attrs) for c in r] for r in rows], header)
        cell = re.compile(
            rf"(?:^|(?<=\s))(?:(\d+)(?:\.\d+)?([+*])|\.\d+\+)?[<^>]?(?:\.[<^>])?[adehlmsv]?(?<!\\){re.escape(separator)}"
        )
        cells: list[str] = []
        first_line_cells = 0
        implicit_header = False
        for n, line in enumerate(inner):
            marks = list(cell.finditer(line))
            if not marks:
                if cells:
                    cells[-1] += "\n" + line
                continue
            if cells and marks[0].start() > 0:
                cells[-1] += "\n" + line[: marks[0].start()]
            for k, m in enumerate(marks):
                end = marks[k + 1].start() if k + 1 < len(marks) else len(line)
                count = min(int(m.group(1)), 50) if m.group(1) else 1
                if m.group(2) == "*":  # 3*| the cell, three times
                    cells.extend([line[m.end() : end]] * count)
                else:  # 2+| a cell spanning two columns: the text once, then room for the rest
                    cells.append(line[m.end() : end])
                    cells.extend([""] * (count - 1))
            if not first_line_cells:
                first_line_cells = len(marks)
                nxt = inner[n + 1] if n + 1 < len(inner) else ""
                implicit_header = len(marks) > 1 and not nxt.strip() and n == next(
                    (j for j, x in enumerate(inner) if x.strip()), 0
                )
        width = width or first_line_cells or 1
        options = pending.options()
        header = "header" in options or (implicit_header and "noheader" not in options)
        texts = [" ".join(inline(c.strip(), self.attrs).split()) for c in cells]
        rows = [texts[k : k + width] for k in range(0, len(texts), width)]
        return _markdown_table(rows, header)

    # -- lists and paragraphs

    def _list(self, pending: _Pending) -> str:
        items: list[str] = []
        last_kind = ""
        n = len(self.lines)
        while self.i < n:
            line = self.lines[self.i]
            m = _LIST_ITEM.match(line)
            d = None if m else _dlist(line)
            if not m and not d:
                if not line.strip() or line.startswith("//"):
                    # a blank or comment line: the list goes on if another item follows
                    j = self.i
                    while j < n and (not self.lines[j].strip() or self.lines[j].startswith("//")):
                        j += 1
                    if j < n and (_LIST_ITEM.match(self.lines[j]) or _dlist(self.lines[j])):
                        self.i = j
                        continue
                break
            if m:
                marker, text = m.group(1), m.group(2)
                if marker.startswith("*") or marker.startswith("."):
                    depth = len(marker)
                else:
                    depth = 1
                bullet = "1. " if marker[0] in ".0123456789" or marker[-1] == "." and marker[0].isalpha() else "- "
                if marker.startswith("<"):
                    bullet = "- "
                if text.startswith("[x] ") or text.startswith("[*] "):
                    text = "☑ " + text[4:]
                elif text.startswith("[ ] "):
                    text = "☐ " + text[4:]
            else:
                term, marker, text = d
                depth = {"::": 1, ":::": 2, "::::": 3, ";;": 2}.get(marker, 1)
                bullet = ""
            self.i += 1
            lines = [text] if text else []
            while self.i < n:  # the item's text goes on to a blank line or the next item
                nxt = self.lines[self.i]
                if not nxt.strip() or _LIST_ITEM.match(nxt) or _dlist(nxt) or nxt.strip() == "+":
                    break
                if DELIMITER.match(nxt.strip()) or (nxt.startswith("[") and _ATTR_LINE.match(nxt.rstrip())):
                    break
                if not nxt.startswith("//"):
                    lines.append(nxt.strip())
                self.i += 1
            body = _escape("\n".join(inline(x, self.attrs) for x in lines))
            attached = []
            while self.i < n and self.lines[self.i].strip() == "+":
                self.i += 1
                attached.append(self._one_block())
            if not bullet:  # a description list: the term, then what it says
                shown = _escape(inline(term, self.attrs))
                body = _join([shown, _indent(_join([body, *attached]), "  ")]) if (body or attached) else shown
            else:
                body = _join([body, *attached])
            pad = "  " * (depth - 1)
            kind = bullet or "dl"
            if items and (kind == "dl" or kind != last_kind) and depth == 1:
                items.append("")  # a new list, or a term: a paragraph of its own
            last_kind = kind
            items.append(_indent(body or "", pad + bullet) if bullet else _indent(body, pad))
        return "\n".join(items)

    def _one_block(self) -> str:
        """The block a list continuation (``+``) attaches to an item."""
        start = self.i
        while self.i < len(self.lines):
            part = self.block()
            if part is not None:
                return part
            if self.i > start and not self.lines[self.i - 1].strip():
                break
        return ""

    def _paragraph(self, pending: _Pending) -> str:
        lines = []
        n = len(self.lines)
        literal = self.lines[self.i][:1] in " \t"
        while self.i < n:
            line = self.lines[self.i]
            if not line.strip():
                break
            if lines and (
                DELIMITER.match(line.strip())
                or (line.startswith("[") and _ATTR_LINE.match(line.rstrip()))
            ):
                break
            if not (line.startswith("//") and not literal):
                lines.append(line)
            self.i += 1
        style = pending.style
        if literal or style in ("source", "listing", "literal"):
            text = "\n".join(lines)
            if literal:
                text = _dedent(lines)
            language = pending.attrs.get("2", "") if style == "source" else ""
            return _code(text, language)
        first = lines[0] if lines else ""
        label = ""
        if m := _ADMONITION_PARA.match(first):
            label = self._label(m.group(1))
            lines[0] = m.group(2)
        elif style.upper() in _ADMONITIONS:
            label = self._label(style)
        text = _escape("\n".join(inline(x.strip(), self.attrs) for x in lines))
        if style == "quote":
            credit = ", ".join(pending.attrs[k] for k in ("2", "3") if pending.attrs.get(k))
            text = _join([text, f"— {_escape(inline(credit, self.attrs))}" if credit else ""])
        return _join([label, text])


def _dlist(line: str) -> tuple[str, str, str] | None:
    if "::" not in line and ";;" not in line:
        return None
    m = _DLIST_ITEM.match(line)
    if m is None or m.group(1).endswith(":") or "://" in m.group(1)[-3:]:
        return None
    return m.group(1), m.group(2), m.group(3) or ""


def _markdown_table(rows: list[list[str]], header: bool) -> str:
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    lines = [
        "| " + " | ".join(c.replace("|", "\\|") for c in r + [""] * (width - len(r))) + " |"
        for r in rows
    ]
    if header:
        lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


# -- Markdown output -----------------------------------------------------------------------

_STRUCTURE = re.compile(r"^([ \t]*)(#|```|~~~|:::|!!!|\?\?\?|===|<!--|\{%)", re.M)
_RULE = re.compile(r"^([ \t]*)([-=_*])(?=[ \t]*\2[ \t]*\2[ \t\2]*$)", re.M)


def _escape(text: str) -> str:
    """Prose whose lines would read as Markdown structure (a heading, a fence, a container,
    a setext underline) escaped."""
    text = _STRUCTURE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    return _RULE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def _code(text: str, language: str) -> str:
    if not text.strip():
        return ""  # an empty block (an include that did not resolve) shows nothing
    longest = max((len(m) for m in re.findall(r"^[ \t]*(`{3,})", text, re.M)), default=2)
    ticks = "`" * max(3, longest + 1)
    language = language.strip() if re.fullmatch(r"[\w+.#-]*", language.strip()) else ""
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def _dedent(lines: list[str]) -> str:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths) if widths else 0
    return "\n".join(line[cut:] for line in lines)


def _indent(text: str, first: str) -> str:
    pad = " " * len(first)
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [pad + line if line.strip() else "" for line in lines[1:]])


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p and p.strip())
