"""A Jupyter notebook (``.ipynb``, nbformat 4 or 3) as the Markdown text of its page.

Sites that render notebooks (Sphinx with ``myst_nb`` or ``nbsphinx``, Jupyter Book,
MkDocs with ``mkdocs-jupyter``) show the cells in order: Markdown cells as prose, code
cells as highlighted code in the kernel's language, then each cell's outputs. The page
text here is what such a page shows a reader, so that it is parsed like any Markdown page
(sections from the headings of its Markdown cells):

- Markdown cells as they are (their ``attachments`` are images: no text).
- Code cells as fenced code in the notebook's language (``kernelspec.language``, else
  ``language_info.name``); an empty code cell shows nothing.
- Raw cells reach the page only in the formats the site shows (``NotebookRules.raw``):
  Markdown or reStructuredText by default, HTML too for an HTML site that says so;
  LaTeX (for a PDF) never.
- Outputs: a stream or a ``text/plain`` result is a short plain code block, capped at
  ``OUTPUT_LINES`` lines: the page shows it, and values and messages printed are words
  people search for, but a long log or table printed as text would drown the prose. An
  output that also has an image, HTML or a widget is shown as that, so it gives no text;
  an error gives its one-line ``name: value``, not the traceback.
- Cell tags (myst-nb, Jupyter Book): ``remove-cell``, ``remove-input``, ``remove-output``
  (and ``remove-stdout``/``remove-stderr``) take that part off the page; ``hide-cell``,
  ``hide-input``, ``hide-output`` only fold it behind a toggle, still on the page, so it is
  kept. nbsphinx's cell metadata ``"nbsphinx": "hidden"`` removes the cell. Which tags
  remove what is the site's (``NotebookRules``): mkdocs-jupyter removes only the tags its
  ``remove_tag_config`` names.

Pure: text in, text out; a file that is not a notebook raises ``NotANotebook``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

OUTPUT_LINES = 20
# Raw cells whose text is the page's, by their mime type (``raw_mimetype``, or ``format``
# as myst-nb reads it; "" for a raw cell with none).
_RAW_TEXT = frozenset({"text/markdown", "text/x-markdown", "text/restructuredtext", "text/x-rst"})
# An output whose data holds only these is shown as text; with any other type (an
# image, HTML, a widget) that is what the page shows, and its text/plain is a fallback.
_TEXT_TYPES = frozenset({"text/plain"})
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_FENCE_RUN = re.compile(r"`{3,}|~{3,}")


class NotANotebook(ValueError):
    """The text is not a notebook docwheel can read; the message says why."""


@dataclass(frozen=True)
class NotebookRules:
    """What a site leaves off a notebook's page, and the ids it gives its headings.

    The default takes both Sphinx readers' marks off: myst-nb's ``remove-*`` tags and
    nbsphinx's hidden cells (a notebook read on its own, site unknown). ``show_input=False``
    drops every code cell's source (mkdocs-jupyter ``no_input``); ``anchors`` is the slug
    style of the headings when the site gives notebooks their own (None: the site's).
    """

    remove_cell: frozenset[str] = frozenset({"remove-cell"})
    remove_input: frozenset[str] = frozenset({"remove-input"})
    remove_output: frozenset[str] = frozenset({"remove-output"})
    remove_streams: bool = True  # ``remove-stdout`` / ``remove-stderr`` (myst-nb)
    hidden_metadata: bool = True  # ``"nbsphinx": "hidden"``
    show_input: bool = True
    anchors: str | None = None
    raw: frozenset[str] = _RAW_TEXT  # the raw cells' mime types the page shows


DEFAULT_RULES = NotebookRules()
_NO_TAGS: frozenset[str] = frozenset()
# myst-nb (and Jupyter Book, built with it): its tags, also spelt with '_'; a raw cell
# shown by its ``format`` (none: skipped); headings are MyST's, docutils ids.
MYST_NB_RULES = NotebookRules(
    remove_cell=frozenset({"remove-cell", "remove_cell"}),
    remove_input=frozenset({"remove-input", "remove_input"}),
    remove_output=frozenset({"remove-output", "remove_output"}),
    hidden_metadata=False,
    raw=frozenset({"text/markdown", "text/html", "text/plain"}),
)
# nbsphinx: hidden cells only; a raw cell with no format is shown as it is, an HTML one
# in HTML output; each section's id is its title with '-' for spaces.
NBSPHINX_RULES = NotebookRules(
    remove_cell=_NO_TAGS, remove_input=_NO_TAGS, remove_output=_NO_TAGS,
    remove_streams=False, anchors="jupyter", raw=_RAW_TEXT | {"", "text/html"},
)
# nbconvert's HTML (mkdocs-jupyter): raw cells with no format or an HTML one.
NBCONVERT_RAW = frozenset({"", "text/html"})


@dataclass(frozen=True)
class Notebook:
    """A notebook's page: its Markdown ``text`` and the ``language`` of its code cells."""

    text: str
    language: str


def read_notebook(text: str, rules: NotebookRules = DEFAULT_RULES) -> Notebook:
    """The page a notebook's JSON ``text`` renders to (see the module docstring)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise NotANotebook(f"not valid JSON{where}") from None
    if not isinstance(data, dict):
        raise NotANotebook("not a notebook: the JSON is no object")
    version = data.get("nbformat")
    if version == 4 or (version is None and isinstance(data.get("cells"), list)):
        cells = data.get("cells")
        if not isinstance(cells, list):
            raise NotANotebook("not a notebook: no list of cells")
    elif version == 3:
        cells = [c for ws in _list(data.get("worksheets")) for c in _list(_dict(ws).get("cells"))]
    else:
        shown = f"nbformat {version!r}" if version is not None else "no nbformat and no cells"
        raise NotANotebook(f"not a notebook docwheel reads ({shown}; it reads nbformat 3 and 4)")
    meta = _dict(data.get("metadata"))
    language = _language(meta)
    blocks = [block for cell in cells for block in _cell(_dict(cell), language, rules)]
    return Notebook("\n\n".join(blocks) + "\n" if blocks else "", language)


def _language(meta: Mapping) -> str:
    for value in (
        _dict(meta.get("kernelspec")).get("language"),
        _dict(meta.get("language_info")).get("name"),
        meta.get("language"),  # nbformat 3
    ):
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return ""


def _cell(cell: Mapping, language: str, rules: NotebookRules) -> Iterator[str]:
    meta = _dict(cell.get("metadata"))
    tags = {t for t in _list(meta.get("tags")) if isinstance(t, str)}
    if tags & rules.remove_cell or (rules.hidden_metadata and meta.get("nbsphinx") == "hidden"):
        return
    kind = cell.get("cell_type")
    if kind == "markdown":
        source = _source(cell.get("source"))
        if source.strip():
            yield source.strip("\n")
    elif kind == "heading":  # nbformat 3: a heading is a cell of its own
        source = " ".join(_source(cell.get("source")).split())
        level = cell.get("level") if isinstance(cell.get("level"), int) else 1
        if source:
            yield "#" * min(max(level, 1), 6) + " " + source
    elif kind == "raw":
        mime = meta.get("raw_mimetype") or meta.get("format") or ""
        source = _source(cell.get("source"))
        if isinstance(mime, str) and mime.lower() in rules.raw and source.strip():
            yield source.strip("\n")
    elif kind == "code":
        source = _source(cell.get("source", cell.get("input")))
        if rules.show_input and not tags & rules.remove_input and source.strip():
            yield _fenced(source.strip("\n"), language)
        if not tags & rules.remove_output:
            streams = ("stdout", "stderr") if rules.remove_streams else ()
            removed = {name for name in streams if f"remove-{name}" in tags}
            text = "\n".join(_outputs(_list(cell.get("outputs")), removed))
            if text.strip():
                yield _fenced(_capped(text.strip("\n")), "")


def _outputs(outputs: list, removed: set[str]) -> Iterator[str]:
    for output in outputs:
        output = _dict(output)
        kind = output.get("output_type")
        if kind == "stream":
            if output.get("name", output.get("stream", "stdout")) not in removed:
                yield _source(output.get("text"))
        elif kind in ("execute_result", "display_data", "pyout"):
            data = _dict(output.get("data"))
            if kind == "pyout" and not data:  # nbformat 3 keeps the types at the top
                data = {"text/plain": output.get("text")} if "text" in output else {}
                if any(k in output for k in ("html", "png", "jpeg", "svg", "latex")):
                    data["text/html"] = ""
            if data and set(data) <= _TEXT_TYPES:
                yield _source(data.get("text/plain"))
        elif kind in ("error", "pyerr"):
            name, value = output.get("ename"), output.get("evalue")
            if isinstance(name, str) and name:
                yield f"{name}: {value}" if isinstance(value, str) and value else name


def _capped(text: str) -> str:
    lines = _ANSI.sub("", text).split("\n")
    if len(lines) <= OUTPUT_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:OUTPUT_LINES] + ["…"])


def _fenced(code: str, language: str) -> str:
    """``code`` in a fence longer than any backtick run inside it."""
    longest = max((len(m.group()) for m in _FENCE_RUN.finditer(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"


def _source(value: object) -> str:
    """A cell's ``source`` (or an output's ``text``): a string or a list of lines."""
    if isinstance(value, str):
        return value.replace("\r\n", "\n")
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str)).replace("\r\n", "\n")
    return ""


def _dict(value: object) -> Mapping:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


# -- MyST Markdown notebooks (myst-nb's text notebooks) --------------------------------

_TOP_FENCE = re.compile(r"^---[ \t]*$")
_CODE_CELL = re.compile(r"^(`{3,}|~{3,})[ \t]*\{code-cell\}[ \t]*(\S*)")
_CELL_OPTION = re.compile(r"^:([\w-]+):[ \t]*(.*)$")


def is_myst_notebook(text: str) -> bool:
    """Whether a Markdown file is a MyST notebook (myst-nb: its top-matter says
    ``file_format: mystnb``, or Jupytext's ``text_representation`` is ``myst``)."""
    if not text.startswith(("---", "\ufeff---")) or "myst" not in text[:4096]:
        return False  # the common case, decided without reading YAML
    meta = _top_matter(text)
    if meta.get("file_format") == "mystnb":
        return True
    jupytext = _dict(meta.get("jupytext"))
    return _dict(jupytext.get("text_representation")).get("format_name") == "myst"


def read_myst_notebook(text: str, rules: NotebookRules = DEFAULT_RULES) -> str:
    """A MyST notebook's text as its page shows it: each ``{code-cell}`` directive a
    code block in the notebook's language, its ``:tags:`` (or YAML options) read as a
    notebook cell's tags are, its option lines no code. Outputs are not in the file (the
    site executes it), so there are none to show."""
    meta = _top_matter(text)
    language = _language(meta)
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _CODE_CELL.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        fence = m.group(1)
        close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
        body, tags = _cell_options(lines[i + 1 : end])
        cell = {
            "cell_type": "code",
            "metadata": {"tags": sorted(tags)},
            "source": "\n".join(body),
        }
        lexer = m.group(2).lower()
        shown = language or ("python" if lexer.startswith("ipython") else lexer)
        out.extend("\n".join(_cell(cell, shown, rules)).split("\n") if body else [])
        i = end + 1
    return "\n".join(out)


def _cell_options(body: list[str]) -> tuple[list[str], set[str]]:
    """A code cell's code and tags: options are ``:key: value`` lines or a ``---`` YAML
    block at its top."""
    options: dict = {}
    if body and _TOP_FENCE.match(body[0]):
        end = next((k for k in range(1, len(body)) if _TOP_FENCE.match(body[k])), None)
        if end is not None:
            options = _yaml_mapping("\n".join(body[1:end]))
            body = body[end + 1 :]
    else:
        while body and (m := _CELL_OPTION.match(body[0])):
            options[m.group(1)] = _yaml_value(m.group(2))
            body = body[1:]
    tags = options.get("tags")
    tags = [tags] if isinstance(tags, str) else tags
    return body, {t for t in _list(tags) if isinstance(t, str)}


def _top_matter(text: str) -> Mapping:
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    if not lines or not _TOP_FENCE.match(lines[0]):
        return {}
    end = next((k for k in range(1, len(lines)) if _TOP_FENCE.match(lines[k])), None)
    return _yaml_mapping("\n".join(lines[1:end])) if end is not None else {}


def _yaml_mapping(text: str) -> dict:
    value = _yaml_value(text)
    return value if isinstance(value, dict) else {}


def _yaml_value(text: str) -> object:
    import yaml  # the build's YAML reader; only MyST notebooks need it here

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None
