"""Ordering docs versions, so search can default to the newest one.

Docs versions are written by people (``2.14``, ``v3``, ``3.0rc1``, ``2026.11.01``), not
always PEP 440, so the order is a forgiving reading of the usual conventions: release
numbers compare as numbers, pre-releases come before their release, post-releases after,
and a name with no number at all (``next``, ``legacy``) sorts below every numbered one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_RELEASE = re.compile(r"[vV]?(\d+(?:\.\d+)*)(.*)")
_PHASES = (
    ("dev", 0), ("alpha", 1), ("a", 1), ("beta", 2), ("b", 2),
    ("rc", 3), ("c", 3), ("preview", 3), ("pre", 3), ("post", 5),
)
_FINAL = 4


def version_key(version: str) -> tuple:
    """A sort key: larger means newer."""
    match = _RELEASE.fullmatch(version.strip())
    if not match:
        return (0, (), 0, 0, version)
    release = tuple(int(part) for part in match.group(1).split("."))
    while len(release) > 1 and release[-1] == 0:  # 3.0 == 3
        release = release[:-1]
    rest = match.group(2).lstrip(".-_+").lower()
    phase, number = _FINAL, 0
    if rest:
        for word, rank in _PHASES:
            if rest.startswith(word):
                tail = rest[len(word):].lstrip(".-_")
                phase = rank
                number = int(tail) if tail.isdigit() else 0
                break
        else:
            phase = _FINAL  # a local label (3.0+acme, 3.0-lts): the release itself
    return (1, release, phase, number, version)


def newest(versions: Iterable[str]) -> str | None:
    """The newest of ``versions`` (None when there are none)."""
    return max(versions, key=version_key, default=None)


def newest_first(versions: Iterable[str]) -> list[str]:
    return sorted(set(versions), key=version_key, reverse=True)
