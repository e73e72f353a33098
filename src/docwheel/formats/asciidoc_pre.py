"""The AsciiDoc preprocessor, and the attributes it and the page share.

Asciidoctor reads ``include::`` and ``ifdef::``/``ifndef::``/``ifeval::`` lines before it
parses the blocks, line by line, with the attributes set so far (directives/include and
directives/ifdef-ifndef on docs.asciidoctor.org): a conditional above which an entry sets
an attribute sees it. Pure: files are read only through the caller's ``read``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

# (text, its path as given back to later includes) of an include target, or None; the
# target as the page writes it (attributes replaced) and the path of the including file.
Read = Callable[[str, str], "tuple[str, str] | None"]

MAX_DEPTH = 16  # nested includes (Asciidoctor's max-include-depth is 64)
MAX_INCLUDES = 200  # includes read for one page: a file that includes itself twice stops here
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

ATTR_ENTRY = re.compile(r"^:(!?)([\w][\w-]*)(!?):(?:[ \t]+(.*?))?[ \t]*$")
_DIRECTIVE = re.compile(r"^(\\?)(include|ifdef|ifndef|ifeval|endif)::([^\[]*)\[(.*)\]\s*$")
_TAG_LINE = re.compile(r"\b(tag|end)::([\w-]+)\[\]")
# The line that opens and closes a delimited block (listing, literal, example, sidebar,
# quote, passthrough, comment, open, table).
DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|\|={3,}|!={3,}|,={3,}|:={3,})[ \t]*$")


class Preprocessor:
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
            elif stripped[:4] in ("----", "....", "////", "++++") and DELIMITER.match(stripped):
                verbatim = stripped
            elif line.startswith(":") and (entry := ATTR_ENTRY.match(line)):
                set_attribute(self.attrs, entry)
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
        hi = lo if not sep else (len(lines) if last.strip() in ("", "-1") else to_int(last, lo))
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


def to_int(text: str, default: int) -> int:
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


def set_attribute(attrs: dict[str, str], entry: re.Match) -> None:
    name = entry.group(2).lower()
    if entry.group(1) or entry.group(3):
        attrs.pop(name, None)
        return
    value = substitute(entry.group(4) or "", attrs)
    if name == "leveloffset" and value[:1] in "+-" and value[1:].isdigit():
        value = str(to_int(attrs.get("leveloffset", "0"), 0) + int(value))
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
