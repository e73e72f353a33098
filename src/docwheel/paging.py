"""Bounded answers: token estimates, Markdown cut at safe places, and opaque cursors.

MCP clients refuse tool results over a size limit (Claude Code: 25,000 tokens), so every
answer the server gives is cut to a token budget and continues with a cursor. Everything
here is pure: the server decides what an answer contains, this module decides where it may
be cut and how to continue it.

Token estimate, without a tokenizer: every 4 ASCII characters count as one token and every
other character counts as one token of its own. English prose and code come out at about
the same count as real tokenizers, or a little over; CJK text, where a character is often a
token, is not underestimated.

Where Markdown is cut: only between blocks (paragraphs, headings, lists, fenced code), and
a page does not end on a heading. A single block larger than the whole budget is split
between lines; a fenced code block split this way is closed at the end of one page and
opened again, with the same fence and info string, at the start of the next, so every page
is valid Markdown. Only a single line longer than the budget is cut inside the line.

Cursors are ``dw1.`` plus base64url JSON: the tool, a digest of its arguments, the
offset to continue from, and the snapshot it was made on. They hold no server state, so
any replica serving the same snapshot continues any cursor.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .errors import QueryError

CHARS_PER_TOKEN = 4
DEFAULT_MAX_TOKENS = 8000
MIN_MAX_TOKENS = 500
# Claude Code refuses results over 25,000 tokens; stay clearly under it.
MAX_MAX_TOKENS = 20000

CURSOR_PREFIX = "dw1."
MAX_CURSOR_LENGTH = 1024

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def estimate_tokens(text: str) -> int:
    """Tokens in ``text``: ASCII characters / 4 (rounded up) plus one per other character."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // CHARS_PER_TOKEN) + (len(text) - ascii_chars)


def json_tokens(value: object) -> int:
    """Tokens of ``value`` as compact JSON, which is never less than its plain text."""
    return estimate_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def json_text_tokens(text: str) -> int:
    """Tokens of ``text`` as a JSON string (escaped newlines and quotes count)."""
    return estimate_tokens(json.dumps(text, ensure_ascii=False))


# -- Markdown blocks -----------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """``text[start:end]`` is one block, trailing blank lines included.

    ``fence`` is the opening line of a fenced code block (``"```python"``), else None.
    """

    start: int
    end: int
    fence: str | None = None
    heading: bool = False


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line with its newline) for every line of ``text``."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line))
        pos += len(line)
    return out


def _closes(line: str, fence: str) -> bool:
    """A closing fence: the same character, at least as long, nothing after it."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def markdown_blocks(text: str) -> list[Block]:
    """Split Markdown into blocks that can be kept or moved whole.

    Lenient on purpose: any line whose first non-blank characters are three backticks or
    tildes opens a code block (lists indent fences), and a fence that never closes runs to
    the end, as CommonMark says. Erring this way never cuts inside real code.
    """
    blocks: list[Block] = []
    start = 0
    fence_line: str | None = None  # the opening line of the code block being read
    fence = ""
    kind: str | None = None  # "text", "heading" or "code" for the block being read
    blank_after = False  # the block being read has seen its trailing blank line(s)

    def close(at: int) -> None:
        nonlocal start, kind, fence_line, blank_after
        if kind is not None and at > start:
            blocks.append(
                Block(start, at, fence_line if kind == "code" else None, kind == "heading")
            )
        start, kind, fence_line, blank_after = at, None, None, False

    for offset, line in _lines(text):
        if kind == "code" and fence:
            if _closes(line, fence):
                fence = ""  # the block ends after its closing line and any blank lines
            continue
        if not line.strip():
            if kind is None:
                kind = "text"  # leading blank lines belong to the first block
            blank_after = True
            continue
        opened = _FENCE_OPEN.match(line.rstrip("\r\n"))
        if opened and not ("`" in opened["info"] and opened["fence"][0] == "`"):
            close(offset)
            kind, fence, fence_line = "code", opened["fence"], line.rstrip("\r\n")
            continue
        if _HEADING.match(line):
            close(offset)
            kind = "heading"
            continue
        if kind in ("heading", "code") or blank_after:
            close(offset)
        if kind is None:
            kind = "text"
    close(len(text))
    return blocks


# -- cutting text to a budget -----------------------------------------------------------------


@dataclass(frozen=True)
class TextPage:
    """One page of a text: what to show, and where the next page starts (None: the end)."""

    text: str
    next_offset: int | None


Cost = Callable[[str], int]


def page_text(text: str, start: int, max_tokens: int, cost: Cost = estimate_tokens) -> TextPage:
    """The part of ``text`` from ``start`` that fits ``max_tokens``, cut at a safe place.

    ``start`` is 0 or a ``next_offset`` from an earlier page of the same text. Every page
    holds at least one character, so following ``next_offset`` always reaches the end.
    Pages joined in order give back ``text``, apart from the fence lines added where a
    code block was split.
    """
    if not 0 <= start <= len(text):
        raise ValueError(f"offset {start} is outside the text (0..{len(text)})")
    if start == len(text):
        return TextPage("", None)
    if start == 0 and cost(text) <= max_tokens:
        return TextPage(text, None)
    blocks = [b for b in markdown_blocks(text) if b.end > start]
    parts: list[str] = []
    used = 0
    kept: list[Block] = []  # blocks kept whole, to move a trailing heading to the next page
    for block in blocks:
        begin = max(start, block.start)
        reopen = block.fence if begin > block.start and block.fence is not None else None
        piece = (reopen + "\n" if reopen else "") + text[begin : block.end]
        piece_cost = cost(piece)
        if used + piece_cost <= max_tokens:
            parts.append(piece)
            used += piece_cost
            kept.append(block)
            continue
        if parts:
            # A page should not end on a heading whose section starts on the next page.
            while len(kept) > 1 and kept[-1].heading:
                parts.pop()
                kept.pop()
            return TextPage("".join(parts), kept[-1].end)
        return _split_block(text, begin, block, max_tokens, cost, reopen)
    return TextPage("".join(parts), None)


def _split_block(
    text: str, begin: int, block: Block, max_tokens: int, cost: Cost, reopen: str | None
) -> TextPage:
    """Cut one block that is larger than a whole page between lines (inside a line if must)."""
    prefix = reopen + "\n" if reopen else ""
    closer = ""
    if block.fence is not None:
        fence = _FENCE_OPEN.match(block.fence)
        assert fence is not None
        closer = f"{fence['indent']}{fence['fence']}\n"
    budget = max_tokens - cost(prefix) - cost(closer)
    taken: list[str] = []
    used = 0
    pos = begin
    for _offset, line in _lines(text[begin : block.end]):
        line_cost = cost(line)
        if used + line_cost > budget:
            break
        taken.append(line)
        used += line_cost
        pos += len(line)
    rest = text[pos : block.end]
    if taken and closer and rest.strip() == closer.strip():
        # Only the closing fence is left: end the block here rather than close and reopen it.
        taken.append(rest)
        pos = block.end
    if not taken:  # one line longer than the budget: cut inside it, at a space if one is near
        line = text[begin : block.end].splitlines(keepends=True)[0]
        cut = _fit_prefix(
            line, max(budget - (1 if closer else 0), 1), cost
        )  # 1: the newline before the closer
        space = line.rfind(" ", 0, cut)
        if space > cut // 2:
            cut = space + 1
        taken, pos = [line[:cut]], begin + cut
    body = "".join(taken)
    if closer and pos < block.end:
        body = (body if body.endswith("\n") else body + "\n") + closer
    return TextPage(prefix + body, pos if pos < len(text) else None)


def _fit_prefix(line: str, budget: int, cost: Cost) -> int:
    """The longest prefix length of ``line`` within ``budget`` (at least one character)."""
    low, high = 1, len(line)
    while low < high:
        mid = (low + high + 1) // 2
        if cost(line[:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


# -- lists of items ------------------------------------------------------------------------


def take_items(costs: Iterable[int], max_tokens: int, *, at_least_one: bool = True) -> int:
    """How many of the items, in order, fit ``max_tokens`` together.

    With ``at_least_one`` the first item is taken even when it is too big (the caller
    shrinks it), so paging always moves on. ``costs`` may be a lazy iterable: it is read
    only as far as needed.
    """
    taken, used = 0, 0
    for cost in costs:
        if used + cost > max_tokens and not (taken == 0 and at_least_one):
            break
        used += cost
        taken += 1
    return taken


# -- cursors ---------------------------------------------------------------------------------


class CursorError(QueryError):
    """A cursor that this server cannot continue; the message says what to do instead."""


def snapshot_id(manifest: Mapping[str, object]) -> str:
    """A short fingerprint of an index: cursors from another snapshot are refused."""
    canonical = json.dumps(manifest, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _digest(args: Mapping[str, object]) -> str:
    canonical = json.dumps(dict(args), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Cursor:
    """Where an answer continues. ``ref`` is carried only by tools whose id is the cursor."""

    tool: str
    args: str  # digest of the arguments of the call that made it
    offset: int
    snapshot: str
    ref: str | None = None


def make_cursor(
    tool: str, args: Mapping[str, object], offset: int, snapshot: str, *, ref: str | None = None
) -> str:
    payload: dict[str, object] = {"t": tool, "a": _digest(args), "o": offset, "s": snapshot}
    if ref is not None:
        payload["r"] = ref
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def is_cursor(text: str) -> bool:
    return isinstance(text, str) and text.startswith(CURSOR_PREFIX)


def read_cursor(
    token: str, *, tool: str, snapshot: str, args: Mapping[str, object] | None = None
) -> Cursor:
    """Decode and check a cursor made by ``make_cursor`` for this tool, snapshot and arguments.

    ``args=None`` skips the argument check (for a cursor that is itself the id, as in
    ``fetch``). Every refusal is a ``CursorError`` that says how to recover.
    """
    again = (
        f"pass next_cursor exactly as {tool} returned it, or call {tool} without cursor "
        "to start over"
    )
    cursor = _decode(token)
    if cursor is None:
        raise CursorError(f"invalid cursor {_short(token)}: {again}")
    if cursor.tool != tool:
        raise CursorError(
            f"this cursor continues {cursor.tool}, not {tool}: call {cursor.tool} with it, "
            f"or call {tool} without cursor"
        )
    if cursor.snapshot != snapshot:
        raise CursorError(
            f"this cursor comes from another docs snapshot (the server's docs changed since): "
            f"call {tool} without cursor to start over"
        )
    if args is not None and cursor.args != _digest(args):
        raise CursorError(
            f"this cursor continues a {tool} call with other arguments: pass the same arguments "
            "as the call that returned it, or call without cursor to start over"
        )
    return cursor


def _decode(token: object) -> Cursor | None:
    if not isinstance(token, str) or not token.startswith(CURSOR_PREFIX):
        return None
    if len(token) > MAX_CURSOR_LENGTH:
        return None
    body = token[len(CURSOR_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        payload = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict):
        return None
    tool, args, offset, snapshot = (payload.get(k) for k in ("t", "a", "o", "s"))
    ref = payload.get("r")
    if not (isinstance(tool, str) and isinstance(args, str) and isinstance(snapshot, str)):
        return None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        return None
    if ref is not None and not isinstance(ref, str):
        return None
    return Cursor(tool, args, offset, snapshot, ref)


def _short(token: object) -> str:
    text = repr(token)
    return text if len(text) <= 40 else text[:37] + "…'"
