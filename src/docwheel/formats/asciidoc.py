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
cuts it into the same pages and sections as any other page. Pure: files are read only
through the ``read`` callback the caller gives. No third-party AsciiDoc library for Python
is kept up (asciidoc-py is the retired Python AsciiDoc, not Asciidoctor, and renders HTML
through config files): this reader implements the subset of rules a page's words need.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .headings import asciidoctor_id, strip_inline
from .html import decode_entities, html_to_text

# (text, its path as given back to later includes) of an include target, or None; the
# target as the page writes it (attributes replaced) and the path of the including file.
Read = Callable[[str, str], "tuple[str, str] | None"]

SUFFIXES = (".adoc", ".asciidoc")  # as site.ASCIIDOC_SUFFIXES
MAX_DEPTH = 16  # nested includes (Asciidoctor's max-include-depth is 64)
MAX_INCLUDES = 200  # includes read for one page: a file that includes itself twice stops here
_ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
# Intrinsic attributes a page may reference (Asciidoctor's character replacement attributes).
BUILTIN = {
    "empty": "", "blank": "", "sp": " ", "nbsp": " ", "zwsp": "", "wj": "", "apos": "'",
    "quot": '"', "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "deg": "°",
    "plus": "+", "brvbar": "¦", "vbar": "|", "amp": "&", "lt": "<", "gt": ">",
    "startsb": "[", "endsb": "]", "caret": "^", "asterisk": "*", "tilde": "~",
    "backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;",
    "cpp": "C++", "cxx": "C++", "pp": "++", "idprefix": "_", "idseparator": "_",
    "sectids": "",
}

_ATTR_ENTRY = re.compile(r"^:(!?)([\w][\w-]*)(!?):(?:[ \t]+(.*?))?[ \t]*$")
_DIRECTIVE = re.compile(r"^(\\?)(include|ifdef|ifndef|ifeval|endif)::([^\[]*)\[(.*)\]\s*$")
_TAG_LINE = re.compile(r"\b(tag|end)::([\w-]+)\[\]")
_SECTION = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|\|={3,}|!={3,}|,={3,}|:={3,})[ \t]*$")
_FENCE = re.compile(r"^(```+)[ \t]*([\w+#.-]*)")
_ANCHOR_LINE = re.compile(r"^\[\[([^\[\],\s]+)(?:,[^\]]*)?\]\][ \t]*$")
_ATTR_LINE = re.compile(r"^\[([^\[\]]*|\[[^\]]*\][^\]]*)\][ \t]*$")
_TITLE_LINE = re.compile(r"^\.([^\s.].*)$")
_ADMONITION_PARA = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.|[a-zA-Z]\.|<(?:\d+|\.)>)[ \t]+(.*)$")
_DLIST_ITEM = re.compile(r"^[ \t]*(?!//)(\S.*?)(:{2,4}|;;)(?:[ \t]+(.*))?$")
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
    pre = _Preprocessor(read, dict(attrs))
    lines = pre.lines(text.split("\n"), path, 0)
    doc = _Document(lines, attrs)  # which reads the entries again, each where it stands
    body = doc.convert()
    if "\ufdd7" in body:
        body = _INTERNAL.sub(lambda m: doc.titles.get(m.group(1)) or _xref_text(m.group(1)), body)
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


# -- preprocessor --------------------------------------------------------------------------


class _Preprocessor:
    """Includes and conditionals, line by line, with the attributes set so far (Asciidoctor
    evaluates a conditional when the parser reaches it: entries above it count)."""

    def __init__(self, read: Read | None, attrs: dict[str, str]) -> None:
        self.read = read
        self.attrs = attrs
        self.included: set[str] = set()
        self.warnings: list[str] = []
        self.count = 0
        self.capped = False

    def lines(self, lines: list[str], path: str, depth: int) -> list[str]:
        out: list[str] = []
        skipping: list[bool] = []  # one entry per open conditional: whether it hides
        verbatim = ""  # inside a listing/literal/comment block: entries are text there
        for line in lines:
            m = _DIRECTIVE.match(line)
            hidden = any(skipping)
            if m and m.group(1):  # \include:: is the text itself
                if not hidden:
                    out.append(line[1:])
                continue
            if m and m.group(2) in ("ifdef", "ifndef", "ifeval"):
                kind, target, rest = m.group(2), m.group(3), m.group(4)
                shown = self._condition(kind, target, rest)
                if rest and kind != "ifeval":  # one-line form: ifdef::attr[text]
                    if shown and not hidden:
                        out.append(rest)
                    continue
                skipping.append(not shown)
                continue
            if m and m.group(2) == "endif":
                if skipping:
                    skipping.pop()
                continue
            if hidden:
                continue
            if m and m.group(2) == "include":
                out.extend(self._include(m.group(3), m.group(4), path, depth))
                continue
            stripped = line.rstrip()
            if verbatim:
                if stripped == verbatim:
                    verbatim = ""
            elif stripped[:4] in ("----", "....", "////", "++++") and _DELIMITER.match(stripped):
                verbatim = stripped
            elif line.startswith(":") and (entry := _ATTR_ENTRY.match(line)):
                _set_attribute(self.attrs, entry)
            out.append(line)
        return out

    def _condition(self, kind: str, target: str, rest: str) -> bool:
        if kind == "ifeval":
            return _evaluate(substitute(rest, self.attrs))
        if "+" in target:
            found = all(name in self.attrs for name in target.split("+") if name)
        else:
            found = any(name in self.attrs for name in target.split(",") if name)
        return found if kind == "ifdef" else not found

    def _include(self, target: str, options: str, path: str, depth: int) -> list[str]:
        target = substitute(target.strip(), self.attrs)
        self.count += 1
        if depth >= MAX_DEPTH or self.count > MAX_INCLUDES:
            if not self.capped:  # once a page
                self.warnings.append(f"include::{target}[] not read: includes nest or repeat too deeply")
            self.capped = True
            return []
        got = self.read(target, path) if self.read is not None else None
        if got is None:
            if "optional" not in options:
                self.warnings.append(f"include::{target}[] not resolved (missing, or outside the docs)")
            return []
        text, where = got
        self.included.add(where)
        opts = parse_attrlist(substitute(options, self.attrs))
        lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        tags = opts.get("tags", opts.get("tag"))
        if opts.get("lines"):
            lines = _pick_lines(lines, opts["lines"])
        elif tags is not None:  # tag lines go only when tags select (``tags=**``: all but them)
            lines = _pick_tags(lines, tags)
        if (indent := opts.get("indent", "")).isdigit():
            lines = _reindent(lines, int(indent))
        inner = self.lines(lines, where, depth + 1)
        offset = opts.get("leveloffset", "").strip()
        if re.fullmatch(r"[+-]?\d+", offset):
            if offset[0] not in "+-":  # an absolute offset, relative to where it applies
                offset = f"+{offset}"
            back = offset.replace("+", "\0").replace("-", "+").replace("\0", "-")
            inner = [f":leveloffset: {offset}", *inner, f":leveloffset: {back}"]
        return inner


def _pick_lines(lines: list[str], spec: str) -> list[str]:
    picked: list[str] = []
    for part in re.split(r"[;,]", spec):
        first, sep, last = part.strip().partition("..")
        if not first.strip().lstrip("-").isdigit():
            continue
        lo = int(first)
        hi = lo if not sep else (len(lines) if last.strip() in ("", "-1") else _int(last, lo))
        picked.extend(lines[max(lo - 1, 0) : max(hi, 0)])
    return picked


def _pick_tags(lines: list[str], spec: str) -> list[str]:
    """The lines inside the selected tagged regions (``tag=a``, ``tags=a;b``, ``!c``
    excluded, ``*``/``**`` all), tag lines themselves left out."""
    wanted = [t.strip() for t in re.split(r"[;,]", spec) if t.strip()]
    include = {t for t in wanted if not t.startswith("!") and t not in ("*", "**")}
    exclude = {t[1:] for t in wanted if t.startswith("!")}
    every = "*" in wanted or "**" in wanted or (not include and exclude)
    outside = "**" in wanted or (not include and exclude and "*" not in wanted)
    open_tags: list[str] = []
    out = []
    for line in lines:
        m = _TAG_LINE.search(line)
        if m:
            if m.group(1) == "tag":
                open_tags.append(m.group(2))
            elif m.group(2) in open_tags:
                open_tags.remove(m.group(2))
            continue
        if any(t in exclude for t in open_tags):
            continue
        if open_tags:
            if every or any(t in include for t in open_tags):
                out.append(line)
        elif outside:
            out.append(line)
    return out


def _reindent(lines: list[str], width: int) -> list[str]:
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return [(" " * width + line[cut:]) if line.strip() else "" for line in lines]


def _int(text: str, default: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return default


_EVAL = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|\S+)\s*(==|!=|<=|>=|<|>)\s*(\"[^\"]*\"|'[^']*'|\S+)\s*$")


def _evaluate(expression: str) -> bool:
    """``ifeval::[{x} == 2]``: a comparison of two numbers or strings; an expression this
    cannot read keeps its content (a reader rather sees too much than too little)."""
    m = _EVAL.match(expression)
    if m is None:
        return True
    left, op, right = (_value(m.group(1)), m.group(2), _value(m.group(3)))
    if type(left) is not type(right):
        left, right = str(left), str(right)
    return {
        "==": left == right, "!=": left != right, "<": left < right,  # type: ignore[operator]
        ">": left > right, "<=": left <= right, ">=": left >= right,  # type: ignore[operator]
    }[op]


def _value(token: str) -> object:
    if token[:1] in "\"'" and token[-1:] == token[:1] and len(token) > 1:
        return token[1:-1]
    try:
        return float(token)
    except ValueError:
        return token


def _set_attribute(attrs: dict[str, str], entry: re.Match) -> None:
    name = entry.group(2).lower()
    if entry.group(1) or entry.group(3):
        attrs.pop(name, None)
        return
    value = substitute(entry.group(4) or "", attrs)
    if name == "leveloffset" and value[:1] in "+-" and value[1:].isdigit():
        value = str(_int(attrs.get("leveloffset", "0"), 0) + int(value))
    attrs[name] = value


_REFERENCE = re.compile(r"(\\?)\{([\w][\w-]*)\}")


def substitute(text: str, attrs: Mapping[str, str]) -> str:
    """``{name}`` replaced by the attribute's value; an unknown one stays as written
    (Asciidoctor's ``attribute-missing: skip``), ``\\{name}`` is the text ``{name}``."""
    if "{" not in text:
        return text

    def one(m: re.Match) -> str:
        if m.group(1):
            return m.group(0)[1:]
        value = attrs.get(m.group(2).lower())
        return m.group(0) if value is None else value

    return _REFERENCE.sub(one, text)


def parse_attrlist(text: str) -> dict[str, str]:
    """A block or macro attribute list (``source,python,subs="attributes+"``) as a dict:
    positional values under "1", "2", … and named ones under their name."""
    out: dict[str, str] = {}
    n = 0
    for part in re.findall(r'(?:[^,"\']|"[^"]*"|\'[^\']*\')+|(?<=,)(?=,|$)|^(?=,)', text):
        part = part.strip()
        m = re.match(r"^([\w-]+)\s*=\s*(.*)$", part)
        if m:
            out[m.group(1).lower()] = _unquote(m.group(2).strip())
            continue
        n += 1
        out[str(n)] = _unquote(part)
    return out


def _unquote(value: str) -> str:
    if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]:
        return value[1:-1]
    return value


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
            elif line.startswith(":") and (entry := _ATTR_ENTRY.match(line)):
                _set_attribute(self.attrs, entry)
            else:
                break
            i += 1
        if i >= n:
            return i
        m = re.match(r"^(=|#)[ \t]+(\S.*?)[ \t]*$", self.lines[i])
        if not m:
            return i
        raw = m.group(2)
        self.title = _plain(inline(raw, self.attrs))
        i += 1
        byline = 0
        while i < n and self.lines[i].strip():
            line = self.lines[i]
            if line.startswith(":") and (entry := _ATTR_ENTRY.match(line)):
                _set_attribute(self.attrs, entry)
            elif line.startswith("//"):
                pass
            elif byline < 2 and not _ATTR_LINE.match(line):
                byline += 1  # the author line, then the revision line: not page text
            else:
                break
            i += 1
        if self.attrs.get("doctitle"):  # :doctitle: in the header names the page instead
            self.title = _plain(inline(self.attrs["doctitle"], self.attrs))
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
        if line.startswith(":") and (entry := _ATTR_ENTRY.match(line)):
            _set_attribute(self.attrs, entry)
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
        if (m := _TITLE_LINE.match(line)) and not _DELIMITER.match(stripped):
            self.pending.title = m.group(1)
            self.i += 1
            return None
        pending, self.pending = self.pending, _Pending()
        if m := _SECTION.match(line):
            self.i += 1
            return self._heading(m, pending)
        if _DELIMITER.match(stripped) or _FENCE.match(stripped):
            return self._mark(pending, self._delimited(stripped, pending))
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
        offset = _int(self.attrs.get("leveloffset", "0"), 0)
        level = min(max(len(marks) - 1 + offset, 1), 5)
        shown = inline(m.group(2), self.attrs)
        text = _plain(shown)
        custom = pending.ids[-1] if pending.ids else None
        anchor = custom or self.doc.section_id(text)
        if anchor:
            self.doc.ids.add(anchor)
            self.doc.titles.setdefault(anchor, _protect(text))
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
                if _DELIMITER.match(nxt.strip()) or (nxt.startswith("[") and _ATTR_LINE.match(nxt.rstrip())):
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
                _DELIMITER.match(line.strip())
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


# -- inline --------------------------------------------------------------------------------

_PASS = re.compile(r"\+\+\+(.+?)\+\+\+|\+\+(.+?)\+\+|(?<![\w+])\+([^\s+](?:.*?[^\s+])?)\+(?![\w+])|pass:[a-z,]*\[(.*?)\]")
_CODE = re.compile(r"(?<![\w`\\])`([^`\s](?:[^`]*?[^`\s])?)`(?![\w`])|``(.+?)``")
_MACRO = re.compile(
    r"(?<![\w\\])(link|mailto|xref|kbd|btn|menu|image|icon|footnote|footnoteref|anchor|indexterm2?|stem|latexmath|asciimath)"
    r":([^\s\[]*)\[((?:[^\]\\]|\\.)*)\]"
)
_URL = re.compile(r"(?<![\w\\/\"'=])((?:https?|ftp|file|irc)://[^\s\[\]<>]+)\[((?:[^\]\\]|\\.)*)\]")
_XREF = re.compile(r"<<([^<>,]+?)(?:,\s*([^<>]*?))?>>")
_INLINE_ANCHOR = re.compile(r"\[\[([\w:][\w:.-]*)(?:,[^\]]*)?\]\]|\[#([\w:][\w:.-]*)\]#")
_STRONG = re.compile(r"\*\*(.+?)\*\*|(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])")
_EMPHASIS = re.compile(r"__(.+?)__|(?<![\w_])_(\S(?:.*?\S)?)_(?![\w_])")
_MARKED = re.compile(r"(?:\[[^\]\[]*\])?##(.+?)##|(?:\[[^\]\[]*\])?(?<![\w#])#(\S(?:.*?\S)?)#(?![\w#])")
_SUPSUB = re.compile(r"(?<![\w^~\\])[\^~](\S+?)[\^~]")
_ROLE = re.compile(r"\[\.[\w.-]+\](?=[*_`#])")
_SLOT = re.compile("\ufdd5(\\d+)\ufdd6")


def inline(text: str, attrs: Mapping[str, str]) -> str:
    """One line of AsciiDoc text as the Markdown of what the page shows: code spans kept,
    links as ``[text](url)``, cross references, keys, buttons and images as their text."""
    slots: list[str] = []

    def keep(value: str) -> str:
        slots.append(value)
        return f"\ufdd5{len(slots) - 1}\ufdd6"

    text = _PASS.sub(lambda m: keep(_protect(next(g for g in m.groups() if g is not None))), text)
    text = substitute(text, attrs)
    text = _ROLE.sub("", text)
    text = _CODE.sub(lambda m: keep(_code_span(_PASS.sub(lambda p: next(g for g in p.groups() if g is not None), m.group(1) or m.group(2)))), text)
    text = _MACRO.sub(lambda m: keep(_macro(m.group(1), m.group(2), _unescape(m.group(3)), attrs)), text)
    text = _URL.sub(lambda m: keep(_link(m.group(1), _unescape(m.group(2)))), text)
    text = _XREF.sub(lambda m: keep(_protect(m.group(2).strip()) if m.group(2) else _internal(m.group(1))), text)
    text = _INLINE_ANCHOR.sub(lambda m: keep(f'<a id="{m.group(1) or m.group(2)}"></a>') if m.group(1) else "#", text)
    text = _STRONG.sub(lambda m: f"**{m.group(1) or m.group(2)}**", text)
    text = _EMPHASIS.sub(lambda m: f"*{m.group(1) or m.group(2)}*", text)
    text = _MARKED.sub(lambda m: m.group(1) or m.group(2), text)
    text = _SUPSUB.sub(lambda m: m.group(1), text)
    text = re.sub(r"[ \t]\+$", "", text)  # a hard line break
    text = text.replace("\\*", "*").replace("\\_", "_").replace("\\#", "#")
    text = text.replace("<", "&lt;")
    for _ in range(3):  # slots may hold slots (a link's text with code in it)
        if "\ufdd5" not in text:
            break
        text = _SLOT.sub(lambda m: slots[int(m.group(1))], text)
    return text


def _internal(target: str) -> str:
    """``<<id>>``: the title of the section it names, filled in once the page is read."""
    if "#" in target or target.endswith(SUFFIXES):
        return _protect(_xref_text(target))
    return f"\ufdd7{target.strip()}\ufdd8"


_INTERNAL = re.compile("\ufdd7([^\ufdd8]*)\ufdd8")


def _protect(text: str) -> str:
    return text.replace("<", "&lt;")


def _unescape(text: str) -> str:
    return text.replace("\\]", "]")


def _macro(name: str, target: str, content: str, attrs: Mapping[str, str]) -> str:
    label = parse_attrlist(content).get("1", "") if "=" in content or "," in content else content
    if name in ("link", "mailto"):
        url = f"mailto:{target}" if name == "mailto" else target
        return _link(url, label.strip().strip('"'))
    if name == "xref":
        return _protect(label.strip().strip('"')) if label.strip() else _protect(_xref_text(target))
    if name == "kbd":
        return _code_span(content.strip())
    if name == "btn":
        return _protect(content.strip())
    if name == "menu":
        return _protect(" > ".join([target, *[p.strip() for p in content.split(">") if p.strip()]]))
    if name == "image":
        return _protect(label.strip() if label.strip() else "")
    if name in ("footnote", "footnoteref"):
        shown = content.split(",", 1)[-1] if name == "footnoteref" else content
        return f" ({inline(shown.strip(), attrs)})" if shown.strip() else ""
    if name in ("indexterm2",):
        return _protect(content)
    if name in ("stem", "latexmath", "asciimath"):
        return _code_span(content)
    if name == "anchor":
        return f'<a id="{target}"></a>' if re.fullmatch(r"[^\s\"<>]+", target) else ""
    return ""


def _link(url: str, text: str) -> str:
    text = text.strip()
    if text.endswith("^"):
        text = text[:-1]  # ^: open in a new window
    if not text:
        return url
    return f"[{_protect(text)}]({url.replace(')', '%29').replace(' ', '%20')})"


def _xref_text(target: str) -> str:
    """What an xref without text shows: Asciidoctor shows the target's title, which only
    the other page knows; its name read as words is the nearest guess."""
    target = target.split("#", 1)[-1] if "#" in target else target
    target = target.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    for suffix in SUFFIXES:
        target = target.removesuffix(suffix)
    return " ".join(target.strip("_").replace("_", " ").replace("-", " ").split())


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


def _plain(markdown: str) -> str:
    """The text a heading shows, from its Markdown."""
    return decode_entities(strip_inline(markdown))


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
