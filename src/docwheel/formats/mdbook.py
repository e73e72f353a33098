"""mdBook: a ``book.toml`` in the docs folder or above it.

What its documentation (rust-lang.github.io/mdBook: format/summary, format/configuration,
format/mdbook) and source say, and this module does:
- The book's content is ``src/`` under the folder of ``book.toml``, or the folder its
  ``[book] src`` names; the sources file may name the book root or that folder.
- ``src/SUMMARY.md`` is the book: only the chapters it links are built, so a file it does
  not list is no page; a draft chapter ``- [Title]()`` has no file. The summary itself is
  navigation: a ``# Part`` heading groups the chapters after it, a nested chapter sits
  under its parents, and the link text names a page with no H1 of its own.
- A chapter ``guide/install.md`` is served at ``guide/install.html``; a ``README.md`` is
  renamed ``index.md`` (the ``index`` preprocessor), so it is its folder's ``index.html``.
- Heading ids are mdBook's ``normalize_id`` (``headings.slugify_mdbook``), repeats
  numbered ``-1``, ``-2``; ``{#custom-id}`` sets one.
- ``{{#include}}``, ``{{#rustdoc_include}}``, ``{{#playground}}`` and ``{{#title}}`` are
  resolved with the other include lines (``includes``, only in a book: ``mdbook_links``).
- In a Rust code block the lines it hides (``# x``, a bare ``#``) are not shown until the
  reader expands the block, so they are left out (``hide_rust_lines``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path

from .markdown import page_path_from_url
from .site import Generator, Navigation, Settings, Warn, strip_suffix
from .summary import BookSettings, book_settings, listed, navigation, read_summary, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUMMARY = "SUMMARY.md"
_PARTS = (1,)  # only `# Part title` opens a part; other heading levels are ignored


class MdBook(Generator):
    name = "mdbook"
    config_files = ("book.toml",)
    anchors = "mdbook"
    mdbook_links = True

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        content = content_folder(config, root, warn)
        summary = content / SUMMARY
        text = read_text(summary, warn) if summary.is_file() else None
        if text is None:
            warn(f"{SUMMARY}: not found in {content.name}/; every Markdown file is read as a page")
        chapters = listed(read_summary(text, _PARTS)) if text is not None else None
        return book_settings(root, content, chapters)

    def is_page(self, rel: str, settings: Settings) -> bool:
        inside = settings.in_content(rel) if isinstance(settings, BookSettings) else rel
        if not isinstance(settings, BookSettings) or settings.chapters is None:
            return super().is_page(rel, settings) and inside not in (None, SUMMARY)
        return inside in settings.chapters

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        inside = settings.in_content(rel) if isinstance(settings, BookSettings) else rel
        return chapter_address(inside if inside is not None else rel)

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return page_path_from_url(url_path)

    def ref_path(self, rel: str, settings: Settings) -> str:
        return settings.ref_path(rel) if isinstance(settings, BookSettings) else rel

    def shown(self, text: str, settings: Settings) -> str:
        return hide_rust_lines(text) if "#" in text and ("```" in text or "~~~" in text) else text

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        summary = content_folder(config, root, lambda message: None) / SUMMARY
        text = read_text(summary, warn) if summary.is_file() else None
        if text is None:
            return None
        entries = read_summary(text, _PARTS)
        return navigation(summary, entries, lambda target: page_path_from_url(chapter_address(target)))


GENERATOR = MdBook()


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s,`]*)")
_BORING = re.compile(r"^(\s*)#(.?)(.*)$")


def hide_rust_lines(text: str) -> str:
    """``text`` without the lines mdBook hides in Rust code blocks (``# line`` or a bare
    ``#``; ``##`` shows as ``#``, ``#[attr]`` and ``#!`` show as written), as the page
    shows the block until a reader expands it."""
    out: list[str] = []
    fence, rust, changed = "", False, False
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if not fence and m:
            fence, rust = m.group(1), m.group(2).lower() == "rust"
        elif fence and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2):
            fence, rust = "", False
        elif rust and (boring := _BORING.match(line)) and boring.group(2) in ("#", "", " "):
            changed = True
            if boring.group(2) != "#":
                continue
            line = boring.group(1) + "#" + boring.group(3)
        out.append(line)
    return "\n".join(out) if changed else text


def chapter_address(path: str) -> str:
    """Where mdBook serves the chapter at ``path`` (relative to ``src/``)."""
    stem = strip_suffix(path)
    folder, _, name = stem.rpartition("/")
    if name.lower() == "readme":
        stem = f"{folder}/index" if folder else "index"
    return stem + ".html"


def content_folder(config: Path | None, root: Path, warn: Warn) -> Path:
    """The book's ``src`` folder: ``[book] src`` of ``book.toml``, else ``src/`` beside it;
    without a ``book.toml``, the docs folder itself."""
    if config is None:
        return root
    src = "src"
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        warn(f"{config.name}: cannot be read ({type(exc).__name__}); mdBook defaults assumed")
        data = {}
    book = data.get("book")
    if isinstance(book, dict) and isinstance(book.get("src"), str) and book["src"].strip():
        src = book["src"].strip()
    folder = config.parent / src
    return folder if folder.is_dir() else root
