"""Fast ranking for plain-word queries: BM25F impacts precomputed at build time.

Whoosh scores a many-word OR query posting by posting in Python, which costs tens to hundreds
of milliseconds on a few thousand sections. Instead the build stores, for every term, the
sections it occurs in and its finished BM25F contribution there (an "impact"); a query then
adds a few numpy slices together. Operator queries (AND/OR/NOT, phrases, fields) still go
through Whoosh.

BM25F here is the textbook form: per field, the term frequency is length-normalised and
weighted by the field's boost; the weighted sum is saturated once (k1) and multiplied by the
term's IDF over sections.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

K1 = 1.2
# Pages that are not the main answer (``doctypes.SECONDARY_TYPES``: changelogs, release notes,
# blog posts) mention every feature in passing; they rank below the guide that explains it
# unless the query asks for them (``doctypes.ASKING_WORDS``).
CHANGELOG_FACTOR = 0.5
# A page kept in several versions of the docs (``versions.page_copies``) ranks as one page;
# its old versions count this much, so the current docs come first unless the query names
# a version. Pages found only in an old version are old too.
OLD_VERSION_FACTOR = 0.6
WORDS_SUFFIX = "_words.json"
ARRAY_SUFFIXES = ("_keys.npy", "_spans.npy", "_docs.npy", "_impacts.npy", "_pages.npy")


@dataclass(frozen=True)
class FieldWeight:
    boost: float
    b: float  # how much a long field is penalised (0: not at all, 1: fully)


def pseudo_frequency(
    tf: float, length: float, average: float, weight: FieldWeight
) -> float:
    """One field's share of a term's weighted, length-normalised frequency."""
    norm = 1.0 - weight.b + weight.b * (length / average if average else 1.0)
    return weight.boost * tf / norm


def impacts(pseudo_tf: np.ndarray, n_docs: int, k1: float = K1) -> np.ndarray:
    """BM25 contributions of one term in each section that contains it."""
    df = len(pseudo_tf)
    idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    return (idf * pseudo_tf * (k1 + 1.0) / (k1 + pseudo_tf)).astype(np.float32)


def term_key(term: str) -> int:
    """A term's 64-bit key. Postings are found by key, so the index never holds its whole
    vocabulary (with word pairs, a million strings) as Python objects."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


class ImpactIndex:
    """Per-term postings (section numbers and impacts), loaded read-only from an index dir.

    ``keys`` (sorted ``term_key`` values) and ``spans`` (offset, count) locate a term's slice
    of ``docs`` and ``weights``; ``words`` lists the single-word terms, for spelling.
    """

    def __init__(
        self,
        keys: np.ndarray,
        spans: np.ndarray,
        docs: np.ndarray,
        weights: np.ndarray,
        pages: np.ndarray,
        words: Callable[[], list[str]],
    ):
        self.keys = keys
        self.spans = spans
        self.docs = docs
        self.weights = weights
        self.pages = pages  # page number of every section
        self.n_docs = len(pages)
        self._words = words

    # -- build side ------------------------------------------------------------------

    @classmethod
    def from_postings(
        cls,
        postings: Mapping[str, Mapping[int, float]],
        pages: Iterable[int],
    ) -> ImpactIndex:
        """``postings`` maps term -> {section: pseudo-frequency} (see ``pseudo_frequency``)."""
        pages = np.fromiter(pages, dtype=np.int32)
        n_docs = len(pages)
        terms = sorted(postings, key=term_key)
        keys = np.fromiter((term_key(t) for t in terms), dtype=np.uint64, count=len(terms))
        if len(keys) > 1 and not np.all(keys[1:] != keys[:-1]):
            raise ValueError("two index terms share a 64-bit key")  # ~1e-7 odds per million
        spans = np.zeros((len(terms), 2), dtype=np.int64)
        doc_parts: list[np.ndarray] = []
        weight_parts: list[np.ndarray] = []
        offset = 0
        for i, term in enumerate(terms):
            entries = sorted(postings[term].items())
            docs = np.fromiter((d for d, _ in entries), dtype=np.int32, count=len(entries))
            ptf = np.fromiter((w for _, w in entries), dtype=np.float64, count=len(entries))
            doc_parts.append(docs)
            weight_parts.append(impacts(ptf, n_docs))
            spans[i] = (offset, len(entries))
            offset += len(entries)
        words = sorted(t for t in postings if " " not in t)
        empty_i, empty_f = np.zeros(0, np.int32), np.zeros(0, np.float32)
        return cls(
            keys,
            spans,
            np.concatenate(doc_parts) if doc_parts else empty_i,
            np.concatenate(weight_parts) if weight_parts else empty_f,
            pages,
            lambda: words,
        )

    def save(self, directory: Path, prefix: str) -> None:
        text = json.dumps(self.words(), separators=(",", ":"), ensure_ascii=False)
        (directory / f"{prefix}{WORDS_SUFFIX}").write_text(text, encoding="utf-8")
        arrays = (self.keys, self.spans, self.docs, self.weights, self.pages)
        for suffix, array in zip(ARRAY_SUFFIXES, arrays):
            with open(directory / f"{prefix}{suffix}", "wb") as f:
                np.save(f, array, allow_pickle=False)

    # -- run-time side ---------------------------------------------------------------

    @classmethod
    def load(cls, directory: Path, prefix: str) -> ImpactIndex:
        """Open the arrays memory-mapped (read-only; nothing is copied until used). The word
        list is read only when spelling needs it."""
        # Plain ndarray views of the maps: numpy.memmap's own slicing costs a Python call
        # per slice, and a query slices every term's postings.
        keys, spans, docs, weights, pages = (
            np.load(directory / f"{prefix}{suffix}", mmap_mode="r", allow_pickle=False).view(np.ndarray)
            for suffix in ARRAY_SUFFIXES
        )
        words_file = directory / f"{prefix}{WORDS_SUFFIX}"
        if not words_file.is_file():
            raise OSError(f"{words_file.name} is missing")
        cache: list[list[str]] = []

        def words() -> list[str]:
            if not cache:
                cache.append(json.loads(words_file.read_text(encoding="utf-8")))
            return cache[0]

        return cls(keys, spans, docs, weights, pages, words)

    def words(self) -> list[str]:
        return self._words()

    def span(self, term: str) -> tuple[int, int] | None:
        key = np.uint64(term_key(term))
        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and self.keys[i] == key:
            return int(self.spans[i, 0]), int(self.spans[i, 1])
        return None

    def __contains__(self, term: str) -> bool:
        return self.span(term) is not None

    def scores(
        self, terms: Iterable[str], emphasis: Mapping[str, float] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Summed impacts per section, and how many distinct query terms each matched;
        a term in ``emphasis`` counts that many times its impact.

        One ``bincount`` over the terms' postings together: adding term by term into
        full-size arrays cost a third more on an index of 100,000 sections."""
        unique = list(dict.fromkeys(terms))
        found = [(term, span) for term, span in zip(unique, map(self.span, unique)) if span is not None]
        if not found:
            return np.zeros(self.n_docs), np.zeros(self.n_docs, dtype=np.int64)
        docs = np.concatenate([self.docs[start : start + count] for _, (start, count) in found])
        parts = [self.weights[start : start + count] for _, (start, count) in found]
        if emphasis:
            parts = [part * emphasis.get(term, 1.0) for (term, _), part in zip(found, parts)]
        weights = np.concatenate(parts)
        total = np.bincount(docs, weights, minlength=self.n_docs)
        return total, np.bincount(docs, minlength=self.n_docs)

    def scores_at(self, terms: Iterable[str], docs: np.ndarray) -> np.ndarray:
        """Summed impacts of ``terms`` for the sections ``docs`` (ascending) only: for
        rare terms such as word pairs, cheaper than ``scores`` over every section."""
        total = np.zeros(len(docs))
        for term in dict.fromkeys(terms):
            span = self.span(term)
            if span is None:
                continue
            start, count = span
            found = self.docs[start : start + count]
            at = np.searchsorted(docs, found)
            inside = at < len(docs)
            inside[inside] = docs[at[inside]] == found[inside]
            total[at[inside]] += self.weights[start : start + count][inside]
        return total

    def documents(self, term: str) -> np.ndarray:
        """The sections holding ``term`` in any field, ascending."""
        span = self.span(term)
        if span is None:
            return np.zeros(0, dtype=np.int32)
        start, count = span
        return np.asarray(self.docs[start : start + count])

    def impact(self, term: str, doc: int) -> float:
        """The impact of ``term`` in section ``doc`` (0 when absent); for explanations."""
        span = self.span(term)
        if span is None:
            return 0.0
        start, count = span
        docs = self.docs[start : start + count]
        i = int(np.searchsorted(docs, doc))
        return float(self.weights[start + i]) if i < count and docs[i] == doc else 0.0

    def document_frequency(self, term: str) -> int:
        span = self.span(term)
        return span[1] if span else 0


def best_per_page(
    scores: np.ndarray, pages: np.ndarray, limit: int, *, per_page: bool = True
) -> tuple[list[tuple[int, float]], int]:
    """The ``limit`` best sections, at most one per page, and the number of pages matched.

    Sections are taken best first; a page's later sections are skipped (unless
    ``per_page`` is off: then every section counts, and so does the total). Ties go to the
    earlier section, so results are stable across runs.
    """
    hits = np.flatnonzero(scores > 0)
    return best_per_page_of(hits, scores[hits], pages, limit, per_page=per_page)


def best_per_page_of(
    hits: np.ndarray, hit_scores: np.ndarray, pages: np.ndarray, limit: int, *, per_page: bool = True
) -> tuple[list[tuple[int, float]], int]:
    """``best_per_page`` for scores given only where they are positive: ``hits`` (section
    numbers, ascending) and their ``hit_scores``; no pass over the whole index."""
    if hits.size == 0:
        return [], 0
    if per_page:
        matched_pages = np.zeros(int(pages[hits].max()) + 1, dtype=bool)
        matched_pages[pages[hits]] = True
        total = int(np.count_nonzero(matched_pages))
    else:
        total = int(hits.size)
    # Sorting every hit costs tens of milliseconds on a few hundred thousand sections, so
    # only the best few are sorted: every hit scoring at least the m-th best score (ties
    # included) is a prefix of the full order, and it is widened until it holds ``limit``
    # pages.
    wanted = limit * 8
    while True:
        if wanted >= hits.size:
            candidates, candidate_scores = hits, hit_scores
        else:
            cutoff = np.partition(hit_scores, hits.size - wanted)[hits.size - wanted]
            keep = hit_scores >= cutoff
            candidates, candidate_scores = hits[keep], hit_scores[keep]
        chosen = _first_per_page(candidates, candidate_scores, pages, limit, per_page)
        if len(chosen) == limit or candidates.size == hits.size:
            return chosen, total
        wanted *= 4


def _first_per_page(
    candidates: np.ndarray, scores: np.ndarray, pages: np.ndarray, limit: int, per_page: bool
) -> list[tuple[int, float]]:
    """``scores`` are the candidates' own, in the same order."""
    # Stable order: score descending, then section number ascending.
    order = np.lexsort((candidates, -scores))
    chosen: list[tuple[int, float]] = []
    seen: set[int] = set()
    for doc, score in zip(candidates[order].tolist(), scores[order].tolist()):
        page = int(pages[doc])
        if per_page and page in seen:
            continue
        seen.add(page)
        chosen.append((doc, score))
        if len(chosen) == limit:
            break
    return chosen
