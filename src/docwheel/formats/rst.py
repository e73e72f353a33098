"""reStructuredText pages (Sphinx sources) parsed with docutils into Markdown sections.

docutils reads the markup; Sphinx's own roles and directives, which plain docutils does not
know, are given small generic meanings here so their text survives the way a Sphinx site
shows it: a cross-reference role reads as its display text, ``code-block`` is code, a
``versionchanged`` note is prose, ``toctree`` and the ``auto*`` stubs (whose words live in
Python docstrings, not in the docs) add nothing. A directive nobody registered keeps its
argument and content instead of vanishing with the rest of its block.

docutils never reads a file here (``include`` goes through the caller's callback), never
prints and never raises on bad markup; the doctree it builds is walked once into the same
``Page``/``Section`` shapes the Markdown parser gives. Build time only: search and serve never
import this module.
"""

from __future__ import annotations

import copy
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from docutils import nodes, statemachine
from docutils.core import publish_doctree
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Directive, Parser, directives, roles, states
from docutils.readers.standalone import Reader

from ..models import Anchor, Page, Section

Include = Callable[[str], "str | None"]

# Directives whose text is not on the page (navigation, autodoc stubs whose words come
# from docstrings not in the sources, index entries, settings for the renderer).
_SILENT = frozenset(
    "toctree autosummary currentmodule module py:module py:currentmodule highlight index "
    "tabularcolumns sectionauthor codeauthor moduleauthor contents meta raw "
    "default-role default-domain".split()
)
# Roles whose text Sphinx shows as code.
_CODE_ROLES = frozenset(
    "func meth class attr data exc obj mod const type envvar file command program option "
    "samp kbd mimetype makevar regexp token keyword member var macro struct enum "
    "enumerator union concept expr texpr".split()
)
_CALLABLE_ROLES = frozenset({"func", "meth"})
_PY_OBJECTS = frozenset(
    "data function class method attribute exception decorator property type".split()
)
_OBJECT_NAME = re.compile(r"[A-Za-z_][\w.]*")
_VERSION_LABELS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.S)
_DIRECTIVE_LINE = re.compile(r"^\.\.\s+([\w:+.-]+)::[ \t]*(.*)$")
_OPTION_LINE = re.compile(r"^:[\w-]+:")
_MARK = re.compile("\ufdd1(\\d+)\ufdd2")
_MAX_INCLUDES = 50
_OTHER_BUILDERS = frozenset("latex epub man texinfo text pdf rinoh xml pseudoxml gettext".split())
# Elements with no text a reader sees.
_UNSEEN = (nodes.comment, nodes.substitution_definition, nodes.pending, nodes.raw, nodes.transition)


def _silent(name: str) -> bool:
    """No words from this directive: a listed one, or any autodoc-style ``auto…`` stub."""
    name = name.lower()
    bare = name.rsplit(":", 1)[-1]
    return name in _SILENT or bare in _SILENT or bare.startswith("auto")


# -- roles ---------------------------------------------------------------------------------


def role_text(role: str, text: str, titles: Mapping[str, str] | None = None) -> str:
    """What a Sphinx site shows for ``:role:`text```: an explicit title (``Title <target>``)
    as written; otherwise the target, shortened by ``~`` to its last part, without a
    leading ``.`` or ``!``, with ``()`` after a function; for ``:doc:`` and ``:ref:`` the
    title of the page or section it names when ``titles`` knows it."""
    text = " ".join(text.split())
    bare = role.lower().rsplit(":", 1)[-1]
    m = _EXPLICIT_TITLE.match(text)
    if m and m.group(1).strip():
        return m.group(1).strip()
    target = text.lstrip("!")
    if bare in ("doc", "ref") and titles:
        key = f"doc:{target}" if bare == "doc" else f"ref:{target.lower()}"
        if key in titles:
            return titles[key]
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    target = target.lstrip(".")
    if bare in _CALLABLE_ROLES and target and not target.endswith(")"):
        target += "()"
    return target


def _inliner() -> states.Inliner:
    """docutils' inliner, reading every role docutils does not know (Sphinx's and any
    extension's) as its display text instead of as a ``problematic`` node. (Set on the
    instance: ``Inliner.init_customizations`` reads the class's own attributes, which a
    subclass would hide.)"""
    inliner = states.Inliner()
    known = inliner.interpreted

    def interpreted(rawsource: str, text: str, role: str, lineno: int) -> Any:
        role_fn, messages = roles.role(role, inliner.language, lineno, inliner.reporter)
        if role_fn:
            return known(rawsource, text, role, lineno)
        titles = getattr(inliner.document.settings, "docwheel_titles", None)
        shown = role_text(role, nodes.unescape(text), titles)
        bare = role.lower().rsplit(":", 1)[-1]
        node = nodes.literal if bare in _CODE_ROLES else nodes.inline
        return [node(rawsource, shown)], []

    inliner.interpreted = interpreted  # type: ignore[method-assign]
    return inliner


# -- directives ----------------------------------------------------------------------------


class _AnyOptions(dict):
    """An option spec that accepts every option (Sphinx adds many to known directives)."""

    def __getitem__(self, key: str) -> Callable[[str | None], str]:
        return directives.unchanged

    def __contains__(self, key: object) -> bool:
        return True

    def __bool__(self) -> bool:  # docutils reads options only when a spec is truthy
        return True


class _Open(Directive):
    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def _body(self) -> nodes.container:
        box = nodes.container()
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return box


class _Silent(_Open):
    def run(self) -> list[nodes.Node]:
        return []


class _Code(_Open):
    """``code-block``/``sourcecode``/``code``: the content as code in its language."""

    def run(self) -> list[nodes.Node]:
        language = self.arguments[0].strip() if self.arguments else ""
        out: list[nodes.Node] = []
        caption = self.options.get("caption")
        if caption:  # Sphinx shows it above the code, markup read
            inline, _ = self.state.inline_text(" ".join(str(caption).split()), self.lineno)
            out.append(nodes.paragraph(caption, "", *inline))
        out.append(_code_block("\n".join(self.content), language))
        return out


class _CodeTab(_Code):
    """sphinx-tabs' ``code-tab:: py Label``: a tab whose content is code."""

    def run(self) -> list[nodes.Node]:
        words = self.arguments[0].split(None, 1) if self.arguments else []
        out: list[nodes.Node] = []
        if len(words) > 1:
            out.append(nodes.paragraph(words[1], words[1]))
        out.append(_code_block("\n".join(self.content), words[0] if words else ""))
        return out


class _Only(_Open):
    """``only:: expr``: the content, unless the expression names only builders that are
    not HTML (``only:: latex``): docwheel reads the site, which the html builder makes."""

    def run(self) -> list[nodes.Node]:
        words = set(re.findall(r"\w+", self.arguments[0])) if self.arguments else set()
        if words and words <= _OTHER_BUILDERS:
            return []
        return [self._body()]


class _VersionNote(_Open):
    """``versionadded`` and its kin: prose opening with what Sphinx prints before it."""

    def run(self) -> list[nodes.Node]:
        label = _VERSION_LABELS.get(self.name, self.name)
        argument = self.arguments[0].split(None, 1) if self.arguments else []
        head = f"{label} {argument[0]}" if argument else label
        box = self._body()
        inline: list[nodes.Node] = []
        if len(argument) > 1:  # `.. versionchanged:: 2.0 What changed.`
            inline, _ = self.state.inline_text(" ".join(argument[1].split()), self.lineno)
        if inline or (len(box) and isinstance(box[0], nodes.paragraph)):
            lead = nodes.Text(f"{head}: ")
        else:
            lead = nodes.Text(f"{head}.")
        if inline or not (len(box) and isinstance(box[0], nodes.paragraph)):
            box.insert(0, nodes.paragraph("", "", lead, *inline))
        else:  # "Changed in version 3.0: The keyring moved…", one paragraph as Sphinx prints it
            box[0].insert(0, lead)
        return [box]


class _Plain(_Open):
    """A directive whose content is page text and whose argument is not (``only``,
    ``tabs``, ``glossary``)."""

    def run(self) -> list[nodes.Node]:
        return [self._body()]


class _Titled(_Open):
    """A title line, then the content: a tab (``group-tab:: Bash``), ``seealso``."""

    title = ""
    signature = False

    def run(self) -> list[nodes.Node]:
        box = self._body()
        shown = self.title or " ".join(self.arguments[0].split()) if self.arguments else self.title
        if shown:
            head = nodes.paragraph()
            head += nodes.literal(shown, shown) if self.signature else nodes.Text(shown)
            box.insert(0, head)
        return [box]


class _Described(_Titled):
    """An object description (``py:data:: SECRET_KEY``, ``envvar:: FLASK_APP``): its
    signature as code, then the description, at the id Sphinx gives the object
    (``SECRET_KEY``, ``flask.Flask`` under ``currentmodule:: flask``, ``envvar-FLASK_APP``)."""

    signature = True

    def run(self) -> list[nodes.Node]:
        out = super().run()
        name = _OBJECT_NAME.match(self.arguments[0].strip()) if self.arguments else None
        bare = self.name.rsplit(":", 1)[-1]
        if name and bare in _PY_OBJECTS:
            module = getattr(self.state.document.settings, "docwheel_module", "")
            full = name.group(0)
            out[0]["anchor_ids"] = [f"{module}.{full}" if module else full]
        elif name and bare == "envvar":
            out[0]["anchor_ids"] = [f"envvar-{name.group(0)}"]
        return out


class _Module(_Silent):
    """``currentmodule``/``module``: no words, but the module later object ids start with."""

    def run(self) -> list[nodes.Node]:
        if self.arguments:
            module = self.arguments[0].strip()
            self.state.document.settings.docwheel_module = "" if module == "None" else module
        return []


class _SeeAlso(_Titled):
    title = "See also"

    def run(self) -> list[nodes.Node]:
        box = self._body()
        if self.arguments:  # `.. seealso:: text` puts its text in the argument
            inline, _ = self.state.inline_text(" ".join(self.arguments[0].split()), self.lineno)
            box.insert(0, nodes.paragraph("", "", *inline))
        box.insert(0, nodes.paragraph(self.title, self.title))
        return [box]


class _Include(_Open):
    """``include``/``literalinclude`` through the page's include callback; a target it does
    not give (outside the source folder, missing) is dropped."""

    required_arguments = 1
    optional_arguments = 0
    has_content = False

    def run(self) -> list[nodes.Node]:
        settings = self.state.document.settings
        read: Include | None = getattr(settings, "docwheel_include", None)
        count = getattr(settings, "docwheel_include_count", 0)
        if read is None or count >= _MAX_INCLUDES:
            return []
        settings.docwheel_include_count = count + 1
        target = self.arguments[0].strip()
        if target.startswith("<") and target.endswith(">"):
            return []  # docutils' standard includes (character entity sets)
        current, _ = self.state_machine.get_source_and_line(self.lineno)
        if current and not target.startswith("/"):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        text = read(target)
        if text is None:
            return []
        text = _clip(text, self.options)
        if self.name == "literalinclude" or "literal" in self.options or "code" in self.options:
            language = self.options.get("language") or self.options.get("code") or ""
            return [_code_block(text.rstrip("\n"), language.strip())]
        lines = statemachine.string2lines(text, settings.tab_width, convert_whitespace=True)
        self.state_machine.insert_input(lines, target)
        return []


def _clip(text: str, options: Mapping[str, Any]) -> str:
    """The part of an included file its options select (``lines``, ``start-after``…)."""
    start_line, end_line = options.get("start-line"), options.get("end-line")
    if start_line or end_line:
        lines = text.splitlines()
        text = "\n".join(lines[_int(start_line, 0) : _int(end_line, None)])
    after, before = options.get("start-after"), options.get("end-before")
    if after and after in text:
        text = text[text.index(after) + len(after) :]
    if before and before in text:
        text = text[: text.index(before)]
    spans = options.get("lines")
    if spans:
        lines = text.splitlines()
        picked = []
        for part in str(spans).split(","):
            first, _, last = part.strip().partition("-")
            lo = _int(first, 1) - 1
            hi = _int(last, len(lines)) if "-" in part else lo + 1
            picked.extend(lines[max(lo, 0) : hi])
        text = "\n".join(picked)
    return text


def _int(value: object, default: int | None) -> Any:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _code_block(text: str, language: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = language
    return block


def _register() -> None:
    """Sphinx's directives, as docutils sees them here (docutils' registry is global)."""
    for name in ("code-block", "sourcecode", "code"):
        directives.register_directive(name, _Code)
    for name in ("include", "literalinclude"):
        directives.register_directive(name, _Include)
    for name in _VERSION_LABELS:
        directives.register_directive(name, _VersionNote)
    directives.register_directive("seealso", _SeeAlso)
    for name in _SILENT:
        directives.register_directive(name, _Silent)
    for name in ("module", "currentmodule", "py:module", "py:currentmodule"):
        directives.register_directive(name, _Module)
    for name in (
        "py:data py:function py:class py:method py:attribute py:exception py:decorator "
        "py:property py:type data function class method attribute exception decorator "
        "describe object envvar option program confval"
    ).split():
        directives.register_directive(name, _Described)
    for name in ("tab", "group-tab"):
        directives.register_directive(name, _Titled)
    directives.register_directive("code-tab", _CodeTab)
    directives.register_directive("only", _Only)
    for name in ("tabs", "glossary", "hlist", "centered", "productionlist"):
        directives.register_directive(name, _Plain)


_register()

# -- parsing -------------------------------------------------------------------------------

_SETTINGS = {
    "report_level": 5,  # never print
    "traceback": True,  # an exception inside docutils is raised, not printed with sys.exit
    "halt_level": 5,  # never raise on bad markup
    "warning_stream": False,
    "file_insertion_enabled": False,  # docutils' own include never reads a file
    "raw_enabled": False,
    "doctitle_xform": False,  # as Sphinx: the first title is a section, not document metadata
    "sectsubtitle_xform": False,
    "docinfo_xform": False,
    "auto_id_prefix": "id",  # Sphinx's: duplicate titles get id1, id2
    "smart_quotes": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "character_level_inline_markup": False,
    "pep_references": False,
    "rfc_references": False,
}
_BASE: Any = None


def _settings() -> Any:
    global _BASE
    if _BASE is None:  # building an option parser costs ms: once per process
        _BASE = get_default_settings(Parser, Reader)
        for key, value in _SETTINGS.items():
            setattr(_BASE, key, value)
    return _BASE


def doctree(
    text: str,
    include: Include | None = None,
    titles: Mapping[str, str] | None = None,
) -> nodes.document:
    """The docutils document for ``text``, with Sphinx's roles and directives read here."""
    settings = copy.copy(_settings())
    settings.docwheel_include = include
    settings.docwheel_include_count = 0
    settings.docwheel_titles = titles
    settings.docwheel_module = ""
    return publish_doctree(
        text, source_path="", parser=Parser(inliner=_inliner()), settings=settings
    )


def parse_rst(
    text: str,
    *,
    url: str,
    path: str,
    fallback_title: str,
    max_level: int = 3,
    warn: Callable[[str], None] | None = None,
    include: Include | None = None,
    titles: Mapping[str, str] | None = None,
    default_role: str = "",
) -> Page:
    """Parse one reStructuredText page into an intro section plus one per section title.

    The first title is the page title (as in Sphinx); sections split at titles down to
    ``max_level`` (the page title is level 1), each anchored at the id docutils gives it,
    and deeper titles and ``.. _label:`` targets become ``Section.anchors``. ``include``
    returns the text of an ``include``/``literalinclude`` target (a path relative to the
    page's folder, or to the source root when it starts with ``/``), or None to drop it.
    ``titles`` maps ``doc:target`` (as the page writes it) and ``ref:label`` to the titles
    ``:doc:``/``:ref:`` show (``formats.sphinx.link_titles``). ``default_role`` is Sphinx's
    (``conf.py``): with a code or object role, `single backticks` are code.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    try:
        document = doctree(text, include, titles)
    except Exception as exc:  # docutils has no error type of its own for a broken input
        if warn is not None:
            warn(f"reStructuredText not parsed ({type(exc).__name__}: {exc}); kept as plain text")
        section = Section(anchor="", heading="", level=0, path=(fallback_title,), text=text.strip())
        return Page(url=url, path=path, title=fallback_title, description="", sections=(section,))
    splitter = _Splitter(max_level, fallback_title, include, titles)
    splitter.backticks_are_code = default_role not in _TEXT_ROLES
    return splitter.page(document, url, path)


# Default roles that show `single backticks` as text (docutils' own is title-reference);
# any other (code, literal, any, py:obj, …) shows them as code.
_TEXT_ROLES = frozenset({"", "title-reference", "title", "t", "emphasis", "strong", "cite"})


class _Splitter:
    """Walks a doctree once: sections down to ``max_level`` become ``Section``s, everything
    else Markdown text in the section that holds it."""

    def __init__(
        self,
        max_level: int,
        fallback_title: str,
        include: Include | None,
        titles: Mapping[str, str] | None,
    ) -> None:
        self.max_level = max_level
        self.backticks_are_code = False
        self.title = fallback_title
        self.include = include
        self.titles = titles
        self.sections: list[Section] = []
        self.marks: list[tuple[str, str, int]] = []  # (id, heading, level) by mark number
        self.section_ids: set[str] = set()

    def page(self, document: nodes.document, url: str, path: str) -> Page:
        for section in document.findall(nodes.section):
            self.section_ids.update(section["ids"])
        children = [c for c in document.children if not _metadata(c)]
        first = next((c for c in children if isinstance(c, nodes.section)), None)
        intro: list[str] = []
        later: list[tuple[nodes.section, int]] = []  # (section, its level)
        for child in children:
            if child is first:  # the page title: its text is the intro, as in Markdown
                self.title = _title_text(first) or self.title
                intro.extend(self._marks(_section_ids(first), self.title, 1))
                for inner in first.children[1:]:
                    if isinstance(inner, nodes.section) and self.max_level >= 2:
                        later.append((inner, 2))
                    else:
                        intro.append(self.block(inner, 1))
            elif isinstance(child, nodes.section):
                later.append((child, 1))
            else:
                intro.append(self.block(child, 0))
        self._add("", "", 0, (self.title,), intro)
        for section, level in later:
            self._section(section, level, (self.title,))
        return Page(
            url=url, path=path, title=self.title, description="", sections=tuple(self.sections)
        )

    def _section(self, section: nodes.section, level: int, path: tuple[str, ...]) -> None:
        heading = _title_text(section) or "Untitled"
        ids = _section_ids(section)
        parts = list(self._marks(ids[1:], "", 0))
        inner: list[nodes.section] = []
        for child in section.children[1:]:
            if isinstance(child, nodes.section) and level + 1 <= self.max_level:
                inner.append(child)
            else:
                parts.append(self.block(child, level))
        self._add(ids[0] if ids else "", heading, level, (*path, heading), parts)
        for child in inner:
            self._section(child, level + 1, (*path, heading))

    def _marks(self, ids: list[str], heading: str, level: int) -> list[str]:
        out = []
        for i, anchor in enumerate(ids):
            out.append(f"\ufdd1{len(self.marks)}\ufdd2")
            self.marks.append((anchor, heading if i == 0 else "", level if i == 0 else 0))
        return ["".join(out)] if out else []

    def _add(
        self, anchor: str, heading: str, level: int, path: tuple[str, ...], parts: list[str]
    ) -> None:
        text = _join(parts)
        found: list[Anchor] = []
        pieces, pos, removed = [], 0, 0
        for m in _MARK.finditer(text):
            pieces.append(text[pos : m.start()])
            removed += m.end() - m.start()
            name, head, lvl = self.marks[int(m.group(1))]
            found.append(Anchor(name, head, lvl, m.start() - (removed - (m.end() - m.start()))))
            pos = m.end()
        pieces.append(text[pos:])
        text = "".join(pieces)
        stripped = text.lstrip("\n ")
        cut = len(text) - len(stripped)
        text = stripped.rstrip()
        found = [
            Anchor(a.anchor, a.heading, a.level, min(max(a.offset - cut, 0), len(text)))
            for a in found
        ]
        self.sections.append(
            Section(
                anchor=anchor,
                heading=heading,
                level=level,
                path=path,
                text=text,
                anchors=tuple(found),
            )
        )

    # -- blocks --------------------------------------------------------------------------

    def blocks(self, children: Any, level: int) -> str:
        return _join([self.block(child, level) for child in children])

    def block(self, node: nodes.Node, level: int) -> str:
        """Markdown for one body element (and the marks of the ids it carries)."""
        if isinstance(node, nodes.Text):
            return _escape_lines(node.astext())
        marks = ""
        if isinstance(node, nodes.Element) and not isinstance(node, (nodes.section, nodes.target)):
            own = [i for i in node["ids"] if i not in self.section_ids and not _auto_id(node, i)]
            own += node.get("anchor_ids", [])
            marks = "".join(self._marks(own, "", 0))
        return marks + self._block(node, level)

    def _block(self, node: nodes.Node, level: int) -> str:
        if isinstance(node, nodes.section):
            heading = _title_text(node) or "Untitled"
            depth = level + 1
            ids = _section_ids(node)
            mark = "".join(self._marks(ids, heading, depth))
            line = f"{mark}{'#' * min(depth, 6)} {heading}"
            return _join([line, self.blocks(node.children[1:], depth)])
        if isinstance(node, (nodes.paragraph, nodes.rubric, nodes.line)):
            return _escape_lines(self.inline(node))
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            language = node.get("language", "")
            if not language:
                classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
                language = classes[0] if classes else ""
            if isinstance(node, nodes.doctest_block):
                language = "pycon"
            return _fence(node.astext(), language)
        if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            ordered = isinstance(node, nodes.enumerated_list)
            start = node.get("start", 1)
            items = []
            for n, item in enumerate(node.children):
                bullet = f"{start + n}. " if ordered else "- "
                body = self.blocks(item.children, level)
                items.append(_indent(body, bullet))
            return "\n".join(items)
        if isinstance(node, nodes.definition_list):
            items = []
            for item in node.children:
                term = " : ".join(
                    self.inline(c)
                    for c in item.children
                    if isinstance(c, (nodes.term, nodes.classifier))
                )
                body = [
                    self.blocks(c.children, level)
                    for c in item.children
                    if isinstance(c, nodes.definition)
                ]
                items.append(_join([_escape_lines(term), *(_indent(b, "  ") for b in body)]))
            return _join(items)
        if isinstance(node, (nodes.field_list, nodes.docinfo)):
            rows = []
            for field in node.children:
                if isinstance(field, nodes.field) and len(field) >= 2:
                    rows.append(
                        _indent(self.blocks(field[1].children, level), f"{self.inline(field[0])}: ")
                    )
            return "\n".join(rows)
        if isinstance(node, nodes.option_list):
            rows = []
            for item in node.children:
                opts = ", ".join(g.astext() for g in item.findall(nodes.option_string))
                desc = [
                    self.blocks(c.children, level)
                    for c in item.children
                    if isinstance(c, nodes.description)
                ]
                rows.append(_indent(_join(desc), f"`{opts}` "))
            return "\n".join(rows)
        if isinstance(node, nodes.table):
            return self.table(node)
        if isinstance(node, nodes.Admonition):  # note, warning, admonition:: Title, ...
            titles = [c for c in node.children if isinstance(c, nodes.title)]
            title = self.inline(titles[0]) if titles else type(node).__name__.capitalize()
            rest = [c for c in node.children if not isinstance(c, nodes.title)]
            return _join([_escape_lines(title), self.blocks(rest, level)])
        if isinstance(node, (nodes.topic, nodes.sidebar)):
            return self.blocks(node.children, level)
        if isinstance(
            node, (nodes.title, nodes.subtitle, nodes.caption, nodes.attribution, nodes.legend)
        ):
            return _escape_lines(self.inline(node))
        if isinstance(node, nodes.line_block):
            return "\n".join(self.block(c, level) for c in node.children)
        if isinstance(node, (nodes.footnote, nodes.citation)):
            label = (
                node.children[0].astext()
                if node.children and isinstance(node[0], nodes.label)
                else ""
            )
            body = self.blocks([c for c in node.children if not isinstance(c, nodes.label)], level)
            return _indent(body, f"[{label}] " if label else "")
        if isinstance(node, (nodes.image,)):
            return _escape_lines(node.get("alt", ""))
        if isinstance(node, nodes.system_message):
            return self.system_message(node, level)
        if isinstance(node, nodes.target):
            return self.target(node)
        if isinstance(node, _UNSEEN):
            return ""
        if isinstance(node, nodes.TextElement):
            return _escape_lines(self.inline(node))
        if isinstance(node, nodes.Element):  # container, block_quote, compound, figure, ...
            return self.blocks(node.children, level)
        return ""

    def target(self, node: nodes.target) -> str:
        """A ``.. _label:`` that docutils could not move onto an element (at a section's
        end, or before nothing) is a place of its own; one before a section is that
        section's extra id, and a link target with a URL is no place on the page."""
        if node.get("refuri") or node.get("refid") or node.get("refname"):
            return ""  # a link target, or a label docutils moved onto the next element
        return "".join(self._marks([i for i in node["ids"] if i not in self.section_ids], "", 0))

    def system_message(self, node: nodes.system_message, level: int) -> str:
        """A directive docutils does not know (or refused) keeps its argument and content,
        parsed as reStructuredText; other messages are docutils' notes, not page text."""
        literal = next((c for c in node.children if isinstance(c, nodes.literal_block)), None)
        if literal is None or node.get("level", 0) < 3:
            return ""
        lines = literal.astext().split("\n")
        m = _DIRECTIVE_LINE.match(lines[0].strip())
        if m is None or _silent(m.group(1)):
            return ""
        body = lines[1:]
        while body and (not body[0].strip() or _OPTION_LINE.match(body[0].strip())):
            if not body[0].strip():
                body = body[1:]
                break
            body = body[1:]
        content = _dedent(body)
        parts = []
        if m.group(2).strip():
            parts.append(_escape_lines(" ".join(m.group(2).split())))
        if content.strip():
            inner = doctree(content, self.include, self.titles)
            parts.append(self.blocks(inner.children, level))
        return _join(parts)

    def table(self, node: nodes.table) -> str:
        rows: list[list[str]] = []
        header = sum(len(list(group.findall(nodes.row))) for group in node.findall(nodes.thead))
        for row in node.findall(nodes.row):
            cells = []
            for entry in row.children:
                text = " ".join(self.blocks(entry.children, 0).split())
                cells.append(text.replace("|", "\\|"))
            rows.append(cells)
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        lines = [f"| {' | '.join(r + [''] * (width - len(r)))} |" for r in rows]
        if header:
            lines.insert(header, "|" + " --- |" * width)
        return "\n".join(lines)

    # -- inline --------------------------------------------------------------------------

    def inline(self, node: nodes.Node) -> str:
        out: list[str] = []
        for child in node.children:
            out.append(self._inline(child))
        return "".join(out)

    def _inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return node.astext()
        if isinstance(node, nodes.literal) or (
            isinstance(node, nodes.title_reference) and self.backticks_are_code
        ):
            return _code_span(node.astext())
        if isinstance(node, nodes.emphasis):
            inner = self.inline(node)
            return f"*{inner}*" if inner.strip() else inner
        if isinstance(node, nodes.strong):
            inner = self.inline(node)
            return f"**{inner}**" if inner.strip() else inner
        if isinstance(node, nodes.reference):
            inner = self.inline(node)
            uri = node.get("refuri", "")
            if uri and inner and inner != uri and "://" in uri:
                return f"[{inner}]({uri})"
            return inner
        if isinstance(node, nodes.footnote_reference):
            return f"[{node.astext()}]"
        if isinstance(node, nodes.problematic):
            return _unmarked(node.astext())
        if isinstance(node, nodes.image):
            return node.get("alt", "")
        if isinstance(node, nodes.target):  # `_`inline target``; `<url>`_ defines a link only
            own = (
                [] if node.get("refuri") else [i for i in node["ids"] if i not in self.section_ids]
            )
            return "".join(self._marks(own, "", 0)) + self.inline(node)
        if isinstance(node, (nodes.system_message, nodes.raw, nodes.comment)):
            return ""
        if isinstance(node, nodes.Element):
            return self.inline(node)
        return ""


def _metadata(node: nodes.Node) -> bool:
    """A field list before the first title is Sphinx page metadata (``:orphan:``)."""
    if not isinstance(node, (nodes.field_list, nodes.docinfo)):
        return False
    parent = node.parent
    for sibling in parent.children:
        if sibling is node:
            return True
        if not isinstance(
            sibling,
            (nodes.comment, nodes.target, nodes.system_message, nodes.substitution_definition),
        ):
            return False
    return False


def _auto_id(node: nodes.Element, anchor: str) -> bool:
    """An id docutils made up (``id3`` for a footnote or an anonymous target), not a label."""
    return anchor not in [nodes.make_id(n) for n in node["names"]] and anchor not in _target_ids(
        node
    )


def _target_ids(node: nodes.Element) -> set[str]:
    found: set[str] = set()
    parent = node.parent
    if parent is None:
        return found
    for sibling in parent.children:
        if (
            isinstance(sibling, nodes.target)
            and sibling.get("refid")
            and not sibling.get("anonymous")
        ):
            found.add(sibling["refid"])
    return found


_AUTO_ID = re.compile(r"id\d+")


def _section_ids(section: nodes.Element) -> list[str]:
    """A section's ids, the one links use first: when a ``.. _label:`` takes the id its
    title would get, docutils numbers the title's (``id1``); the label is then the anchor,
    the number an extra id."""
    ids = list(section["ids"])
    named = [i for i in ids if not _AUTO_ID.fullmatch(i)]
    return named[:1] + [i for i in ids if i not in named[:1]]


def _title_text(section: nodes.Element) -> str:
    if section.children and isinstance(section[0], nodes.title):
        return " ".join(section[0].astext().split())
    return ""


def _join(parts: list[str]) -> str:
    """Blocks one blank line apart; a part that is only anchor marks (a stray label) goes
    at the start of the block after it, so it leaves no extra blank lines."""
    out: list[str] = []
    carry = ""
    for part in parts:
        if not part or not part.strip("\n "):
            continue
        if "\ufdd1" in part and not _MARK.sub("", part).strip():
            carry += part.strip()
            continue
        out.append(carry + part)
        carry = ""
    if carry:
        out.append(carry)
    return "\n\n".join(out)


def _indent(text: str, first: str) -> str:
    pad = " " * len(first)
    lines = text.split("\n")
    return "\n".join(
        [first + lines[0]] + [pad + line if line.strip() else "" for line in lines[1:]]
    )


def _dedent(lines: list[str]) -> str:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths) if widths else 0
    return "\n".join(line[cut:] for line in lines)


def _fence(code: str, language: str) -> str:
    longest = max((len(m) for m in re.findall(r"^[ \t]*(`{3,})", code, re.M)), default=2)
    ticks = "`" * max(3, longest + 1)
    language = language if re.fullmatch(r"[\w+.#-]*", language or "") else ""
    return f"{ticks}{language}\n{code.rstrip()}\n{ticks}"


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


_ROLE_MARKUP = re.compile(r":[\w:+.-]+:`([^`]*)`")


def _unmarked(text: str) -> str:
    """Raw markup docutils could not read (an unresolved ``name_``), as plain words."""
    text = _ROLE_MARKUP.sub(lambda m: role_text("x", m.group(1)), text)
    return text.strip("`").rstrip("_").strip("`")


_HEADING_LIKE = re.compile(r"^(\s*)(#|```|~~~|<!--)", re.M)


def _escape_lines(text: str) -> str:
    """Prose that would read as Markdown structure (a ``#`` heading, a fence) escaped."""
    if "#" not in text and "`" not in text and "~" not in text and "<!--" not in text:
        return text
    return _HEADING_LIKE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
