"""The anchors inside a section (``Section.anchors``): stored with it, and read back.

A docs site gives every heading an id, however deep, and authors link to them
(``](options.md#retries)``); docwheel splits pages into sections only down to a level, so
the deeper ids live inside a section. Pure functions over a section's stored text: which
part of it a deep anchor stands for (what ``read`` returns for ``page#deep-anchor``), and
where the headings that a hit's URL may point at begin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .models import Anchor


def to_stored(anchors: Sequence[Anchor]) -> tuple[tuple[str, str, int, int], ...] | None:
    """The stored field's value: plain tuples (None when there are none, so a section
    without anchors stores nothing)."""
    if not anchors:
        return None
    return tuple((a.anchor, a.heading, a.level, a.offset) for a in anchors)


def from_stored(value: object) -> tuple[Anchor, ...]:
    if not value:
        return ()
    rows: Any = value  # pairs of a stored tuple, as to_stored wrote them
    return tuple(Anchor(str(a), str(h), int(lv), int(o)) for a, h, lv, o in rows)


class Part(NamedTuple):
    """What a deep anchor stands for: ``text[start:end]`` of its section, and the headings
    from the section down to the one it is under (empty for a bare target before any)."""

    start: int
    end: int
    headings: tuple[str, ...]


def part_of(text: str, anchors: Sequence[Anchor], name: str, level: int) -> Part | None:
    """The part of a section's ``text`` (a section of heading ``level``) that anchor
    ``name`` stands for, or None if the section has no such anchor.

    A heading's part runs to the next heading of its level or higher, as the page shows
    it; a bare target's part from the target to the end of the heading it is under. An
    anchor that names the section's own heading is the whole section.
    """
    found = next((a for a in anchors if a.anchor == name), None)
    if found is None:
        return None
    heads = [a for a in anchors if a.level > 0]
    own = found
    if found.level == 0:  # a bare target: under the heading before it, or one right after
        after = next((a for a in heads if a.offset >= found.offset), None)
        if after is not None and not text[found.offset : after.offset].strip():
            own = after
        else:
            own = next((a for a in reversed(heads) if a.offset <= found.offset), None) or Anchor(
                "", "", level, 0
            )
    if own.level <= level:
        return Part(found.offset, len(text), ())
    end = next(
        (a.offset for a in heads if a.offset > own.offset and a.level <= own.level), len(text)
    )
    return Part(found.offset, end, _path_to(heads, own, level))


def _path_to(heads: Sequence[Anchor], own: Anchor, level: int) -> tuple[str, ...]:
    """The headings above ``own`` inside the section, outermost first, and its own."""
    path = [own.heading]
    above = own.level
    for a in reversed([h for h in heads if h.offset < own.offset]):
        if level < a.level < above:
            path.append(a.heading)
            above = a.level
    return tuple(reversed(path))


def heading_marks(anchors: Sequence[Anchor], level: int) -> tuple[list[int], list[str]]:
    """Where each heading deeper than the section's ``level`` begins in its text, and its
    anchor (the first one at that place: the heading's own id, not an HTML alias), for a
    hit's URL."""
    offsets: list[int] = []
    names: list[str] = []
    for a in anchors:
        if a.level > level and (not offsets or a.offset != offsets[-1]):
            offsets.append(a.offset)
            names.append(a.anchor)
    return offsets, names
