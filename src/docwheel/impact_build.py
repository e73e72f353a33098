"""Build side of the impact arrays (``ranking.ImpactIndex``): term counts in, arrays out.

The indexer hands over each section's term counts as it analyses the text, so nothing is
read back from Whoosh. Counts are kept as fixed-size records and, past a buffer's worth,
spilled to temporary files bucketed by the top bits of the term key; at the end each bucket
is sorted and turned into impacts on its own and appended to the output. Memory therefore
stays bounded by the buffer and one bucket, however large the docs.

The figures are the same floats ``ranking.pseudo_frequency`` and ``ranking.impacts`` give,
computed in the same order (per section, fields added title first), so the arrays written
are byte-identical to building ``ImpactIndex.from_postings`` from the same counts.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from .ranking import ARRAY_SUFFIXES, K1, WORDS_SUFFIX, FieldWeight, term_key

# One term's count in one field of one section. ``field`` is the field's number, plus
# PAIR_FLAG for word pairs; ``check`` is a second hash of the term, to notice two terms
# sharing a 64-bit key without keeping the terms.
RECORD = np.dtype(
    [("key", "<u8"), ("check", "<u4"), ("doc", "<i4"), ("field", "u1"), ("tf", "<f8")]
)
PAIR_FLAG = 8
BUCKET_BITS = 6  # 64 spill buckets by the key's top bits: each bucket is ~1/64 of the counts
BUFFER_RECORDS = 1_000_000  # records held before spilling (25 bytes each)
KEY_CACHE_LIMIT = 300_000  # pair keys cached before the cache is dropped


class CollisionError(ValueError):
    pass


class ImpactBuilder:
    """Collects per-section term counts and writes the section and page impact arrays.

    ``weights`` are the fields in the order their shares are added (``FIELD_WEIGHTS``).
    Use as a context manager: the spill directory is removed on exit.
    """

    def __init__(self, weights: Sequence[FieldWeight], spill_dir: str | None = None):
        self.boosts = np.array([w.boost for w in weights], dtype=np.float64)
        self.bs = np.array([w.b for w in weights], dtype=np.float64)
        self.n_fields = len(weights)
        self._tmp = tempfile.TemporaryDirectory(prefix="docwheel-impacts-", dir=spill_dir)
        self._spilled = False
        self._new_buffer()
        self._lengths = array("q")  # per section, a length per field
        self._pages = array("i")
        self._words: set[str] = set()
        self._word_keys: dict[str, tuple[int, int]] = {}
        self._pair_keys: dict[str, tuple[int, int]] = {}

    def __enter__(self) -> ImpactBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    # -- gathering -------------------------------------------------------------------

    def add_section(
        self,
        page: int,
        lengths: Sequence[int],
        counts: Sequence[Mapping[str, int]],
        pairs: Sequence[Mapping[str, int] | None],
    ) -> None:
        """One section: per field (in ``weights`` order) its length as the index stores it,
        its word counts and its pair counts (None where the field has no pairs).

        A word's frequency is its count times the field boost, as Whoosh stores it and as
        the impacts were tuned; a pair's is its plain count.
        """
        doc = len(self._pages)
        self._pages.append(page)
        self._lengths.extend(lengths)
        keys, checks, tfs = self._keys.append, self._checks.append, self._tfs.append
        start = len(self._keys)
        for field, terms in enumerate(counts):
            boost = float(self.boosts[field])
            for term, count in terms.items():
                key, check = self._word_key(term)
                keys(key)
                checks(check)
                tfs(count * boost)
            self._fields.frombytes(bytes([field]) * len(terms))
        for field, terms in enumerate(pairs):
            if not terms:
                continue
            for term, count in terms.items():
                key, check = self._pair_key(term)
                keys(key)
                checks(check)
                tfs(float(count))
            self._fields.frombytes(bytes([field | PAIR_FLAG]) * len(terms))
        self._docs.extend(array("i", [doc]) * (len(self._keys) - start))
        if len(self._keys) >= BUFFER_RECORDS:
            self._spill()

    def _new_buffer(self) -> None:
        self._keys = array("Q")
        self._checks = array("I")
        self._docs = array("i")
        self._fields = array("B")
        self._tfs = array("d")

    def _word_key(self, term: str) -> tuple[int, int]:
        got = self._word_keys.get(term)
        if got is None:
            got = self._word_keys[term] = _keys(term)
            self._words.add(term)
        return got

    def _pair_key(self, term: str) -> tuple[int, int]:
        got = self._pair_keys.get(term)
        if got is None:
            if len(self._pair_keys) >= KEY_CACHE_LIMIT:
                self._pair_keys.clear()
            got = self._pair_keys[term] = _keys(term)
        return got

    def _records(self) -> np.ndarray:
        records = np.empty(len(self._keys), dtype=RECORD)
        records["key"] = np.frombuffer(self._keys, dtype=np.uint64) if self._keys else 0
        records["check"] = np.frombuffer(self._checks, dtype=np.uint32) if self._checks else 0
        records["doc"] = np.frombuffer(self._docs, dtype=np.int32) if self._docs else 0
        records["field"] = np.frombuffer(self._fields, dtype=np.uint8) if self._fields else 0
        records["tf"] = np.frombuffer(self._tfs, dtype=np.float64) if self._tfs else 0
        self._new_buffer()
        return records

    def _spill(self) -> None:
        for bucket, records in _split(self._records()):
            with open(self._bucket_path(bucket), "ab") as f:
                records.tofile(f)
        self._spilled = True

    def _bucket_path(self, bucket: int) -> str:
        return os.path.join(self._tmp.name, f"bucket-{bucket:03d}.bin")

    def _buckets(self) -> Iterable[np.ndarray]:
        """The records bucket by bucket, in key order."""
        if not self._spilled:
            for _bucket, records in _split(self._records()):
                yield records
            return
        self._spill()
        for bucket in range(1 << BUCKET_BITS):
            path = self._bucket_path(bucket)
            if os.path.exists(path):
                yield np.fromfile(path, dtype=RECORD)
                os.unlink(path)

    # -- writing ---------------------------------------------------------------------

    def write(self, directory: Path, section_prefix: str, page_prefix: str) -> None:
        """Write the section impacts (``section_prefix``) and page impacts (``page_prefix``)."""
        pages = np.array(self._pages, dtype=np.int32)
        n_docs = len(pages)
        n_pages = int(pages.max()) + 1 if n_docs else 0
        lengths = np.array(self._lengths, dtype=np.int64).reshape(n_docs, self.n_fields)
        del self._lengths
        page_lengths = np.zeros((n_pages, self.n_fields), dtype=np.int64)
        for field in range(self.n_fields):
            # The title repeats in every section of its page: a page counts it once.
            combine = np.maximum if field == 0 else np.add
            combine.at(page_lengths[:, field], pages, lengths[:, field])
        averages = [_average(lengths[:, f], n_docs) for f in range(self.n_fields)]
        page_averages = [_average(page_lengths[:, f], n_pages) for f in range(self.n_fields)]
        out_sections = _Output(directory, section_prefix, self._tmp.name)
        out_pages = _Output(directory, page_prefix, self._tmp.name)
        for records in self._buckets():
            if not len(records):
                continue
            records = records[np.lexsort((records["field"], records["doc"], records["key"]))]
            _check_collisions(records)
            fields = (records["field"] & (PAIR_FLAG - 1)).astype(np.int64)
            docs = records["doc"]
            ptf = self._pseudo(records["tf"], fields, lengths[docs, fields], averages)
            out_sections.add(*_grouped(records["key"], docs, ptf, n_docs))
            words = records[records["field"] < PAIR_FLAG]
            if len(words):
                self._add_pages(words, pages, page_lengths, page_averages, n_pages, out_pages)
        words = sorted(self._words)
        out_sections.finish(pages, words)
        out_pages.finish(np.arange(n_pages, dtype=np.int32), words)

    def _pseudo(
        self, tf: np.ndarray, fields: np.ndarray, lengths: np.ndarray, averages: Sequence[float]
    ) -> np.ndarray:
        """``ranking.pseudo_frequency`` for many entries at once (same operations, same order)."""
        average = np.array(averages, dtype=np.float64)[fields]
        ratio = np.divide(lengths, average, out=np.ones(len(tf)), where=average != 0)
        b = self.bs[fields]
        norm = (1.0 - b) + b * ratio
        return self.boosts[fields] * tf / norm

    def _add_pages(
        self,
        words: np.ndarray,
        pages: np.ndarray,
        page_lengths: np.ndarray,
        page_averages: Sequence[float],
        n_pages: int,
        out: _Output,
    ) -> None:
        """A page is the concatenation of its sections: per field, its sections' term
        frequencies add up (the title's, repeated in each, counts once)."""
        page = pages[words["doc"]]
        fields = words["field"].astype(np.int64)
        order = np.lexsort((fields, page, words["key"]))
        keys, page, fields, tf = words["key"][order], page[order], fields[order], words["tf"][order]
        starts = _starts(keys, page, fields)
        total = np.add.reduceat(tf, starts)
        most = np.maximum.reduceat(tf, starts)
        keys, page, fields = keys[starts], page[starts], fields[starts]
        tf = np.where(fields == 0, most, total)
        ptf = self._pseudo(tf, fields, page_lengths[page, fields], page_averages)
        out.add(*_grouped(keys, page, ptf, n_pages))


def _split(records: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """(bucket, its records) for the non-empty buckets, in bucket (so key) order."""
    buckets = (records["key"] >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)
    order = np.argsort(buckets, kind="stable")
    records, buckets = records[order], buckets[order]
    bounds = np.searchsorted(buckets, np.arange((1 << BUCKET_BITS) + 1))
    for bucket in range(1 << BUCKET_BITS):
        start, end = bounds[bucket], bounds[bucket + 1]
        if end > start:
            yield bucket, records[start:end]


def _keys(term: str) -> tuple[int, int]:
    encoded = term.encode("utf-8")
    return term_key(term), zlib.crc32(encoded)


def _average(lengths: np.ndarray, count: int) -> float:
    """A field's average length over the sections (or pages) that have it, as Lucene's
    BM25 takes it: a page description or a code block is not shorter on average because
    most sections have none."""
    having = int(np.count_nonzero(lengths))
    return int(lengths.sum()) / having if having else 0.0


def _starts(*columns: np.ndarray) -> np.ndarray:
    """Where a run of equal rows (over all ``columns``) begins, in sorted columns."""
    n = len(columns[0])
    change = np.zeros(n, dtype=bool)
    change[:1] = True
    for column in columns:
        change[1:] |= column[1:] != column[:-1]
    return np.flatnonzero(change)


def _sum_runs(values: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Each run's values added left to right, exactly as repeated ``+=`` would (runs are a
    few fields long, so the loop is short; numpy's pairwise sums could round differently)."""
    sizes = np.diff(np.append(starts, n))
    out = values[starts].copy()
    for k in range(1, int(sizes.max(initial=1))):
        more = sizes > k
        out[more] += values[starts[more] + k]
    return out


def _grouped(
    keys: np.ndarray, docs: np.ndarray, ptf: np.ndarray, n_docs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sorted (key, doc, share) entries -> unique keys, per-key counts, docs, impacts."""
    starts = _starts(keys, docs)
    ptf = _sum_runs(ptf, starts, len(keys))
    keys, docs = keys[starts], docs[starts]
    key_starts = _starts(keys)
    counts = np.diff(np.append(key_starts, len(keys)))
    df = np.repeat(counts, counts)
    # math.log per distinct df, as ranking.impacts computes it (np.log may differ in the
    # last bit).
    idf_of = {int(d): math.log(1.0 + (n_docs - d + 0.5) / (d + 0.5)) for d in np.unique(df)}
    idf = np.array([idf_of[int(d)] for d in df], dtype=np.float64) if len(df) else np.zeros(0)
    weights = (idf * ptf * (K1 + 1.0) / (K1 + ptf)).astype(np.float32)
    return keys[key_starts], counts, docs.astype(np.int32), weights


def _check_collisions(records: np.ndarray) -> None:
    same_key = records["key"][1:] == records["key"][:-1]
    if np.any(same_key & (records["check"][1:] != records["check"][:-1])):
        raise CollisionError("two index terms share a 64-bit key")  # ~1e-7 odds per million


class _Output:
    """One ImpactIndex's arrays, appended bucket by bucket to raw files, then saved as .npy
    files that load like ``np.save``'s."""

    def __init__(self, directory: Path, prefix: str, scratch: str):
        self.directory = directory
        self.prefix = prefix
        self.n_terms = 0
        self.n_entries = 0
        self.parts = {
            name: open(os.path.join(scratch, f"{prefix}-{name}.raw"), "w+b")
            for name in ("keys", "spans", "docs", "weights")
        }

    def add(self, keys: np.ndarray, counts: np.ndarray, docs: np.ndarray, weights: np.ndarray) -> None:
        offsets = self.n_entries + np.concatenate(([0], np.cumsum(counts)[:-1]))
        spans = np.stack([offsets, counts], axis=1).astype(np.int64)
        for name, values in (("keys", keys), ("spans", spans), ("docs", docs), ("weights", weights)):
            values.tofile(self.parts[name])
        self.n_terms += len(keys)
        self.n_entries += len(docs)

    def finish(self, pages: np.ndarray, words: list[str]) -> None:
        text = json.dumps(words, separators=(",", ":"), ensure_ascii=False)
        (self.directory / f"{self.prefix}{WORDS_SUFFIX}").write_text(text, encoding="utf-8")
        shapes = {
            "keys": (np.uint64, (self.n_terms,)),
            "spans": (np.int64, (self.n_terms, 2)),
            "docs": (np.int32, (self.n_entries,)),
            "weights": (np.float32, (self.n_entries,)),
        }
        for suffix, name in zip(ARRAY_SUFFIXES, ("keys", "spans", "docs", "weights", "pages")):
            path = self.directory / f"{self.prefix}{suffix}"
            if name == "pages":
                _save(path, pages)
                continue
            dtype, shape = shapes[name]
            part = self.parts.pop(name)
            part.seek(0)
            _save_raw(path, part, np.dtype(dtype), shape)
            part.close()


def _save(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)


def _save_raw(path: Path, raw, dtype: np.dtype, shape: tuple[int, ...]) -> None:
    """Copy a raw file of ``dtype`` values into an .npy file, a chunk at a time."""
    total = math.prod(shape)
    if total == 0:
        _save(path, np.zeros(shape, dtype=dtype))
        return
    target = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape)
    flat = target.reshape(-1)
    chunk = 1 << 22
    done = 0
    while done < total:
        values = np.fromfile(raw, dtype=dtype, count=min(chunk, total - done))
        flat[done : done + len(values)] = values
        done += len(values)
    target.flush()
    del flat, target
