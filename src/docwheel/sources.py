"""Turn one configured source into pages: read or fetch its bytes, then parse them.

One loader per source kind, registered in ``LOADERS``. Every failure becomes a
``SourceError`` that names the source, where it was read from, and why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urljoin

from .config import SourceConfig
from .errors import FetchError, SourceError
from .llms import parse_llms_txt, split_llms_full
from .markdown import page_path_from_url, parse_markdown, title_from_path
from .models import Page

MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")
# Folders a docs tree carries that hold no pages.
SKIP_DIRS = {"node_modules", "snippets", "_snippets"}
FETCH_WORKERS = 8


@dataclass(frozen=True)
class Raw:
    """The bytes of one file or URL, as read, with where they came from."""

    location: str
    text: str
    sha256: str
    size: int
    fetched_at: str | None = None


@dataclass
class Loaded:
    """What a source produced: its pages, what was read, and any parse warnings."""

    pages: list[Page]
    raws: list[Raw]
    warnings: list[str] = field(default_factory=list)

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


def load_source(source: SourceConfig, fetch: Callable[[str], object]) -> Loaded:
    """Load and parse ``source``; ``fetch`` is ``fetch.fetch_text`` (injected for offline runs)."""
    loader = LOADERS[source.kind]
    try:
        loaded = loader(source, fetch)
    except FetchError as exc:
        raise SourceError(source.name, exc.url, exc.reason) from None
    except OSError as exc:
        raise SourceError(source.name, source.location, f"cannot read: {exc.strerror or exc}") from None
    if not loaded.pages:
        raise SourceError(source.name, source.location, "no pages found")
    return loaded


def _read_file(path: Path, shown: str) -> Raw:
    data = path.read_bytes()
    if not data.strip():
        raise SourceError("", shown, "empty file")
    text = data.decode("utf-8", errors="replace")
    return Raw(shown, text, hashlib.sha256(data).hexdigest(), len(data))


def _fetch(fetch: Callable[[str], object], url: str) -> Raw:
    got = fetch(url)
    return Raw(got.url, got.text, got.sha256, got.size, got.fetched_at)  # type: ignore[attr-defined]


def _one_document(source: SourceConfig, fetch: Callable[[str], object]) -> Raw:
    if source.url:
        return _fetch(fetch, source.url)
    assert source.path is not None
    return _read_file(source.path, str(source.path))


def _warner(source: SourceConfig, where: str, sink: list[str]) -> Callable[[str], None]:
    return lambda message: sink.append(f"{source.name}: {where}: {message}")


def load_llms_full(source: SourceConfig, fetch: Callable[[str], object]) -> Loaded:
    raw = _reraise_named(source, lambda: _one_document(source, fetch))
    warnings: list[str] = []
    base = source.base_url or source.url
    pages = split_llms_full(
        raw.text,
        base_url=base,
        max_level=source.max_level,
        warn=_warner(source, raw.location, warnings),
    )
    return Loaded(pages, [raw], warnings)


def load_llms_txt(source: SourceConfig, fetch: Callable[[str], object]) -> Loaded:
    index = _reraise_named(source, lambda: _one_document(source, fetch))
    base = source.base_url or source.url
    if not base:
        raise SourceError(source.name, index.location, "an llms-txt source read from a path needs base_url")
    links = parse_llms_txt(index.text, base_url=base)
    if not links:
        raise SourceError(source.name, index.location, "no links found in the llms.txt file")
    raws = _fetch_all(source, fetch, links)
    loaded = _parse_markdown_raws(source, raws, base_url=None)
    loaded.raws.insert(0, index)
    return loaded


def load_markdown(source: SourceConfig, fetch: Callable[[str], object]) -> Loaded:
    if source.urls or source.url:
        raws = _fetch_all(source, fetch, list(source.urls) or [source.url])  # type: ignore[list-item]
        return _parse_markdown_raws(source, raws, base_url=None)
    assert source.path is not None
    root = source.path
    if root.is_file():
        files = [(root, root.name)]
    elif root.is_dir():
        files = [(p, p.relative_to(root).as_posix()) for p in _markdown_files(root)]
    else:
        raise SourceError(source.name, str(root), "path does not exist")
    raws = [_reraise_named(source, lambda p=p, rel=rel: _read_file(p, rel)) for p, rel in files]
    return _parse_markdown_raws(source, raws, base_url=source.base_url)


def _markdown_files(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        if path.is_file() and path.suffix.lower() in MARKDOWN_SUFFIXES and not rel[-1].startswith("."):
            found.append(path)
    return found


def _fetch_all(source: SourceConfig, fetch: Callable[[str], object], urls: list[str]) -> list[Raw]:
    with ThreadPoolExecutor(max_workers=FETCH_WORKERS) as pool:
        return list(pool.map(lambda url: _fetch(fetch, url), urls))


def _parse_markdown_raws(source: SourceConfig, raws: list[Raw], *, base_url: str | None) -> Loaded:
    warnings: list[str] = []
    pages = []
    for raw in raws:
        url = urljoin(base_url, _strip_suffix(raw.location)) if base_url else raw.location
        path = page_path_from_url(raw.location)
        page = parse_markdown(
            raw.text,
            url=url,
            path=path,
            fallback_title=title_from_path(path),
            max_level=source.max_level,
            warn=_warner(source, raw.location, warnings),
        )
        pages.append(page)
    return Loaded(pages, list(raws), warnings)


def _strip_suffix(rel: str) -> str:
    for suffix in MARKDOWN_SUFFIXES:
        if rel.lower().endswith(suffix):
            rel = rel[: -len(suffix)]
            break
    if rel == "index" or rel.endswith("/index"):
        rel = rel[: -len("index")]
    return rel


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


LOADERS: dict[str, Callable[[SourceConfig, Callable[[str], object]], Loaded]] = {
    "llms-full": load_llms_full,
    "llms-txt": load_llms_txt,
    "markdown": load_markdown,
}
