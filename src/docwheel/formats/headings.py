"""Headings as a site shows them: their text, and the anchors each docs generator gives them.

A heading's text loses its markup (``strip_inline``) and the components a theme draws
beside it (``heading_text``); ``heading_markdown`` keeps its code spans for reading. Each
generator's slug rules are one function in ``ANCHOR_STYLES``, and ``Slugger`` numbers the
repeats of a page as its site does. Pure: text in, text out.
"""

from __future__ import annotations

import re
import unicodedata

from .html import HTML_TAG, INVISIBLE

# Inline Markdown: code spans, images, links, underscore emphasis, backslash escapes.
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w\\])(_+)(?=\S)(.+?)(?<=\S)\1(?!\w)")
ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _strip_markup(text: str) -> str:
    text = IMAGE.sub(r"\1", text)
    text = LINK.sub(r"\1", text)
    text = HTML_TAG.sub("", text)
    text = text.replace("*", "").replace("~~", "")
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return ESCAPE.sub(r"\1", text)


def heading_markdown(raw: str) -> str:
    """A heading as Markdown for reading: ``heading_text`` with its code spans kept in
    backticks (``The `app` object``), so a code span showing a tag stays code."""
    return strip_inline(without_components(raw) if "<" in raw else raw, keep_code=True)


def strip_inline(text: str, *, keep_code: bool = False) -> str:
    """Heading text as a reader sees it: no backticks, emphasis, link targets or tags
    (``keep_code``: code spans stay as written, backticks and all)."""
    parts: list[str] = []
    pos = 0
    for m in CODE_SPAN.finditer(text):
        parts.append(_strip_markup(text[pos : m.start()]))
        parts.append(m.group(0) if keep_code else m.group(2).strip())
        pos = m.end()
    parts.append(_strip_markup(text[pos:]))
    return " ".join("".join(parts).translate(INVISIBLE).split())


# A component in a heading (`<Badge type="tip">beta</Badge>`, `<CRoot />`): a label the
# theme draws beside the title, not part of it.
_HEADING_COMPONENT = re.compile(r"<([A-Z][\w.]*)(?:\s[^<>]*)?(?:/>|>[^<]*</\1\s*>)")


def heading_text(raw: str) -> str:
    """A heading as its title reads: ``strip_inline`` without components (badges)."""
    return strip_inline(without_components(raw) if "<" in raw else raw)


def without_components(raw: str) -> str:
    parts: list[str] = []
    pos = 0
    for m in CODE_SPAN.finditer(raw):
        parts += [_HEADING_COMPONENT.sub("", raw[pos : m.start()]), m.group(0)]
        pos = m.end()
    parts.append(_HEADING_COMPONENT.sub("", raw[pos:]))
    return "".join(parts)


def slugify(heading: str, keep: str = "-_ ", *, plain: bool = False) -> str:
    """The anchor GitHub gives a heading: lowercase words joined by '-'.

    Letters (any script), digits, combining marks, '-' and '_' survive; other punctuation
    is dropped and each space becomes '-'. May return "" (see ``Slugger`` for a fallback).
    """
    text = (heading if plain else strip_inline(heading)).lower()
    kept = "".join(
        ch for ch in text if ch.isalnum() or ch in keep or unicodedata.category(ch).startswith("M")
    )
    return kept.strip().replace(" ", "-")


def slugify_mintlify(heading: str, *, plain: bool = False) -> str:
    """The anchor a Mintlify site gives a heading: GitHub's, except that '/' is kept
    (`tools/list` -> `tools/list`; the sites' own links read `#tools%2Flist`) and '_' or
    '-' at either end goes (`_meta` -> `meta`, as 27 of the MCP docs' 29 links to it read)."""
    return slugify(heading, keep="-_ /", plain=plain).strip("_-")


# VitePress (markdown-it-anchor with VitePress's slugify): accents dropped, every run of
# whitespace or ASCII punctuation (and curly quotes) becomes one '-', a leading digit gets
# '_' so the id is a valid selector.
_VP_SPECIAL = re.compile(r"""[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:"'“”‘’<>,.?/]+""")
_VP_CONTROL = re.compile(r"[\x00-\x1f]")
_VP_COMBINING = re.compile(r"[\u0300-\u036f]")


def slugify_vitepress(heading: str, *, plain: bool = False) -> str:
    """The anchor a VitePress site gives a heading (its default slugify)."""
    text = unicodedata.normalize("NFKD", heading if plain else strip_inline(heading))
    text = _VP_CONTROL.sub("", _VP_COMBINING.sub("", text))
    text = _VP_SPECIAL.sub("-", text).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


# MkDocs (Python-Markdown's toc extension, the default ``slugify``): accents folded to
# ASCII and the rest of non-ASCII dropped, then every character that is not a word
# character, space or '-' dropped, and runs of spaces and '-' become one '-'.
_MK_DROP = re.compile(r"[^\w\s-]")
_MK_JOIN = re.compile(r"[-\s]+")


def slugify_mkdocs(heading: str, *, plain: bool = False) -> str:
    """The anchor an MkDocs site gives a heading (Python-Markdown's toc slugify)."""
    text = unicodedata.normalize("NFKD", heading if plain else strip_inline(heading))
    text = text.encode("ascii", "ignore").decode("ascii")
    return _MK_JOIN.sub("-", _MK_DROP.sub("", text).strip().lower())


# Sphinx (docutils' make_id): ASCII lower case, every run of other characters one '-',
# leading digits and '-' dropped (an id starts with a letter).
_DU_OTHER = re.compile(r"[^a-z0-9]+")
_DU_ENDS = re.compile(r"^[-0-9]+|-+$")


def slugify_docutils(heading: str, *, plain: bool = False) -> str:
    """The id docutils (and so Sphinx) gives a section title."""
    text = unicodedata.normalize("NFKD", (heading if plain else strip_inline(heading)).lower())
    text = text.encode("ascii", "ignore").decode("ascii")
    return _DU_ENDS.sub("", _DU_OTHER.sub("-", " ".join(text.split())))


# Pandoc (Quarto): the auto_identifiers extension. Formatting gone, every character but
# letters, digits, '_', '-' and '.' dropped, the words joined by '-', lower case, and
# everything before the first letter dropped (an identifier starts with a letter).
def slugify_pandoc(heading: str, *, plain: bool = False) -> str:
    """The identifier Pandoc (and so Quarto) gives a heading: ``3. Applications`` ->
    ``applications``, ``[HTML], [S5], or [RTF]?`` -> ``html-s5-or-rtf``."""
    text = (heading if plain else strip_inline(heading)).lower()
    kept = "".join(ch for ch in text if ch.isalnum() or ch in "_-." or ch.isspace())
    joined = "-".join(kept.split())
    for i, ch in enumerate(joined):
        if ch.isalpha():
            return joined[i:]
    return ""


# kramdown's own parser (Jekyll with ``kramdown: {input: kramdown}``): ASCII only.
_KD_LEAD = re.compile(r"^[^a-zA-Z]+")
_KD_OTHER = re.compile(r"[^a-zA-Z0-9 -]")


def slugify_kramdown(heading: str, *, plain: bool = False) -> str:
    """The id kramdown's ``auto_ids`` give a heading: characters up to the first ASCII
    letter dropped, then all but ASCII letters, digits, spaces and '-', each space a '-'."""
    text = _KD_OTHER.sub("", _KD_LEAD.sub("", heading if plain else strip_inline(heading)))
    return text.replace(" ", "-").lower()


# Hugo (its Goldmark ids, ``markup.goldmark.parser.autoHeadingIDType``). ``github``: letters,
# digits and '_' kept in lower case, each space or '-' one '-', the rest dropped (spaces are
# not merged); ``github-ascii`` first folds accents and drops the other non-ASCII;
# ``blackfriday`` keeps letters and digits and joins each run of the rest as one '-'.


def slugify_hugo(heading: str, *, plain: bool = False, ascii_only: bool = False) -> str:
    """The id Hugo gives a heading by default (``autoHeadingIDType = "github"``)."""
    text = (heading if plain else strip_inline(heading)).strip()
    if ascii_only:
        folded = unicodedata.normalize("NFD", text)
        kept = "".join(ch for ch in folded if unicodedata.category(ch) != "Mn")
        text = unicodedata.normalize("NFC", kept)
    out = []
    for ch in text:
        if ascii_only and not ch.isascii():
            continue
        if ch in "- ":
            out.append("-")
        elif ch == "_" or ch.isalpha() or unicodedata.category(ch) == "Nd":
            out.append(ch.lower())
    return "".join(out)


def slugify_hugo_ascii(heading: str, *, plain: bool = False) -> str:
    """Hugo's ``autoHeadingIDType = "github-ascii"``."""
    return slugify_hugo(heading, plain=plain, ascii_only=True)


def slugify_blackfriday(heading: str, *, plain: bool = False) -> str:
    """Hugo's ``autoHeadingIDType = "blackfriday"`` (Blackfriday's SanitizedAnchorName)."""
    out: list[str] = []
    dash = False
    for ch in heading if plain else strip_inline(heading):
        if ch.isalpha() or unicodedata.category(ch).startswith("N"):
            if dash and out:
                out.append("-")
            dash = False
            out.append(ch.lower())
        else:
            dash = True
    return "".join(out)
# mdBook (``normalize_id`` in mdbook-html): letters, digits, '_' and '-' kept, ASCII
# letters lower-cased (others keep their case: `Über` stays `Über`), each white-space
# character one '-' (no runs squeezed), everything else dropped.
def slugify_mdbook(heading: str, *, plain: bool = False) -> str:
    """The id an mdBook page gives a heading."""
    text = (heading if plain else strip_inline(heading)).strip()
    kept = []
    for ch in text:
        if ch.isalnum() or ch in "_-":
            kept.append(ch.lower() if ch.isascii() else ch)
        elif ch.isspace():
            kept.append("-")
    return "".join(kept)


# Docsify (its slugify.js): NFKD, emoji dropped, ASCII capitals lower-cased, tags and
# ASCII and general punctuation dropped ('-' and '_' stay), each white-space character a
# '-', a leading digit prefixed '_'.
_DOCSIFY_DROP = re.compile(r"""[\u2000-\u206F\u2E00-\u2E7F\\'!"#$%&()*+,./:;<=>?@\[\]^`{|}~]""")


def slugify_docsify(heading: str, *, plain: bool = False) -> str:
    """The id a Docsify page gives a heading."""
    text = unicodedata.normalize("NFKD", (heading if plain else strip_inline(heading)).strip())
    text = "".join(ch for ch in text if ch != "\ufe0f" and not _emoji(ch))
    text = re.sub(r"[A-Z]+", lambda m: m.group(0).lower(), text)
    text = _DOCSIFY_DROP.sub("", HTML_TAG.sub("", text))
    return re.sub(r"^(\d)", r"_\1", re.sub(r"\s", "-", text))


def _emoji(ch: str) -> bool:
    return unicodedata.category(ch) == "So" and ord(ch) >= 0x2190


def slugify_jupyter(heading: str, *, plain: bool = False) -> str:
    """The id Jupyter gives a notebook heading, and nbsphinx a notebook's section (its
    ``CreateSectionLabels``): the heading's text as it reads, case and punctuation kept,
    each space a '-' and '"' written ``%22`` (``Code, Output`` -> ``Code,-Output``)."""
    return "-".join((heading if plain else strip_inline(heading)).split()).replace('"', "%22")


# What Asciidoctor drops from a section title before it joins the words: tags, character
# references and every character but word characters, spaces, '-' and '.'.
_ASCIIDOCTOR_DROP = re.compile(
    r"<[^>]+>|&(?:[a-z][a-z]+\d{0,2}|#\d\d\d{0,4}|#x[\da-f][\da-f][\da-f]{0,3});|[^\w \-.]+"
)


def asciidoctor_id(title: str, prefix: str = "_", separator: str = "_") -> str:
    """The id Asciidoctor generates for a section titled ``title`` (as it reads, markup
    gone): lower case, ``idprefix`` first, other characters dropped, runs of spaces, '-'
    and '.' one ``idseparator`` (``Wiley & Sons, Inc.`` -> ``_wiley_sons_inc``)."""
    separator = separator[:1]
    found = prefix + _ASCIIDOCTOR_DROP.sub("", title.lower())
    if not separator:
        return found.replace(" ", "")
    runs = " .-" if separator in "-." else f" {separator}.-"
    found = re.sub(f"[{re.escape(runs)}]+", separator, found)
    found = found[:-1] if found.endswith(separator) else found
    return found[1:] if not prefix and found.startswith(separator) else found


def slugify_asciidoctor(heading: str, *, plain: bool = False) -> str:
    """Asciidoctor's section ids with its defaults (``idprefix`` and ``idseparator`` ``_``),
    as Antora sites publish them."""
    return asciidoctor_id(heading if plain else strip_inline(heading))


# Zola (``[slugify] anchors``): ``on``, the default, is the ``slug`` crate's slugify: each
# character transliterated to ASCII, ASCII letters and digits kept in lower case, every run
# of anything else one '-', none at either end. ``safe`` turns each space into '_' and drops
# the characters that break a URL fragment (``"#%<>[]()`^{|}``); ``off`` keeps the heading
# text as it is. Transliteration here folds accents and
# the Latin letters that do not decompose; other scripts, which the crate spells in Latin
# letters, count as separators.
_LATIN = str.maketrans({
    "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "đ": "d",
    "Đ": "D", "ð": "d", "Ð": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "TH", "ı": "i",
})
_ZOLA_OTHER = re.compile(r"[^a-z0-9]+")


def slugify_zola(heading: str, *, plain: bool = False) -> str:
    """The id a Zola site gives a heading by default (``slugify.anchors = "on"``)."""
    text = unicodedata.normalize("NFKD", (heading if plain else strip_inline(heading)).translate(_LATIN))
    text = text.encode("ascii", "ignore").decode("ascii").lower()
    return _ZOLA_OTHER.sub("-", text).strip("-")


_ZOLA_UNSAFE = re.compile(r"[\"#%<>\[\]()`^{|}]")


def slugify_zola_safe(heading: str, *, plain: bool = False) -> str:
    """Zola's ``slugify.anchors = "safe"``."""
    return _ZOLA_UNSAFE.sub("", (heading if plain else strip_inline(heading)).strip().replace(" ", "_"))


def slugify_zola_off(heading: str, *, plain: bool = False) -> str:
    """Zola's ``slugify.anchors = "off"``: the heading's text."""
    return (heading if plain else strip_inline(heading)).strip()


ANCHOR_STYLES = {
    "github": slugify,
    "docutils": slugify_docutils,
    "mintlify": slugify_mintlify,
    "vitepress": slugify_vitepress,
    "mkdocs": slugify_mkdocs,
    "hugo": slugify_hugo,
    "hugo-github-ascii": slugify_hugo_ascii,
    "hugo-blackfriday": slugify_blackfriday,
    "mdbook": slugify_mdbook,
    "docsify": slugify_docsify,
    "pandoc": slugify_pandoc,
    "kramdown": slugify_kramdown,
    "jupyter": slugify_jupyter,
    "asciidoctor": slugify_asciidoctor,
    "vuepress": slugify_vitepress,  # @vuepress/shared's slugify: the same rules
    "zola": slugify_zola,
    "zola-safe": slugify_zola_safe,
    "zola-off": slugify_zola_off,
}
# How a repeated anchor is told apart: "foo-1" (GitHub, github-slugger, markdown-it-anchor)
# or "foo_1" (Python-Markdown's toc, which also numbers an empty slug "_1").
_NUMBERING = {"mkdocs": "_", "asciidoctor": "_"}
# The number a first repeat gets, when not 1 (Asciidoctor: "_options_2").
_FIRST_NUMBER = {"asciidoctor": 2}
# The id of a heading with no letters or digits ("" on MkDocs: numbered "_1").
_FALLBACKS = {"hugo": "heading", "hugo-github-ascii": "heading", "hugo-blackfriday": "heading"}
# A heading's attribute list (`## Title {#custom-id}`, MkDocs attr_list `{ #id .class }`,
# `{: #id }`): the id is the anchor, and the whole list leaves the heading text.
_ATTR_LIST = re.compile(
    r"[ \t]*\{:?[ \t]*((?:[#.][\w.:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]*))"
    r"(?:[ \t]+(?:[#.][\w.:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]*)))*)[ \t]*\}[ \t]*$"
)
_ATTR_ID = re.compile(r"(?:^|\s)#(\w[\w.:-]*)")  # a letter of any script may open an id


def split_attr_list(heading: str) -> tuple[str, str | None]:
    """(heading text without a trailing attribute list, the id it sets or None).

    Only a list of attributes counts (``#id``, ``.class``, ``key=value``), so a heading that
    ends in ``{name}`` as a placeholder keeps it."""
    m = _ATTR_LIST.search(heading)
    if m is None or m.start() == 0:
        return heading, None
    found = _ATTR_ID.search(m.group(1))
    return heading[: m.start()], found.group(1) if found else None


class Slugger:
    """Unique anchors within one page, numbered as the site numbers them: foo, foo-1, foo-2
    (or foo_1, foo_2 on MkDocs).

    ``style`` names the site generator whose slug rules the anchors follow (``ANCHOR_STYLES``).
    ``slug`` takes a heading as its text reads (``heading_text``): markup already gone, so a
    code span's ``<Tabs>`` counts as the characters it shows.
    """

    def __init__(self, style: str = "github") -> None:
        self._seen: dict[str, int] = {}
        self._slugify = ANCHOR_STYLES[style]
        self._join = _NUMBERING.get(style, "-")
        self._fallback = _FALLBACKS.get(style, "" if self._join == "_" else "section")
        self._first = _FIRST_NUMBER.get(style, 1)

    def slug(self, heading: str, custom: str | None = None) -> str:
        if custom:
            self._seen.setdefault(custom, 0)
            return custom
        base = self._slugify(heading, plain=True) or self._fallback
        candidate = base
        while candidate in self._seen or not candidate:
            self._seen[base] = max(self._seen.get(base, 0) + 1, self._first)
            candidate = f"{base}{self._join}{self._seen[base]}"
        self._seen[candidate] = 0
        return candidate
