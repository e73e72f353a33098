"""Turn one configured source into pages: read or fetch its bytes, then parse them.

One loader per source kind, registered in ``LOADERS``. Every failure becomes a
``SourceError`` that names the source, where it was read from, and why; every warning names
the source and the file or page it concerns.
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urljoin

from .config import SourceConfig
from .errors import FetchError, SourceError
from .formats.includes import resolve_includes
from .formats.llms import LlmsFullStream, parse_llms_full, parse_llms_txt
from .formats.generators import GENERATORS, configured, detect, find_config
from .formats.markdown import (
    page_meta,
    page_path_from_url,
    parse_markdown,
    site_url,
    title_from_path,
    unlisted,
)
from .formats.notebook import NotANotebook, is_myst_notebook, read_myst_notebook, read_notebook
from .formats.rst_tree import RstTree, read_tree
from .formats.site import ASCIIDOC_SUFFIXES, Generator, Navigation, Settings
from .models import Page
from .sniff import HEAD_BYTES, not_text

MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown", ".qmd")  # .qmd: Quarto only (site.Generator.is_page)
RST_SUFFIXES = (".rst",)  # reStructuredText (Sphinx), parsed by formats/rst.py
# AsciiDoc (site.ASCIIDOC_SUFFIXES: Asciidoctor, Antora) is read as Markdown by
# formats/asciidoc.py, where the folder's generator renders it (site.Generator.asciidoc).
# Jupyter notebooks: pages only where the folder's generator renders them (Settings
# ``page_suffixes``), or a file a source names itself (formats/notebook.py).
NOTEBOOK_SUFFIXES = (".ipynb",)
# Folders a docs tree carries that hold no pages.
SKIP_DIRS = {"node_modules", "snippets", "_snippets"}
_DEFAULT = Settings()  # no generator's settings: the default listing and rst rule
FETCH_WORKERS = 8
# A local llms-full.txt larger than this is parsed as a stream while it is indexed (held
# whole, a file takes several times its size: text, lines, pages).
STREAM_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Raw:
    """The bytes of one file or URL, as read, with where they came from."""

    location: str
    text: str
    sha256: str
    size: int
    fetched_at: str | None = None
    problem: str | None = None  # e.g. invalid UTF-8, decoded with replacement characters
    # A fetched body too large to hold, in a file (``fetch.SPOOL_BYTES``); ``text`` is "".
    spooled: Path | None = None


@dataclass
class Loaded:
    """What a source produced: its pages, what was read, and any parse warnings.

    ``layout`` names how the text was cut into pages: an llms-full layout
    (``llms.LAYOUT_NAMES``) or ``markdown``; ``navigation`` the docs.json/mint.json that
    gave pages their navigation group, if any.
    """

    pages: list[Page]
    raws: list[Raw]
    warnings: list[str] = field(default_factory=list)
    layout: str = "markdown"
    navigation: str | None = None
    # A file too large to hold is read while indexing: ``pages`` is then empty, and the
    # build counts the stream's pages and sets ``layout`` once it has read them.
    stream: LlmsFullStream | None = None
    page_count: int = 0
    section_count: int = 0
    # The docs generator a folder was read as, and what said so (``formats.generators``).
    generator: str | None = None
    generator_reason: str = ""

    def __post_init__(self) -> None:
        if self.stream is None:
            self.page_count = len(self.pages)
            self.section_count = sum(len(p.sections) for p in self.pages)

    @property
    def sha256(self) -> str:
        """One hash for everything read: of the single file, or of the list of file hashes."""
        if len(self.raws) == 1:
            return self.raws[0].sha256
        listing = "".join(f"{r.sha256}  {r.location}\n" for r in self.raws)
        return hashlib.sha256(listing.encode("utf-8")).hexdigest()

    @property
    def size(self) -> int:
        return sum(r.size for r in self.raws)


@dataclass(frozen=True)
class PageJob:
    """One Markdown or reStructuredText file to parse: the parser's arguments, all plain
    values, so that a helper process can parse it as well as the build process.

    For ``syntax="rst"``, ``includes`` holds the texts its include directives read and
    ``titles`` what its ``:doc:``/``:ref:`` links show (``formats.sphinx``)."""

    text: str
    url: str
    path: str
    fallback_title: str
    max_level: int
    anchors: str
    title_from: str = "frontmatter"  # or "heading": see markdown.parse_markdown
    syntax: str = "markdown"
    includes: tuple[tuple[str, str], ...] = ()
    titles: tuple[tuple[str, str], ...] = ()
    default_role: str = ""  # Sphinx's default_role, for rst


# A parsed file: its page (None when its frontmatter says noindex or hidden) and the
# parser's warnings, in the order it gave them.
Parsed = tuple["Page | None", list[str]]
PageParser = Callable[[Sequence[PageJob]], list[Parsed]]


def parse_page_jobs(jobs: Sequence[PageJob]) -> list[Parsed]:
    """Parse each job in turn (the default ``PageParser``; the build may share the jobs
    with a helper process, which runs this same function on its part)."""
    done: list[Parsed] = []
    for job in jobs:
        messages: list[str] = []
        if job.syntax == "rst":
            done.append((_parse_rst_job(job, messages.append), messages))
            continue
        if unlisted(page_meta(job.text)):
            done.append((None, messages))
            continue
        page = parse_markdown(
            job.text,
            url=job.url,
            path=job.path,
            fallback_title=job.fallback_title,
            max_level=job.max_level,
            warn=messages.append,
            anchors=job.anchors,
            title_from=job.title_from,
        )
        done.append((page, messages))
    return done


def _parse_rst_job(job: PageJob, warn: Callable[[str], None]) -> Page:
    from .formats.rst import parse_rst  # docutils: imported only by builds that read rst

    return parse_rst(
        job.text,
        url=job.url,
        path=job.path,
        fallback_title=job.fallback_title,
        max_level=job.max_level,
        warn=warn,
        include=dict(job.includes).get,
        titles=dict(job.titles),
        default_role=job.default_role,
    )


def load_source(
    source: SourceConfig, fetch: Callable[[str], object], parse: PageParser | None = None
) -> Loaded:
    """Load and parse ``source``; ``fetch`` is ``fetch.fetch_text`` (injected for offline runs),
    ``parse`` parses Markdown files (``parse_page_jobs`` unless the build shares the work)."""
    loader = LOADERS[source.kind]
    try:
        loaded = loader(source, fetch, parse or parse_page_jobs)
    except FetchError as exc:
        raise SourceError(source.name, exc.url, exc.reason) from None
    except OSError as exc:
        raise SourceError(
            source.name, source.location, f"cannot read: {exc.strerror or exc}"
        ) from None
    if not loaded.pages and loaded.stream is None:
        raise SourceError(source.name, source.location, "no pages found")
    return loaded


def _digest_file(path: Path, shown: str) -> Raw:
    """A file's hash, size and UTF-8 check from one pass in blocks; no text is kept."""
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    size, bad, blank = 0, -1, True
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            if not size:
                _refuse_non_text(block[:HEAD_BYTES], shown)
            digest.update(block)
            blank = blank and not block.strip()
            if bad < 0:
                pending = len(decoder.getstate()[0])
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as exc:
                    bad = size - pending + exc.start
            size += len(block)
    if bad < 0:
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            bad = size - pending + exc.start
    if blank:
        raise SourceError("", shown, "empty file")
    problem = (
        f"not valid UTF-8 (first bad byte at offset {bad}); "
        "undecodable bytes were replaced with U+FFFD"
        if bad >= 0
        else None
    )
    return Raw(shown, "", digest.hexdigest(), size, problem=problem)


def file_lines(path: Path) -> Iterator[str]:
    """A text file's lines as ``normalize_text(text).split("\n")`` gives them, read lazily
    (universal newlines turn CRLF and CR into LF; a BOM is dropped)."""
    with open(path, encoding="utf-8", errors="replace", newline=None) as f:
        ended = True
        for n, line in enumerate(f):
            if n == 0:
                line = line.removeprefix("\ufeff")
            ended = line.endswith("\n")
            yield line[:-1] if ended else line
        if ended:
            yield ""


def _read_file(path: Path, shown: str) -> Raw:
    data = path.read_bytes()
    if not data.strip():
        raise SourceError("", shown, "empty file")
    _refuse_non_text(data, shown)
    digest = hashlib.sha256(data).hexdigest()
    try:
        return Raw(shown, data.decode("utf-8"), digest, len(data))
    except UnicodeDecodeError as exc:
        problem = (
            f"not valid UTF-8 (first bad byte at offset {exc.start}); "
            "undecodable bytes were replaced with U+FFFD"
        )
        return Raw(
            shown, data.decode("utf-8", errors="replace"), digest, len(data), problem=problem
        )


def _refuse_non_text(head: bytes, shown: str) -> None:
    """A local file is refused as the same body fetched over HTTP is (``sniff.not_text``)."""
    refused = not_text(head)
    if refused:
        raise SourceError("", shown, f"not text: {refused}")


def _fetch(fetch: Callable[[str], object], url: str, *, spool: bool = False) -> Raw:
    """One URL's text; with ``spool`` a body the fetch wrote to a file stays there (a
    streamed llms-full reads it), otherwise it is read back as text."""
    got = fetch(url)
    spooled = getattr(got, "path", None)
    if spooled is not None and spool:
        return Raw(got.url, "", got.sha256, got.size, got.fetched_at, spooled=spooled)  # type: ignore[attr-defined]
    text = got.text if spooled is None else spooled.read_text(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]
    # fetch decodes with replacement; the bytes are gone, so count what it replaced.
    bad = text.count("\ufffd")
    problem = (
        f"{bad} characters could not be decoded and were replaced with U+FFFD" if bad else None
    )
    return Raw(got.url, text, got.sha256, got.size, got.fetched_at, problem)  # type: ignore[attr-defined]


def _one_document(source: SourceConfig, fetch: Callable[[str], object]) -> Raw:
    if source.url:
        return _fetch(fetch, source.url, spool=True)
    assert source.path is not None
    return _read_file(source.path, str(source.path))


def _warner(source: SourceConfig, where: str, sink: list[str]) -> Callable[[str], None]:
    return lambda message: sink.append(f"{source.name}: {where}: {message}")


def load_llms_full(
    source: SourceConfig, fetch: Callable[[str], object], parse: PageParser = parse_page_jobs
) -> Loaded:
    """One file; its layout is detected unless the sources file sets ``format:``.

    Page URLs are resolved against ``base_url`` (or the file's own URL); with ``base_url``
    they are also made the addresses the site serves (``markdown.site_url``).
    """
    if source.path is not None and not source.url and _large(source.path):
        return _stream_llms_full(source)
    raw = _reraise_named(source, lambda: _one_document(source, fetch))
    if raw.spooled is not None:
        return _stream_llms_full(source, raw)
    warnings: list[str] = []
    warn = _warner(source, raw.location, warnings)
    if raw.problem:
        warn(raw.problem)
    result = parse_llms_full(raw.text, **_llms_full_options(source, warn))
    if not result.pages and source.format and raw.text.strip():
        raise SourceError(
            source.name,
            source.location,
            f"format {source.format!r} found no pages; remove format: to detect the layout",
        )
    # The pages hold what is needed of the text; the whole text need not stay in memory.
    return Loaded(list(result.pages), [dataclasses.replace(raw, text="")], warnings, layout=result.layout)


def _large(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > STREAM_BYTES
    except OSError:
        return False


def _stream_llms_full(source: SourceConfig, fetched: Raw | None = None) -> Loaded:
    """An llms-full.txt too large to hold, a local file or a fetched body the fetch wrote
    to a file: hashed now, parsed while it is indexed."""
    if fetched is not None and fetched.spooled is not None:
        raw, path = fetched, fetched.spooled
    else:
        assert source.path is not None
        path = source.path
        raw = _reraise_named(source, lambda: _digest_file(path, str(path)))
    warnings: list[str] = []
    warn = _warner(source, raw.location, warnings)
    if raw.problem:
        warn(raw.problem)
    stream = LlmsFullStream(file_lines(path), **_llms_full_options(source, warn))
    return Loaded([], [raw], warnings, layout=source.format or "", stream=stream)


def _llms_full_options(source: SourceConfig, warn: Callable[[str], None]) -> dict:
    """How the sources file asks for an llms-full file to be read, whole or streamed alike."""
    return {
        "base_url": source.base_url or source.url,
        "max_level": source.max_level,
        "warn": warn,
        "layout": source.format,
        "clean_urls": source.base_url is not None,
        "anchors": source.anchors,
    }


def load_llms_txt(
    source: SourceConfig, fetch: Callable[[str], object], parse: PageParser = parse_page_jobs
) -> Loaded:
    """Every page the llms.txt links to, fetched and parsed as Markdown.

    With ``base_url`` a page's URL is the address the site serves (``markdown.site_url``:
    ``…/install.md`` -> ``…/install``); without it, the URL it was fetched from.
    """
    index = _reraise_named(source, lambda: _one_document(source, fetch))
    base = source.base_url or source.url
    if not base:
        raise SourceError(
            source.name, index.location, "an llms-txt source read from a path needs base_url"
        )
    links = parse_llms_txt(index.text, base_url=base)
    if not links:
        raise SourceError(source.name, index.location, "no links found in the llms.txt file")
    raws = _fetch_all(source, fetch, links)
    url_of = site_url if source.base_url else str
    located = [_Located(raw, url_of(raw.location), page_path_from_url(raw.location)) for raw in raws]
    loaded = _parse_markdown_raws(source, located, parse=parse)
    loaded.raws.insert(0, dataclasses.replace(index, text=""))
    return loaded


def load_markdown(
    source: SourceConfig, fetch: Callable[[str], object], parse: PageParser = parse_page_jobs
) -> Loaded:
    """Pages by URL (``url``/``urls``, URLs as for llms-txt) or a file or folder (``path``).

    A folder is read the way its docs generator publishes it (``formats.generators``:
    named by ``generator:`` or detected): which files are pages, the address each is served
    at (``base_url`` joined with it), heading anchors, and navigation groups.
    """
    if source.urls or source.url:
        raws = _fetch_all(source, fetch, list(source.urls) or [source.url])  # type: ignore[list-item]
        url_of = site_url if source.base_url else str
        anchors = GENERATORS[source.generator].anchors if source.generator else "github"
        located = [_Located(raw, url_of(raw.location), page_path_from_url(raw.location)) for raw in raws]
        fetched_warnings: list[str] = []
        if any(_is_asciidoc(raw.location) for raw in raws):  # includes are not fetched
            adoc, _ = _asciidoc_pages(source, None, raws, GENERATORS["plain"], _DEFAULT, fetched_warnings)
            located = [item._replace(raw=raw) for item, raw in zip(located, adoc)]
        loaded = _parse_markdown_raws(source, located, anchors=anchors, parse=parse)
        loaded.warnings[:0] = fetched_warnings
        return loaded
    assert source.path is not None
    root = source.path
    unnamed: list[str] = []  # files skipped for a name that is not UTF-8
    if root.is_file():
        folder, files = root.parent, [(root, root.name)]
    elif root.is_dir():
        folder = root
        files = [(p, p.relative_to(root).as_posix()) for p in _markdown_files(root)]
        files = [(p, rel) for p, rel in files if _utf8_name(source, rel, unnamed)]
    else:
        raise SourceError(source.name, str(root), "path does not exist")
    read = functools.lru_cache(maxsize=None)(
        lambda p, rel: _reraise_named(source, lambda: _read_file(p, rel))
    )
    if source.generator:
        detected = configured(source.generator, folder)
    else:
        detected = find_config(folder) or detect(folder, ((rel, read(p, rel).text) for p, rel in files))
    generator = detected.generator
    warnings: list[str] = []
    warn = _warner(source, str(root), warnings)
    settings = generator.settings(detected.config, folder, warn)
    nav = generator.navigation(detected.config, folder, warn) if root.is_dir() else None
    base = source.base_url
    if root.is_dir() and _lists_more(settings):  # e.g. Sphinx's source_suffix = '.txt'
        listed = [(p, p.relative_to(root).as_posix()) for p in _markdown_files(root, settings)]
        unnamed.clear()  # the new listing warns again about every name it skips
        files = [(p, rel) for p, rel in listed if _utf8_name(source, rel, unnamed)]
    raws = [read(p, rel) for p, rel in files if generator.is_page(rel, settings)]
    raws = [raw for raw in raws if _is_rst(raw.location, settings) or generator.renders(raw.text, settings)]
    read.cache_clear()
    is_rst = functools.partial(_is_rst, settings=settings)
    rst, fragments = None, []
    if root.is_dir() and any(is_rst(raw.location) for raw in raws):
        rst, fragments = _rst_tree(root, raws, is_rst)  # included by other pages: not pages
        raws = [raw for raw in raws if raw.location not in rst.fragments]
    markdown = [raw for raw in raws if not is_rst(raw.location) and not _is_asciidoc(raw.location)]
    if root.is_dir() and markdown:
        resolved, included = _resolve_includes(root, markdown, generator.mdbook_links)
        fragments += included
        kept = {raw.location: raw for raw in resolved}  # in file order, fragments left out
        raws = [
            kept.get(raw.location, raw) for raw in raws
            if is_rst(raw.location) or _is_asciidoc(raw.location) or raw.location in kept
        ]
    if any(_is_asciidoc(raw.location) for raw in raws):
        raws, included = _asciidoc_pages(source, folder, raws, generator, settings, warnings)
        fragments += included
    located = []
    unpublished: list[tuple[Raw, str]] = []  # a draft: read and hashed, not a page
    for raw in raws:
        rel = raw.location
        if not is_rst(rel) and (shown := generator.shown(raw.text, settings)) is not raw.text:
            raw = dataclasses.replace(raw, text=shown)
        meta = page_meta(raw.text) if generator.reads_frontmatter else {}
        if why := generator.unpublished(meta):
            unpublished.append((raw, why))
            continue
        address = generator.url_path(rel, meta, settings)
        url = urljoin(base, address) if base else raw.location
        ref = generator.ref_path(rel, settings)
        located.append(_Located(raw, url, generator.nav_key(rel, meta, address), ref))
    loaded = _parse_markdown_raws(
        source, located, nav, generator.anchor_style(settings), parse, generator.title_from,
        rst, settings.default_role, settings,
    )
    if unpublished:
        shown = ", ".join(f"{raw.location} ({why})" for raw, why in unpublished[:5])
        warnings.append(
            f"{source.name}: skipped {len(unpublished)} pages {generator.name} does not "
            f"publish: {shown}{', …' if len(unpublished) > 5 else ''}"
        )
        fragments += [dataclasses.replace(raw, text="") for raw, _ in unpublished]
    loaded.warnings[:0] = unnamed + warnings
    loaded.generator = generator.name
    note = generator.note(settings)
    loaded.generator_reason = f"{detected.reason}; {note}" if note else detected.reason
    loaded.raws += fragments
    return loaded


def _resolve_includes(root: Path, raws: list[Raw], mdbook: bool = False) -> tuple[list[Raw], list[Raw]]:
    """Each file's include lines replaced by their targets' text (``formats.includes``),
    read only from inside ``root``; returns (pages, fragments): a file another file
    includes is part of that page, not a page of its own (it is still read and hashed)."""
    top = root.resolve()

    def read(target: str, where: str) -> tuple[str, str] | None:
        bases = [top] if target.startswith("/") else [(top / where).parent, top, top.parent]
        for base in bases:  # the including file's folder, the source folder, its project
            path = (base / target.lstrip("/")).resolve()
            if path.is_relative_to(top) and path.is_file():
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    return None
                return text, path.relative_to(top).as_posix()
        return None

    resolved, included = [], set()
    for raw in raws:
        text, found = resolve_includes(raw.text, raw.location, read, mdbook=mdbook)
        included |= found
        resolved.append(dataclasses.replace(raw, text=text) if text != raw.text else raw)
    pages = [raw for raw in resolved if raw.location not in included]
    return pages, [dataclasses.replace(r, text="") for r in resolved if r.location in included]


def _is_asciidoc(location: str) -> bool:
    return location.lower().endswith(ASCIIDOC_SUFFIXES)


def _asciidoc_pages(
    source: SourceConfig,
    root: Path | None,
    raws: list[Raw],
    generator: Generator,
    settings: Settings,
    warnings: list[str],
) -> tuple[list[Raw], list[Raw]]:
    """Each AsciiDoc page's text replaced by the Markdown of the page it renders
    (``formats.asciidoc``), its ``include::`` targets found by the generator
    (``Generator.include_path``: Antora's ``partial$`` ids) and read; returns (pages,
    fragments): as for Markdown, a file another page includes is not a page of its own, and
    every file read is hashed."""
    from .formats.asciidoc import to_markdown

    top = root.resolve() if root is not None else None
    texts = {raw.location: raw.text for raw in raws}
    extra: dict[str, Raw] = {}

    def read(target: str, where: str) -> tuple[str, str] | None:
        if root is None or top is None:  # pages fetched by URL: nothing else is fetched
            return None
        path = generator.include_path(target, where, settings, root)
        if path is None or not path.is_file():
            return None
        rel = Path(os.path.relpath(path, top)).as_posix()
        if rel in texts:
            return texts[rel], rel
        if rel not in extra:
            try:
                extra[rel] = _read_file(path, rel)
            except (OSError, SourceError):
                return None
        return extra[rel].text, rel

    converted, included = [], set()
    for raw in raws:
        if not _is_asciidoc(raw.location):
            converted.append(raw)
            continue
        done = to_markdown(raw.text, raw.location, read, generator.asciidoc_attributes(raw.location, settings))
        warn = _warner(source, raw.location, warnings)
        for message in done.warnings:
            warn(message)
        included |= done.included
        converted.append(dataclasses.replace(raw, text=done.markdown))
    pages = [raw for raw in converted if raw.location not in included]
    fragments = [dataclasses.replace(r, text="") for r in converted if r.location in included]
    fragments += [dataclasses.replace(r, text="") for r in extra.values()]
    return pages, fragments


def _is_rst(location: str, settings: Settings = _DEFAULT) -> bool:
    """Whether a file is parsed as reStructuredText: as the folder's suffix map says
    (``Settings.page_suffixes``: Sphinx's ``source_suffix``), else by ``.rst``."""
    syntax = settings.syntax(location)
    if syntax is not None:
        return syntax == "rst"
    return location.lower().endswith(RST_SUFFIXES)


def _rst_tree(
    root: Path, raws: list[Raw], is_rst: Callable[[str], bool] = _is_rst
) -> tuple[RstTree, list[Raw]]:
    """The includes, fragments and link titles of a folder's ``.rst`` pages, and the other
    files inside the folder that their include directives read (hashed with the rest)."""
    inside = root.resolve()
    texts = {raw.location: raw.text for raw in raws}
    extra: dict[str, Raw] = {}

    def read(rel: str) -> str | None:
        if rel in texts:
            return texts[rel]
        path = (inside / rel).resolve()
        if rel not in extra and path.is_relative_to(inside) and path.is_file():
            try:
                extra[rel] = _read_file(path, rel)
            except (OSError, SourceError):
                return None
        return extra[rel].text if rel in extra else None

    tree = read_tree({rel: text for rel, text in texts.items() if is_rst(rel)}, read)
    return tree, [dataclasses.replace(raw, text="") for raw in extra.values()]


def _lists_more(settings: Settings) -> bool:
    """Whether the folder's pages include files the default listing leaves out."""
    return any(
        not suffix.lower().endswith(MARKDOWN_SUFFIXES + RST_SUFFIXES)
        for suffix, _ in settings.page_suffixes
    )


def _markdown_files(root: Path, settings: Settings | None = None) -> list[Path]:
    """The files under ``root`` that may be pages: Markdown and reStructuredText by
    default, or those whose name ends with one of ``settings.page_suffixes`` (as Sphinx
    matches them, case and all); never in hidden folders or ``SKIP_DIRS``."""
    suffixes = tuple(s for s, _ in settings.page_suffixes) if settings else ()
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        if suffixes:
            listed = path.name.endswith(suffixes)
        else:
            listed = path.suffix.lower() in MARKDOWN_SUFFIXES + RST_SUFFIXES + ASCIIDOC_SUFFIXES
        if listed and path.is_file() and not rel[-1].startswith("."):
            found.append(path)
    return found


def _utf8_name(source: SourceConfig, rel: str, warnings: list[str]) -> bool:
    """Whether a file's path in its folder is UTF-8; if not, warn and skip it.

    A page's path becomes its ref, its URL and manifest text, all UTF-8: a name in another
    encoding (which Linux hands over as surrogate escapes) cannot be any of them. The
    warning shows the undecodable bytes as ``\\xe9``.
    """
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        # os.fsencode on Linux: the name's own bytes, shown as \xe9 where not UTF-8
        shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        warnings.append(
            f"{source.name}: {shown}: skipped: the file name is not valid UTF-8 (rename it)"
        )
        return False
    return True


def _fetch_all(source: SourceConfig, fetch: Callable[[str], object], urls: list[str]) -> list[Raw]:
    with ThreadPoolExecutor(max_workers=FETCH_WORKERS) as pool:
        return list(pool.map(lambda url: _fetch(fetch, url), urls))


class _Located(NamedTuple):
    """A file read or fetched, the address its page is served at, and how the site's
    navigation names it (``Generator.nav_key``)."""

    raw: Raw
    url: str
    nav_key: str
    ref: str = ""  # the file path the page's ref is made from, when not raw.location


def _parse_markdown_raws(
    source: SourceConfig,
    located: list[_Located],
    nav: Navigation | None = None,
    anchors: str = "github",
    parse: PageParser = parse_page_jobs,
    title_from: str = "frontmatter",
    rst: RstTree | None = None,
    default_role: str = "",
    settings: Settings = _DEFAULT,
) -> Loaded:
    """Parse each located file; pages whose frontmatter says noindex/hidden are skipped.
    Anchors follow ``anchors`` unless the source names a style itself; ``.rst`` files are
    reStructuredText, their includes and link titles from ``rst`` when the folder gave one;
    notebooks (``formats.notebook``) are read as the Markdown of their page, and one that
    cannot be read is skipped with a warning."""
    warnings: list[str] = []
    read = located  # every file read is hashed, a skipped notebook too
    located, notebooks = _notebooks_as_markdown(source, located, settings, warnings)
    # A site may give a notebook's headings ids of their own (nbsphinx, nbconvert).
    notebook_anchors = settings.notebook_rules.anchors or anchors
    pages = []
    skipped: list[str] = []
    jobs = []
    for raw, url, key, ref in located:
        is_rst = _is_rst(raw.location, settings)
        path = page_path_from_url(_docname(ref or raw.location, settings))
        nav_title = nav.place(key)[1] if nav else None
        extra: dict = {}
        if is_rst:
            extra["syntax"] = "rst"
            extra["default_role"] = default_role
            if rst is not None:
                extra["includes"] = rst.includes.get(raw.location, ())
                extra["titles"] = rst.titles.get(raw.location, ())
        jobs.append(
            PageJob(
                raw.text,
                url,
                path,
                nav_title or title_from_path(path),
                source.max_level,
                source.anchors or (notebook_anchors if raw.location in notebooks else anchors),
                title_from,
                **extra,
            )
        )
    for (raw, _url, key, _ref), (page, messages) in zip(located, parse(jobs)):
        warn = _warner(source, raw.location, warnings)
        if raw.problem:
            warn(raw.problem)
        if page is None:
            skipped.append(raw.location)
            continue
        for message in messages:
            warn(message)
        group = nav.place(key)[0] if nav else ()
        pages.append(dataclasses.replace(page, group=group) if group else page)
    if skipped:
        shown = ", ".join(skipped[:5]) + (", …" if len(skipped) > 5 else "")
        warnings.append(
            f"{source.name}: skipped {len(skipped)} pages whose frontmatter sets "
            f"noindex or hidden: {shown}"
        )
    held = [dataclasses.replace(item.raw, text="") for item in read]  # the pages hold the text
    return Loaded(pages, held, warnings, navigation=nav and nav.file)


def _notebooks_as_markdown(
    source: SourceConfig, located: list[_Located], settings: Settings, warnings: list[str]
) -> tuple[list[_Located], set[str]]:
    """Each notebook's JSON replaced by its page's Markdown, and the notebooks' locations;
    a notebook that is broken or no notebook at all is left out with a warning naming it:
    one bad file is no failed build."""
    kept, notebooks = [], set()
    for item in located:
        location = item.raw.location
        syntax = settings.syntax(location)
        if syntax is None and location.lower().endswith(NOTEBOOK_SUFFIXES):
            syntax = "notebook"  # a notebook named on its own (a path: or url: source)
        if syntax != "notebook":
            if location.lower().endswith(MARKDOWN_SUFFIXES) and is_myst_notebook(item.raw.text):
                text = read_myst_notebook(item.raw.text, settings.notebook_rules)
                item = item._replace(raw=dataclasses.replace(item.raw, text=text))
            kept.append(item)
            continue
        warn = _warner(source, location, warnings)
        try:
            notebook = read_notebook(item.raw.text, settings.notebook_rules)
        except NotANotebook as exc:
            warn(f"skipped: {exc}")
            continue
        if not notebook.text.strip():
            warn("skipped: the notebook shows no text (no cells, or all removed)")
            continue
        kept.append(item._replace(raw=dataclasses.replace(item.raw, text=notebook.text)))
        notebooks.add(location)
    return kept, notebooks


def _docname(location: str, settings: Settings) -> str:
    """A file's path without the page suffix its folder's map names (Sphinx's document
    name: ``topics/http/urls.txt`` -> ``topics/http/urls``), else as it is."""
    for suffix, _ in settings.page_suffixes:
        if location.endswith(suffix):
            return location[: -len(suffix)]
    return location


def _reraise_named(source: SourceConfig, read: Callable[[], Raw]) -> Raw:
    """Fill in the source name on errors raised below the level that knows it."""
    try:
        return read()
    except SourceError as exc:
        if exc.source:
            raise
        raise SourceError(source.name, exc.where, exc.reason) from None


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


LOADERS: dict[str, Callable[[SourceConfig, Callable[[str], object], PageParser], Loaded]] = {
    "llms-full": load_llms_full,
    "llms-txt": load_llms_txt,
    "markdown": load_markdown,
}


def capped(fetch: Callable[..., object], source: SourceConfig) -> Callable[[str], object]:
    """``fetch`` with the source's ``max_size`` as its size cap, when the source sets one.

    Every fetcher docwheel passes (the network's, a saved snapshot's) takes ``max_bytes``."""
    if source.max_bytes is None:
        return fetch
    return functools.partial(fetch, max_bytes=source.max_bytes)
