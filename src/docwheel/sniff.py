"""Whether a document's opening bytes are text docwheel can index: not an HTML page, not binary.

One rule for every way a source is read, so a body refused over HTTP (``fetch``) is refused
from a local file too (``sources``): a saved sign-in or error page, or a binary file behind
a ``.txt`` or ``.md`` name. Pure, and small enough for either side to import.
"""

from __future__ import annotations

import codecs

# How much of a body is looked at; git calls a file binary on a NUL byte in its first 8000.
HEAD_BYTES = 8192
_WIDE = ("utf-16", "utf-32")  # encodings whose text is full of NUL bytes


def not_text(head: bytes, charset: str | None = None) -> str | None:
    """Why ``head`` (a document's first bytes) is not text to index, or None when it is.

    ``charset`` is the encoding a server declared, if any: a UTF-16 or UTF-32 body holds
    NUL bytes and is still text.
    """
    head = head[:HEAD_BYTES]
    start = head[len(codecs.BOM_UTF8) :] if head.startswith(codecs.BOM_UTF8) else head
    if start.lstrip()[:20].lower().startswith((b"<!doctype html", b"<html")):
        return "an HTML page, not Markdown"
    wide = charset is not None and charset.lower().replace("_", "-").startswith(_WIDE)
    nul = -1 if wide else head.find(b"\0")
    if nul >= 0:
        return f"binary data (a NUL byte at offset {nul}), not Markdown"
    return None
