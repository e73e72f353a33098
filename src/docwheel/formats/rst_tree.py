"""What the reStructuredText pages of one folder share: the files their include
directives read, which files are only included (fragments, not pages), and the titles their
``:doc:`` and ``:ref:`` links show.

Pure over texts: the caller reads the files (``read``) and decides which are inside the
source folder; ``formats.rst`` parses each page with what ``read_tree`` found for it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

_INCLUDE = re.compile(r"^[ \t]*\.\.[ \t]+(include|literalinclude)::[ \t]*(\S.*?)[ \t]*$", re.M)
_LABEL = re.compile(r"^\.\.[ \t]+_([^:`\s][^:]*|`[^`]+`):[ \t]*$")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")
_MAX_DEPTH = 8

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RstTree:
    """Per page (by source-relative path): the include texts it needs, keyed as
    ``formats.rst`` asks for them, and the titles its links show; and the files that other
    pages include, which are not pages of their own."""

    includes: Mapping[str, Pairs]
    titles: Mapping[str, Pairs]
    fragments: frozenset[str]


def read_tree(texts: Mapping[str, str], read: Callable[[str], str | None]) -> RstTree:
    """``texts`` maps the source-relative path of every ``.rst`` file to its text; ``read``
    gives any other file inside the source folder (a ``.py`` a ``literalinclude`` shows),
    or None for one outside it or missing."""

    def lookup(rel: str) -> str | None:
        return texts[rel] if rel in texts else read(rel)

    includes: dict[str, Pairs] = {}
    fragments: set[str] = set()
    for rel, text in texts.items():
        found, used = resolve_includes(rel, text, lookup)
        includes[rel] = tuple(sorted(found.items()))
        fragments |= used
    every = reference_titles(texts)
    titles = {
        rel: tuple(sorted(link_titles(rel, text, every).items())) for rel, text in texts.items()
    }
    return RstTree(includes, titles, frozenset(fragments))


def include_targets(rel_path: str, text: str) -> list[tuple[str, str]]:
    """(target as the directive names it, path relative to the source root) for each
    ``include``/``literalinclude`` in a file at ``rel_path``; a path starting with ``/`` is
    relative to the root, as in Sphinx. The path may leave the root (``../CHANGES.rst``)."""
    found = []
    folder = posixpath.dirname(rel_path)
    for m in _INCLUDE.finditer(text):
        written = m.group(2)
        if written.startswith("<"):
            continue
        joined = written[1:] if written.startswith("/") else posixpath.join(folder, written)
        found.append((written, posixpath.normpath(joined)))
    return found


def reference_titles(texts: Mapping[str, str]) -> dict[str, str]:
    """What ``:doc:`path``` and ``:ref:`label``` show without a title of their own: the
    page's first title (``doc:patterns/sqlite3``) and the title of the section a label
    stands before (``ref:url-building``). ``texts`` maps source-relative paths to text."""
    titles: dict[str, str] = {}
    for rel, text in texts.items():
        doc = posixpath.splitext(rel)[0]
        for n, (title, labels) in enumerate(_titles(text.split("\n"))):
            if n == 0:
                titles[f"doc:{doc}"] = title
            for label in labels:
                titles.setdefault(f"ref:{label.lower()}", title)
    return titles


_LINK_ROLE = re.compile(r":(doc|ref):`([^`<>]+)`")


def link_titles(rel_path: str, text: str, titles: Mapping[str, str]) -> dict[str, str]:
    """The titles the ``:doc:`` and ``:ref:`` links of one page show, keyed as the page
    writes them (``doc:views`` in ``tutorial/index.rst`` is ``tutorial/views``'s title);
    ``titles`` is ``reference_titles`` of the whole tree."""
    found: dict[str, str] = {}
    folder = posixpath.dirname(rel_path)
    for role, target in _LINK_ROLE.findall(text):
        target = " ".join(target.split()).lstrip("!")
        if role == "ref":
            key = f"ref:{target.lower()}"
        else:
            doc = target[1:] if target.startswith("/") else posixpath.join(folder, target)
            key = f"doc:{posixpath.normpath(doc)}"
        if key in titles:
            found[f"{role}:{target.lower() if role == 'ref' else target}"] = titles[key]
    return found


def resolve_includes(
    rel_path: str, text: str, read: Callable[[str], str | None], depth: int = 0
) -> tuple[dict[str, str], set[str]]:
    """The texts a page's include directives need, keyed as ``formats.rst`` asks for them
    (the target as written, joined to the folder of an included file that includes in
    turn), and the source-relative paths they were read from. ``read`` returns a file's
    text, or None for one outside the source folder or missing: such targets are left out."""
    texts: dict[str, str] = {}
    used: set[str] = set()
    for written, target in include_targets(rel_path, text):
        if depth > _MAX_DEPTH or target.startswith("../") or target == "..":
            continue
        got = read(target)
        if got is None:
            continue
        texts[written] = got
        used.add(target)
        inner, inner_used = resolve_includes(target, got, read, depth + 1)
        folder = posixpath.dirname(written)
        for key, value in inner.items():
            nested = key if key.startswith("/") else posixpath.normpath(posixpath.join(folder, key))
            texts.setdefault(nested, value)
        used |= inner_used
    return texts, used


def _titles(lines: list[str]) -> Iterable[tuple[str, list[str]]]:
    """(section title, the labels right above it) in order, from underlined (and
    overlined) titles outside literal blocks; good enough for link text."""
    labels: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        label = _LABEL.match(line)
        if label:
            labels.append(label.group(1).strip("`"))
            i += 1
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        text = line.strip()
        if (
            text
            and not line[:1].isspace()
            and not _ADORNMENT.match(line)
            and _ADORNMENT.match(nxt)
            and len(nxt.rstrip()) >= len(text)
        ):
            yield " ".join(text.replace("``", "").split()), labels
            labels = []
            i += 2
            continue
        if text and not _ADORNMENT.match(line):
            labels = []
        i += 1
