"""What Next.js docs sites (Nextra, Fumadocs) share: a content folder inside the project,
literal navigation files beside the pages, and MDX components read as the page shows them.

Both keep their pages in a folder of the Next.js project (Nextra's ``content/`` or
``pages/``, Fumadocs' ``content/docs/``) whose config file sits in the project root, so
the sources file may name the project, the content folder or a folder inside it:
``ContentSettings`` says where the pages are from the docs folder, and every page's ref and
address is its path inside the content folder, whichever folder was named.

The components (``shown_components``): a ``<Tabs items={[…]}>`` tab shows its label (its
``value``/``name``/``label`` or the item at its place), a file tree its file and folder
names, a ``<TypeTable type={{…}}>`` its property names, types and descriptions, a
``{<h3>Step</h3>}`` its text; a heading's ``[#custom-id]`` becomes the id it sets.
The component rules are pure (text in, text out); the folder helpers read only the
folders and files they are given.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from .headings import CODE_SPAN, slugify
from .jsobject import read_literal
from .markdown import FENCE, PROSE, classify_lines, closing_brace
from .site import Settings, strip_suffix


@dataclass(frozen=True)
class ContentRoot:
    """One folder of pages: ``folder`` from the docs folder ("" when the docs folder is in
    it), ``inside`` the docs folder's path inside it ("" when it is the docs folder or
    below it), ``app``: Next.js' ``app/`` router, where only ``page.mdx`` files are pages."""

    folder: str
    inside: str = ""
    app: bool = False

    def path_of(self, rel: str) -> str | None:
        """The path inside this folder of the file at ``rel`` (from the docs folder)."""
        if self.folder:
            return rel[len(self.folder) + 1 :] if rel.startswith(self.folder + "/") else None
        return f"{self.inside}/{rel}" if self.inside else rel


@dataclass(frozen=True)
class ContentSettings(Settings):
    """Where a Next.js docs site's pages are, and the address its pages are served under
    (``base``: Fumadocs' ``baseUrl``, Nextra's ``contentDirBasePath``, without slashes)."""

    roots: tuple[ContentRoot, ...] = ()
    base: str = ""

    def locate(self, rel: str) -> tuple[ContentRoot, str] | None:
        for root in self.roots:
            inside = root.path_of(rel)
            if inside is not None:
                return root, inside
        return None


def content_roots(project: Path | None, root: Path, candidates: tuple[tuple[str, bool], ...]) -> tuple[ContentRoot, ...]:
    """The content folders of the project whose config file is in ``project`` (each of
    ``candidates``, (path from the project, is an ``app/`` router), that exists), seen from
    the docs folder ``root``; with none, the docs folder itself holds the pages."""
    found: list[ContentRoot] = []
    here = root.resolve()
    for name, app in candidates if project is not None else ():
        folder = (project / name).resolve()
        if not folder.is_dir():
            continue
        if here == folder or folder in here.parents:
            inside = here.relative_to(folder).as_posix()
            return (ContentRoot("", "" if inside == "." else inside, app),)
        if here in folder.parents:
            found.append(ContentRoot(folder.relative_to(here).as_posix(), "", app))
    return tuple(found) or (ContentRoot(""),)


_GROUP = re.compile(r"^\(.+\)$")


def route_segments(path: str, *, app: bool, groups: bool) -> list[str]:
    """The URL segments of the page at ``path`` (inside its content folder): the suffix
    dropped, an ``index`` (or an ``app/`` router's ``page``) serving its folder, and with
    ``groups`` a ``(group)`` folder leaving no segment (Next.js route groups)."""
    parts = strip_suffix(path).split("/")
    last = parts[-1]
    if (app and last == "page") or (not app and last == "index"):
        parts = parts[:-1]
    if groups:
        parts = [p for p in parts if not _GROUP.match(p)]
    return parts


def address(segments: list[str], base: str, trailing_slash: bool = False) -> str:
    """A page's address from the site root: the base, then the segments, as Next.js links
    it (no trailing slash unless ``trailingSlash: true``)."""
    path = "/".join(s for s in [base, *segments] if s)
    return path + "/" if path and trailing_slash else path


def read_json(file: Path, warn: Callable[[str], None]) -> object:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        warn(f"{file.name}: cannot be read ({type(exc).__name__}{where}); its titles and groups are ignored")
        return None


def read_text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def title_case(name: str) -> str:
    """A title from a file or folder name, as both sites make one when nothing names it
    (``getting-started`` -> ``Getting Started``)."""
    words = name.replace("_", " ").replace("-", " ").split()
    return " ".join(w[:1].upper() + w[1:] for w in words) or name


# -- components ----------------------------------------------------------------------------

_TAB_TAG = re.compile(
    r"""<(/?)(Tabs\.Tab|Tabs|Tab)((?:\s+[\w:.-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|\{(?:[^{}]|\{[^{}]*\})*\}))?)*)\s*(/?)>"""
)
_ID_ATTR = re.compile(r"""(?<![\w-])id\s*=\s*(?:"([^"]+)"|'([^']+)')""")
_ITEMS = re.compile(r"""\bitems\s*=\s*\{(\[.*?\])\}""", re.S)
_LABEL = re.compile(r"""(?<![\w-])(value|name|label|title)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*["'`]([^"'`]*)["'`]\s*\})""")
_FILE_TAG = re.compile(
    r"""<(?:FileTree\.Folder|FileTree\.File|Folder|File)\b[^<>]*?\bname\s*=\s*(?:"([^"]*)"|'([^']*)')[^<>]*>"""
)
_FILE_CLOSE = re.compile(r"</(?:FileTree\.Folder|FileTree|Folder|Files)\s*>|<(?:FileTree|Files)\s*>")
_HEADING_EXPR = re.compile(r"^([ \t]*)\{\s*<h([1-6])\b[^>]*>(.*?)</h\2>\s*\}[ \t]*$")
_ATX = re.compile(r"^( {0,3}#{1,6}[ \t]+.*?)[ \t]*\[#([^\]]+?)\][ \t]*$")
_ATX_LINE = re.compile(r"^[ \t]*#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$")
_VERBATIM_ID = re.compile(r"^[A-Za-z0-9_][\w.:-]*$")
_TABS_START = re.compile(r"^[ \t]*<Tabs(?:\s|$)")
_CODE_TAB = re.compile(r"""^([ \t]*)(?:`{3,}|~{3,})[^\n]*?(\s*\btab="(.+?)")""")


def shown_components(
    text: str, *, custom_ids: str, tab_anchors: bool = False, tab_headings: bool = True, code_tabs: bool = False
) -> str:
    """``text`` with Next.js docs components read as the page shows them (module
    docstring). ``custom_ids``: how a ``[#id]`` is read, ``"slug"`` (Nextra slugs it) or
    ``"verbatim"`` (Fumadocs); ``tab_anchors``: a tab of ``<Tabs items>`` has an anchor of
    its label (Nextra's hidden ``<h3 id>``); ``tab_headings``: headings inside a tab stay
    headings (Nextra gives them no id and leaves them out of the TOC: False);
    ``code_tabs``: a code block whose info string says ``tab="npm"`` shows that label above
    it (Fumadocs' remark-code-tab)."""
    marks = ("<Tab", "<File", "<Folder", "[#", "{<h", "<TypeTable", *((' tab="',) if code_tabs else ()))
    if not any(mark in text for mark in marks):
        return text
    if "<TypeTable" in text:
        text = type_tables(text)
    lines = text.split("\n")
    kinds = classify_lines(lines)
    if "<Tabs" in text:
        lines, kinds = _join_tab_tags(lines, kinds)
    out: list[str] = []
    tabs: list[list] = []  # open <Tabs>: [items, index of the next tab]
    in_tab = 0
    for line, kind in zip(lines, kinds):
        if kind != PROSE:
            if code_tabs and kind == FENCE and (m := _CODE_TAB.match(line)):
                out += [m.group(1) + m.group(3), ""]
                line = line.replace(m.group(2), "", 1)
            out.append(line)
            continue
        if "<Tab" in line or "</Tab" in line:
            line, in_tab = _tab_line(line, tabs, in_tab, tab_anchors)
        elif in_tab and not tab_headings and (m := _ATX_LINE.match(line)):
            line = m.group(1)  # shown as a heading, but no section: no id, not in the TOC
        if "[#" in line and (m := _ATX.match(line)):
            line = _custom_id(m, custom_ids)
        if "{<h" in line and (m := _HEADING_EXPR.match(line)):
            line = m.group(1) + m.group(3)  # a heading kept out of the TOC: its text
        if "<File" in line or "<Folder" in line or "</F" in line:
            line = _outside_code(line, _file_names)
        out.extend(line.split("\n"))
    return "\n".join(out)


def _file_names(text: str) -> str:
    return _FILE_CLOSE.sub("", _FILE_TAG.sub(lambda f: f.group(1) or f.group(2) or "", text))


def _join_tab_tags(lines: list[str], kinds: list[str]) -> tuple[list[str], list[str]]:
    """A ``<Tabs`` opening tag written over several prose lines (its ``items`` wrapped)
    joined onto one line, so its items are read with it."""
    out_lines: list[str] = []
    out_kinds: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if kinds[i] == PROSE and _TABS_START.match(line) and ">" not in line:
            j = i + 1
            while j < len(lines) and j < i + 20 and kinds[j] == PROSE and ">" not in lines[j]:
                j += 1
            if j < len(lines) and kinds[j] == PROSE and ">" in lines[j]:
                out_lines.append(" ".join(part.strip() if k else part.rstrip() for k, part in enumerate(lines[i : j + 1])))
                out_kinds.append(PROSE)
                i = j + 1
                continue
        out_lines.append(line)
        out_kinds.append(kinds[i])
        i += 1
    return out_lines, out_kinds


def _custom_id(m: re.Match[str], style: str) -> str:
    custom = m.group(2).strip()
    if style == "slug":
        ident = slugify(custom, plain=True)
    else:
        ident = custom if _VERBATIM_ID.match(custom) else ""
    return f"{m.group(1)} {{#{ident}}}" if ident else m.group(1)


def _tab_line(line: str, tabs: list[list], in_tab: int, anchors: bool) -> tuple[str, int]:
    """One line's tab tags replaced by the labels they show, on lines of their own."""
    depth = [in_tab]

    def shown(m: re.Match[str]) -> str:
        closing, name, attrs, selfclosing = m.groups()
        if name == "Tabs":
            if closing:
                if tabs:
                    tabs.pop()
            elif not selfclosing:
                items = _ITEMS.search(attrs)
                value = read_literal(items.group(1)) if items else None
                tabs.append([value if isinstance(value, list) else [], 0])
            return ""
        if closing:
            depth[0] = max(0, depth[0] - 1)
            return ""
        if not selfclosing:
            depth[0] += 1
        found = _LABEL.search(attrs)
        label = next((g for g in found.groups()[1:] if g), "") if found else ""
        given = _ID_ATTR.search(attrs)  # `<Tab id="tab-cpp">`: a link target that opens the tab
        ident = given.group(1) or given.group(2) if given else ""
        if tabs:
            items, index = tabs[-1]
            tabs[-1][1] = index + 1
            if not label and index < len(items) and isinstance(items[index], (str, int, float)):
                label = str(items[index])
                if anchors and not ident:
                    ident = slugify(label, plain=True)
        anchor = f'<a id="{ident}"></a>\n' if ident else ""
        return f"\n{anchor}{label}\n" if label or anchor else ""

    line = _outside_code(line, lambda part: _TAB_TAG.sub(shown, part))
    return line, depth[0]


def _outside_code(line: str, change: Callable[[str], str]) -> str:
    """``change`` applied to the parts of ``line`` outside inline code spans: a tag a code
    span shows (``# `<Tabs>` Component``) is text, not a component."""
    if "`" not in line:
        return change(line)
    parts, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        parts += [change(line[pos : m.start()]), m.group(0)]
        pos = m.end()
    parts.append(change(line[pos:]))
    return "".join(parts)


def type_tables(text: str) -> str:
    """Each ``<TypeTable type={{ name: { description, type, default } }} />`` as the table
    shows it: a line per property with its name, type, default and description."""
    out: list[str] = []
    pos = 0
    lines = text.split("\n")
    kinds = classify_lines(lines)
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    for m in re.finditer(r"<TypeTable\b", text):
        if m.start() < pos or kinds[bisect_right(starts, m.start()) - 1] != PROSE:
            continue  # inside the last one, or a code sample showing the component
        start = text.find("type={", m.end())
        close = closing_brace(text, start + 5, min(len(text), start + 50_005)) if 0 <= start < m.end() + 200 else -1
        end = text.find(">", close) if close >= 0 else -1
        if end < 0:
            continue
        value = read_literal(text[start + 6 : close])
        rows = []
        if isinstance(value, dict):
            for name, info in value.items():
                info = info if isinstance(info, dict) else {}
                parts = [str(name)]
                for key in ("type", "default"):
                    if isinstance(info.get(key), (str, int, float)) and not isinstance(info.get(key), bool):
                        parts.append(f"{key}: {info[key]}")
                if isinstance(info.get("description"), str):
                    parts.append(info["description"])
                rows.append(" — ".join(parts))
        out.append(text[pos : m.start()])
        out.append("\n\n".join(rows))
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)
