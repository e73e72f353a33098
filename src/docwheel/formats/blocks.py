"""Block markup a reader never sees: admonition and tab markers, directive stubs, includes.

Docs generators wrap prose in markers: MkDocs Material's ``!!! note "Title"`` and
``=== "pip"`` with a body indented four spaces, pymdownx's ``/// note | Title`` … ``///``,
mkdocstrings' ``::: package.Class`` stubs, MyST's fenced ``{note}`` directives. The rendered
page shows the title and the body and none of the markers, so that is what is kept: the
title as a line of prose, the body de-indented (an indented body is prose, not a code
block; an indented fence inside it stays code). Include lines that were not resolved
(``--8<--``, ``<<<``, ``{* file *}``) show nothing and go too.

Pure functions over lines; the caller's line classifier tells prose from fenced code, so
markers inside code samples are left alone.

Regular expressions, not markdown-it-py: on the uv, vitest, prettier, starlight and fastmcp
trees (7.4 MB) markdown-it-py 4.3 with the front_matter, admon and table rules takes 1.8 s
of CPU for the token stream alone, more than the whole Markdown parse of those trees here
(1.1 s) and about a fifth of their whole build (9.4 s), before any token is read; these
passes add 0.2 s. The constructs read here are line-shaped, which the rules below read as
their generators do (Python-Markdown and pymdownx are line-based too).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .headings import CODE_SPAN

PROSE, FENCE, CODE, COMMENT = "prose", "fence", "code", "comment"
Classify = Callable[[Sequence[str]], list[str]]

# `!!! note "Title"`, `??? tip`, `???+ warning "T"`, `!!! danger highlight blink "T"`;
# `!!! important ""` has no title.
_ADMONITION = re.compile(
    r"""^([ \t]*)(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"(.*)")?[ \t]*$"""
)
# pymdownx.tabbed: `=== "pip"`, `===! "First"`, `===+ "Selected"`; the label is quoted.
_TAB = re.compile(r"""^([ \t]*)===[!+]?[ \t]+"(.*)"[ \t]*$""")
# pymdownx.blocks: `/// note | Title`, `//// tab | X`, closed by the same number of slashes.
_SLASH_OPEN = re.compile(r"^[ \t]*(/{3,})[ \t]*([A-Za-z][\w-]*)[ \t]*(?:\|[ \t]*(.*?))?[ \t]*$")
_SLASH_CLOSE = re.compile(r"^[ \t]*(/{3,})[ \t]*$")
# Blocks whose argument is not a title a reader sees (`/// html | div`).
_UNTITLED_BLOCKS = frozenset({"html", "attrs"})
_OPTION = re.compile(r"^[ \t]+[\w-]+[ \t]*:")  # an indented `key: value` option line
# mkdocstrings: `::: package.module.Class`, optionally with an indented `options:` block.
_STUB = re.compile(r"^:::[ \t]+([A-Za-z_][\w]*(?:\.[\w]+)*)[ \t]*$")
_STUB_OPTIONS = re.compile(r"^[ \t]+(?:options|handler|selection|rendering)[ \t]*:")
# Include lines (resolved beforehand by ``includes``, when their target could be read).
INCLUDE_LINE = re.compile(
    r"^[ \t]*(?:;?--8<--(?:[ \t].*)?|<<<[ \t]+\S.*|\{\*[ \t].*\*\}|<!--[ \t]*@include:.*-->)[ \t]*$"
)
# vitepress-plugin-tabs: `::: tabs` holds tabs opened by `== label` lines (`===` when nested).
_TABS_CONTAINER = re.compile(r"^[ \t]*:{3,}[ \t]*tabs\b")
_TABS_LABEL = re.compile(r"^[ \t]*={2,3}[ \t]+(\S.*?)[ \t]*$")
# MyST: a `(label)=` target line before a heading.
_MYST_TARGET = re.compile(r"^[ \t]*\(([\w.:/-]+)\)=[ \t]*$")
# The id Sphinx gives a label (docutils' make_id): lower case, other runs one '-'.
_NOT_ID = re.compile(r"[^a-z0-9]+")


def _indent(line: str) -> int:
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _dedent(line: str, width: int) -> str:
    """``line`` with up to ``width`` columns of leading white space removed."""
    if width <= 0:
        return line
    col = 0
    for i, ch in enumerate(line):
        if col >= width or ch not in " \t":
            return " " * (col - width) + line[i:]
        col += 1 if ch == " " else 4 - col % 4
    return "" if col <= width else " " * (col - width)


class _Open(NamedTuple):
    body: int  # the indentation of the block's body, in columns
    dedent: int  # how many columns the body loses


def unwrap_blocks(lines: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """Indented admonitions and tabs, ``///`` blocks, directive stubs and include lines as a
    reader sees them: titles and labels as lines of prose, bodies de-indented, no markers."""
    out: list[str] = []
    stack: list[_Open] = []  # open indented blocks, innermost last
    slashes: list[int] = []  # open /// blocks: their number of slashes
    tabs = False  # a `::: tabs` container was seen: `== label` lines are tab labels
    i, n = 0, len(lines)
    while i < n:
        line, kind = lines[i], kinds[i]
        if not line.strip():
            out.append("")
            i += 1
            continue
        width = _indent(line)
        if kind != CODE:
            while stack and width < stack[-1].body:
                stack.pop()
        shift = stack[-1].dedent if stack else 0
        if kind == CODE:  # inside a fence: keep the code, under the same de-indent
            out.append(_dedent(line, shift))
            i += 1
            continue
        if kind != PROSE:
            out.append(_dedent(line, shift))
            i += 1
            continue
        shown = _dedent(line, shift)
        m = _ADMONITION.match(line) or _TAB.match(line)
        if m:
            title = (m.group(2) or "").strip()
            if title:
                out.append(" " * (width - shift) + title)
                out.append("")
            stack.append(_Open(width + 4, shift + 4))
            i += 1
            continue
        if ":::" in line and _TABS_CONTAINER.match(line):
            tabs = True
        elif tabs and "==" in line and (m := _TABS_LABEL.match(shown)):
            out.append(m.group(1))
            i += 1
            continue
        m = _SLASH_OPEN.match(line)
        if m:
            slashes.append(len(m.group(1)))
            title = (m.group(3) or "").strip()
            i += 1
            while i < n and _OPTION.match(lines[i]):  # the block's YAML options
                i += 1
            if title and m.group(2).lower() not in _UNTITLED_BLOCKS:
                out += [shown[: len(shown) - len(shown.lstrip())] + title, ""]
            continue
        m = _SLASH_CLOSE.match(line)
        if m and len(m.group(1)) in slashes:
            while slashes and slashes.pop() != len(m.group(1)):
                pass
            i += 1
            continue
        m = _STUB.match(line)
        if m and ("." in m.group(1) or _next_is_options(lines, i)):
            i += 1
            while i < n and (not lines[i].strip() or _indent(lines[i]) >= 4):
                i += 1
            continue
        target = _MYST_TARGET.match(line)
        if target:  # a link target, not words: kept as the HTML anchor the page has there
            label = _NOT_ID.sub("-", target.group(1).lower()).strip("-")
            out.append(f'<a id="{label}"></a>' if label else "")
            i += 1
            continue
        if INCLUDE_LINE.match(line):
            i = _include_block_end(lines, i) + 1
            continue
        out.append(shown)
        i += 1
    return out


def _next_is_options(lines: Sequence[str], i: int) -> bool:
    for line in lines[i + 1 : i + 3]:
        if line.strip():
            return bool(_STUB_OPTIONS.match(line))
    return False


def _include_block_end(lines: Sequence[str], i: int) -> int:
    """The last line of the include at ``i``: a bare ``--8<--`` opens a block of file names
    closed by another bare ``--8<--``."""
    if lines[i].strip() != "--8<--":
        return i
    for j in range(i + 1, min(len(lines), i + 200)):
        if lines[j].strip() == "--8<--":
            return j
        if not lines[j].strip():
            break
    return i


# -- MyST fenced directives ------------------------------------------------------------------

_DIRECTIVE_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}|:{3,})[ \t]*\{([\w:.-]+)\}[ \t]*(.*?)[ \t]*$")
# Directives whose body is prose the page shows (MyST, sphinx-design).
_PROSE_DIRECTIVES = frozenset(
    "note tip hint important warning caution attention danger error seealso admonition "
    "dropdown topic sidebar margin epigraph highlights pull-quote rubric versionadded "
    "versionchanged deprecated div card grid grid-item grid-item-card tab-set tab-item "
    "tab tabs figure table glossary".split()
)
# ... whose body is code (the fence then stays, as code).
_CODE_DIRECTIVES = frozenset(
    "code code-block code-cell sourcecode literalinclude math mermaid eval-rst raw "
    "graphviz plantuml".split()
)
# ... whose argument is not a title (a path, a name).
_UNTITLED_DIRECTIVES = frozenset({"figure", "table", "div", "tab-set", "grid", "versionadded",
                                  "versionchanged", "deprecated"})
_DIRECTIVE_OPTION = re.compile(r"^[ \t]*:[\w-]+:(?:[ \t].*)?$")


def unwrap_directives(text: str, classify: Classify) -> str:
    """MyST fenced directives as the page shows them: a prose directive (``{note}``,
    ``{tab-item}``) loses its fences and ``:option:`` lines and keeps its title and body; a
    code directive stays a fence; any other (``{toctree}``, ``{autoclass}``) shows no
    words of its own and goes."""
    if "{" not in text:
        return text
    lines = text.split("\n")
    for _ in range(200):  # one directive per pass, outermost first; nesting is shallow
        kinds = classify(lines)
        found = _first_directive(lines, kinds)
        if found is None:
            break
        start, end, name, argument, indent = found
        body = lines[start + 1 : end]
        while body and _DIRECTIVE_OPTION.match(body[0]):
            body = body[1:]
        if body and body[0].strip() == "---":  # a YAML block of options
            close = next((k for k in range(1, len(body)) if body[k].strip() == "---"), None)
            if close is not None:
                body = body[close + 1 :]
        if name in _PROSE_DIRECTIVES:
            title = [] if name in _UNTITLED_DIRECTIVES or not argument else [indent + argument, ""]
            middle = title + body
        else:
            middle = []
        lines[start : end + 1] = middle
    return "\n".join(lines)


def _first_directive(lines: Sequence[str], kinds: Sequence[str]):
    for i, (line, kind) in enumerate(zip(lines, kinds)):
        if kind not in (FENCE, PROSE) or "{" not in line:
            continue
        m = _DIRECTIVE_FENCE.match(line)
        if not m:
            continue
        name = m.group(3).lower()
        if name in _CODE_DIRECTIVES:
            continue
        fence = m.group(2)
        if fence[0] == ":" or kind == PROSE:  # a colon fence: closed by a run of colons
            close = re.compile(rf"^[ \t]*{fence[0]}{{{len(fence)},}}[ \t]*$")
            end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        else:  # a code fence: the classifier knows where it closes
            end = next((j for j in range(i + 1, len(lines)) if kinds[j] == FENCE), None)
        if end is None:
            continue
        return i, end, name, m.group(4), m.group(1)
    return None


# -- inside code: line markers readers never see -----------------------------------------

# Shiki/VitePress notation: `// [!code ++]`, `# [!code focus]`, `<!-- [!code error] -->`.
_CODE_MARK = re.compile(
    r"[ \t]*(?://|#|--|<!--|/\*|;)[ \t]*\[!code\b[^\]]*\][ \t]*(?:-->|\*/)?[ \t]*$"
)
_CUT = re.compile(r"^[ \t]*//[ \t]*---cut(?:-before)?---[ \t]*$")
_CUT_AFTER = re.compile(r"^[ \t]*//[ \t]*---cut-after---[ \t]*$")
_CUT_START = re.compile(r"^[ \t]*//[ \t]*---cut-start---[ \t]*$")
_CUT_END = re.compile(r"^[ \t]*//[ \t]*---cut-end---[ \t]*$")
# Twoslash compiler directives (`// @errors: 2769`, `// @filename: a.ts`) and queries (`//  ^?`).
_TWOSLASH_LINE = re.compile(r"^[ \t]*//[ \t]*(?:@[\w]+(?::.*)?|\^[?|!].*)$")


def clean_code(lines: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """Fenced code as the page shows it: Shiki line markers (``// [!code ++]``) leave the
    line they annotate, and in a twoslash fence the directives and everything a
    ``// ---cut---`` hides are gone. Unresolved include lines in code go too."""
    if "[!code" not in "".join(lines) and "twoslash" not in "".join(
        line for line, kind in zip(lines, kinds) if kind == FENCE
    ):
        return [line for line, kind in zip(lines, kinds) if kind != CODE or not _code_include(line)]
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if kinds[i] == FENCE and i + 1 < n and kinds[i + 1] == CODE:
            twoslash = "twoslash" in lines[i]
            end = i + 1
            while end < n and kinds[end] == CODE:
                end += 1
            out.append(lines[i])
            out += _clean_fence(lines[i + 1 : end], twoslash)
            i = end
            continue
        out.append(lines[i])
        i += 1
    return out


def _code_include(line: str) -> bool:
    return "--8<--" in line and bool(INCLUDE_LINE.match(line))


def _clean_fence(code: Sequence[str], twoslash: bool) -> list[str]:
    if twoslash:
        cut = max((k for k, line in enumerate(code) if _CUT.match(line)), default=-1)
        code = code[cut + 1 :]
        after = next((k for k, line in enumerate(code) if _CUT_AFTER.match(line)), None)
        if after is not None:
            code = code[:after]
        kept, hidden = [], False
        for line in code:
            if _CUT_START.match(line):
                hidden = True
            elif _CUT_END.match(line):
                hidden = False
            elif not hidden and not _TWOSLASH_LINE.match(line):
                kept.append(line)
        code = kept
    kept = []
    for line in code:
        if "[!code" in line:
            unmarked = _CODE_MARK.sub("", line)
            alone = line.strip().startswith(("//", "#", "<!--", "/*", "--", ";"))
            if unmarked.strip() or not alone:  # alone, `// [!code word:x]` marks the next line
                kept.append(unmarked)
        elif not _code_include(line):
            kept.append(line)
    return kept


# -- template placeholders in prose ----------------------------------------------------------

# `{{ version }}` (Jinja, Vue, Handlebars), `{% include x %}` (Jinja, Liquid, Markdoc),
# `%PRETTIER_VERSION%` (a build-time substitution): the page shows the value, never these.
# `style={{…}}` is a JSX attribute's object, not a placeholder (the tag cleanup reads it).
# A Hugo shortcode left in prose was escaped (``hugo_shortcodes``): the page shows it.
_PLACEHOLDER = re.compile(
    r"[ \t]*(?:(?<!=)\{\{(?![<%]).*?\}\}|(?<!\{)\{%.*?%\}|(?<![\w%])%[A-Z][A-Z0-9_]{2,}%(?![\w%]))"
)


# GitBook's blocks are Liquid-style tags too; a tab's or a code block's title is shown
# (`{% tab title="pip" %}`, `{% code title="app.py" %}`), the other tags show nothing.
_TITLED_TAG = re.compile(r"""\{%[ \t]*(?:tab|code|step)\b[^%]*?\btitle=(?:"([^"]*)"|'([^']*)')[^%]*%\}""")


def drop_placeholders(lines: list[str]) -> list[str]:
    """Template placeholders outside inline code removed from prose lines; a line left
    empty by them goes. A GitBook tag with a title leaves the title as a line."""
    out = []
    for line in lines:
        if "{{" not in line and "{%" not in line and "%" not in line:
            out.append(line)
            continue
        if "title=" in line and (titled := _TITLED_TAG.search(line)):
            before, after = line[: titled.start()], line[titled.end() :]
            shown = (titled.group(1) or titled.group(2) or "").strip()
            out += drop_placeholders([before]) if before.strip() else []
            out += [before[: len(before) - len(before.lstrip())] + shown, ""] if shown else []
            out += drop_placeholders([after]) if after.strip() else []
            continue
        parts, pos = [], 0
        for m in CODE_SPAN.finditer(line):
            parts += [_PLACEHOLDER.sub("", line[pos : m.start()]), m.group(0)]
            pos = m.end()
        kept = "".join(parts) + _PLACEHOLDER.sub("", line[pos:])
        if kept.strip() or not line.strip():
            out.append(kept.rstrip() if kept != line else line)
    return out


# -- small markers in prose lines -----------------------------------------------------------

# GitHub/VitePress alerts: `> [!NOTE]` renders as the callout's label, not as these words.
_ALERT = re.compile(
    r"^([ \t]*>[ \t]*)\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION|DANGER|INFO)\][ \t]*$", re.I
)
# Abbreviation definitions (`*[HTML]: Hyper Text Markup Language`) become tooltips.
_ABBREVIATION = re.compile(r"^[ \t]*\*\[[^\]]+\]:[ \t]")
# attr_list / markdown-it-attrs after a link or image, or ending a line: `{: style="…"}`,
# `{ .md-button }`. Heading ids (`## x {#id}`) are read with the heading, not here.
_ATTR_LIST = re.compile(
    r"(?<=[)\]])\{:?[ \t]*[.#:][^{}\n]*\}"
    r"|(?:^|[ \t]+)\{:[ \t]*[\w.#][^{}\n]*\}[ \t]*$"
    r"|[ \t]+\{[ \t]*\.[A-Za-z][\w-]*(?:[ \t][^{}\n]*)?\}[ \t]*$"
)


def drop_markers(lines: list[str]) -> list[str]:
    """Alert markers, abbreviation definitions and attribute lists left out of prose lines."""
    out = []
    for line in lines:
        if "[!" in line and (m := _ALERT.match(line)):
            out.append(m.group(1).rstrip())
        elif "*[" in line and _ABBREVIATION.match(line):
            continue
        elif "{" in line and not line.lstrip().startswith("#") and "`" not in line:
            kept = _ATTR_LIST.sub("", line)
            if kept.strip() or kept == line:  # a line that was only an attribute list goes
                out.append(kept)
        else:
            out.append(line)
    return out


# -- MyST roles ------------------------------------------------------------------------------

# ``{func}`flask.url_for```, ``{ref}`Install <install-label>```: a role and its target.
_MYST_ROLE = re.compile(r"\{([a-z][\w:.+-]*)\}`([^`\n]+)`")
# Roles whose target a page shows as words (the link text), not as code.
_WORD_ROLES = frozenset({"ref", "doc", "term", "numref", "download", "abbr", "any", "sub", "sup"})


def myst_roles(lines: list[str]) -> list[str]:
    """MyST roles in prose read as Sphinx shows them: ``{ref}`Title <label>``` as its
    title, a cross-reference or ``{code}`` as a code span of its target
    (``{func}`~flask.url_for``` as `` `url_for` ``)."""
    return [_MYST_ROLE.sub(_role_shown, line) if "}`" in line else line for line in lines]


def _role_shown(m: re.Match[str]) -> str:
    role, target = m.group(1), m.group(2).strip()
    titled = re.fullmatch(r"(.+?)\s*<([^<>]+)>", target)
    shown = titled.group(1) if titled else target
    if role.rsplit(":", 1)[-1] in _WORD_ROLES:
        return shown
    if not titled and shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    return f"`{shown.lstrip('.!')}`"


# -- Hugo shortcodes ---------------------------------------------------------------------------

# `{{< name args >}}` and `{{% name args %}}` (gohugo.io, "Shortcodes"), closed by
# `{{< /name >}}` when paired, `{{< name />}}` self-closing; args may span lines and quote
# '>}}'. `{{</* name */>}}` is the escaped form, which the page shows as `{{< name >}}`.
_SHORTCODE = re.compile(
    r"""\{\{(?:(?P<angle><)|%)(?P<esc>/\*)?\s*(?P<end>/)?\s*(?P<name>\w[\w./-]*)"""
    r"""(?P<args>(?:"(?:[^"\\]|\\.)*"|`[^`]*`|[^"`])*?)\s*(?:\*/)?\s*/?\s*(?(angle)>|%)\}\}""",
    re.S,
)
_CLOSING = re.compile(r"\{\{[<%]\s*/\s*(\w[\w./-]*)")
_POSITIONAL = re.compile(r"""\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)(?:\s|$)""")
_ESCAPED_OPEN = re.compile(r"\{\{([<%])/\*")
_ESCAPED_CLOSE = re.compile(r"\*/([>%])\}\}")
# Named arguments whose value the rendered page shows as a label: Docsy's `alert title=`,
# `tab header=`, Hugo's `details summary=`, `figure caption=`.
_SHOWN_ARGS = ("title", "header", "summary", "caption")
_ARG = re.compile(r"""(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`|'([^']*)')""")
# A paired shortcode alone on its lines whose body is code: the built-in `highlight`
# (its first argument the language), `code` and `code-*` ones, any with `lang=`.
_CODE_OPEN = re.compile(
    r"""^([ \t]*)\{\{[<%]\s*([\w.-]+)((?:"[^"\n]*"|`[^`\n]*`|[^"`\n])*?)[>%]\}\}[ \t]*$"""
)
_LANG_ARG = re.compile(r"""\b(?:lang|language)\s*=\s*["'`]?([\w+#.-]+)""")
_FIRST_ARG = re.compile(r"""^\s*["'`]?([\w+#.-]+)""")
_TAG_MARK = "\ufdd1"  # brackets a tag's label while lines are put back together
_MARKED = re.compile(rf"([ \t]*){_TAG_MARK}([^{_TAG_MARK}]*){_TAG_MARK}([ \t]*)")


def hugo_shortcodes(text: str, classify: Classify) -> str:
    """Hugo shortcodes as the page shows them: tags leave no trace, a paired shortcode's
    inner text stays, a label argument (``title="Warning"``) stays as a line of prose like an
    admonition's title, ``{{< highlight go >}}`` … ``{{< /highlight >}}`` is a code block,
    and an escaped ``{{</* name */>}}`` shows as ``{{< name >}}``. Inside code blocks and
    code spans a shortcode is shown as written (only the escaped form is unescaped).

    Read wherever the syntax appears, not only in Hugo trees: ``{{<`` and ``{{%`` are Hugo's
    alone (Jinja and Liquid placeholders are ``{{ x }}`` and ``{% x %}``), llms-full files
    made from a Hugo site's sources carry them, and no reader of a page sees them."""
    lines = _code_fences(text.split("\n"), classify)
    kinds = classify(lines)
    shown = functools.partial(_tag_shown, paired=frozenset(_CLOSING.findall(text)))
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if kinds[i] != PROSE:
            out.append(_unescape(lines[i]) if kinds[i] == CODE else lines[i])
            i += 1
            continue
        end = i
        while end < n and kinds[end] == PROSE:
            end += 1
        run = "\n".join(lines[i:end])
        out += _put_back(_shortcodes_in(run, shown).split("\n")) if "{{" in run else lines[i:end]
        i = end
    return "\n".join(out)


def _code_fences(lines: list[str], classify: Classify) -> list[str]:
    kinds = classify(lines)
    for i, line in enumerate(lines):
        m = _CODE_OPEN.match(line) if kinds[i] == PROSE and "{{" in line else None
        if m is None or m.group(2).startswith("/"):
            continue
        name, args = m.group(2), m.group(3)
        lang = _LANG_ARG.search(args)
        if name == "highlight":
            lang = _FIRST_ARG.match(args)
        elif lang is None and name != "code" and not name.startswith("code-"):
            continue
        closing = re.compile(rf"^[ \t]*\{{\{{[<%]\s*/{re.escape(name)}\s*[>%]\}}\}}[ \t]*$")
        close = next((j for j in range(i + 1, len(lines)) if closing.match(lines[j])), None)
        if close is not None:
            lines[i] = f"{m.group(1)}```{lang.group(1) if lang else ''}"
            lines[close] = f"{m.group(1)}```"
            kinds = classify(lines)
    return lines


def _shortcodes_in(text: str, shown: Callable[[re.Match[str]], str]) -> str:
    parts: list[str] = []
    pos = 0
    for m in CODE_SPAN.finditer(text):  # `{{</* x */>}}` in a code span: shown unescaped
        parts += [_SHORTCODE.sub(shown, text[pos : m.start()]), _unescape(m.group(0))]
        pos = m.end()
    parts.append(_SHORTCODE.sub(shown, text[pos:]))
    return "".join(parts)


def _tag_shown(m: re.Match[str], paired: frozenset[str]) -> str:
    """A tag as a marked label: its label arguments, or for a paired shortcode a first
    positional argument that reads as words (``{{% note "More on X" %}}``, ``{{< tab
    "macOS" >}}``; an id such as ``"install-tabs"`` is not shown)."""
    if m.group("esc"):
        return _unescape(m.group(0))
    if m.group("end"):
        return _TAG_MARK * 2
    args = m.group("args")
    labels = [
        (double or backtick or single).strip()
        for name, double, backtick, single in _ARG.findall(args)
        if name.lower() in _SHOWN_ARGS and (double or backtick or single).strip()
    ]
    if not labels and m.group("name") in paired and (first := _POSITIONAL.match(args)):
        label = first.group(1) or first.group(2) or ""
        if label.strip() and (" " in label.strip() or label != label.lower()):
            labels.append(label.strip())
    return _TAG_MARK + " ".join(labels) + _TAG_MARK


def _put_back(lines: list[str]) -> list[str]:
    """Lines with their tags marked: a line of tags alone becomes its labels (or goes);
    in a line of text a tag leaves its label, or one space where it stood between words."""
    out: list[str] = []
    for line in lines:
        if _TAG_MARK not in line:
            out.append(line)
        elif not _MARKED.sub("", line).strip():
            indent = line[: len(line) - len(line.lstrip())]
            labels = [label.strip() for _, label, _ in _MARKED.findall(line) if label.strip()]
            out += [indent + label for label in labels]
        else:
            out.append(_MARKED.sub(_label_inline, line).rstrip())
    return out


def _label_inline(m: re.Match[str]) -> str:
    before, label, after = m.groups()
    if label.strip():
        return f"{before}{label.strip()}{after}"
    return " " if before and after else ""


def _unescape(text: str) -> str:
    if "/*" not in text and "*/" not in text:  # an escaped tag may span lines
        return text
    return _ESCAPED_CLOSE.sub(r"\1}}", _ESCAPED_OPEN.sub(r"{{\1", text))
