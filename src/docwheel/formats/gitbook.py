"""GitBook (Git Sync): a ``.gitbook.yaml`` in the docs folder or above it, or a ``SUMMARY.md``
at the top of a folder with no ``book.toml`` (that is mdBook's).

What its documentation (gitbook.com/docs: Git Sync, content configuration) says, and this
module does:
- ``.gitbook.yaml``'s ``root:`` is the content folder (relative to the file), and
  ``structure: {readme, summary}`` name the first page and the table of contents within it
  (``README.md`` and ``SUMMARY.md`` by default).
- ``SUMMARY.md`` is navigation, not a page: ``## Group`` headings group the pages after
  them, a nested page sits under its parent, and its link text names a page with no H1.
  When the summary exists, only the files it lists are pages.
- A page ``guide/install.md`` is served at ``guide/install``; ``README.md`` is its folder's
  page (``guide``), and the structure's readme is the site's first page.
- GitBook's blocks (``{% hint %}``, ``{% tabs %}``/``{% tab title="…" %}``, ``{% code
  title="…" %}``, ``{% embed %}``) are read as the page shows them (``blocks``).

Why a module apart from ``mdbook``: the two share the summary file (``summary``) but not
where pages are served, which headings group pages, the anchors or the config file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from .markdown import page_path_from_url
from .site import Generator, Navigation, Settings, Warn, strip_suffix
from .summary import BookSettings, book_settings, listed, navigation, read_summary, read_text

_GROUPS = (1, 2, 3, 4, 5, 6)  # after the summary's title, any heading opens a group
_BLOCK = re.compile(r"\{%[ \t]*(?:hint|tabs|tab|code|embed|content-ref|stepper|step)\b")
_ENTRY_LINE = re.compile(r"^[ \t]*[-*+][ \t]+\[[^\]]*\]\([^)]*\.md\b", re.M)


class GitBook(Generator):
    name = "gitbook"
    config_files = (".gitbook.yaml", ".gitbook.yml")

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        content, summary, readme = _structure(config, root, warn)
        text = read_text(summary, warn) if summary.is_file() else None
        chapters = listed(read_summary(text, _GROUPS)) if text is not None else None
        if chapters is not None:
            chapters |= {readme}
        return book_settings(root, content, chapters, readme=readme)

    def is_page(self, rel: str, settings: Settings) -> bool:
        inside = settings.in_content(rel) if isinstance(settings, BookSettings) else rel
        if inside is None or not super().is_page(rel, settings):
            return False
        if isinstance(settings, BookSettings) and settings.chapters is not None:
            return inside in settings.chapters
        return inside.rsplit("/", 1)[-1] != "SUMMARY.md"

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        inside = settings.in_content(rel) if isinstance(settings, BookSettings) else rel
        readme = settings.readme if isinstance(settings, BookSettings) else "README.md"
        return page_address(inside if inside is not None else rel, readme)

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        return page_path_from_url(url_path)

    def ref_path(self, rel: str, settings: Settings) -> str:
        return settings.ref_path(rel) if isinstance(settings, BookSettings) else rel

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        _content, summary, readme = _structure(config, root, lambda message: None)
        text = read_text(summary, warn) if summary.is_file() else None
        if text is None:
            return None
        entries = read_summary(text, _GROUPS)
        return navigation(summary, entries, lambda t: page_path_from_url(page_address(t, readme)))

    def sniff(self, rel: str, text: str) -> int:
        """A ``SUMMARY.md`` of page links at the top of the folder is GitBook's table of
        contents (enough alone); each GitBook block is one mark."""
        if rel == "SUMMARY.md" and _ENTRY_LINE.search(text):
            return 3
        return len(_BLOCK.findall(text)) if "{%" in text else 0


GENERATOR = GitBook()


def page_address(path: str, readme: str = "README.md") -> str:
    """Where GitBook serves the page at ``path`` (relative to its root)."""
    if path == readme:
        return ""
    stem = strip_suffix(path)
    folder, _, name = stem.rpartition("/")
    return folder if name.lower() == "readme" else stem


def _structure(config: Path | None, root: Path, warn: Warn) -> tuple[Path, Path, str]:
    """(content folder, summary file, readme path in it) from ``.gitbook.yaml``."""
    data: dict = {}
    if config is not None:
        try:
            loaded = yaml.safe_load(config.read_text(encoding="utf-8"))
            data = loaded if isinstance(loaded, dict) else {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            warn(f"{config.name}: cannot be read ({type(exc).__name__}); GitBook defaults assumed")
    content = root
    if config is not None:
        given = data.get("root")
        content = config.parent / given.strip() if isinstance(given, str) and given.strip() else config.parent
        if not content.is_dir():
            content = root
    structure = data.get("structure") if isinstance(data.get("structure"), dict) else {}
    summary = structure.get("summary") if isinstance(structure.get("summary"), str) else "SUMMARY.md"
    readme = structure.get("readme") if isinstance(structure.get("readme"), str) else "README.md"
    readme = readme.strip().removeprefix("./").lstrip("/")
    return content, content / summary.strip().removeprefix("./").lstrip("/"), readme
