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
import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urljoin

from .config import SourceConfig
from .errors import FetchError, SourceError
from .llms import LlmsFullStream, parse_llms_full, parse_llms_txt
from .markdown import (
    page_meta,
    page_path_from_url,
    parse_markdown,
    site_url,
    title_from_path,
    unlisted,
)
from .formats.rst_tree import RstTree, read_tree
from .formats.sphinx import is_sphinx_tree
from .formats.sphinx import page_url as sphinx_page_url
from .models import Page

MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")
RST_SUFFIXES = (".rst",)  # reStructuredText (Sphinx), parsed by formats/rst.py
# Folders a docs tree carries that hold no pages.
SKIP_DIRS = {"node_modules", "snippets", "_snippets"}
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
    syntax: str = "markdown"
    includes: tuple[tuple[str, str], ...] = ()
    titles: tuple[tuple[str, str], ...] = ()


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
    loaded = _parse_markdown_raws(source, [(raw, url_of(raw.location)) for raw in raws], parse=parse)
    loaded.raws.insert(0, dataclasses.replace(index, text=""))
    return loaded


def load_markdown(
    source: SourceConfig, fetch: Callable[[str], object], parse: PageParser = parse_page_jobs
) -> Loaded:
    """Pages by URL (``url``/``urls``, URLs as for llms-txt) or a file or folder (``path``).

    A folder's page URL is ``base_url`` joined with the file's path as the site serves it;
    a ``docs.json``/``mint.json`` at the folder's root gives pages their navigation group.
    """
    if source.urls or source.url:
        raws = _fetch_all(source, fetch, list(source.urls) or [source.url])  # type: ignore[list-item]
        url_of = site_url if source.base_url else str
        return _parse_markdown_raws(
            source, [(raw, url_of(raw.location)) for raw in raws], parse=parse
        )
    assert source.path is not None
    root = source.path
    if root.is_file():
        files = [(root, root.name)]
    elif root.is_dir():
        files = [(p, p.relative_to(root).as_posix()) for p in _markdown_files(root)]
    else:
        raise SourceError(source.name, str(root), "path does not exist")
    raws = [_reraise_named(source, lambda p=p, rel=rel: _read_file(p, rel)) for p, rel in files]
    base = source.base_url
    sphinx = root.is_dir() and is_sphinx_tree(root)
    rst, extra = None, []
    if root.is_dir() and any(_is_rst(raw.location) for raw in raws):
        rst, extra = _rst_tree(root, raws)
    located = [
        (raw, _page_url(raw.location, base, sphinx))
        for raw in raws
        if rst is None or raw.location not in rst.fragments  # included by other pages
    ]
    warnings: list[str] = []
    nav = read_navigation(root, _warner(source, str(root), warnings)) if root.is_dir() else None
    # A docs.json or mint.json (even one that cannot be read) says the folder is a Mintlify site.
    mintlify = root.is_dir() and any((root / name).is_file() for name in NAV_FILES)
    loaded = _parse_markdown_raws(
        source, located, nav, "mintlify" if mintlify else "github", parse, rst
    )
    loaded.warnings[:0] = warnings
    loaded.raws.extend(extra)
    return loaded


def _is_rst(location: str) -> bool:
    return location.lower().endswith(RST_SUFFIXES)


def _page_url(rel: str, base: str | None, sphinx: bool) -> str:
    """A folder file's page address: Sphinx's ``.html`` for an ``.rst`` page of a Sphinx
    tree, else ``base_url`` joined with the path as the site serves it."""
    if sphinx and _is_rst(rel):
        return sphinx_page_url(rel, base)
    return urljoin(base, site_url(rel)) if base else rel


def _rst_tree(root: Path, raws: list[Raw]) -> tuple[RstTree, list[Raw]]:
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

    tree = read_tree({rel: text for rel, text in texts.items() if _is_rst(rel)}, read)
    return tree, [dataclasses.replace(raw, text="") for raw in extra.values()]


def _markdown_files(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        if (
            path.is_file()
            and path.suffix.lower() in MARKDOWN_SUFFIXES + RST_SUFFIXES
            and not rel[-1].startswith(".")
        ):
            found.append(path)
    return found


def _fetch_all(source: SourceConfig, fetch: Callable[[str], object], urls: list[str]) -> list[Raw]:
    with ThreadPoolExecutor(max_workers=FETCH_WORKERS) as pool:
        return list(pool.map(lambda url: _fetch(fetch, url), urls))


def _parse_markdown_raws(
    source: SourceConfig,
    located: list[tuple[Raw, str]],
    nav: Navigation | None = None,
    anchors: str = "github",
    parse: PageParser = parse_page_jobs,
    rst: RstTree | None = None,
) -> Loaded:
    """Parse each (raw, page URL); pages whose frontmatter says noindex/hidden are skipped.
    Anchors follow ``anchors`` unless the source names a style itself; ``.rst`` files are
    reStructuredText, their includes and link titles from ``rst`` when the folder gave one."""
    warnings: list[str] = []
    pages = []
    skipped: list[str] = []
    jobs = []
    for raw, url in located:
        is_rst = _is_rst(raw.location)
        path = page_path_from_url(raw.location[: -len(".rst")] if is_rst else raw.location)
        nav_title = nav.place(path)[1] if nav else None
        extra: dict = {}
        if is_rst:
            extra["syntax"] = "rst"
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
                source.anchors or anchors,
                **extra,
            )
        )
    for (raw, _url), job, (page, messages) in zip(located, jobs, parse(jobs)):
        warn = _warner(source, raw.location, warnings)
        if raw.problem:
            warn(raw.problem)
        if page is None:
            skipped.append(raw.location)
            continue
        for message in messages:
            warn(message)
        group = nav.place(job.path)[0] if nav else ()
        pages.append(dataclasses.replace(page, group=group) if group else page)
    if skipped:
        shown = ", ".join(skipped[:5]) + (", …" if len(skipped) > 5 else "")
        warnings.append(
            f"{source.name}: skipped {len(skipped)} pages whose frontmatter sets "
            f"noindex or hidden: {shown}"
        )
    held = [dataclasses.replace(raw, text="") for raw, _ in located]  # the pages hold the text
    return Loaded(pages, held, warnings, navigation=nav and nav.file)


# -- navigation files --------------------------------------------------------------------

NAV_FILES = ("docs.json", "mint.json")  # Mintlify's current and legacy configuration
# Keys whose values hold navigation entries, and keys that label a level of it.
_NAV_CHILDREN = (
    "navigation",
    "tabs",
    "versions",
    "dropdowns",
    "anchors",
    "languages",
    "products",
    "menu",
    "groups",
    "pages",
)
_NAV_LABELS = ("tab", "version", "dropdown", "anchor", "language", "product", "item", "group")
_MAX_REF_DEPTH = 8


@dataclass(frozen=True)
class Navigation:
    """Where a Mintlify site's navigation puts each page: ``{page path: labels}``.

    Labels run from the outermost level down (tab, version, dropdown, groups), e.g.
    ``("Documentation", "Version 2025-11-25", "Get started")``. ``roots`` maps a group's
    ``root`` page to the group's name, the only page title a navigation file gives.
    """

    file: str
    groups: dict[str, tuple[str, ...]]
    roots: dict[str, str]

    def place(self, path: str) -> tuple[tuple[str, ...], str | None]:
        return self.groups.get(path, ()), self.roots.get(path)


def read_navigation(root: Path, warn: Callable[[str], None]) -> Navigation | None:
    """Read ``docs.json`` (or the legacy ``mint.json``) at ``root``, following ``$ref``s.

    A broken file is a warning: the pages are still indexed, only without groups.
    """
    for name in NAV_FILES:
        file = root / name
        if not file.is_file():
            continue
        try:
            data = _resolve_refs(_load_json(file), file.parent, 0)
        except (OSError, ValueError, RecursionError) as exc:
            warn(f"{name}: navigation ignored: {exc}")
            return None
        nav = data.get("navigation") if isinstance(data, dict) else None
        groups: dict[str, tuple[str, ...]] = {}
        roots: dict[str, str] = {}
        for path, labels, is_root in _nav_pages(nav, ()):
            groups.setdefault(path, labels)
            if is_root and labels:
                roots.setdefault(path, labels[-1])
        return Navigation(name, groups, roots)
    return None


def _load_json(file: Path) -> object:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{file.name} is not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file.name}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _resolve_refs(node: object, here: Path, depth: int) -> object:
    """Replace ``{"$ref": "./other.json"}`` by that file's content (paths relative to here)."""
    if isinstance(node, list):
        return [_resolve_refs(item, here, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if depth >= _MAX_REF_DEPTH:
            raise ValueError(f"$ref {ref!r} nested more than {_MAX_REF_DEPTH} deep")
        target = (here / ref).resolve()
        content = _resolve_refs(_load_json(target), target.parent, depth + 1)
        rest = {k: _resolve_refs(v, here, depth) for k, v in node.items() if k != "$ref"}
        return {**content, **rest} if isinstance(content, dict) else content
    return {k: _resolve_refs(v, here, depth) for k, v in node.items()}


def _nav_pages(
    node: object, labels: tuple[str, ...]
) -> Iterator[tuple[str, tuple[str, ...], bool]]:
    """(page path, labels, is the group's root page) for every page entry under ``node``."""
    if isinstance(node, str):
        if node.strip() and " " not in node.strip() and "://" not in node:
            yield page_path_from_url(node), labels, False
    elif isinstance(node, list):
        for item in node:
            yield from _nav_pages(item, labels)
    elif isinstance(node, dict):
        label = next((node[k] for k in _NAV_LABELS if isinstance(node.get(k), str)), None)
        inner = (*labels, label.strip()) if label and label.strip() else labels
        if isinstance(node.get("root"), str):
            yield page_path_from_url(node["root"]), inner, True
        for key in _NAV_CHILDREN:
            if key in node:
                yield from _nav_pages(node[key], inner)


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
