"""Release time: sources file -> fetched text -> pages -> a Whoosh index and a manifest.

``build_index`` writes into a scratch directory beside ``out_dir`` and renames it into place
only when every source loaded, so a failed build leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .anchors import to_stored
from .api import INDEX_FORMAT, MANIFEST_NAME, index_file_hashes, open_index
from .config import Config, SourceConfig, load_config
from .doctypes import DOC_TYPES, page_type
from .errors import ChecksFailedError, DocwheelError, SourceError
from .helper import HelperProcess
from .index import section_texts
from .index_write import IndexDoc, write_index
from .formats.markdown import split_code
from .models import Page
from .outdir import check_replaceable, replacing
from .secrets import judge_findings, scan_pages
from .snippets import fenced_spans
from .sources import Loaded, PageJob, Parsed, capped, load_source, parse_page_jobs

Progress = Callable[[str], None]
# Dimensions of the distilled query encoder: PCA from the model's own (384 for MiniLM).
SEMANTIC_DIMS = 256
# Source text from which a build shares its work with a helper process (_BuildHelper).
HELPER_MIN_BYTES = 1_000_000


def _quiet(_message: str) -> None:
    pass


def _fetch_text(url: str, **options: object) -> object:
    from .fetch import fetch_text  # the only network code: imported when a URL is fetched

    return fetch_text(url, **options)  # type: ignore[arg-type]


def build_from_file(
    config_path: str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    version: str | None = None,
    progress: Progress = _quiet,
) -> dict:
    config = load_config(config_path)
    return build_index(
        config, out_dir, version=version, progress=progress, fetch=_offline(config, progress)
    )


def _offline(config: Config, progress: Progress) -> Callable[[str], object] | None:
    """The snapshot reader when DOCWHEEL_OFFLINE or ``offline:`` names one, else None."""
    from .snapshot import SnapshotFetch, offline_dir

    found = offline_dir(config)
    if found is None:
        return None
    reader = SnapshotFetch(*found)
    progress(f"offline: remote sources come from {reader.directory} (fetched {reader.fetched_at})")
    return reader


def build_index(
    config: Config,
    out_dir: str | os.PathLike,
    *,
    version: str | None = None,
    progress: Progress = _quiet,
    fetch: Callable[[str], object] | None = None,
) -> dict:
    """Build the index for ``config`` into ``out_dir`` (replaced if it exists); return the manifest."""
    out = Path(out_dir)
    check_out_dir(out)
    with _BuildHelper(_second_core()) as helper:
        return _build(config, out, version, progress, fetch or _fetch_text, helper)


def _build(
    config: Config,
    out: Path,
    version: str | None,
    progress: Progress,
    fetch: Callable[[str], object],
    helper: _BuildHelper,
) -> dict:
    started = time.monotonic()
    loaded: list[tuple[SourceConfig, Loaded]] = []
    for source in config.sources:
        progress(f"{source.name}: reading {source.kind} from {source.location}")
        helper.expect(_local_bytes(source))
        result = load_source(source, capped(fetch, source), helper.parse)
        helper.read(result.size)
        if result.stream is not None:
            progress(f"{source.name}: {result.size:,} bytes, read as a stream while indexing")
        else:
            _report_loaded(source, result, progress)
        loaded.append((source, result))
    held = [page for _, result in loaded for page in result.pages]
    streamed = sum(1 for _, result in loaded if result.stream is not None)
    progress(
        f"indexing {len(held)} pages, {sum(len(p.sections) for p in held)} sections"
        + (f" and {streamed} streamed sources" if streamed else "")
    )
    del held

    with replacing(out) as scratch:
        scan = _Scan()
        typed = _Types(progress)
        count = write_index(_index_docs(loaded, scan, typed), scratch, helper=helper.for_index())
        for source, result in loaded:
            if result.stream is not None:
                _finish_stream(source, result)
                _report_loaded(source, result, progress)
        # Nothing private ships: a credential in the text fails the build, and the scratch
        # index is dropped with it.
        for warning in judge_findings(scan.findings, config.allow_secrets):
            progress(f"warning: {warning}")
        manifest = _manifest(config, loaded, count, version, typed)
        if config.semantic_model:
            manifest["semantic"] = add_semantic_layer(config.semantic_model, scratch, progress)
        manifest["files"] = index_file_hashes(scratch)
        _write_manifest(scratch, manifest)
        if config.checks:
            # The index is complete and opens as it will once installed: hold it to the
            # publisher's checks before it is moved into place (a miss leaves nothing).
            manifest["checks"] = hold_checks(config, scratch, progress)
            _write_manifest(scratch, manifest)
    progress(
        f"indexed {manifest['pages']} pages, {manifest['sections']} sections "
        f"from {len(loaded)} sources in {time.monotonic() - started:.1f}s -> {out}"
    )
    return manifest


def _write_manifest(directory: Path, manifest: dict) -> None:
    (directory / MANIFEST_NAME).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def hold_checks(config: Config, directory: Path, progress: Progress) -> list[dict]:
    """Run the sources file's answer checks against the index in ``directory``; return
    their records for the manifest, or raise ``ChecksFailedError`` naming every miss."""
    from .checks import miss_line, record, run_checks, summary

    with open_index(directory) as docs:
        results = run_checks(config.checks, docs, origin=_shown_path(config.origin))
    misses = [miss_line(result) for result in results if not result.passed]
    if misses:
        raise ChecksFailedError(len(results), misses)
    progress(summary(results))
    return [record(result) for result in results]


def _shown_path(path: Path) -> str:
    """``path`` as a message names it: relative to the current directory when inside it,
    as the sources file's own errors name it when given so."""
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def _second_core() -> bool:
    """True when a helper process would have a core of its own (and an interpreter to run)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores > 1 and bool(sys.executable)


def _local_bytes(source: SourceConfig) -> int:
    """The size of a source that is one local file, known before it is read (else 0)."""
    try:
        return source.path.stat().st_size if source.path and source.path.is_file() else 0
    except OSError:
        return 0


class _BuildHelper:
    """The helper process a large build shares its work with, on a second core.

    It is started once the build has read (or is about to parse) ``HELPER_MIN_BYTES`` of
    source text, which repays starting it (about 0.3 s). From then on it parses Markdown
    files beside the build process (``parse``), then analyses sections and encodes postings
    for ``write_index``. Nothing is handed to it before it answers a first ping: while it
    starts, the build process does the work itself. The pages and the index are the same
    either way; a helper that fails fails the build (``BuildError``) before anything is
    written in place.
    """

    PARSE_CHARS = 100_000  # characters of Markdown per request
    IN_FLIGHT = 2  # requests the helper may hold before the build process parses a batch itself

    def __init__(self, allowed: bool):
        self._allowed = allowed
        self._read = 0
        self.process: HelperProcess | None = None
        self._ping: int | None = None

    def __enter__(self) -> _BuildHelper:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self.process is not None:
            self.process.close(discard=kind is not None)

    def expect(self, size: int) -> None:
        """Start the helper if ``size`` more bytes, about to be read, make the build large."""
        if self.process is None and self._allowed and self._read + size >= HELPER_MIN_BYTES:
            self.process = HelperProcess(__name__, "_serve_build", "build's helper process")
            self._ping = self.process.request(("ping", None))

    def read(self, size: int) -> None:
        self._read += size
        self.expect(0)

    def for_index(self) -> HelperProcess | bool:
        return self.process or False

    def _ready(self, waiting: deque[tuple[int, int]]) -> bool:
        """True when the helper is up and holds fewer than ``IN_FLIGHT`` unanswered requests."""
        process = self.process
        if process is None:
            return False
        if self._ping is not None:
            if not process.answered(self._ping):
                return False
            process.reply(self._ping)
            self._ping = None
        return sum(1 for _, ticket in waiting if not process.answered(ticket)) < self.IN_FLIGHT

    def parse(self, jobs: Sequence[PageJob]) -> list[Parsed]:
        """``sources.parse_page_jobs``, batches of it done by the helper while it is free;
        the results in the order of ``jobs``."""
        self.expect(sum(len(job.text) for job in jobs))
        done: list[Parsed] = []
        waiting: deque[tuple[int, int]] = deque()  # (place in done, ticket)
        start = 0
        while start < len(jobs):
            end, chars = start, 0
            while end < len(jobs) and chars < self.PARSE_CHARS:
                chars += len(jobs[end].text)
                end += 1
            batch = list(jobs[start:end])
            if self._ready(waiting):
                assert self.process is not None
                waiting.append((len(done), self.process.request(("parse", batch))))
                done.extend([(None, [])] * len(batch))  # filled in below
            else:
                done.extend(parse_page_jobs(batch))
            start = end
        for at, ticket in waiting:
            assert self.process is not None
            got = self.process.reply(ticket)
            done[at : at + len(got)] = got
        return done


def _serve_build() -> None:
    """The helper process of ``_BuildHelper``: Markdown files parsed while the sources load,
    then the index's analysis requests (``index_write._AnalysisServer``)."""
    from .english import common_english
    from .helper import serve
    from .index_write import _AnalysisServer

    with _AnalysisServer() as analysis:

        def handle(request: tuple[str, object]) -> object:
            kind, payload = request
            if kind == "ping":
                # Read the English word list now, while the build process still works on
                # its own, rather than when the index is written (the speller's common words).
                common_english()
                return None
            if kind == "parse":
                return parse_page_jobs(payload)  # type: ignore[arg-type]
            return analysis.handle(request)

        serve(handle)


def add_semantic_layer(model: str, directory: Path, progress: Progress) -> dict:
    """Distil a query encoder from ``model`` into the index and embed every section with it,
    so the docs wheel carries its own encoder (``semantic``; build-time needs in ``distill``)."""
    from .distill import distill_encoder, embed_sections
    from .semantic import StaticEncoder, save_section_vectors

    started = time.monotonic()
    cached = _encoder_cache(model)
    if cached is not None and (cached / "info.json").is_file():
        progress(f"semantic: query encoder for {model} from the cache {cached}")
        info = json.loads((cached / "info.json").read_text(encoding="utf-8"))
        for file in sorted(cached.iterdir()):
            if file.name != "info.json":
                shutil.copyfile(file, directory / file.name)
    else:
        progress(f"semantic: distilling a query encoder from {model}")
        before = set(os.listdir(directory))
        info = distill_encoder(model, directory, dims=SEMANTIC_DIMS, progress=progress)
        if cached is not None:
            _fill_cache(cached, directory, sorted(set(os.listdir(directory)) - before), info)
    encoder = StaticEncoder.load(directory)
    texts = section_texts(directory)
    vectors, scales = embed_sections(encoder, texts, progress=progress)
    save_section_vectors(directory, vectors, scales)
    progress(f"semantic: {len(texts)} sections embedded in {time.monotonic() - started:.1f}s")
    return info


def _encoder_cache(model: str) -> Path | None:
    """Where the encoder distilled from a local model folder is kept between builds.

    Distilling takes minutes and gives the same bytes for the same model files and
    versions, so the folder is named by a hash of all of them. A hub name is not cached:
    what it names can change. ``DOCWHEEL_CACHE`` moves the cache; empty turns it off."""
    from .distill import resolve_model

    base = os.environ.get("DOCWHEEL_CACHE")
    if base == "":
        return None
    source = Path(resolve_model(model)[0])
    if not source.is_dir():
        return None
    try:
        import model2vec
        import torch
    except ImportError:
        return None  # distilling says what to install
    from .semantic import FORMAT_VERSION

    digest = hashlib.sha256(
        f"{FORMAT_VERSION} {SEMANTIC_DIMS} {model2vec.__version__} {torch.__version__} {model}".encode()
    )
    for file in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(file.relative_to(source).as_posix().encode())
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    root = Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "docwheel"
    return root / "encoders" / digest.hexdigest()[:24]


def _fill_cache(cached: Path, directory: Path, names: list[str], info: dict) -> None:
    """Copy a fresh encoder into the cache, all or nothing; a cache that cannot be written
    only costs the next build its time."""
    scratch = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
    try:
        scratch.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copyfile(directory / name, scratch / name)
        (scratch / "info.json").write_text(json.dumps(info, sort_keys=True), encoding="utf-8")
        os.replace(scratch, cached)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def check_out_dir(out: Path) -> None:
    """The build replaces ``out``: refuse anything but nothing, an empty folder or an index."""
    check_replaceable(out, marker=MANIFEST_NAME, kind="docwheel index", by="the build")


def _report_loaded(source: SourceConfig, result: Loaded, progress: Progress) -> None:
    for warning in result.warnings:
        progress(f"warning: {warning}")
    if result.generator:
        progress(f"{source.name}: read as {result.generator} docs ({result.generator_reason})")
    progress(
        f"{source.name}: {result.page_count} pages, {result.section_count} sections, "
        f"{result.size:,} bytes, layout {result.layout}"
    )


def _finish_stream(source: SourceConfig, result: Loaded) -> None:
    """What ``load_source`` checks for a held source, checked once a stream is read."""
    assert result.stream is not None
    result.layout = result.stream.layout
    if not result.page_count:
        reason = (
            f"format {source.format!r} found no pages; remove format: to detect the layout"
            if source.format
            else "no pages found"
        )
        raise SourceError(source.name, source.location, reason)


class _Scan:
    """Credentials found in the pages as they go by."""

    def __init__(self) -> None:
        self.findings: list = []

    def pages(self, source: str, pages: Iterable[Page]) -> Iterator[Page]:
        for page in pages:
            self.findings += scan_pages(source, [page])
            yield page


class _Types:
    """Each page's document type (``doctypes.page_type``) and the pages of each type per
    source, for the manifest."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.counts: dict[str, dict[str, int]] = {}

    def of(self, source: SourceConfig, result: Loaded, path: str, page: Page) -> str:
        def warn(message: str) -> None:
            message = f"{source.name}: {message}"
            result.warnings.append(message)
            if result.stream is None:  # a streamed source reports its warnings once read
                self.progress(f"warning: {message}")

        found = page_type(
            path=path, title=page.title, group=page.group, declared=page.type,
            globs=source.types, warn=warn,
        )
        counts = self.counts.setdefault(source.key, dict.fromkeys(DOC_TYPES, 0))
        counts[found] += 1
        return found


def _index_docs(
    loaded: list[tuple[SourceConfig, Loaded]], scan: _Scan, typed: _Types
) -> Iterator[IndexDoc]:
    page_no = 0
    for source, result in loaded:
        seen_paths: dict[str, int] = {}
        streamed = result.stream is not None
        pages = result.stream if streamed else result.pages
        for page in scan.pages(source.name, pages):  # type: ignore[arg-type]
            path = _unique_path(page.path, seen_paths)
            page_no += 1
            if streamed:
                result.page_count += 1
                result.section_count += len(page.sections)
            yield from _page_docs(source, path, page, page_no, typed.of(source, result, path, page))


def _unique_path(path: str, seen: dict[str, int]) -> str:
    """Two pages with one path (versioned copies, repeated titles) get ``path~2``, ``path~3``."""
    path = path or "index"
    seen[path] = seen.get(path, 0) + 1
    return path if seen[path] == 1 else f"{path}~{seen[path]}"


def _page_docs(
    source: SourceConfig, path: str, page: Page, page_no: int, doc_type: str = "guide"
) -> Iterator[IndexDoc]:
    page_ref = f"{source.key}:{path}"
    for n, section in enumerate(page.sections):
        prose, code = split_code(section.text)
        heading_path = " > ".join(section.path)
        yield IndexDoc(
            ref=f"{page_ref}#{section.anchor}" if section.anchor else page_ref,
            page_ref=page_ref,
            source=source.name,
            version=source.version or "",
            url=page.url,
            anchor=section.anchor,
            page_title=page.title,
            heading_text=section.heading,
            heading_markdown=section.heading_markdown or None,
            section=heading_path,
            level=section.level,
            page_description=page.description,
            type=doc_type,
            content=section.text,
            content_hash=hashlib.sha256(section.text.encode("utf-8")).hexdigest(),
            order=(page_no, n),
            title=page.title,
            heading=" ".join(section.path[1:]),
            description=page.description if n == 0 else "",
            body=prose,
            code=code,
            anchors=to_stored(section.anchors),
            fences=_fences(section.text),
        )


def _fences(text: str) -> tuple | None:
    """A long section's code blocks (none: an empty tuple), found once here for its
    snippets (``snippets.fenced_spans``); None for a short section."""
    spans = fenced_spans(text)
    return tuple(spans) if spans is not None else None


def _manifest(
    config: Config,
    loaded: list[tuple[SourceConfig, Loaded]],
    count: int,
    version: str | None,
    typed: _Types,
) -> dict:
    sources = []
    for source, result in loaded:
        entry: dict = {"name": source.name, "kind": source.kind}
        if source.version:
            entry["version"] = source.version
        if source.url:
            entry["url"] = source.url
        elif source.urls:
            entry["urls"] = list(source.urls)
        else:
            entry["path"] = _relative(source.path, config.origin.parent)
        if source.base_url:
            entry["base_url"] = source.base_url
        fetched = [r.fetched_at for r in result.raws if r.fetched_at]
        entry.update(
            sha256=result.sha256,
            bytes=result.size,
            documents=len(result.raws),
            fetched_at=max(fetched) if fetched else None,
            layout=result.layout,
            pages=result.page_count,
            sections=result.section_count,
            # Pages of each document type present (doctypes.DOC_TYPES order).
            types={t: n for t, n in typed.counts.get(source.key, {}).items() if n},
            warnings=list(result.warnings),
        )
        if result.generator:
            entry["generator"] = result.generator
            entry["generator_from"] = result.generator_reason
        if result.navigation:
            entry["navigation"] = result.navigation
        sources.append(entry)
    return {
        "index_format": INDEX_FORMAT,
        "name": config.name,
        "description": config.description,
        "version": version,
        "docwheel_version": __version__,
        "built_at": _build_time(),
        "pages": sum(s["pages"] for s in sources),
        "sections": count,
        "types": {t: n for t in DOC_TYPES if (n := sum(s["types"].get(t, 0) for s in sources))},
        "sources": sources,
    }


def _relative(path: Path | None, base: Path) -> str:
    if path is None:
        return ""
    try:
        return path.relative_to(base).as_posix() or "."
    except ValueError:
        return path.as_posix()


def _build_time() -> str:
    """Build time in UTC; SOURCE_DATE_EPOCH (reproducible builds) wins over the clock."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (
        datetime.fromtimestamp(int(epoch), timezone.utc)
        if epoch and epoch.isdigit()
        else datetime.now(timezone.utc)
    )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["build_index", "build_from_file", "DocwheelError", "SourceError"]
