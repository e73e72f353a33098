"""Include lines resolved into the text they stand for, as the docs generator does.

``--8<-- "file"`` (pymdownx.snippets, MkDocs), ``<!--@include: ./file.md-->`` and
``<<< @/file`` (VitePress, VuePress 1), ``@[code{2-5}](./file.js)`` (VuePress 2), ``{* file *}`` (FastAPI-style code includes), mdBook's
``{{#include file.rs:2:10}}``, ``{{#rustdoc_include …}}`` and ``{{#playground …}}`` (with
``{{#title …}}``, which names the page), ``{{< include _file.qmd >}}`` (Quarto),
``{% include note.md %}`` from ``_includes/`` and ``{% include_relative file.md %}``
(Jekyll's Liquid, Markdown targets only), Fumadocs' ``<include>./file.mdx</include>``, and an MDX page
that imports a Markdown file as a component (``import Tip from '/snippets/tip.mdx'`` then
``<Tip />``: Mintlify snippets, Docusaurus partials): the page shows the target's text,
never the line. Resolving needs files, but this module stays pure: the caller
passes ``read(target, where)``, which returns the target's text and its own path, or None
when the target is missing or outside the source folder (the line is then dropped later by
the body cleanup, ``blocks.INCLUDE_LINE``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import PurePosixPath

# read(target as written, path of the including file) -> (text, path of the target) | None
Reader = Callable[[str, str], "tuple[str, str] | None"]
MAX_DEPTH = 8  # includes inside included files, as far as any real site nests them

_SNIPPET = re.compile(r"""^([ \t]*)--8<--[ \t]+(?:"([^"]+)"|'([^']+)'|(\S+))[ \t]*$""")
_SNIPPET_BLOCK = re.compile(r"^([ \t]*)--8<--[ \t]*$")
_VP_INCLUDE = re.compile(r"^([ \t]*)<!--[ \t]*@include:[ \t]*(.+?)[ \t]*-->[ \t]*$")
_VP_CODE = re.compile(r"^([ \t]*)<<<[ \t]+(\S+?)(\{[^}]*\})?(?:[ \t]+\[([^\]]*)\])?[ \t]*$")
# VuePress 2's importCode: `@[code](./f.js)`, `@[code{2-5} ts{3}:no-line-numbers](./f.ts)`.
_VUEPRESS_CODE = re.compile(r"^([ \t]*)@\[code(?:\{(\d*)-(\d*)\})?(?:[ \t]+([^\s\]{:]+))?[^\]]*\]\(([^)\s]+)\)[ \t]*$")
_CODE_MACRO = re.compile(r"^([ \t]*)\{\*[ \t]+(\S+)[^*]*\*\}[ \t]*$")
_LINES = re.compile(r"\{(\d*),?(\d*)\}$")  # VitePress `{3,}`, `{,10}`, `{2,5}`
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
# Quarto: `{{< include _part.qmd >}}`, from the including file's folder ('/': the project).
_QUARTO_INCLUDE = re.compile(
    r"""^([ \t]*)\{\{<[ \t]*include[ \t]+(?:"([^"]+)"|'([^']+)'|(\S+?))[ \t]*>\}\}[ \t]*$"""
)
# Liquid (Jekyll): `{% include note.md %}` reads `_includes/`, `{% include_relative x.md %}`
# the including file's folder. Only Markdown is read: an HTML template is not page text.
_LIQUID_INCLUDE = re.compile(
    r"""^([ \t]*)\{%-?[ \t]*(include_relative|include)[ \t]+(?:"([^"]+)"|'([^']+)'|([^\s%]+))"""
    r"""(?:[ \t][^%]*)?-?%\}[ \t]*$"""
)
_LIQUID_MARKDOWN = (".md", ".markdown")
# Fumadocs MDX: `<include>./part.mdx</include>` (from the including file's folder); a file
# that is not Markdown, or one given `lang=`, is a code block.
_MDX_INCLUDE = re.compile(r"^([ \t]*)<include(\s[^<>]*)?>[ \t]*([^<>\n]+?)[ \t]*</include>[ \t]*$")
_LANG_ATTR = re.compile(r"""\blang\s*=\s*["']([^"']+)["']""")
_HINTS = ("--8<--", "@include:", "<<<", "@[code", "{*", "import ", "{{<", "{%", "<include")
# MDX: `import Name from './_partial.mdx'`; `<Name />` alone on a line is then its text.
_MDX_IMPORT = re.compile(
    r"""^import[ \t]+([A-Z]\w*)[ \t]+from[ \t]+['"]([^'"]+\.mdx?)['"];?[ \t]*$""", re.M
)
_FRONTMATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)


def resolve_includes(
    text: str, where: str, read: Reader, _chain: tuple[str, ...] = (), *, mdbook: bool = False
) -> tuple[str, set[str]]:
    """``text`` (of the file at ``where``) with every readable include replaced by its
    target's text, and the paths of every file included, at any depth. mdBook's links are
    read only in an mdBook (``mdbook``): elsewhere ``{{#title}}`` may be an example.

    A target that includes itself, directly or not, or lies deeper than ``MAX_DEPTH``, is
    left unresolved.
    """
    included: set[str] = set()
    if mdbook and "{{" in text and "#" in text:
        text, title = _mdbook_links(text, where, read, _chain, included)
        if title and not _chain:
            text = _with_title(text, title)
    if not any(hint in text for hint in _HINTS):
        return text, included
    out: list[str] = []
    lines = text.split("\n")
    partials = dict(_MDX_IMPORT.findall(text)) if "import " in text else {}
    fenced = _fenced(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        found = _include(line, fenced[i]) or (None if fenced[i] else _partial(line, partials))
        if found is None and _SNIPPET_BLOCK.match(line):
            block = _snippet_block(lines, i)
            if block is not None:
                end, targets = block
                texts = [_read_one(t, where, read, _chain, included, "md", "", mdbook) for t in targets]
                if all(t is not None for t in texts):
                    indent = line[: len(line) - len(line.lstrip())]
                    out += [indent + x if x else x for t in texts if t for x in t.split("\n")]
                    i = end + 1
                    continue
        if found is not None:
            indent, target, code, label = found
            resolved = _read_one(target, where, read, _chain, included, code, label, mdbook)
            if resolved is not None:
                out += [indent + x if x else x for x in resolved.split("\n")]
                i += 1
                continue
        out.append(line)
        i += 1
    return "\n".join(out), included


def _fenced(lines: list[str]) -> list[bool]:
    """Whether each line is inside fenced code (fence lines included), CommonMark's rule."""
    marks, fence = [], None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = m.group(1)
            marks.append(fence is not None)
        else:
            marks.append(True)
            closer = m is not None and m.group(1)[0] == fence[0] and not m.group(2).strip()
            if closer and len(m.group(1)) >= len(fence):  # type: ignore[union-attr]
                fence = None
    return marks


def _include(line: str, fenced: bool) -> tuple[str, str, str, str] | None:
    """(indent, target, "md", "partial" or a code language, label) of an include line.

    Snippets and VitePress's Markdown includes are read before the Markdown is (inside
    code samples too); ``<<<`` and ``{* *}`` are block syntax, so never inside code."""
    if "--8<--" in line and (m := _SNIPPET.match(line)):
        return m.group(1), m.group(2) or m.group(3) or m.group(4), "md", ""
    if "@include:" in line and (m := _VP_INCLUDE.match(line)):
        return m.group(1), m.group(2), "md", ""
    if fenced:
        return None
    if "{{<" in line and (m := _QUARTO_INCLUDE.match(line)):
        return m.group(1), m.group(2) or m.group(3) or m.group(4), "md", ""
    if "{%" in line and (m := _LIQUID_INCLUDE.match(line)):
        target = m.group(3) or m.group(4) or m.group(5)
        if not target.lower().endswith(_LIQUID_MARKDOWN):
            return None
        return m.group(1), target if m.group(2) == "include_relative" else "/_includes/" + target, "md", ""
    if "<include" in line and (m := _MDX_INCLUDE.match(line)):
        target, lang = m.group(3), _LANG_ATTR.search(m.group(2) or "")
        if lang is None and target.split("#")[0].lower().endswith((".md", ".mdx")):
            return (m.group(1), target, "md", "") if "#" not in target else None  # a section: not read
        return m.group(1), target, lang.group(1) if lang else _language(target), ""
    if line.lstrip().startswith("<<<") and (m := _VP_CODE.match(line)):
        return m.group(1), m.group(2), _language(m.group(2)), m.group(4) or ""
    if "@[code" in line and (m := _VUEPRESS_CODE.match(line)):
        path = m.group(5)
        if m.group(2) or m.group(3):
            path += "{%s,%s}" % (m.group(2), m.group(3))
        return m.group(1), path, m.group(4) or _language(m.group(5)), ""
    if "{*" in line and (m := _CODE_MACRO.match(line)):
        return m.group(1), m.group(2), _language(m.group(2)), ""
    return None


def _partial(line: str, partials: dict[str, str]) -> tuple[str, str, str, str] | None:
    """An imported Markdown component used alone on its line: ``<Tip />``."""
    if not partials or "<" not in line:
        return None
    m = re.match(r"^([ \t]*)<([A-Z]\w*)[ \t]*/>[ \t]*$", line)
    if m and m.group(2) in partials:
        return m.group(1), partials[m.group(2)], "partial", ""
    return None


def _snippet_block(lines: list[str], start: int) -> tuple[int, list[str]] | None:
    targets = []
    for j in range(start + 1, min(len(lines), start + 100)):
        name = lines[j].strip()
        if name == "--8<--":
            return (j, targets) if targets else None
        if not name:
            return None
        if not name.startswith(";"):  # `;file` is commented out
            targets.append(name)
    return None


def _language(target: str) -> str:
    suffix = PurePosixPath(target.split("#")[0]).suffix.lstrip(".")
    return suffix or "text"


def _read_one(
    target: str,
    where: str,
    read: Reader,
    chain: tuple[str, ...],
    included: set[str],
    code: str,
    label: str,
    mdbook: bool = False,
) -> str | None:
    path, region, first, last = _split_target(target, code in ("md", "partial"))
    if not path or "://" in path or len(chain) >= MAX_DEPTH:
        return None
    got = read(path, where)
    if got is None or got[1] in chain or got[1] == where:
        return None
    body, found = got
    if code != "partial" or PurePosixPath(found).name.startswith("_"):
        included.add(found)  # an imported page that is not a `_partial` is still a page
    code = "md" if code == "partial" else code
    body = body.replace("\r\n", "\n").removeprefix("\ufeff")
    if code == "md":  # an included page's frontmatter is not shown
        body = _FRONTMATTER.sub("", body, count=1)
    body = _select(body.rstrip("\n"), region, first, last)
    if code != "md":
        fence = "`" * max(3, _longest_backticks(body) + 1)
        title = f" [{label}]" if label else ""
        return f"{fence}{code}{title}\n{body}\n{fence}"
    body, deeper = resolve_includes(body, found, read, (*chain, where), mdbook=mdbook)
    included |= deeper
    return body


def _split_target(target: str, markdown: bool) -> tuple[str, str, int, int]:
    """(path, region, first line, last line) from ``file.md#region{3,8}``, ``file.md:3:8``
    or ``file.md:section``; 0 means no bound."""
    first = last = 0
    m = _LINES.search(target)
    if m:
        first, last = int(m.group(1) or 0), int(m.group(2) or 0)
        if "," not in m.group(0):
            last = first
        target = target[: m.start()]
    region = ""
    if "#" in target:
        target, region = target.split("#", 1)
    parts = target.split(":")
    if len(parts) > 1 and not re.match(r"^[A-Za-z]$", parts[0]):  # `file:3:8`, `file:name`
        target, rest = parts[0], parts[1:]
        if all(p.isdigit() or not p for p in rest):
            first = int(rest[0] or 0)
            last = int(rest[1] or 0) if len(rest) > 1 else 0
        else:
            region = rest[0]
    if target.startswith("@/"):
        target = "/" + target[2:]  # VitePress: from the source root
    return target.strip(), region, first, last


_REGION_START = r"(?:#region|--8<--[ \t]*\[start:)[ \t]*{}\b"
_REGION_END = r"(?:#endregion|--8<--[ \t]*\[end:)[ \t]*{}\b"


def _select(body: str, region: str, first: int, last: int) -> str:
    lines = body.split("\n")
    if region:
        start = re.compile(_REGION_START.format(re.escape(region)))
        end = re.compile(_REGION_END.format(re.escape(region)))
        a = next((k for k, line in enumerate(lines) if start.search(line)), None)
        if a is not None:
            b = next((k for k in range(a + 1, len(lines)) if end.search(lines[k])), len(lines))
            lines = lines[a + 1 : b]
    if first or last:
        lines = lines[max(first - 1, 0) : last or None]
    return "\n".join(lines)


def _longest_backticks(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(r) for r in runs), default=0)


# -- mdBook's links preprocessor ---------------------------------------------------------
# `{{#include file.rs:2:10}}` anywhere in the text, code blocks too (that is its main use);
# `\{{#include …}}` is shown as written, without the backslash.
_MDBOOK_LINK = re.compile(r"\\\{\{#[^\n]*?\}\}|\{\{\s*#([A-Za-z0-9_]+)\s+([^}]+)\}\}")
_MDBOOK_KINDS = frozenset({"include", "rustdoc_include", "playground", "playpen", "title"})
_ANCHOR_START = re.compile(r"ANCHOR:\s*([\w-]+)")
_ANCHOR_END = re.compile(r"ANCHOR_END:\s*([\w-]+)")


def _mdbook_links(
    text: str, where: str, read: Reader, chain: tuple[str, ...], included: set[str]
) -> tuple[str, str]:
    """``text`` with mdBook's links replaced as its ``links`` preprocessor does, and the
    title a ``{{#title …}}`` gave ("" for none). Each line of an included file after the
    first takes the text before the link on its line (an indent, a ``> ``); a link whose
    file cannot be read stays as written."""
    title = ""
    out: list[str] = []
    pos = 0
    for m in _MDBOOK_LINK.finditer(text):
        kind = m.group(1)
        if kind is None:  # escaped
            out += [text[pos : m.start()], m.group(0)[1:]]
            pos = m.end()
            continue
        if kind not in _MDBOOK_KINDS:
            continue
        out.append(text[pos : m.start()])
        pos = m.end()
        if kind == "title":
            title = " ".join(m.group(2).split())
            continue
        body = _mdbook_target(kind, m.group(2), where, read, chain, included)
        if body is None:
            out.append(m.group(0))
            continue
        prefix = "".join(out).rsplit("\n", 1)[-1]
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        out.append(("\n" + prefix).join(lines))
    out.append(text[pos:])
    return "".join(out), title


def _mdbook_target(
    kind: str, argument: str, where: str, read: Reader, chain: tuple[str, ...], included: set[str]
) -> str | None:
    path, selector, attributes = _mdbook_argument(argument, kind)
    if not path or "://" in path or len(chain) >= MAX_DEPTH:
        return None
    got = read(path, where)
    if got is None or got[1] in chain or got[1] == where:
        return None
    body, found = got
    included.add(found)
    body = body.replace("\r\n", "\n").removeprefix("\ufeff")
    if kind in ("playground", "playpen"):
        language = "rust," + ",".join(attributes) if attributes else "rust"
        fence = "`" * max(3, _longest_backticks(body) + 1)
        return f"{fence}{language}\n{body.rstrip(chr(10))}\n{fence}"
    # rustdoc_include hides the lines outside the selection behind `#`: the page shows
    # the selection, as include does.
    body = _mdbook_select(body, selector)
    deeper_text, deeper = resolve_includes(body, found, read, (*chain, where), mdbook=True)
    included |= deeper
    return deeper_text


def _mdbook_argument(argument: str, kind: str) -> tuple[str, str, list[str]]:
    """(path, the part after its first ':', the words after it) of a link's argument; a
    path in double quotes may hold spaces."""
    argument = argument.strip()
    if argument.startswith('"'):
        end = argument.find('"', 1)
        if end < 0:
            return "", "", []
        path, rest = argument[1:end], argument[end + 1 :].strip()
        selector = rest[1:].split()[0] if rest.startswith(":") and rest[1:].split() else ""
        return path, selector, rest.split() if kind in ("playground", "playpen") else []
    words = argument.split()
    first = words[0] if words else ""
    if kind in ("playground", "playpen"):
        return first, "", words[1:]
    path, _, selector = first.partition(":")
    return path, selector, []


def _mdbook_select(body: str, selector: str) -> str:
    """The lines ``selector`` picks: ``2`` (that line), ``2:10``, ``2:``, ``:10``, or an
    anchor name (the lines between ``ANCHOR: name`` and ``ANCHOR_END: name``, without the
    lines that mark anchors)."""
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parts = selector.split(":", 2) if selector else []
    if parts and not parts[0].isdigit() and parts[0] != "":
        kept, inside = [], False
        for line in lines:
            if inside:
                end = _ANCHOR_END.search(line)
                if end and end.group(1) == parts[0]:
                    break
                if not end and not _ANCHOR_START.search(line):
                    kept.append(line)
            elif (start := _ANCHOR_START.search(line)) and start.group(1) == parts[0]:
                inside = True
        return "\n".join(kept)
    first = int(parts[0]) - 1 if parts and parts[0].isdigit() else None
    end_part = parts[1] if len(parts) > 1 else None
    last = int(end_part) if end_part is not None and end_part.isdigit() else None
    if first is not None and end_part is None:
        return "\n".join(lines[max(first, 0) : max(first, 0) + 1])
    return "\n".join(lines[max(first or 0, 0) : last])


def _with_title(text: str, title: str) -> str:
    """``text`` with ``title`` as its frontmatter title (a page's own frontmatter, which
    mdBook does not read, keeps its keys and loses its title to this one)."""
    entry = "title: " + json.dumps(title, ensure_ascii=False)
    m = _FRONTMATTER.match(text)
    if m is None:
        return f"---\n{entry}\n---\n{text}"
    head = "\n".join(
        line for line in m.group(0).rstrip("\n").split("\n")[1:-1] if not line.startswith("title:")
    )
    return f"---\n{entry}\n{head}\n---\n{text[m.end():]}".replace("\n\n---\n", "\n---\n", 1)
