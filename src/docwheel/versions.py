"""Ordering docs versions, so search can default to the newest one.

Docs versions are written by people (``2.14``, ``v3``, ``3.0rc1``, ``2026.11.01``), not
always PEP 440, so the order is a forgiving reading of the usual conventions: release
numbers compare as numbers, pre-releases come before their release, post-releases after,
and a name with no number at all (``next``, ``legacy``) sorts below every numbered one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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


# -- versioned copies of a page --------------------------------------------------------
#
# Docs sites often keep older versions beside the current one in the same tree:
# ``servers/tools`` with ``v3/servers/tools`` and ``v2/servers/tools`` (Mintlify),
# ``specification/2025-03-26/...`` beside ``specification/draft/...``. A search that
# lists one page three times wastes two of its results, and a reader running the current
# version wants the current text first.

# A path segment that names a version: v2, v2.1, 2.x, 3.0.1, version-2.0, 2025-03-26,
# optionally with a pre-release tail (v4.0.0-beta1).
_NUMBERED = re.compile(
    r"(?:v|version-)?(?:\d+(?:\.(?:\d+|x))+|(?<=v)\d+|(?<=version-)\d+|\d{4}-\d{2}-\d{2})"
    r"(?:-?(?:alpha|beta|rc|pre|dev)\.?\d*)?",
    re.IGNORECASE,
)
# Named versions: only where the same place in another path holds a numbered one.
_CURRENT_NAMES = frozenset({"latest", "stable", "current"})
_NAMED = _CURRENT_NAMES | frozenset(
    {"next", "draft", "dev", "nightly", "unstable", "canary", "main", "master", "edge", "preview"}
)
_NEWEST_NAMED = (2,)  # latest/stable/current sort above every numbered version
_UNVERSIONED = (3,)  # the copy outside any version folder is the current docs
CURRENT = -2  # PageCopies.version of a page of the current docs in a versioned tree


_NUMBERS = re.compile(r"(?:v|version-)?(\d+(?:\.\d+)*)(\.x)?", re.IGNORECASE)


def _numbers(version: str) -> tuple[tuple[int, ...], bool] | None:
    """The release numbers of a version as written, and whether it ends in ``.x``."""
    found = _NUMBERS.match(version)
    if not found:
        return None
    return tuple(int(n) for n in found.group(1).split(".")), bool(found.group(2))


def named_versions(text: str, labels: Sequence[str]) -> tuple[int, ...]:
    """Which of ``labels`` (the versions an index holds) a query names, by position.

    ``v2``, ``2.x`` and ``version 2`` name every version of major 2 (``v2``, ``2.14``);
    ``2.14`` names ``2.14`` and ``2.14.5`` but not ``v2`` (nor does ``python 3.12`` name
    ``v3``); a date or a name (``draft``) must be written as it is."""
    if not labels:
        return ()  # most docs have no versions: nothing to read on every query
    lowered = [label.lower() for label in labels]
    numbered = [_numbers(label) if is_numbered_version(label) else None for label in lowered]
    named: set[int] = set()
    previous = ""
    for word in re.findall(r"[\w.-]+", text.lower()):
        word = word.strip(".-")
        named.update(i for i, label in enumerate(lowered) if label == word)
        written = _numbers(word) if is_numbered_version(word) else None
        if previous in ("version", "versions", "release") and word.isdigit():
            written = ((int(word),), True)
        elif written and word.startswith("v") and len(written[0]) == 1:
            written = (written[0], True)  # v2: the whole major version
        if written:
            numbers, whole_major = written
            for i, label in enumerate(numbered):
                if label is None:
                    continue
                if whole_major:
                    hit = label[0][0] == numbers[0]
                else:
                    shorter = min(len(label[0]), len(numbers))
                    hit = shorter >= 2 and label[0][:shorter] == numbers[:shorter]
                if hit:
                    named.add(i)
        previous = word
    return tuple(sorted(named))


def is_numbered_version(word: str) -> bool:
    """Whether ``word`` is written like a version number (``v2``, ``2.x``, ``2025-03-26``)."""
    return bool(_NUMBERED.fullmatch(word))


@dataclass(frozen=True)
class PageCopies:
    """Which pages are versions of one another, per page in index order.

    ``family`` is the same number for every copy of a page (the first copy's page number);
    ``old`` marks copies that are not the newest version their docs have; ``labels`` are
    the versions found (path segments such as ``v2`` or ``2025-03-26``, and sources'
    ``version:``s), sorted; ``version`` is each page's version as a position in ``labels``,
    ``CURRENT`` for a page of the current docs beside version folders (``servers/new``
    next to ``v2/...``), -1 for none; so a query that names a version can prefer its pages."""

    family: list[int]
    old: list[bool]
    labels: list[str]
    version: list[int]


def page_copies(pages: Sequence[tuple[str, str, str]]) -> PageCopies:
    """Group ``pages`` (source name, the source's ``version:`` or "", page path) into
    versioned copies.

    A page's version is its source's ``version:`` and, inside the source, the first path
    segment that names a version. Copies share a source name and the path without that
    segment; a copy with no version segment, beside versioned ones, is the current docs.
    Per source and per place in the path, every version older than the newest is old (the
    unversioned copy counts as the newest; a named pre-release such as ``draft`` as none)."""
    split = [_split_version(path) for _, _, path in pages]
    numbered_slots = {
        (source, prefix) for (source, _, _), (prefix, label, _) in zip(pages, split)
        if label is not None and is_numbered_version(label)
    }
    keys: list[tuple] = []
    slot_of: list[tuple | None] = []
    labels: list[str | None] = []
    for (source, _, path), (prefix, label, rest) in zip(pages, split):
        if label is not None and (source, prefix) in numbered_slots:
            keys.append((source, prefix, rest))
            slot_of.append((source, prefix))
            labels.append(label)
        else:
            keys.append((source, (), path))
            slot_of.append(None)
            labels.append(None)
    versioned_keys = {key for key, slot in zip(keys, slot_of) if slot is not None}
    slots: dict[tuple, set] = {}
    for i, (key, slot) in enumerate(zip(keys, slot_of)):
        if slot is None:
            # An unversioned page whose path is a versioned family's path without its
            # version segment is that family's current copy.
            source = pages[i][0]
            parts = key[2].split("/")
            for cut in range(len(parts)):
                candidate = (source, tuple(parts[:cut]), "/".join(parts[cut:]))
                if candidate in versioned_keys:
                    keys[i] = candidate
                    slot_of[i] = (source, tuple(parts[:cut]))
                    break
        if slot_of[i] is not None:
            slots.setdefault(slot_of[i], set()).add(_rank(labels[i]))
    newest_in = {slot: max(ranks) for slot, ranks in slots.items()}
    explicit: dict[str, list[str]] = {}
    for source, version, _ in pages:
        if version:
            explicit.setdefault(source, []).append(version)
    newest_explicit = {source: newest(versions) for source, versions in explicit.items()}
    family_of: dict[tuple, int] = {}
    family: list[int] = []
    old: list[bool] = []
    for i, ((source, version, _), key, slot) in enumerate(zip(pages, keys, slot_of)):
        family.append(family_of.setdefault(key, i))
        stale = bool(version) and version != newest_explicit[source]
        # A pre-release (draft, next) is not superseded by the release before it.
        if slot is not None and (0,) < _rank(labels[i]) < newest_in[slot]:
            stale = True
        old.append(stale)
    found = {label for label in labels if label} | {version for _, version, _ in pages if version}
    ordered = sorted(found, key=version_key)
    position = {label: i for i, label in enumerate(ordered)}
    # Where the unversioned copies are the current version, every unversioned page there is
    # a page of the current version, copies or not.
    current = {slot for slot, ranks in slots.items() if _UNVERSIONED in ranks}
    versions = []
    for (source, version, path), label in zip(pages, labels):
        if label or version:
            versions.append(position[label or version])
            continue
        parts = path.split("/")
        inside = any((source, tuple(parts[:cut])) in current for cut in range(len(parts)))
        versions.append(CURRENT if inside else -1)
    return PageCopies(family, old, ordered, versions)


def _split_version(path: str) -> tuple[tuple[str, ...], str | None, str]:
    """(segments before the version segment, the version, the path after it)."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if is_numbered_version(part) or part.lower() in _NAMED:
            return tuple(parts[:i]), part, "/".join(parts[i + 1 :])
    return tuple(parts), None, path


def _rank(label: str | None) -> tuple:
    if label is None:
        return _UNVERSIONED
    if label.lower() in _CURRENT_NAMES:
        return _NEWEST_NAMED
    return (1, version_key(label.lower().removeprefix("version-"))) if is_numbered_version(label) else (0,)
