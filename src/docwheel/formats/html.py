"""HTML inside Markdown, read as text: entities, HTML blocks and fragments (pure).

Docs pages carry HTML a reader never sees as markup: tables, ``<details>``, generated
reference pages (TypeDoc), entities. ``html_blocks`` turns each CommonMark HTML block of a
run of prose lines into the text a browser shows; ``html_to_text`` does it for a fragment.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

HTML_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
INVISIBLE = str.maketrans({"\u00a0": " ", "\u200b": None, "\u200c": None, "\ufeff": None})


def decode_entities(text: str) -> str:
    """Decode HTML entities (``&nbsp;``, ``&#x7B;``, ``&quot;``) as a browser shows them.

    Only complete references (with ``;``) are decoded, as in CommonMark, so ``?a=1&copy=2``
    in a URL survives. A no-break space becomes a space and zero-width characters go.
    """
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    return text.translate(INVISIBLE)




# CommonMark HTML block start conditions 1, 6 and 7 (2-5, comments and declarations, are
# rare in docs; comments are classified as COMMENT lines).
_RAW_OPEN = re.compile(r"^[ \t]*<(script|pre|style|textarea)(?=[\s>]|$)", re.I)
_BLOCK_OPEN = re.compile(r"^[ \t]*</?([A-Za-z][A-Za-z0-9]*)(?=[\s/>]|$)")
_LONE_TAG = re.compile(
    r"""^[ \t]*(?:<[A-Za-z][\w.:-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*?)?/?>"""
    r"|</[A-Za-z][\w.:-]*\s*>)[ \t]*$"
)
_BLOCK_TAGS = frozenset(
    "address article aside base basefont blockquote body caption center col colgroup dd "
    "details dialog dir div dl dt fieldset figcaption figure footer form frame frameset "
    "h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav "
    "noframes ol optgroup option p param search section summary table tbody td tfoot th "
    "thead title tr track ul".split()
)


def html_blocks(lines: list[str]) -> list[str]:
    """Replace each HTML block (tables, TypeDoc output, ``<details>``) by its text."""
    out: list[str] = []
    i, after_blank = 0, True
    while i < len(lines):
        line = lines[i]
        if "<" not in line:
            out.append(line)
            after_blank = not line.strip()
            i += 1
            continue
        raw = _RAW_OPEN.match(line)
        block = _BLOCK_OPEN.match(line)
        if raw:
            closer = f"</{raw.group(1).lower()}>"
            end = next(
                (j for j in range(i, len(lines)) if closer in lines[j].lower()), len(lines) - 1
            )
            out += html_to_text("\n".join(lines[i : end + 1])).split("\n")
            i = end + 1
        elif (block and block.group(1).lower() in _BLOCK_TAGS) or (
            after_blank and _LONE_TAG.match(line)  # a lone tag cannot interrupt a paragraph
        ):
            end = next((j for j in range(i, len(lines)) if not lines[j].strip()), len(lines))
            text = html_to_text("\n".join(lines[i:end]))
            out += text.split("\n") if text else []
            i = end
        else:
            out.append(line)
            after_blank = False
            i += 1
            continue
        after_blank = False
    return out


class _TextParser(HTMLParser):
    """Collects the text of an HTML fragment: block tags break lines, cells are joined by |."""

    _BREAKS = _BLOCK_TAGS | {"br", "pre", "textarea"}
    _HIDDEN = frozenset({"script", "style", "svg", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0
        self._row_cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self._hidden += 1
        elif tag in ("td", "th"):
            self.parts.append(" | " if self._row_cells else "\n")
            self._row_cells += 1
        elif tag == "tr":
            self._row_cells = 0
            self.parts.append("\n")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt and not self._hidden:
                self.parts.append(alt)
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self._HIDDEN:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in self._BREAKS and tag not in ("td", "th"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def html_to_text(fragment: str) -> str:
    """The text of an HTML fragment, one line per block, entities decoded, spaces collapsed."""
    parser = _TextParser()
    try:
        parser.feed(fragment)
        parser.close()
    except AssertionError:  # html.parser on a malformed "<![" section; keep the words
        parser.parts = [HTML_TAG.sub(" ", fragment)]
    lines = (" ".join(decode_entities(line).split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)
