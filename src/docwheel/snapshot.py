"""Saved snapshots of what a build fetches: ``docwheel fetch`` writes one, offline builds read it.

A snapshot is a folder::

    snapshot.json        what was fetched: URL, final URL, sha256, bytes, content type,
                         fetch time and headers (ETag, Last-Modified, Content-Type); and the
                         local ``path:`` sources, recorded with their hash but not copied
    files/<sha256>       the body of each response, byte for byte as received

``save_snapshot`` runs every source's loader exactly as a build does, with a fetch that
records each response, so llms.txt link lists are followed the same way and a broken source
fails with the build's own message. ``SnapshotFetch`` is a ``fetch`` for
``build.build_index`` that answers from the folder and never from the network.

This module does not import ``fetch`` (the only network code): ``save_snapshot`` is handed
the network fetch by its caller, and reading a snapshot needs none.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

from . import __version__
from .config import Config
from .errors import BuildError, FetchError
from .outdir import check_replaceable, replacing
from .sources import STREAM_BYTES, capped, load_source, now_iso

SNAPSHOT_INDEX = "snapshot.json"
SNAPSHOT_FORMAT = 1
OFFLINE_ENV_VAR = "DOCWHEEL_OFFLINE"
FILES_DIR = "files"

_SHA256 = re.compile(r"[0-9a-f]{64}")
Progress = Callable[[str], None]


def _quiet(_message: str) -> None:
    pass


@dataclass(frozen=True)
class Saved:
    """One response read back from a snapshot: the attributes a loader uses of a fetch."""

    url: str  # the final URL, after redirects
    text: str
    sha256: str
    size: int
    content_type: str
    fetched_at: str
    # A saved body larger than sources.STREAM_BYTES is read from its file, not held: ``text``
    # is "" and this is the snapshot file (as a fetch's spooled body).
    path: Path | None = None


# -- writing -----------------------------------------------------------------------------


def save_snapshot(
    config: Config,
    out_dir: str | os.PathLike,
    *,
    fetch: Callable[[str], object],
    progress: Progress = _quiet,
) -> dict:
    """Fetch every remote document of ``config`` with ``fetch`` into a snapshot at ``out_dir``.

    ``out_dir`` is replaced only when every source loaded, and only if it is absent, empty or
    an earlier snapshot. Returns the ``snapshot.json`` content.
    """
    out = Path(out_dir)
    check_snapshot_dir(out)
    started = time.monotonic()
    recorder = _Recorder(fetch)
    local = []
    for source in config.sources:
        progress(f"{source.name}: fetching {source.kind} from {source.location}")
        count, size = recorder.count, recorder.size
        loaded = load_source(source, capped(recorder, source))
        fetched = recorder.count - count
        progress(
            f"{source.name}: fetched {fetched} documents, {recorder.size - size:,} bytes"
            + (f"; local files not copied ({source.location})" if source.path else "")
        )
        if source.path is not None:
            local.append(
                {
                    "source": source.name,
                    "kind": source.kind,
                    "path": source.path_text or str(source.path),
                    "sha256": loaded.sha256,
                    "bytes": loaded.size,
                }
            )

    documents = [recorder.entry(url) for url in sorted(recorder.responses)]
    fetch_times = [d["fetched_at"] for d in documents if d["fetched_at"]]
    index = {
        "snapshot_format": SNAPSHOT_FORMAT,
        "name": config.name,
        "docwheel_version": __version__,
        "fetched_at": max(fetch_times) if fetch_times else now_iso(),
        "documents": documents,
        "paths": local,
    }
    with replacing(out) as scratch:
        (scratch / FILES_DIR).mkdir()
        for url in recorder.responses:
            file = scratch / FILES_DIR / recorder.responses[url][1]
            if not file.exists():  # one file for identical bodies
                body = recorder.bodies[recorder.responses[url][1]]
                if isinstance(body, Path):  # a body the fetch spooled to a file
                    shutil.copyfile(body, file)
                else:
                    file.write_bytes(body)
        (scratch / SNAPSHOT_INDEX).write_text(
            json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    progress(
        f"saved {len(documents)} documents, {recorder.size:,} bytes from "
        f"{len(config.sources)} sources in {time.monotonic() - started:.1f}s -> {out}"
    )
    return index


def check_snapshot_dir(out: Path) -> None:
    """``docwheel fetch`` replaces ``out``: refuse anything but nothing, an empty folder or a
    snapshot."""
    check_replaceable(out, marker=SNAPSHOT_INDEX, kind="docwheel snapshot", by="fetch")


class _Recorder:
    """A fetch that passes each URL to the real one and keeps the response (thread-safe:
    loaders fetch a list of pages in parallel)."""

    def __init__(self, fetch: Callable[[str], object]):
        self._fetch = fetch
        self._lock = threading.Lock()
        self.responses: dict[str, tuple[object, str]] = {}  # url -> (response, sha256)
        self.bodies: dict[str, bytes | Path] = {}  # sha256 -> bytes, or a spooled file
        self.count = 0
        self.size = 0

    def __call__(self, url: str, **options: object) -> object:
        got = self._fetch(url, **options)  # type: ignore[call-arg]
        spooled = getattr(got, "path", None)
        body = spooled if spooled is not None else got.data  # type: ignore[attr-defined]
        digest = got.sha256 if spooled is not None else hashlib.sha256(body).hexdigest()  # type: ignore[attr-defined, arg-type]
        with self._lock:
            self.responses[url] = (got, digest)
            self.bodies[digest] = body
            self.count += 1
            self.size += got.size  # type: ignore[attr-defined]
        return got

    def entry(self, url: str) -> dict:
        got, digest = self.responses[url]
        return {
            "url": url,
            "final_url": got.url,  # type: ignore[attr-defined]
            "file": f"{FILES_DIR}/{digest}",
            "sha256": digest,
            "bytes": got.size,  # type: ignore[attr-defined]
            "content_type": got.content_type,  # type: ignore[attr-defined]
            "fetched_at": got.fetched_at,  # type: ignore[attr-defined]
            "headers": dict(got.headers),  # type: ignore[attr-defined]
        }


# -- reading -----------------------------------------------------------------------------


def offline_dir(config: Config) -> tuple[Path, str] | None:
    """The snapshot a build of ``config`` reads instead of the network, and who named it:
    ``DOCWHEEL_OFFLINE`` (relative to the working directory) wins over ``offline:``."""
    env = os.environ.get(OFFLINE_ENV_VAR, "").strip()
    if env:
        return Path(env).resolve(), OFFLINE_ENV_VAR
    if config.offline is not None:
        return config.offline, f"offline: in {config.origin}"
    return None


class SnapshotFetch:
    """A ``fetch`` for ``build_index`` that reads the responses ``docwheel fetch`` saved.

    A URL the snapshot lacks, or a saved file whose hash changed, is a ``FetchError``; the
    build wraps it in a ``SourceError`` naming the source, as for a failed download.
    """

    def __init__(self, directory: str | os.PathLike, named_by: str = "the snapshot"):
        self.directory = Path(directory)
        index = _read_index(self.directory, named_by)
        self.fetched_at: str = index.get("fetched_at") or ""
        self._documents = {d["url"]: d for d in index["documents"]}

    def __call__(self, url: str, max_bytes: int | None = None) -> Saved:
        doc = self._documents.get(url)
        if doc is None:
            raise FetchError(
                url, f"not in the snapshot {self.directory}; run docwheel fetch again"
            )
        if max_bytes is not None and int(doc.get("bytes") or 0) > max_bytes:
            # The same cap as a build from the network, so both builds accept the same sources.
            raise FetchError(url, f"response larger than {max_bytes} bytes (max_size)")
        file = self.directory / FILES_DIR / doc["sha256"]
        content_type = doc.get("content_type") or ""
        try:
            large = file.stat().st_size > STREAM_BYTES
            if large:  # checked in blocks and read from the file later, never held whole
                digest, data = _file_sha256(file), b""
            else:
                data = file.read_bytes()
                digest = hashlib.sha256(data).hexdigest()
        except OSError as exc:
            raise FetchError(
                url, f"snapshot file {file} cannot be read: {exc.strerror or exc}"
            ) from None
        if digest != doc["sha256"]:
            raise FetchError(
                url, f"snapshot file {file} changed since it was saved; run docwheel fetch again"
            )
        if large:
            return Saved(
                url=doc.get("final_url") or url, text="", sha256=digest,
                size=file.stat().st_size, content_type=content_type,
                fetched_at=doc.get("fetched_at") or self.fetched_at, path=file,
            )
        return Saved(
            url=doc.get("final_url") or url,
            text=decode(data, (doc.get("headers") or {}).get("Content-Type", content_type)),
            sha256=doc["sha256"],
            size=len(data),
            content_type=content_type,
            fetched_at=doc.get("fetched_at") or self.fetched_at,
        )


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_index(directory: Path, named_by: str) -> dict:
    where = f"offline snapshot {directory} (from {named_by})"
    file = directory / SNAPSHOT_INDEX
    if not directory.is_dir():
        raise BuildError(f"{where} not found; make it with docwheel fetch --config FILE --out DIR")
    try:
        index = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(
            f"{where} has no {SNAPSHOT_INDEX}; make it with docwheel fetch --config FILE --out DIR"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BuildError(f"{where}: {SNAPSHOT_INDEX} cannot be read: {exc}") from None
    documents = index.get("documents") if isinstance(index, dict) else None
    if (
        not isinstance(index, dict)
        or index.get("snapshot_format") != SNAPSHOT_FORMAT
        or not isinstance(documents, list)
        or not all(
            isinstance(d, dict)
            and isinstance(d.get("url"), str)
            and isinstance(d.get("sha256"), str)
            and _SHA256.fullmatch(d["sha256"])
            for d in documents
        )
    ):
        raise BuildError(
            f"{where}: {SNAPSHOT_INDEX} is not a docwheel snapshot index (format "
            f"{SNAPSHOT_FORMAT}); run docwheel fetch again"
        )
    return index


def decode(data: bytes, content_type: str) -> str:
    """Decode a saved body the way ``fetch`` decoded it when it was downloaded: the charset
    of its Content-Type, else UTF-8 (without a byte-order mark), bad bytes replaced."""
    header = Message()
    if content_type:
        header["Content-Type"] = content_type
    try:
        encoding = codecs.lookup(header.get_content_charset() or "utf-8").name
    except LookupError:
        encoding = "utf-8"
    if encoding == "utf-8":
        encoding = "utf-8-sig"
    return data.decode(encoding, errors="replace")
