"""Quarto websites: ``_quarto.yml`` (or ``_quarto.yaml``) in the docs folder or above it.

What Quarto's documentation says, and this module does:
- Render targets: every ``.qmd`` and ``.md`` file, except files and folders whose name
  starts with ``.`` or ``_`` (partials, ``_site/`` and ``_freeze/`` output) and files named
  ``README.md``/``README.qmd``; ``project: render:`` narrows them, with globs (a name
  without '/' matches at any depth, ``dir/`` is everything in it) and ``!`` exclusions.
- A page is served at its path with ``.html`` (``index.qmd`` is ``index.html``);
  frontmatter ``output-file:`` renames it. Its title is frontmatter ``title:``.
- ``website: sidebar:`` (and a book's ``chapters:``): a ``section:`` or ``part:`` labels the
  pages it lists (``Page.group``), an entry's ``text:`` titles a page that has none.
- Heading ids are Pandoc's ``auto_identifiers`` (``headings.slugify_pandoc``); ``{#id}``
  sets one.
- Read as the page shows it (``shown``): a ``::: {.callout-note}`` shows its
  ``title="…"`` or its first heading as a label, not a section; each heading of a
  ``::: {.panel-tabset}`` is a tab label; ``.content-visible``/``.content-hidden`` divs
  keep their text only when the HTML page shows it (``when-format``, ``unless-format``);
  other fenced divs keep their text (an ``#id`` stays an anchor); executable cells ```` ```{python} ```` are code without their ``#|``
  option lines (a cell with ``echo: false`` or ``include: false`` shows no code, and
  ``execute: {echo: false}`` in the frontmatter or ``_quarto.yml`` hides every other cell's);
  ``{{< include >}}`` is resolved by ``includes``; an escaped ``{{</* x */>}}`` shows as
  ``{{< x >}}``; ``{{< var x >}}`` shows the value ``_variables.yml`` gives, ``{{< meta x >}}``
  the page's frontmatter value, ``{{< kbd X >}}`` the keys; other shortcodes show nothing
  (``blocks.drop_placeholders``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from .headings import CODE_SPAN
from .markdown import CODE, FENCE, PROSE, classify_lines, page_path_from_url
from .site import Generator, Navigation, Settings, Warn, excluded, strip_suffix

_CONFIGS = ("_quarto.yml", "_quarto.yaml")


@dataclass(frozen=True)
class QuartoSettings(Settings):
    """What ``_quarto.yml`` says beyond the common settings: ``project: render:`` as globs
    of pages and of non-pages relative to the docs folder (both empty when it lists none),
    the project's ``_variables.yml`` and its ``execute: echo:``."""

    render: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    # ``_variables.yml`` beside ``_quarto.yml``, flattened: (``email.info``, value).
    variables: tuple[tuple[str, str], ...] = ()
    echo: bool = True  # ``execute: echo:`` of the project: whether cells show their code


class Quarto(Generator):
    name = "quarto"
    config_files = _CONFIGS
    anchors = "pandoc"
    reads_frontmatter = True  # output-file:

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        if config is None:
            return QuartoSettings()
        try:
            data = yaml.safe_load(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError) as exc:
            warn(f"{config.name}: cannot be read ({type(exc).__name__}); Quarto defaults assumed")
            return QuartoSettings()
        variables = _variables(config.parent / "_variables.yml", warn)
        echo = _echo(data, True)
        project = data.get("project") if isinstance(data, dict) else None
        render = project.get("render") if isinstance(project, dict) else None
        if not isinstance(render, list):
            return QuartoSettings(variables=variables, echo=echo)
        try:  # the globs are relative to the project: make them relative to the docs folder
            prefix = root.resolve().relative_to(config.parent.resolve()).as_posix()
        except ValueError:
            prefix = "."
        keep, skip = [], []
        for item in render:
            if isinstance(item, str) and item.strip():
                negated = item.strip().startswith("!")
                globs = _render_globs(item.strip().lstrip("!").removeprefix("\\"), root, prefix)
                (skip if negated else keep).extend(globs)
        return QuartoSettings(render=tuple(keep), skip=tuple(skip), variables=variables, echo=echo)

    def is_page(self, rel: str, settings: Settings) -> bool:
        parts = rel.split("/")
        if any(part.startswith((".", "_")) for part in parts):
            return False
        if parts[-1].lower() in ("readme.md", "readme.qmd"):
            return False
        if not rel.lower().endswith((".qmd", ".md")):
            return False
        if isinstance(settings, QuartoSettings) and (settings.render or settings.skip):
            if settings.render and not excluded(rel, settings.render):
                return False
            if excluded(rel, settings.skip):
                return False
        return not excluded(rel, settings.exclude)

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        path = strip_suffix(rel)
        output = meta.get("output-file")
        if isinstance(output, str) and output.strip() and "/" not in output:
            name = output.strip()
            folder = path.rpartition("/")[0]
            path = f"{folder}/{name}" if folder else name
            return path if PurePosixPath(name).suffix else path + ".html"
        return path + ".html"

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        """``website: sidebar:`` (one sidebar or several) and a book's ``chapters:``:
        each ``section:`` or ``part:`` labels the pages listed in it; ``text:`` titles one."""
        if config is None:
            return None
        try:
            data = yaml.safe_load(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError):
            return None  # settings() has warned
        if not isinstance(data, dict):
            return None
        try:
            prefix = root.resolve().relative_to(config.parent.resolve()).as_posix()
        except ValueError:
            return None
        prefix = "" if prefix == "." else prefix + "/"
        website = data.get("website") if isinstance(data.get("website"), dict) else {}
        book = data.get("book") if isinstance(data.get("book"), dict) else {}
        sidebars = website.get("sidebar")
        sidebars = sidebars if isinstance(sidebars, list) else [sidebars]
        tops = [bar.get("contents") for bar in sidebars if isinstance(bar, dict)]
        tops += [book.get("chapters"), book.get("appendices")]
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        for top in tops:
            for href, labels, text in _entries(top, ()):
                href = href.lstrip("/")
                if "://" in href or not href.startswith(prefix):
                    continue
                key = page_path_from_url(href[len(prefix) :].split("#", 1)[0])
                groups.setdefault(key, labels)
                if text:
                    titles.setdefault(key, text)
        return Navigation(config.name, groups, titles) if groups else None

    def sniff(self, rel: str, text: str) -> int:
        """A ``.qmd`` file is Quarto's own; callouts, tabsets and executable cells mark one."""
        return int(rel.lower().endswith(".qmd")) + len(_MARKS.findall(text))

    def shown(self, text: str, settings: Settings) -> str:
        if not isinstance(settings, QuartoSettings):
            return read_quarto(text)
        return read_quarto(text, dict(settings.variables), echo=settings.echo)


GENERATOR = Quarto()

_MARKS = re.compile(
    r"^(?::::+[ \t]*\{?\.?(?:callout-|panel-tabset)|```+[ \t]*\{(?:python|r|julia|ojs)\b)", re.M
)


def _entries(node: object, labels: tuple[str, ...]) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(file, section labels, its text) for each page a sidebar or a book lists."""
    if isinstance(node, str):
        yield node, labels, None
    elif isinstance(node, list):
        for item in node:
            yield from _entries(item, labels)
    elif isinstance(node, dict):
        href = node.get("href") or node.get("file")
        text = node.get("text") if isinstance(node.get("text"), str) else None
        label = node.get("section") or node.get("part")
        inner = node.get("contents") or node.get("chapters")
        if isinstance(label, str) and label.lower().endswith((".qmd", ".md")):
            href, label = href or label, text  # a section that is a page itself
        if isinstance(href, str):
            yield href, labels, None if inner else text
        if inner is not None:
            yield from _entries(inner, (*labels, label) if isinstance(label, str) and label else labels)


def _render_globs(glob: str, root: Path, prefix: str) -> list[str]:
    """A ``render:`` glob as globs relative to the docs folder (Quarto's smart globs: a
    relative glob matches at any depth, ``dir/`` or a folder's name means all inside it)."""
    anchored = glob.startswith("/")
    glob = glob.lstrip("/").removeprefix("./")
    if glob.endswith("/"):
        glob += "**"
    elif (root / glob).is_dir():
        glob += "/**"
    if not anchored:
        return ["**/" + glob]
    if prefix in ("", "."):
        return [glob]
    if glob.startswith(prefix + "/"):
        return [glob[len(prefix) + 1 :]]
    return []


# -- the page as it shows: divs, cells, shortcodes ---------------------------------------

# A fenced div's opening line: colons and attributes (`{.callout-note title="x"}`) or one
# bare class name (`::: callout-tip`); a line of colons alone closes the innermost div.
_DIV_OPEN = re.compile(r"^([ \t]*):{3,}[ \t]*(\{[^{}]*\}|[A-Za-z][\w-]*)[ \t]*:*[ \t]*$")
_DIV_CLOSE = re.compile(r"^[ \t]*:{3,}[ \t]*$")
_CLASS = re.compile(r"(?:^|[\s{])\.([\w-]+)")
_ID = re.compile(r"(?:^|[\s{])#([\w:.-]+)")
_ATTR = re.compile(r"""([\w-]+)=(?:"([^"]*)"|'([^']*)'|([^\s}]+))""")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*(?:\{[^{}]*\})?[ \t]*$")
# A code block with attributes: ```{python}, ```{r, echo=FALSE}, ```{.bash filename="x"},
# ```{=html} (raw output), ```{{python}} (a cell shown as written).
_CELL = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*\{(\{)?[ \t]*([=.]?)([\w+-]*)[ ,]*([^{}]*?)\}?\}[ \t]*$")
_CELL_OPTION = re.compile(r"^[ \t]*(?:#|//|%%|--)\|")
_HIDDEN_OPTION = re.compile(r"^[ \t]*(?:#|//|%%|--)\|[ \t]*(?:echo|include)[ \t]*:[ \t]*false\b", re.I)
_KNITR_HIDDEN = re.compile(r"\b(?:echo|include)[ \t]*=[ \t]*(?:FALSE|F)\b")
_SHOWN_OPTION = re.compile(r"^[ \t]*(?:#|//|%%|--)\|[ \t]*echo[ \t]*:[ \t]*(?:true|fenced)\b", re.I)
_KNITR_SHOWN = re.compile(r"\becho[ \t]*=[ \t]*(?:TRUE|T)\b")
_ESCAPED_SHORTCODE = re.compile(r"\{\{<[ \t]*/\*[ \t]*(.*?)[ \t]*\*/[ \t]*>\}\}")
_UNNUMBERED = re.compile(r"[ \t]+\{-\}[ \t]*$")  # `# Preface {-}`: an unnumbered heading
_SPAN = re.compile(r"(?<![!\]\\])\[([^\[\]\n]+)\]\{[^{}\n]*\}")  # `[Ctrl]{.kbd}`


def read_quarto(text: str, variables: Mapping[str, str] | None = None, *, echo: bool = True) -> str:
    """A Quarto page's source as plain Markdown, read as the rendered page shows it;
    ``variables`` are the project's ``_variables.yml`` (``{{< var x >}}``), ``echo`` its
    ``execute: echo:`` (the page's own frontmatter wins)."""
    head, body = _split_head(text)
    if not any(mark in body for mark in (":::", "```", "~~~", "{{<", "{-}", "]{")):
        return text
    data = yaml_mapping(head[3:].rsplit("---", 1)[0]) if head else {}
    if "{{<" in body:
        meta = _flat(data)
        body = _VALUE_SHORTCODE.sub(lambda m: _value(m, variables or {}, meta), body)
    lines = body.split("\n")
    lines = _cells(lines, classify_lines(lines), _echo(data, echo))
    lines = _divs(lines, classify_lines(lines))
    kinds = classify_lines(lines)
    out = []
    for line, kind in zip(lines, kinds):
        if kind == PROSE:
            line = _UNNUMBERED.sub("", line) if line.lstrip().startswith("#") else line
            if "]{" in line:
                line = _outside_code(line, lambda part: _SPAN.sub(r"\1", part))
            if "{{<" in line:  # escaped shortcodes show as written; kept from the placeholder cleanup
                line = _outside_code(line, lambda part: _ESCAPED_SHORTCODE.sub(r"{\\{< \1 >}}", part))
                line = _ESCAPED_SHORTCODE.sub(r"{{< \1 >}}", line)
        elif "{{<" in line:
            line = _ESCAPED_SHORTCODE.sub(r"{{< \1 >}}", line)
        out.append(line)
    return head + "\n".join(out)


# Shortcodes that insert a value: `{{< var version >}}` (_variables.yml), `{{< meta title >}}`
# (the page's frontmatter), `{{< kbd Shift-Ctrl-P >}}` (the keys, as written).
_VALUE_SHORTCODE = re.compile(r"\{\{<[ \t]*(var|meta|kbd)[ \t]+([^<>]*?)[ \t]*>\}\}")


def _value(m: re.Match[str], variables: Mapping[str, str], meta: Mapping[str, str]) -> str:
    kind, argument = m.group(1), m.group(2).strip().strip("\"'")
    if kind == "kbd":
        return argument.split()[0] if argument else ""
    found = (variables if kind == "var" else meta).get(argument)
    return found if found is not None else m.group(0)  # unknown: the cleanup drops it


def yaml_mapping(text: str) -> dict:
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _flat(data: Mapping, prefix: str = "") -> dict[str, str]:
    """Nested YAML as ``a.b`` keys, the way ``var`` and ``meta`` name them."""
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out |= _flat(value, name + ".")
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out[name] = str(value)
    return out


def _variables(path: Path, warn: Warn) -> tuple[tuple[str, str], ...]:
    if not path.is_file():
        return ()
    try:
        data = yaml_mapping(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        warn(f"{path.name}: cannot be read; its variables show nothing")
        return ()
    return tuple(_flat(data).items())


def _split_head(text: str) -> tuple[str, str]:
    """(the frontmatter block with its fences, the body): only the body is rewritten."""
    m = re.match(r"\A(---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z))", text, re.S)
    return (m.group(1), text[m.end() :]) if m else ("", text)


def _outside_code(line: str, change) -> str:
    parts, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        parts += [change(line[pos : m.start()]), m.group(0)]
        pos = m.end()
    return "".join(parts) + change(line[pos:])


def _echo(data: object, default: bool) -> bool:
    """``execute: {echo: false}`` in a config or a page's frontmatter."""
    execute = data.get("execute") if isinstance(data, dict) else None
    value = execute.get("echo") if isinstance(execute, dict) else None
    return value if isinstance(value, bool) else default


def _cells(lines: list[str], kinds: list[str], echo: bool = True) -> list[str]:
    """Code blocks with attributes as plain fences: the language kept, ``#|`` options gone,
    a hidden cell gone, raw HTML left as HTML, raw output for other formats gone, and a
    ```` ```{{python}} ```` cell shown with its own fences, as Quarto shows it."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        m = _CELL.match(lines[i]) if kinds[i] == FENCE and "{" in lines[i] else None
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        end = i + 1
        while end < n and kinds[end] == CODE:
            end += 1
        body = lines[i + 1 : end]
        closing = [lines[end]] if end < n else []
        indent, fence, literal, sign, lang, rest = m.groups()
        if literal:  # ```{{python}}: the cell as written, inside a longer fence
            outer = fence[0] * (len(fence) + 1)
            opening = f"{indent}{fence}{{{lang}{(' ' + rest) if rest else ''}}}"
            out += [indent + outer, opening, *body, *closing, indent + outer]
        elif sign == "=":  # raw content: HTML is shown as HTML, other formats not at all
            if lang.lower() == "html":
                out += body
        elif sign != "." and not _shows_code(rest, body, echo):
            pass  # echo: false / include: false: the page shows no code
        else:
            kept = body
            while kept and _CELL_OPTION.match(kept[0]):
                kept = kept[1:]
            out += [f"{indent}{fence}{lang}", *kept, *closing]
        i = end + 1
    return out


def _shows_code(header: str, body: list[str], echo: bool) -> bool:
    """Whether an executable cell's code is on the page: its own ``echo``/``include``
    option (``#| echo: true``, knitr's ``echo=FALSE``), else the document's ``echo``."""
    if _KNITR_HIDDEN.search(header) or any(_HIDDEN_OPTION.match(x) for x in body):
        return False
    return echo or any(_SHOWN_OPTION.match(x) for x in body) or bool(_KNITR_SHOWN.search(header))


def _visible(classes: list[str], values: Mapping[str, str]) -> bool:
    """Whether a div's content is on the HTML page: ``.content-visible`` shows it only
    for the formats ``when-format`` names (and not those ``unless-format`` names),
    ``.content-hidden`` the other way round; a condition on anything else is kept."""
    if "content-visible" not in classes and "content-hidden" not in classes:
        return True
    when, unless = values.get("when-format"), values.get("unless-format")
    shown = True
    if when is not None:
        shown = _is_html(when)
    elif unless is not None:
        shown = not _is_html(unless)
    elif any(key.startswith(("when-", "unless-")) for key in values):
        return True  # a profile or metadata condition: not known here
    return shown if "content-visible" in classes else not shown


def _is_html(formats: str) -> bool:
    return any(f.strip().split(":")[0].lower() in _HTML_FORMATS for f in formats.split(","))


_HTML_FORMATS = frozenset({"html", "html4", "html5", "website"})


def _divs(lines: list[str], kinds: list[str]) -> list[str]:
    """Fenced divs without their fences: a callout's title (its ``title=`` or its first
    heading) and a tabset's tab headings as lines of prose; an ``#id`` as an HTML anchor."""
    out: list[str] = []
    stack: list[tuple[str, int]] = []  # open divs: (kind, tab heading level or 0)
    expect_title = False  # the first line of a callout without title= may be a heading
    hidden = 0  # open divs whose content the HTML page does not show
    for line, kind in zip(lines, kinds):
        if kind == PROSE and ":::" in line and _DIV_CLOSE.match(line) and stack:
            hidden -= stack.pop()[0] == "hidden"
            expect_title = False
            continue
        if hidden:
            if kind == PROSE and ":::" in line and _DIV_OPEN.match(line):
                stack.append(("div", 0))
            continue
        if kind != PROSE:
            out.append(line)
            expect_title = expect_title and not line.strip()
            continue
        if ":::" in line:
            m = _DIV_OPEN.match(line)
            if m:
                attrs = m.group(2)
                classes = _CLASS.findall(attrs) if attrs.startswith("{") else [attrs]
                values = {k: a or b or c for k, a, b, c in _ATTR.findall(attrs)}
                if not _visible(classes, values):
                    stack.append(("hidden", 0))
                    hidden += 1
                    continue
                ident = _ID.search(attrs) if attrs.startswith("{") else None
                if ident:
                    out.append(f'<a id="{ident.group(1)}"></a>')
                callout = any(c.startswith("callout") for c in classes)
                title = values.get("title", "").strip()
                if callout and title:
                    out += [m.group(1) + title, ""]
                expect_title = callout and not title
                stack.append(("tabset" if "panel-tabset" in classes else "div", 0))
                continue
        heading = _HEADING.match(line)
        if heading and expect_title:
            out += [heading.group(2), ""]
            expect_title = False
            continue
        if line.strip():
            expect_title = False
        if heading and stack and stack[-1][0] == "tabset":
            level = len(heading.group(1))
            tab = stack[-1][1] or level
            stack[-1] = ("tabset", tab)
            if level == tab:
                out += [heading.group(2), ""]
                continue
        out.append(line)
    return out
