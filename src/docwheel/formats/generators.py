"""The docs generators docwheel knows, in one table, and how a docs folder's is found.

Adding a generator is adding a module with a ``GENERATOR`` (a ``site.Generator``) and a
line here. ``detect`` looks for a generator's config file in the docs folder and up to
three folders above it (``mkdocs.yml`` usually sits beside ``docs/``, Starlight's
``astro.config.mjs`` three levels above ``src/content/docs/``), nearest first; with none,
it reads the pages for each generator's marks (admonition and container syntax,
frontmatter keys, imports); with no clear mark, ``plain``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import (
    antora, docsify, docusaurus, fumadocs, gitbook, hugo, jekyll, jupyterbook, mdbook, mintlify, mkdocs, nextra,
    plain, quarto, sphinx, starlight, vitepress, vuepress, zola,
)
from .site import Generator

GENERATORS: dict[str, Generator] = {
    g.name: g
    for g in (
        mkdocs.GENERATOR,
        docusaurus.GENERATOR,
        vitepress.GENERATOR,
        vuepress.GENERATOR,
        starlight.GENERATOR,
        mintlify.GENERATOR,
        jupyterbook.GENERATOR,  # before sphinx: a book may keep a generated conf.py
        sphinx.GENERATOR,
        zola.GENERATOR,  # before hugo: both read a config.toml
        hugo.GENERATOR,
        mdbook.GENERATOR,
        gitbook.GENERATOR,
        docsify.GENERATOR,
        quarto.GENERATOR,
        jekyll.GENERATOR,
        nextra.GENERATOR,
        fumadocs.GENERATOR,
        antora.GENERATOR,
        plain.GENERATOR,
    )
}
NAMES: tuple[str, ...] = tuple(GENERATORS)
# Generators whose config file counts only in the docs folder itself: a docs.json above
# the folder may belong to anything, and Docsify serves the folder its index.html is in.
_ROOT_ONLY = frozenset({"mintlify", "docsify"})
LEVELS_ABOVE = 3
# Pages read for content detection, and the marks needed before a generator is assumed.
_SAMPLE = 200
_MIN_MARKS = 3


@dataclass(frozen=True)
class Detected:
    """The generator of a docs folder and why: ``config`` is the file that named it (None
    when the sources file did, or the content); ``reason`` says it for the build output."""

    generator: Generator
    config: Path | None
    reason: str


def detect(root: Path, pages: Iterable[tuple[str, str]] = ()) -> Detected:
    """The generator of the docs folder ``root``; ``pages`` (relative path, text) are read
    for marks when no config file names one."""
    found = find_config(root)
    if found is not None:
        return found
    scores = dict.fromkeys(GENERATORS, 0)
    for n, (rel, text) in enumerate(pages):
        if n >= _SAMPLE:
            break
        for name, generator in GENERATORS.items():
            scores[name] += generator.sniff(rel, text)
    best = max(scores, key=lambda name: scores[name])
    if scores[best] >= _MIN_MARKS:
        return Detected(GENERATORS[best], None, f"from its pages ({scores[best]} marks of {best})")
    return Detected(GENERATORS["plain"], None, "no config file or marks of a generator")


def find_config(root: Path) -> Detected | None:
    """A generator's config file in ``root`` or up to ``LEVELS_ABOVE`` folders above it."""
    folder = root
    for level in range(LEVELS_ABOVE + 1):
        for name, generator in GENERATORS.items():
            if level and name in _ROOT_ONLY:
                continue
            for pattern in generator.config_files:
                file = folder / pattern
                if file.is_file() and generator.claims(file):
                    return Detected(generator, file, f"from {_shown(file, root)}")
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def configured(name: str, root: Path | None) -> Detected:
    """The generator the sources file names, with its config file when there is one."""
    generator = GENERATORS[name]
    config = None
    if root is not None:
        found = find_config(root)
        if found is not None and found.generator is generator:
            config = found.config
    return Detected(generator, config, "from the sources file")


def _shown(file: Path, root: Path) -> str:
    try:
        rel = file.relative_to(root)
        return rel.as_posix()
    except ValueError:
        pass
    ups = 0
    folder = root
    while folder != folder.parent:
        folder = folder.parent
        ups += 1
        try:
            return "../" * ups + file.relative_to(folder).as_posix()
        except ValueError:
            continue
    return str(file)
