"""How identifiers in docs become search terms (pure).

Docs are full of names: ``asyncio.gather``, ``stub.yieldsRight()``, ``PLANE_API_KEY``,
``--transport``, ``fastmcp.json``. A reader may type the whole name or any part of it, so a
name yields its parts, each compound part also merged (``yieldsRight`` -> ``yields``,
``right``, ``yieldsright``), and a dotted name also itself (``asyncio.gather``) so typing
the whole name finds it first.
"""

from __future__ import annotations

import re

TOKEN_PATTERN = r"\w+(?:[.:\-/]\w+)*"
_SEGMENT_SEPARATORS = re.compile(r"[.:/]+")
# Upper-case runs (not followed by lower case), capitalised or lower-case words, digit runs.
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_LETTERS = re.compile(r"[A-Za-z]+")


def split_identifier(token: str) -> list[str]:
    """The terms one token stands for, in order, before lower-casing and stemming."""
    segments = [s for s in _SEGMENT_SEPARATORS.split(token) if s]
    out: list[str] = []
    for segment in segments:
        parts = _PART.findall(segment)
        if len(parts) <= 1:
            out.append(segment)
            continue
        out.extend(p for p in parts if len(p) > 1 or p.isdigit())
        # Letters split by case alone are often one word (OAuth, GitHub): keep them merged.
        for run in _LETTERS.findall(segment):
            if len(_PART.findall(run)) > 1 and run != segment:
                out.append(run)
        out.append("".join(parts))
    if len(segments) > 1:
        out.append(".".join(segments))
    return out


def without_number_parts(terms: list[str]) -> list[str]:
    """The terms one typed word is searched by, less the bare numbers split out of it.

    ``i18n``, ``base64``, ``oauth2`` and ``v2`` index their digit runs as terms too (``18``,
    ``64``), so that a reader typing the number alone still finds them. Searched for, those
    numbers only match unrelated text ("Node 18", "step 2") and make every answer look
    as if it lacked one of the query's words. The word keeps its whole form and its
    letter parts; a word made only of digits (a date, ``404``) keeps everything."""
    if len(terms) < 2:
        return terms
    kept = [term for term in terms if not term.isdigit()]
    return kept or terms
