"""The seam between the folder loader and the generator modules: what a generator says
about a docs folder, as plain values.

A ``Generator`` answers, for one docs folder: which files are pages, the address the site
serves each page at, how it turns headings into anchors, and where its navigation puts each
page. Each generator module (``mkdocs``, ``docusaurus``, …) defines one, and
``generators.GENERATORS`` lists them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .notebook import DEFAULT_RULES, NotebookRules

Warn = Callable[[str], None]


@dataclass(frozen=True)
class Navigation:
    """Where a site's navigation puts each page: ``{page key: labels}``.

    Labels run from the outermost level down (tab, version, group), e.g.
    ``("Documentation", "Version 2025-11-25", "Get started")``. ``titles`` holds the page
    titles the navigation gives (an MkDocs ``Title: page.md`` entry, a Mintlify group's
    ``root`` page), used when the page itself names none. A page's key is
    ``Generator.nav_key`` of it: its path, its doc id or its link, as the generator's
    navigation names pages.
    """

    file: str
    groups: dict[str, tuple[str, ...]]
    titles: dict[str, str] = field(default_factory=dict)
    # Folders whose every page a group takes (Starlight's ``autogenerate: {directory}``).
    folders: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def place(self, key: str) -> tuple[tuple[str, ...], str | None]:
        labels = self.groups.get(key)
        if labels is None:
            folder = key
            while labels is None and "/" in folder:
                folder = folder.rsplit("/", 1)[0]
                labels = self.folders.get(folder)
            labels = labels if labels is not None else self.folders.get(key, ())
        return labels, self.titles.get(key)


@dataclass(frozen=True)
class Settings:
    """What a generator's config file says about serving pages (None: its default).

    ``clean_urls``: pages are served without ``.html`` (MkDocs ``use_directory_urls``,
    VitePress ``cleanUrls``); ``trailing_slash``: a page address ends in '/'; ``exclude``:
    globs, relative to the docs folder, of files that are not pages (VitePress
    ``srcExclude``, MkDocs ``exclude_docs``).
    """

    clean_urls: bool | None = None
    trailing_slash: bool | None = None
    exclude: tuple[str, ...] = ()
    # Sphinx's ``default_role``: what `single backticks` are in reStructuredText ("" for
    # docutils' default, a title reference shown in italics).
    default_role: str = ""
    # Which files are pages and how each is parsed, by the end of its name, in the order a
    # file's name is tried: ``((".txt", "rst"), (".md", "markdown"))`` (Sphinx's
    # ``source_suffix``). Empty: the files docwheel lists by default (``SUFFIXES``), rst
    # by the ``.rst`` suffix.
    page_suffixes: tuple[tuple[str, str], ...] = ()
    # Where the docs folder is, relative to the folder ``exclude`` is relative to ("" for
    # the docs folder itself; Sphinx's patterns are relative to ``conf.py``'s folder).
    exclude_base: str = ""
    # The only files that are pages, when a table of contents lists them all (Jupyter
    # Book's ``_toc.yml``); None: the listing and ``exclude`` decide.
    pages: frozenset[str] | None = None
    # What the site leaves off a notebook's page (a page suffix of syntax "notebook").
    notebook_rules: NotebookRules = DEFAULT_RULES

    def syntax(self, rel: str) -> str | None:
        """How the file at ``rel`` is parsed ("rst", "markdown" or "notebook") when
        ``page_suffixes`` names its suffix, or None (the default rule decides, or it is no
        page)."""
        for suffix, syntax in self.page_suffixes:
            if rel.endswith(suffix):
                return syntax
        return None


class Generator:
    """The plain rules, which each generator module overrides where its site differs."""

    name = "plain"
    # Files whose presence in the docs folder or a folder above names this generator
    # (glob patterns relative to that folder).
    config_files: tuple[str, ...] = ()
    anchors = "github"  # formats.headings.ANCHOR_STYLES
    # The page address depends on frontmatter (``id:``, ``slug:``): the loader reads it.
    reads_frontmatter = False
    # Which names a page first: its frontmatter ``title`` or a leading H1 ("heading").
    title_from = "frontmatter"
    # mdBook's ``{{#include …}}`` links are read (``includes``); elsewhere they are text.
    mdbook_links = False
    # ``.adoc`` files are pages (``formats.asciidoc``): where the site renders AsciiDoc.
    asciidoc = False

    def claims(self, config: Path) -> bool:
        """Whether a file that matched ``config_files`` is really this generator's."""
        return True

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        return Settings()

    def is_page(self, rel: str, settings: Settings) -> bool:
        """Whether the file at ``rel`` (relative to the docs folder, '/'-separated) is a
        page of the site; fragments and partials are not. A ``.qmd`` file is Quarto's
        source format: only Quarto renders it (GitHub and the others show its source); an
        ``.adoc`` file is a page only where the generator renders AsciiDoc."""
        lowered = rel.lower()
        if lowered.endswith(ASCIIDOC_SUFFIXES) and not self.asciidoc:
            return False
        return not lowered.endswith(".qmd") and not excluded(rel, settings.exclude)

    def renders(self, text: str, settings: Settings) -> bool:
        """Whether a file the path rules keep is rendered, judged by its text (Jekyll
        renders only files with frontmatter)."""
        return True

    def note(self, settings: Settings) -> str:
        """What the build output adds to the generator's name about these settings (the
        page suffixes a Sphinx ``conf.py`` sets), or ""."""
        return ""

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        """The page's address relative to the site root the sources file's ``base_url``
        names: the extension dropped and a folder's ``index`` serving the folder. An
        ``.rst`` file outside a Sphinx tree keeps its name: only Sphinx renders it."""
        if rel.lower().endswith(".rst"):
            return rel
        path = strip_suffix(rel)
        if path == "index" or path.endswith("/index"):
            return path[: -len("index")]
        return path

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        return None

    def anchor_style(self, settings: Settings) -> str:
        """The slug style of this site's headings, when its config can change it (Hugo's
        ``autoHeadingIDType``, Jekyll's kramdown ``input:``): by default ``anchors``."""
        return self.anchors

    def unpublished(self, meta: Mapping) -> str | None:
        """Why a page whose frontmatter is ``meta`` is not published (Hugo's ``draft``), or
        None; read only when ``reads_frontmatter``."""
        return None

    def shown(self, text: str, settings: Settings) -> str:
        """A Markdown page's text (includes resolved) as the generator renders it, before it
        is read: mdBook hides the ``# `` lines of Rust code, Quarto's divs and cells and
        Jekyll's Liquid tags are read as the page shows them; ``text`` itself when nothing
        changes."""
        return text

    def ref_path(self, rel: str, settings: Settings) -> str:
        """The file path a page's ref is made from: ``rel``, unless the generator's content
        sits in a folder of its own under the docs folder (mdBook's ``src/``), whose path
        it is then, so a book reads the same refs whichever folder the sources file names."""
        return rel

    def nav_key(self, rel: str, meta: Mapping, url_path: str) -> str:
        """How the navigation names the page at ``rel``: by default its ref path."""
        from .markdown import page_path_from_url

        return page_path_from_url(rel)

    def asciidoc_attributes(self, rel: str, settings: Settings) -> Mapping[str, str | None]:
        """The attributes an AsciiDoc page starts with (Antora's ``asciidoc.attributes``;
        None unsets one): by default none but Asciidoctor's own."""
        return {}

    def include_path(self, target: str, rel: str, settings: Settings, root: Path) -> Path | None:
        """The file an AsciiDoc ``include::target[]`` in the file at ``rel`` reads: by
        default relative to the including file (or the docs folder for ``/``), only inside
        the docs folder ``root``; None when it is outside or not a path."""
        if "://" in target or not target:
            return None
        top = root.resolve()
        base = top if target.startswith("/") else (top / rel).parent
        path = (base / target.lstrip("/")).resolve()
        return path if path.is_relative_to(top) else None

    def sniff(self, rel: str, text: str) -> int:
        """Signs in one page's text that this generator wrote it (content detection when
        no config file is found): a count, 0 for none."""
        return 0


ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc")
SUFFIXES = (".md", ".mdx", ".markdown", ".qmd", ".rst", ".ipynb", *ASCIIDOC_SUFFIXES)


def section_navigation(sections: Mapping[str, str]) -> Navigation | None:
    """Navigation from a tree of sections ({folder: its label}, Hugo's and Zola's
    ``_index.md`` titles): a folder's pages are labelled by it and every section above it,
    and a section's own page by the sections above it; None when there are none."""
    if not sections:
        return None
    folders: dict[str, tuple[str, ...]] = {}
    groups: dict[str, tuple[str, ...]] = {}
    for folder in sorted(sections, key=lambda f: f.count("/")):
        parent = folder.rsplit("/", 1)[0] if "/" in folder else ""
        while parent and parent not in sections:
            parent = parent.rsplit("/", 1)[0] if "/" in parent else ""
        above = folders.get(parent, ())
        folders[folder] = (*above, sections[folder])
        groups[folder] = above
    return Navigation("_index.md", groups, folders=folders)


def read_config(config: Path | None, warn: Warn, generator: str) -> str:
    """A generator's config file as text ("" when there is none or it cannot be read, which
    ``warn`` reports: the generator's defaults are assumed)."""
    if config is None:
        return ""
    try:
        return config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        warn(f"{config.name}: cannot be read ({type(exc).__name__}); {generator} defaults assumed")
        return ""


def inside_folder(rel: str, folder: str) -> str | None:
    """``rel`` relative to ``folder`` (both relative to the docs folder; "" is the docs folder
    itself), or None for a file outside it (a site's ``content/``)."""
    if not folder:
        return rel
    return rel[len(folder) + 1 :] if rel.startswith(folder + "/") else None


def strip_suffix(rel: str) -> str:
    lowered = rel.lower()
    for suffix in SUFFIXES:
        if lowered.endswith(suffix):
            return rel[: -len(suffix)]
    return rel


def excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    """``rel`` matches one of the glob ``patterns`` (``**/`` also matching no folder)."""
    path = PurePosixPath(rel)
    for pattern in patterns:
        pattern = pattern.lstrip("/")
        if fnmatch.fnmatchcase(rel, pattern) or path.match(pattern):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatchcase(rel, pattern[3:]):
            return True
    return False


def html_address(path: str, settings: Settings, *, clean_default: bool) -> str:
    """A page path (``guide/install`` or ``guide/`` for a folder) as the site links it:
    with ``.html`` unless URLs are clean, with a trailing slash if the site adds one."""
    clean = clean_default if settings.clean_urls is None else settings.clean_urls
    if path == "" or path.endswith("/"):
        return path
    if not clean:
        return path + ".html"
    return path + "/" if settings.trailing_slash else path
