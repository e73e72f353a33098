"""AsciiDoc inline markup as the Markdown of what the page shows (pure).

Code spans stay code, ``link:`` and URL macros become Markdown links, cross references,
keys, buttons, menus and images read as their text, emphasis as emphasis, and
``{attribute}`` references are replaced first, as in Asciidoctor's normal substitutions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .asciidoc_pre import parse_attrlist, substitute
from .headings import strip_inline
from .html import decode_entities

SUFFIXES = (".adoc", ".asciidoc")  # as site.ASCIIDOC_SUFFIXES


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

    text = _PASS.sub(lambda m: keep(protect(next(g for g in m.groups() if g is not None))), text)
    text = substitute(text, attrs)
    text = _ROLE.sub("", text)
    text = _CODE.sub(lambda m: keep(_code_span(_PASS.sub(lambda p: next(g for g in p.groups() if g is not None), m.group(1) or m.group(2)))), text)
    text = _MACRO.sub(lambda m: keep(_macro(m.group(1), m.group(2), _unescape(m.group(3)), attrs)), text)
    text = _URL.sub(lambda m: keep(_link(m.group(1), _unescape(m.group(2)))), text)
    text = _XREF.sub(lambda m: keep(protect(m.group(2).strip()) if m.group(2) else _internal(m.group(1))), text)
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
        return protect(xref_text(target))
    return f"\ufdd7{target.strip()}\ufdd8"


INTERNAL = re.compile("\ufdd7([^\ufdd8]*)\ufdd8")


def protect(text: str) -> str:
    return text.replace("<", "&lt;")


def _unescape(text: str) -> str:
    return text.replace("\\]", "]")


def _macro(name: str, target: str, content: str, attrs: Mapping[str, str]) -> str:
    label = parse_attrlist(content).get("1", "") if "=" in content or "," in content else content
    if name in ("link", "mailto"):
        url = f"mailto:{target}" if name == "mailto" else target
        return _link(url, label.strip().strip('"'))
    if name == "xref":
        return protect(label.strip().strip('"')) if label.strip() else protect(xref_text(target))
    if name == "kbd":
        return _code_span(content.strip())
    if name == "btn":
        return protect(content.strip())
    if name == "menu":
        return protect(" > ".join([target, *[p.strip() for p in content.split(">") if p.strip()]]))
    if name == "image":
        return protect(label.strip() if label.strip() else "")
    if name in ("footnote", "footnoteref"):
        shown = content.split(",", 1)[-1] if name == "footnoteref" else content
        return f" ({inline(shown.strip(), attrs)})" if shown.strip() else ""
    if name in ("indexterm2",):
        return protect(content)
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
    return f"[{protect(text)}]({url.replace(')', '%29').replace(' ', '%20')})"


def xref_text(target: str) -> str:
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


def plain_text(markdown: str) -> str:
    """The text a heading shows, from its Markdown."""
    return decode_entities(strip_inline(markdown))
