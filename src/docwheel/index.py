"""Everything that touches Whoosh: the schema, writing an index, and reading one.

whoosh-reloaded is unmaintained upstream, so no other module imports it. Writing happens only
at build time; at run time the index is opened through a read-only storage and every thread
gets its own searcher (a shared Whoosh searcher corrupts results under threads).
"""

from __future__ import annotations

import copy
from array import array
import functools
import gc
import heapq
import marshal
import operator
import os
import pickle
import random
import re
import threading
import tempfile
import warnings
import zlib
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from whoosh import fields, formats, index, qparser, query, scoring
from whoosh.analysis import (
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
)
from whoosh.filedb.filestore import FileStorage
from whoosh.lang.porter import stem as porter_stem
from whoosh.codec import default_codec
from whoosh.codec.whoosh3 import STORED_COLUMN, WHOOSH3_HEADER_MAGIC, W3TermInfo
from whoosh.columns import VarBytesColumn
from whoosh.system import pack_int, pack_uint, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte

from .errors import IndexLoadError, QueryError, SemanticFilesError
from .fusion import SEMANTIC_CANDIDATES, SEMANTIC_WEIGHT, Fused, fuse
from .impact_build import ImpactBuilder
from .ranking import (
    CHANGE_WORDS,
    CHANGELOG_FACTOR,
    FieldWeight,
    ImpactIndex,
    best_per_page,
    best_per_page_of,
    is_changelog,
    pseudo_frequency,
)
from .semantic import SECTION_VECTORS_FILE, SectionVectors, StaticEncoder
from .spelling import Speller
from .words import TOKEN_PATTERN, split_identifier, without_number_parts

if TYPE_CHECKING:
    from .helper import HelperProcess  # imported when a build starts one

INDEX_NAME = "docwheel"

# Question words carry no meaning for matching ("how do I ..."); Whoosh's own list lacks them.
STOP_WORDS = frozenset(
    """a an and are as at be by can could do does did for from has have how i if in into is
    it its me my of on or our should so that the their them then there these this to too us
    was we what when where which who why will with would you your""".split()
)

class IdentifierFilter(Filter):
    """Expands each token into the terms ``words.split_identifier`` gives it."""

    def __call__(self, tokens):
        position = 0
        for token in tokens:
            if token.text.isalpha() and token.text.islower():
                # Most words: nothing to split (the fast path keeps the build quick).
                token.pos = position
                position += 1
                yield token
                continue
            for text in split_identifier(token.text):
                token.text = text
                token.pos = position
                position += 1
                yield token


class StopWords(Filter):
    """Drops stop words. Unlike Whoosh's StopFilter it pickles its list sorted, so the
    schema Whoosh stores is the same bytes whatever the process's hash seed."""

    def __init__(self, words: Iterable[str]):
        self.words = tuple(sorted(words))

    def __getstate__(self) -> dict:
        return {"words": self.words}

    def __setstate__(self, state: dict) -> None:
        self.words = state["words"]

    def __call__(self, tokens):
        stops = self.__dict__.get("_set")
        if stops is None:
            stops = self.__dict__["_set"] = frozenset(self.words)
        for token in tokens:
            if token.text not in stops:
                yield token


def make_analyzer():
    """Tokenizer chain for prose and code: identifiers split into parts, stemmed English."""
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | IdentifierFilter()
        | LowercaseFilter()
        | StopWords(STOP_WORDS)
        | StemFilter()
    )


# Where meaning sits in docs: the page title, then the heading path, then the description,
# then prose; code is searchable but weighs least. Titles and headings are short by nature,
# so their length says little (low b).
FIELD_WEIGHTS = {
    "title": FieldWeight(boost=3.0, b=0.3),
    "heading": FieldWeight(boost=2.0, b=0.3),
    "description": FieldWeight(boost=1.5, b=0.5),
    "body": FieldWeight(boost=1.0, b=0.75),
    "code": FieldWeight(boost=0.5, b=0.75),
}
FIELD_BOOSTS = {name: weight.boost for name, weight in FIELD_WEIGHTS.items()}
SEARCH_FIELDS = tuple(FIELD_BOOSTS)
MAX_QUERY_WORDS = 64
SECTION_RANKING, PAGE_RANKING = "rank", "page"
CHANGELOG_FILE = "page_changelog.npy"
# How much a section's page counts beside the section itself, and how strongly a section
# that matches only part of the query is held back (score x matched share ** power). Both
# chosen on the dev queries as one setting for all corpora.
PAGE_WEIGHT = 1.0
COVERAGE_POWER = 2.0
# Coverage counts a query word found anywhere on the section's page, not only in the
# section: an answer's words are often spread over a page's sections.
PAGE_COVERAGE = True
# Neighbouring query words found next to each other in a section add this share of their
# pair's BM25F score (pair_terms); pairs come from the prose, title and headings.
PAIR_WEIGHT = 0.25
PAIR_FIELDS = frozenset({"title", "heading", "body"})
PAIR_JOINER = " "
# Operator queries: how many words a wildcard may expand to for ranking, and the score of a
# match none of whose words could be scored.
MAX_EXPANDED_TERMS = 64
MATCH_FLOOR = 1e-3


def make_schema() -> fields.Schema:
    ana = make_analyzer()
    text = {name: fields.TEXT(analyzer=ana, field_boost=boost) for name, boost in FIELD_BOOSTS.items()}
    return fields.Schema(
        ref=fields.ID(stored=True, unique=True),
        page_ref=fields.ID(stored=True),
        source=fields.ID(stored=True),
        version=fields.ID(stored=True),
        url=fields.STORED(),
        anchor=fields.STORED(),
        page_title=fields.STORED(),
        heading_text=fields.STORED(),
        section=fields.STORED(),
        level=fields.STORED(),
        page_description=fields.STORED(),
        content=fields.STORED(),
        content_hash=fields.STORED(),
        order=fields.STORED(),
        **text,
    )


@dataclass(frozen=True)
class IndexDoc:
    """One section as it is written to the index (the build assigns refs and order)."""

    ref: str
    page_ref: str
    source: str
    version: str  # "" unless the source is one of several versions of the same docs
    url: str
    anchor: str
    page_title: str
    heading_text: str
    section: str
    level: int
    page_description: str
    content: str
    content_hash: str  # sha256 of content: what `docwheel diff` and rebuild checks compare
    order: tuple[int, int]
    # Searchable text, already split by the build.
    title: str
    heading: str
    description: str
    body: str
    code: str


def write_index(
    docs: Iterable[IndexDoc], directory: Path, *, helper: bool | HelperProcess = False
) -> int:
    """Write a fresh single-segment index into an empty ``directory``; return the doc count.

    Each section's text is analysed once (``_SectionAnalyser``): the terms go to Whoosh as
    ready postings and their counts to the impact builder, so Whoosh's analyser chain never
    runs at build time and no posting is read back. With ``helper`` the analysis and the
    impact arrays are done by a helper process on another core while this one writes the
    Whoosh files; the helper sees the sections in the same order, so the files are the same
    bytes either way. ``helper`` may be a helper process the build started already
    (``build._serve_build``), which the build closes. The global ``random`` (Whoosh names
    segments with it) is seeded for the write and restored afterwards, so segment names do
    not vary between builds.
    """
    directory.mkdir(parents=True, exist_ok=True)
    state = random.getstate()
    random.seed(0)
    try:
        ix = index.create_in(str(directory), make_schema(), indexname=INDEX_NAME)
        # Separate segment files: the compound file would store their modification times.
        writer = ix.writer(compound=False)
        postings = _TermPostings(writer._tempstorage.folder, POOL_MB * 1024 * 1024)
        page_numbers: dict[int, int] = {}
        changelogs: list[bool] = []  # per dense page
        known_lengths = array("q")  # stored length of each section's text fields, in a row
        count = 0
        given = None if isinstance(helper, bool) else helper
        with _HelperAnalysis(given) if helper else _LocalAnalysis() as analysis:
            try:
                for doc in docs:
                    if doc.order[0] not in page_numbers:
                        page_path = doc.page_ref.partition(":")[2]
                        changelogs.append(is_changelog(doc.page_title, page_path))
                    page = page_numbers.setdefault(doc.order[0], len(page_numbers))
                    texts = [getattr(doc, name) for name in SEARCH_FIELDS]
                    for done, (lengths, terms, stored) in analysis.put(page, texts, doc):
                        _add_document(writer, postings, done, lengths, terms, stored)
                        known_lengths.extend(map(_stored_length, lengths))
                        count += 1
                for done, (lengths, terms, stored) in analysis.drain():
                    _add_document(writer, postings, done, lengths, terms, stored)
                    known_lengths.extend(map(_stored_length, lengths))
                    count += 1
                # Whoosh would sort every posting and write them one call at a time; the
                # postings are already grouped by term, so they are written term by term.
                writer._flush_segment = lambda: _flush_segment(writer, postings, known_lengths, analysis)
                analysis.start_writing(directory)
            except BaseException:
                writer.cancel()
                postings.cleanup()
                raise
            writer.commit(optimize=True)
            postings.cleanup()
            analysis.finish_writing(directory)
        with open(directory / CHANGELOG_FILE, "wb") as f:
            np.save(f, np.array(changelogs, dtype=bool), allow_pickle=False)
        ix.close()
        # The lock file is only meaningful while writing; an index ships without it.
        (directory / f"{INDEX_NAME}_WRITELOCK").unlink(missing_ok=True)
        return count
    finally:
        random.setstate(state)


# Postings held in memory before a sorted run is spilled to disk (estimated): memory stays
# flat on huge docs.
POOL_MB = 64
Analysed = tuple[dict[str, list[int]], "Counter[str] | None"]
# One section analysed: the length of each text field (its number of terms), per text
# field its postings as one flat list [term, weight, encoded positions, term, ...], and its
# stored fields as the stored column keeps them (``stored_bytes``).
SectionPostings = tuple[list[int], list[list], bytes]


class _SectionAnalyser:
    """Analyses a section's text fields into postings and the counts the impact builder
    takes; the same code in the build process and in the helper."""

    def __init__(self) -> None:
        self._fields = _FieldAnalyser()
        schema = make_schema()
        for name in SEARCH_FIELDS:  # what encode_positions stands in for
            assert type(schema[name].format) is formats.Positions, name
        self._formats = [
            (schema[name].format.field_boost, name in PAIR_FIELDS) for name in SEARCH_FIELDS
        ]

    def __call__(
        self, page: int, texts: Sequence[str], stored: dict
    ) -> tuple[SectionPostings, SectionCounts]:
        lengths: list[int] = []
        postings: list[list] = []
        counts: list[dict[str, int]] = []
        pairs: list = []
        for text, (boost, paired) in zip(texts, self._formats):
            positions, pair_counts = self._fields.analyse(text, paired)
            flat: list = []
            freqs: dict[str, int] = {}
            length = 0
            for term, found in positions.items():
                freq = len(found)
                length += freq
                freqs[term] = freq
                flat += (term, float(freq) * boost, encode_positions(found))
            lengths.append(length)
            postings.append(flat)
            counts.append(freqs)
            pairs.append(pair_counts)
        return (lengths, postings, stored_bytes(stored)), (
            page,
            [_stored_length(n) for n in lengths],
            counts,
            pairs,
        )


_ONE_POSITION: dict[int, bytes] = {}  # by position, up to ONE_POSITION_LIMIT
ONE_POSITION_LIMIT = 1 << 16
_ONE = pack_uint(1)


def encode_positions(found: list[int]) -> bytes:
    """``formats.Positions.encode(found)``, the same bytes, with the pickle of a lone
    position kept (most postings have one). The result is always a fresh bytes object:
    Whoosh pickles a block's values, and shared objects would pickle as memo references
    (other bytes on disk)."""
    if len(found) == 1:
        tail = _ONE_POSITION.get(found[0])
        if tail is None:
            tail = pickle.dumps(found, 2)
            if found[0] < ONE_POSITION_LIMIT:
                _ONE_POSITION[found[0]] = tail
        return _ONE + tail  # two non-empty parts: a new object
    return pack_uint(len(found)) + pickle.dumps(
        list(map(operator.sub, found, [0, *found[:-1]])), 2
    )


# What the impact builder takes for one section (``ImpactBuilder.add_section``'s arguments).
SectionCounts = tuple[int, list[int], list[dict[str, int]], list]


def _new_impacts() -> ImpactBuilder:
    return ImpactBuilder(list(FIELD_WEIGHTS.values()))


class _LocalAnalysis:
    """Sections analysed, and terms encoded, in the build process, each as it comes."""

    def __enter__(self) -> _LocalAnalysis:
        self._impacts = _new_impacts()
        self._analyse = _SectionAnalyser()
        return self

    def __exit__(self, *exc: object) -> None:
        self._impacts.__exit__(*exc)

    def put(self, page: int, texts: list[str], doc: IndexDoc) -> list[tuple[IndexDoc, SectionPostings]]:
        postings, counts = self._analyse(page, texts, stored_row(doc))
        self._impacts.add_section(*counts)
        return [(doc, postings)]

    def drain(self) -> list[tuple[IndexDoc, SectionPostings]]:
        return []

    def start_writing(self, directory: Path) -> None:
        pass

    def encoded(self, chunks: Iterable[list], lengths: array) -> Iterator[tuple[list, list]]:
        """Each chunk of (field, term, postings) with its terms encoded (``_TermEncoder``)."""
        encode = _TermEncoder(lengths)
        for chunk in chunks:
            yield chunk, encode([(name, flat) for name, _term, flat in chunk])

    def finish_writing(self, directory: Path) -> None:
        self._impacts.write(directory, SECTION_RANKING, PAGE_RANKING)


class _HelperAnalysis:
    """Sections analysed by a helper process (``_AnalysisServer``: the build's own helper, or
    one started here running ``_serve_analysis``) in batches, their postings and stored
    fields taken back in order; the helper also builds the impact arrays and writes them
    while this process writes the Whoosh files, and it encodes chunks of terms for them.

    When the helper already has ``IN_FLIGHT`` requests to do, this process analyses the
    next batch (or encodes the next chunk) itself and sends the helper only the counts, so
    neither core waits for the other. Who did what depends on timing, but both run the same
    functions and the impact builder sees every section in order, so the files never do."""

    BATCH_CHARS = 100_000
    IN_FLIGHT = 2
    MAX_PENDING = 8  # requests whose results are not taken back yet (bounds memory)

    def __init__(self, helper: HelperProcess | None = None):
        self._given = helper

    def __enter__(self) -> _HelperAnalysis:
        if self._given is not None:
            self._helper = self._given  # the build's own, already started (and closed by it)
        else:
            from .helper import HelperProcess

            self._helper = HelperProcess(__name__, "_serve_analysis", "build's analysis process")
        # Nothing is handed to the helper before it answers this: while it starts (about
        # 0.3 s) this process does the work itself.
        self._started = self._helper.request(("start", None))
        self._analyse = _SectionAnalyser()
        self._batch: list[tuple[int, list[str], dict]] = []
        self._docs: list[IndexDoc] = []
        self._chars = 0
        # Oldest first, per batch of sections (or chunk of terms): the batch, the helper's
        # ticket for its results or the results themselves when done here, and whether
        # they are taken back one per item (sections) or as a whole (a chunk of terms).
        self._pending: deque[tuple[list, int | list, bool]] = deque()
        self._write_ticket: int | None = None
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self._given is None:
            self._helper.close(discard=kind is not None)

    def _helper_free(self) -> bool:
        """True when the helper is up and has fewer than ``IN_FLIGHT`` requests to do. While
        it writes the impact arrays it is not: a chunk of terms queued behind them would
        hold up the chunks encoded here, which are written in order after it."""
        helper = self._helper
        if self._started is not None:
            if not helper.answered(self._started):
                return False
            helper.reply(self._started)
            self._started = None
        if self._write_ticket is not None and not helper.answered(self._write_ticket):
            return False
        busy = sum(1 for _, got, _each in self._pending if isinstance(got, int) and not helper.answered(got))
        return busy < self.IN_FLIGHT

    def put(self, page: int, texts: list[str], doc: IndexDoc) -> Iterator[tuple[IndexDoc, SectionPostings]]:
        self._batch.append((page, texts, stored_row(doc)))
        self._docs.append(doc)
        self._chars += sum(map(len, texts))
        if self._chars >= self.BATCH_CHARS:
            self._send()
            yield from self._taken(block=len(self._pending) >= self.MAX_PENDING)

    def drain(self) -> Iterator[tuple[IndexDoc, SectionPostings]]:
        if self._batch:
            self._send()
        while self._pending:
            yield from self._taken(block=True)

    def _send(self) -> None:
        if self._helper_free():
            self._pending.append((self._docs, self._helper.request(("sections", self._batch)), True))
        else:
            analysed = [self._analyse(*section) for section in self._batch]
            self._helper.request(("counts", [counts for _, counts in analysed]), wanted=False)
            self._pending.append((self._docs, [postings for postings, _ in analysed], True))
            # A helper starved of CPU must not make the counts pile up here.
            self._helper.catch_up(self.MAX_PENDING)
        self._batch, self._docs, self._chars = [], [], 0

    def _taken(self, block: bool) -> Iterator[tuple]:
        """The oldest requests' items with their results, as long as they are done (waiting
        for the oldest one when ``block``)."""
        while self._pending:
            items, got, each = self._pending[0]
            if isinstance(got, int):
                if not (block or self._helper.answered(got)):
                    return
                got = self._helper.reply(got)
            self._pending.popleft()
            if each:
                yield from zip(items, got)
            else:
                yield items, got
            block = False

    def start_writing(self, directory: Path) -> None:
        self._write_ticket = self._helper.request(("write", str(directory)))

    def encoded(self, chunks: Iterable[list], lengths: array) -> Iterator[tuple[list, list]]:
        """Each chunk of (field, term, postings) with its terms encoded, in order; the helper
        encodes some of them while it is free."""
        encode = _TermEncoder(lengths)
        self._helper.request(("lengths", lengths.tobytes()), wanted=False)
        for chunk in chunks:
            terms = [(name, flat) for name, _term, flat in chunk]
            if self._helper_free():
                self._pending.append((chunk, self._helper.request(("encode", terms)), False))
            else:
                self._pending.append((chunk, encode(terms), False))
            yield from self._taken(block=len(self._pending) >= self.MAX_PENDING)
        while self._pending:
            yield from self._taken(block=True)

    def finish_writing(self, directory: Path) -> None:
        assert self._write_ticket is not None
        self._helper.reply(self._write_ticket)


class _AnalysisServer:
    """The helper process's side of ``_HelperAnalysis``: ``start`` sets up a fresh impact
    builder for a new index, then it analyses sections, takes counts, encodes terms and
    writes the impact arrays, as asked. A context manager: the builder's spill files go
    with it."""

    def __init__(self) -> None:
        self._impacts: ImpactBuilder | None = None
        self._analyse: _SectionAnalyser | None = None
        self._encoder: _TermEncoder | None = None

    def __enter__(self) -> _AnalysisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._impacts is not None:
            self._impacts.__exit__(*exc)
            self._impacts = None

    def handle(self, request: tuple[str, object]) -> object:
        kind, payload = request
        if kind == "start":
            self.__exit__(None, None, None)
            self._impacts = _new_impacts()
            self._analyse = self._analyse or _SectionAnalyser()
            return None
        impacts = self._impacts
        if impacts is None:
            raise RuntimeError(f"{kind!r} before 'start'")
        if kind == "sections":
            assert self._analyse is not None
            done = []
            for section in payload:  # type: ignore[union-attr]
                postings, counts = self._analyse(*section)
                impacts.add_section(*counts)
                done.append(postings)
            return done
        if kind == "counts":
            for counts in payload:  # type: ignore[union-attr]
                impacts.add_section(*counts)
            return None
        if kind == "lengths":
            self._encoder = _TermEncoder(array("q", payload))  # type: ignore[arg-type]
            return None
        if kind == "encode":
            assert self._encoder is not None
            return self._encoder(payload)  # type: ignore[arg-type]
        if kind == "write":
            impacts.write(Path(payload), SECTION_RANKING, PAGE_RANKING)  # type: ignore[arg-type]
            return None
        raise ValueError(f"unknown request {kind!r}")


def _serve_analysis() -> None:
    """The helper process of ``_HelperAnalysis`` when ``write_index`` starts its own."""
    from .helper import serve

    with _AnalysisServer() as server:
        serve(server.handle)


class _FieldAnalyser:
    """A field's terms and their positions exactly as ``make_analyzer()`` gives them, from
    one cached lookup per distinct word instead of a chain of generators per token (the
    chain was half the build time). Also the field's word pairs (``pair_terms``)."""

    CACHE_LIMIT = 500_000

    def __init__(self) -> None:
        self._chain = make_analyzer()
        self._cache: dict[str, tuple[tuple[tuple[int, str], ...], int]] = {}

    def _word(self, word: str) -> tuple[tuple[tuple[int, str], ...], int]:
        """(position offset, term) of each term the word keeps, and how many positions it
        takes (IdentifierFilter numbers every part, stop words included)."""
        got = self._cache.get(word)
        if got is None:
            if len(self._cache) >= self.CACHE_LIMIT:
                self._cache.clear()
            terms = tuple((t.pos, t.text) for t in self._chain(word, positions=True))
            width = 1 if word.isalpha() and word.islower() else len(split_identifier(word))
            got = self._cache[word] = (terms, width)
        return got

    def analyse(self, text: str, pairs: bool) -> Analysed:
        positions: dict[str, list[int]] = {}
        heads: list[str] = []
        head = heads.append
        known = self._cache.get
        find = positions.get
        base = 0
        for word in _TOKEN_RE.findall(text):
            got = known(word)
            terms, width = got if got is not None else self._word(word)
            for offset, term in terms:
                found = find(term)
                if found is None:
                    positions[term] = [base + offset]
                else:
                    found.append(base + offset)
            if terms:
                head(terms[-1][1])
            base += width
        return positions, Counter(adjacent_pairs(heads)) if pairs else None


_TEXT_FIELD = {name: i for i, name in enumerate(SEARCH_FIELDS)}
# The stored column's innermost writer, past its pickling and compressing (stored_bytes).
_add_bytes = VarBytesColumn.Writer.add


_STORED_FIELDS = frozenset(name for name in make_schema().names() if make_schema()[name].stored)
_STORED_LEVEL = STORED_COLUMN._child._level  # PickleColumn(CompressedBytesColumn(level))


def stored_row(doc: IndexDoc) -> dict:
    """The stored fields of ``doc`` in the order ``SegmentWriter.add_document`` stores them."""
    row = dict(doc.__dict__)
    row["order"] = list(doc.order)
    return {name: row[name] for name in sorted(row) if name in _STORED_FIELDS and row[name] is not None}


def stored_bytes(row: dict) -> bytes:
    """What Whoosh's stored column writes for ``row`` (pickled, then compressed): computed
    with the analysis, so the helper takes this off the build process too."""
    return zlib.compress(pickle.dumps(row, 2), _STORED_LEVEL)


def _add_document(
    writer,
    postings: _TermPostings,
    doc: IndexDoc,
    lengths: list[int],
    analysed: list[list],
    stored: bytes,
) -> None:
    """``SegmentWriter.add_document`` with the text fields' postings already analysed and
    the stored fields already encoded (``SectionPostings``); the same postings, lengths and
    stored values, so the same index bytes. The postings go to ``postings``, not to the
    writer's pool."""
    schema = writer.schema
    docnum = writer.docnum
    perdoc = writer.perdocwriter
    row = dict(doc.__dict__)
    row["order"] = list(doc.order)
    added = 0
    perdoc.start_doc(docnum)
    try:
        for name in sorted(row):
            value = row[name]
            if value is None:
                continue
            field = schema[name]
            length = 0
            column = _TEXT_FIELD.get(name)
            if column is not None:
                terms = postings.field(name)
                flat = analysed[column]
                length = lengths[column]
                for at in range(0, len(flat), 3):
                    entry = terms.get(flat[at])
                    if entry is None:
                        terms[flat[at]] = [docnum, flat[at + 1], flat[at + 2]]
                    else:
                        entry += (docnum, flat[at + 1], flat[at + 2])
                added += len(flat) // 3
            elif field.indexed:
                terms = postings.field(name)
                for tbytes, freq, weight, vbytes in field.index(value):
                    if field.scorable:
                        length += freq
                    term = tbytes.decode("utf-8")
                    entry = terms.get(term)
                    if entry is None:
                        terms[term] = [docnum, weight, vbytes]
                    else:
                        entry += (docnum, weight, vbytes)
                    added += 1
            perdoc.add_field(name, field, None, length)  # the stored values are in ``stored``
            if field.column_type:
                perdoc.add_column_value(name, field.column_type, field.to_column_value(value))
    except BaseException:
        perdoc.cancel_doc()
        raise
    _add_bytes(perdoc._colwriters["_stored"]._child, docnum, stored)
    perdoc.finish_doc()
    writer._added = True
    writer.docnum += 1
    postings.added(added)


class _TermPostings:
    """A segment's postings grouped by field and term as sections are added.

    Sections arrive in document-number order, so each term's postings are already in
    order: only the terms need sorting, not every posting as in Whoosh's pool. A term's
    postings are one flat list ``[doc, weight, value, doc, weight, value, ...]``. Past
    ``limit`` bytes (estimated) the terms are spilled, sorted, to a run file; runs hold
    consecutive document ranges, so merging them joins each term's lists in run order.
    """

    CHUNK = 10_000  # postings per marshal call in a run file (bounds memory when merging)
    POSTING_BYTES = 140  # estimated memory of one posting (list slots, int, float, bytes)

    def __init__(self, folder: str, limit: int):
        self._folder = folder
        self._limit = limit
        self._fields: dict[str, dict[str, list]] = {}
        self._size = 0
        self._runs: list[str] = []

    def field(self, name: str) -> dict[str, list]:
        terms = self._fields.get(name)
        if terms is None:
            terms = self._fields[name] = {}
        return terms

    def added(self, count: int) -> None:
        """``count`` postings went in: spill once the estimate passes the limit."""
        self._size += count * self.POSTING_BYTES
        if self._size > self._limit:
            self._spill()

    def _sorted(self) -> Iterator[tuple[str, str, list]]:
        for name in sorted(self._fields):
            terms = self._fields[name]
            for term in sorted(terms):
                yield name, term, terms[term]

    def _spill(self) -> None:
        fd, path = tempfile.mkstemp(suffix=".run", dir=self._folder)
        with os.fdopen(fd, "wb") as f:
            chunk: list = []
            size = 0
            for item in self._sorted():
                chunk.append(item)
                size += len(item[2])
                if size >= 3 * self.CHUNK:
                    _write_frame(f, chunk)
                    chunk, size = [], 0
            if chunk:
                _write_frame(f, chunk)
        self._runs.append(path)
        self._fields = {}
        self._size = 0

    def _read_run(self, path: str, run: int) -> Iterator[tuple[str, str, int, list]]:
        with open(path, "rb") as f:
            while True:
                head = f.read(8)
                if not head:
                    break
                for name, term, entry in marshal.loads(f.read(int.from_bytes(head, "little"))):
                    yield name, term, run, entry
        os.unlink(path)

    def terms(self) -> Iterator[tuple[str, str, list]]:
        """(field, term, its postings) in the order Whoosh's files keep: by field name,
        then by term (the order of code points is the order of their UTF-8 bytes)."""
        if not self._runs:
            yield from self._sorted()
            return
        last = len(self._runs)
        streams = [self._read_run(path, n) for n, path in enumerate(self._runs)]
        streams.append((name, term, last, entry) for name, term, entry in self._sorted())
        held: tuple[str, str, list] | None = None
        for name, term, _run, entry in heapq.merge(*streams):
            if held is not None and held[0] == name and held[1] == term:
                held[2].extend(entry)
                continue
            if held is not None:
                yield held
            held = (name, term, entry)
        if held is not None:
            yield held

    def cleanup(self) -> None:
        for path in self._runs:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        self._runs = []
        self._fields = {}


def _write_frame(f, items: list) -> None:
    data = marshal.dumps(items)
    f.write(len(data).to_bytes(8, "little"))
    f.write(data)


def _flush_segment(writer, postings: _TermPostings, lengths: array, analysis) -> None:
    """``SegmentWriter._flush_segment``, writing the grouped postings term by term; their
    blocks are encoded by ``analysis`` (in this process or, partly, in the helper)."""
    writer.perdocwriter.close()
    _write_postings(writer.fieldwriter, postings, lengths, analysis)
    writer.fieldwriter.close()


_WRITE_BYTES = 1 << 20
# Postings per chunk of terms handed to the encoder (a helper request); a term costs about
# as much to encode as TERM_POSTINGS postings, so a chunk of many rare terms (the refs) is
# no slower than one of a few common ones.
CHUNK_POSTINGS = 20_000
TERM_POSTINGS = 16


def _term_chunks(terms: Iterator[tuple[str, str, list]]) -> Iterator[list[tuple[str, str, list]]]:
    chunk: list[tuple[str, str, list]] = []
    size = 0
    for item in terms:
        chunk.append(item)
        size += len(item[2]) + 3 * TERM_POSTINGS
        if size >= 3 * CHUNK_POSTINGS:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _write_postings(fieldwriter, postings: _TermPostings, lengths: array, analysis) -> None:
    """What ``W3FieldWriter.add_postings`` writes for a stream of sorted postings (the same
    bytes): each term's encoded blocks (``_TermEncoder``) in the postings file and its term
    info row, with the term's place in the file, in the terms table."""
    postfile = fieldwriter._postfile
    add_row = fieldwriter._tindex.add
    fieldmap = fieldwriter._fieldmap
    # Written in large pieces: a write call per block part was a fifth of this function.
    out = bytearray()
    base = postfile.tell()
    current = None
    for chunk, encoded in analysis.encoded(_term_chunks(postings.terms()), lengths):
        for (name, term, _flat), (region, info) in zip(chunk, encoded):
            if name != current:
                current = name
                fieldmap.setdefault(name, len(fieldmap))
                prefix = pack_ushort(fieldmap[name])
            if len(out) >= _WRITE_BYTES:
                postfile.write(out)
                base += len(out)
                out.clear()
            info.set_extent(base + len(out), len(region))
            out += region
            add_row(prefix + term.encode("utf-8"), info.to_bytes())
    postfile.write(out)


# A block whose pickle is shorter than this is stored as it is, not compressed; its header
# says so (compression level 0) and Whoosh's reader then does not decompress it. Below about
# 100 bytes zlib's output is longer than its input; up to this size storing blocks raw
# skips about 70% of the zlib calls for about 2% more index (index format 10).
RAW_BLOCK_BYTES = 256


class _TermEncoder:
    """Encodes terms' postings as ``W3PostingsWriter`` does: blocks of ``blocklimit``
    postings, each pickled behind a pickled header, and the term's ``W3TermInfo`` (its
    place in the file is set by the writer). Unlike Whoosh's writer it compresses only
    blocks of at least ``RAW_BLOCK_BYTES`` (Whoosh 2.7.5 meant to leave the smallest ones
    raw, and its reader reads either)."""

    def __init__(self, lengths: array):
        self._lengths = lengths
        schema = make_schema()
        self._fixed = {name: schema[name].format.fixed_value_size() for name in schema.names() if schema[name].indexed}
        self._columns = {name: i for i, name in enumerate(SEARCH_FIELDS)}
        codec = default_codec()  # the writer's (ix.writer() is given no other)
        self._blocklimit, self._compression = codec._blocklimit, codec._compression

    def __call__(self, chunk: Sequence[tuple[str, list]]) -> list[tuple[bytes, W3TermInfo]]:
        return [self._term(name, flat) for name, flat in chunk]

    def _term(self, name: str, flat: list) -> tuple[bytes, W3TermInfo]:
        blocklimit, compression = self._blocklimit, self._compression
        fixed = self._fixed[name]
        column = self._columns.get(name)
        width = len(SEARCH_FIELDS)
        lengths = self._lengths
        docs = flat[0::3]
        weights = flat[1::3]
        values = flat[2::3]
        sizes = [lengths[doc * width + column] for doc in docs] if column is not None else None
        info = W3TermInfo()
        out = bytearray(WHOOSH3_HEADER_MAGIC)
        total = len(docs)
        for at in range(0, total, blocklimit):
            end = min(at + blocklimit, total)
            count = end - at
            ids = docs[at:end] if count < total else docs
            packed = array("f", weights[at:end])
            maxweight = max(0, max(weights[at:end]))
            if sizes is None:
                minlength, maxlength = None, 0
            else:
                known = [n for n in sizes[at:end] if n]
                minlength = min(known) if known else None
                maxlength = max(known) if known else 0
            # W3TermInfo.add_block, for this block's statistics
            info._weight += sum(packed)
            info._df += count
            if info._minlength is None:
                info._minlength = minlength
            else:
                info._minlength = min(info._minlength, minlength)
            info._maxlength = max(info._maxlength, maxlength)
            info._maxweight = max(info._maxweight, maxweight)
            if info._minid is None:
                info._minid = ids[0]
            info._maxid = ids[-1]
            first = packed[0]
            if packed.count(first) != count:
                mini_weights = tuple(packed)
            else:
                mini_weights = None if first == 1.0 else first
            if fixed is None or fixed < 0:
                mini_values = tuple(filter(None, values[at:end]))
            elif fixed == 0:
                mini_values = None
            else:
                mini_values = b"".join(filter(None, values[at:end]))
            deltas = (ids[0],) if count == 1 else tuple(map(operator.sub, ids, [0, *ids[:-1]]))
            data = pickle.dumps((deltas, mini_weights, mini_values), 2)
            level = compression if len(data) >= RAW_BLOCK_BYTES else 0
            if level:
                data = zlib.compress(data, level)
            head = pickle.dumps(
                (
                    count,
                    ids[-1],
                    maxweight,
                    level,
                    length_to_byte(minlength),
                    length_to_byte(maxlength),
                ),
                2,
            )
            size = len(head) + len(data)
            out += pack_int(-size if end == total else size)
            out += head
            out += data
        return bytes(out), info


def _stored_length(length: int) -> int:
    """A field length as the index keeps it (one byte, approximate), which BM25F reads."""
    encoded = length_to_byte(length) if length else 0
    return byte_to_length(encoded) if encoded else 0


def pair_terms(text: str) -> list[str]:
    """The word pairs of ``text``: each word stands for its last term (an identifier's
    whole name, a plain word's stem), stop words are skipped, and neighbours are paired.
    Query and index use this one function, so pairs built from identifier parts (which
    would double-count the identifier) never occur on either side."""
    heads = [terms[-1] for terms in map(_word_terms, _TOKEN_RE.findall(text)) if terms]
    return list(adjacent_pairs(heads))


def adjacent_pairs(terms: Iterable[str]) -> Iterator[str]:
    """Terms that follow each other (stop words skipped), as one pair term each.

    Pairs are indexed like words, so a query's own neighbouring words score a bonus where
    they stand together in a section: the phrase and proximity signal, precomputed.
    """
    previous = None
    for term in terms:
        if previous is not None and previous != term:
            yield f"{previous}{PAIR_JOINER}{term}"
        previous = term


# Which sections a search may return: (source name, version) pairs; version "" for a
# source that is not versioned.
Scope = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RawHit:
    fields: dict
    score: float
    doc: int = -1


@dataclass(frozen=True)
class Outcome:
    hits: list[RawHit]
    total: int  # pages that matched
    terms: list[str]  # index terms searched for (to rank, explain and mark in snippets)
    warnings: list[str]
    pairs: list[str] = field(default_factory=list)  # neighbouring query terms (adjacent_pairs)
    fused: Fused | None = None  # both signals, when meaning was mixed in


# Anything the Whoosh parser would read as an operator: quotes, grouping, wildcards,
# field:value, and upper-case AND/OR/NOT. A "?" that ends a word ends a question; it is a
# wildcard only inside a word (`te?t`).
_OPERATOR = re.compile(
    r'"|\w\*|\w\?\w|\b(?:AND|OR|NOT|ANDNOT|ANDMAYBE)\b|(?<![:/])\b[a-z_]+:(?!//)\S'
)


def is_plain(text: str) -> bool:
    """True when ``text`` is just words (the fast, precomputed path can answer it).

    Parentheses alone are prose ("(Windows COM)", ``stub()``); they group only together
    with AND/OR/NOT, which already makes a query an operator query.
    """
    return not _OPERATOR.search(text)


_WORD_ANALYZER = make_analyzer()
_TOKEN_RE = re.compile(TOKEN_PATTERN)
# Query terms that ask for changes, so changelogs keep their full score.
CHANGE_TERMS = frozenset(t.text for t in _WORD_ANALYZER(" ".join(CHANGE_WORDS)))


@functools.lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    return tuple(t.text for t in _WORD_ANALYZER(word))


def _term_frequency(reader, field: str, term: str, doc: int) -> float:
    if (field, term) not in reader:
        return 0.0
    matcher = reader.postings(field, term)
    matcher.skip_to(doc)
    return matcher.weight() if matcher.is_active() and matcher.id() == doc else 0.0


_EDGE_PUNCTUATION = "\"'.,;:!?()[]{}<>"


def _no_words(text: str) -> str:
    return f"query {_shown(text)!r} has no words to search for; use a few words from the docs"


_ABSENT = " does not appear in these docs"


def absent_word_note(word: str) -> str:
    """The warning for a query word no section contains (and no known word is near)."""
    return f"{word!r}{_ABSENT}"


def is_absent_word_note(warning: str) -> bool:
    return warning.endswith(_ABSENT)


def _only_negations(text: str) -> str:
    return (
        f"query {_shown(text)!r} only says what to leave out; add words to search for, "
        "as in 'install NOT docker'"
    )


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


class WhooshIndex:
    """A read-only view of an index directory, safe to use from several threads."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._ix = _open_whoosh(directory)
        try:
            self._impacts = ImpactIndex.load(directory, SECTION_RANKING)
            self._page_impacts = ImpactIndex.load(directory, PAGE_RANKING)
            changelog_pages = np.load(directory / CHANGELOG_FILE, allow_pickle=False)
            self._changelog = changelog_pages[self._impacts.pages]  # per section
        except (OSError, ValueError, KeyError) as exc:
            self._ix.close()
            raise IndexLoadError(
                f"{directory}: the ranking data cannot be read ({exc}); "
                "reinstall the docs package or rebuild the index"
            ) from None
        self._scope_masks: dict[Scope, np.ndarray] = {}
        self.page_weight = PAGE_WEIGHT
        self.coord_power = COVERAGE_POWER
        self.pair_weight = PAIR_WEIGHT
        self.page_coverage = PAGE_COVERAGE
        self._speller: Speller | None = None
        # The semantic layer, when the build wrote one: loaded on the first hybrid search.
        self.has_semantic = (directory / SECTION_VECTORS_FILE).is_file()
        self._semantic: tuple[StaticEncoder, SectionVectors] | None = None
        self.semantic_weight = SEMANTIC_WEIGHT
        self.semantic_candidates = SEMANTIC_CANDIDATES
        self._local = threading.local()
        self._searchers: list = []
        self._lock = threading.Lock()
        self._parser = self._make_parser()
        self._analyzer = make_analyzer()

    def _make_parser(self) -> qparser.QueryParser:
        parser = qparser.MultifieldParser(
            list(SEARCH_FIELDS),
            self._ix.schema,
            fieldboosts=None,
            group=qparser.OrGroup.factory(0.9),
        )
        parser.add_plugin(qparser.FieldAliasPlugin({"heading": ["section"]}))
        return parser

    def _searcher(self):
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = self._ix.searcher(weighting=scoring.BM25F(B=0.75, K1=1.2))
            self._local.searcher = searcher
            with self._lock:
                self._searchers.append(searcher)
        return searcher

    def _semantic_layer(self) -> tuple[StaticEncoder, SectionVectors]:
        with self._lock:
            if self._semantic is None:
                try:
                    encoder = StaticEncoder.load(self.directory)
                    vectors = SectionVectors.load(self.directory, encoder.dim)
                except SemanticFilesError as exc:
                    raise IndexLoadError(
                        f"{exc}; reinstall the docs package or rebuild the index"
                    ) from None
                if len(vectors) != self._impacts.n_docs:
                    raise IndexLoadError(
                        f"{self.directory / SECTION_VECTORS_FILE}: {len(vectors)} vectors for "
                        f"{self._impacts.n_docs} sections; rebuild the index"
                    )
                self._semantic = (encoder, vectors)
            return self._semantic

    def semantic_model(self) -> dict:
        """What the build recorded about its encoder (name, licence, dimensions)."""
        return dict(self._semantic_layer()[0].metadata) if self.has_semantic else {}

    def close(self) -> None:
        with self._lock:
            for searcher in self._searchers:
                searcher.close()
            self._searchers.clear()
        self._ix.close()

    # -- queries -----------------------------------------------------------------------

    def analyze(self, text: str) -> list[str]:
        """The index terms a piece of text turns into."""
        return [t.text for t in self._analyzer(text)]

    def word_terms(self, word: str) -> tuple[str, ...]:
        """``analyze`` for one word, cached: snippets look up the same words again and again."""
        return _word_terms(word)

    def parse(self, text: str) -> tuple[query.Query, list[str]]:
        """Parse user input into a query and any warnings about how it was read.

        Malformed operator syntax falls back to the plain words, never an exception.
        """
        warnings: list[str] = []
        try:
            q = self._parser.parse(text)
        except Exception:
            # Whoosh's parser crashes on some inputs (e.g. "NOT NOT x").
            q = None
        if q is None or _has_match_all(q):
            # A bare "*" would score every section (seconds on a large index).
            q = self._parser.parse(_plain_words(text))
            warnings.append("query syntax could not be used as written; searched its words")
        lifted = _lift_negations(q)
        if lifted is query.NullQuery and _has_negation(q):
            raise QueryError(_only_negations(text))
        if lifted is query.NullQuery or _has_match_all(lifted):
            raise QueryError(_no_words(text))
        return lifted, warnings

    def search(
        self,
        text: str,
        *,
        scope: Scope | None = None,
        limit: int,
        per_page: bool = True,
        semantic: bool = False,
    ) -> Outcome:
        """Top ``limit`` sections for the query (at most one per page), and how it was read.

        Ranking is always BM25F from the precomputed impacts. Plain words are scored
        directly; operator syntax (AND/OR/NOT, phrases, ``field:``, wildcards) is parsed by
        Whoosh, which decides which sections match, and the impacts order those sections.
        """
        warnings: list[str] = []
        words = text.split()
        if len(words) > MAX_QUERY_WORDS:
            text = " ".join(words[:MAX_QUERY_WORDS])
            warnings.append(f"query is long; searched its first {MAX_QUERY_WORDS} words")
        matching = None
        pairs: list[str] = []
        if is_plain(text):
            terms, corrections, absent = self._plain_terms(text)
            if not terms:
                raise QueryError(_no_words(text))
            pairs = list(dict.fromkeys(pair_terms(text)))
            warnings += [f"searched for {new!r} instead of {old!r}" for old, new in corrections]
            warnings += [absent_word_note(word) for word in absent]
        else:
            q, parse_warnings = self.parse(text)
            warnings += parse_warnings
            terms = self._query_terms(q)
            matching = self._matches(q)
        terms = list(dict.fromkeys(terms))
        fused = None
        if semantic and matching is None and self.has_semantic:
            # Plain words only: operator queries say exactly what must match.
            encoder, vectors = self._semantic_layer()
            fused = fuse(
                self._score(terms, pairs, demote=False),
                vectors.cosine(encoder.encode(text)[0]),
                weight=self.semantic_weight,
                candidates=self.semantic_candidates,
            )
            scores = self._demote_changelogs(fused.scores, terms)
        elif matching is None and scope is None:
            # The common case stays sparse: no whole-index arrays at all.
            hit, part = self._sparse_score(terms, pairs)
            chosen, total = best_per_page_of(hit, part, self._impacts.pages, limit, per_page=per_page)
            return Outcome(self._hits(chosen), total, terms, warnings, pairs, fused)
        else:
            scores = self._score(terms, pairs)
        if matching is not None:
            # The query decides what matches; a match with no scored term (a wildcard over
            # rare words) still counts, below every scored one.
            scores = np.where(matching, scores + MATCH_FLOOR, 0.0)
        if scope is not None:
            scores = np.where(self._scope_mask(scope), scores, 0.0)
        chosen, total = best_per_page(scores, self._impacts.pages, limit, per_page=per_page)
        return Outcome(self._hits(chosen), total, terms, warnings, pairs, fused)

    def _hits(self, chosen: list[tuple[int, float]]) -> list[RawHit]:
        searcher = self._searcher()
        return [RawHit(dict(searcher.stored_fields(doc)), score, doc) for doc, score in chosen]

    def _plain_terms(self, text: str) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        """The index terms of a plain query, unknown words replaced by their nearest known
        term; and the words that are neither in the docs nor one edit from a word that is."""
        terms: list[str] = []
        corrections: list[tuple[str, str]] = []
        absent: list[str] = []
        for word in text.split():
            fixes = []
            known = False
            word_terms = without_number_parts(self.analyze(word))
            for term in word_terms:
                if term in self._impacts:
                    known = True
                    fixed = None
                else:
                    fixed = self._speller_for().suggest(term)
                    if fixed is None and len(word_terms) == 1:
                        fixed = self._speller_for().suggest_word(
                            word.strip(_EDGE_PUNCTUATION), porter_stem
                        )
                if fixed:
                    fixes.append(fixed)
                terms.append(fixed or term)
            if word_terms and not known and not fixes:
                absent.append(word.strip(_EDGE_PUNCTUATION))
            if fixes:
                corrections.append((word.strip(_EDGE_PUNCTUATION), max(fixes, key=len)))
        return terms, corrections, list(dict.fromkeys(absent))

    def _speller_for(self) -> Speller:
        if self._speller is None:
            self._speller = Speller(self._impacts.words(), self._impacts.document_frequency)
        return self._speller

    def _score(self, terms: list[str], pairs: Sequence[str] = (), demote: bool = True) -> np.ndarray:
        """Every section's score for plain query terms (0 for a section matching none)."""
        hit, part = self._sparse_score(terms, pairs, demote)
        out = np.zeros(self._impacts.n_docs, dtype=np.float64)
        out[hit] = part
        return out

    def _sparse_score(
        self, terms: list[str], pairs: Sequence[str] = (), demote: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sections matching any plain query term (ascending) and their scores (> 0).

        Only those sections are computed: on a large index most sections match nothing,
        and whole-array passes per query would dominate its time."""
        scores, matched = self._impacts.scores(terms)
        hit = np.flatnonzero(matched)
        if hit.size == 0:
            return hit, np.zeros(0)
        pages = self._impacts.pages[hit]
        page_scores, page_matched = self._page_impacts.scores(terms)
        part = scores[hit]
        if self.coord_power and len(terms) > 1:
            # Sections that match more of the question rank higher (no strict AND). A word
            # found elsewhere on the section's page counts too when self.page_coverage.
            covered = matched[hit]
            if self.page_coverage:
                covered = np.maximum(covered, page_matched[pages])
            part = part * (covered / len(terms)) ** self.coord_power
        if pairs and self.pair_weight:
            part = part + self.pair_weight * self._impacts.scores_at(pairs, hit)
        if self.page_weight:
            # A section is also judged by its page: words the question shares with the rest
            # of the page (its title, other sections) are evidence the page answers it.
            part = part + self.page_weight * page_scores[pages]
        if demote and not CHANGE_TERMS.intersection(terms):
            part = np.where(self._changelog[hit], part * CHANGELOG_FACTOR, part)
        return hit, part

    def _demote_changelogs(self, scores: np.ndarray, terms: Sequence[str]) -> np.ndarray:
        """Changelog sections count less unless the query asks for changes."""
        if CHANGE_TERMS.intersection(terms):
            return scores
        return np.where(self._changelog, scores * CHANGELOG_FACTOR, scores)

    def explain_fused(self, doc: int, fused: Fused, lexical: dict) -> dict:
        """``explain`` for a hybrid score: the word part (``lexical``, explained as usual)
        and the meaning part, each on the 0..1 scale they are mixed on."""
        changelog = lexical["changelog_factor"]
        return {
            **lexical,
            "hybrid": {
                "semantic_weight": self.semantic_weight,
                "lexical": round(float(fused.lexical[doc]), 4),
                "semantic": round(float(fused.semantic[doc]), 4),
                "cosine": round(float(fused.cosine[doc]), 4),
                "score": round(float(fused.scores[doc]) * changelog, 4),
            },
        }

    def explain(self, doc: int, terms: list[str], pairs: Sequence[str] = ()) -> dict:
        """Why section ``doc`` scored what it did: the BM25F contribution of each matched
        term split across the fields it was found in, the neighbouring-word pairs found,
        the page's share, and the coverage and changelog factors. The score is
        ``(section x coverage + pair_weight x pairs + page_weight x page) x changelog``."""
        reader = self._searcher().reader()
        n_docs = reader.doc_count_all()
        matched = {}
        for term in terms:
            impact = self._impacts.impact(term, doc)
            if not impact:
                continue
            shares = {}
            for name, weight in FIELD_WEIGHTS.items():
                tf = _term_frequency(reader, name, term, doc)
                if tf:
                    length = reader.doc_field_length(doc, name, 0) or 0
                    average = reader.field_length(name) / n_docs if n_docs else 0.0
                    shares[name] = pseudo_frequency(tf, length, average, weight)
            whole = sum(shares.values()) or 1.0
            matched[term] = {
                "score": round(impact, 4),
                "fields": {name: round(impact * share / whole, 4) for name, share in shares.items()},
            }
        found_pairs = {p: round(self._impacts.impact(p, doc), 4) for p in pairs}
        page = int(self._impacts.pages[doc])
        page_parts = [self._page_impacts.impact(term, page) for term in terms]
        page_score = sum(page_parts)
        covered = len(matched)
        if self.page_coverage:
            covered = max(covered, sum(1 for part in page_parts if part))
        coverage = (covered / len(terms)) ** self.coord_power if len(terms) > 1 else 1.0
        changelog = bool(self._changelog[doc]) and not CHANGE_TERMS.intersection(terms)
        return {
            "terms": terms,
            "matched": matched,
            "section_score": round(sum(m["score"] for m in matched.values()), 4),
            "coverage": round(coverage, 4),
            "pairs": {p: v for p, v in found_pairs.items() if v},
            "pair_weight": self.pair_weight,
            "page_score": round(page_score, 4),
            "page_weight": self.page_weight,
            "changelog_factor": CHANGELOG_FACTOR if changelog else 1.0,
        }

    def _matches(self, q: query.Query, within: np.ndarray | None = None) -> np.ndarray:
        """Which sections a parsed query matches, as a boolean array.

        Boolean structure is combined with numpy; only leaves Whoosh must resolve itself
        (wildcards, ranges) go through its matchers, which are slow in Python when nested
        (an AND over ORs over five fields took 100+ ms on 16,000 sections). ``within``, when
        given, is a mask the caller will AND with the result: phrases are only looked for
        there (the rest of the mask may be wrong).
        """
        n_docs = self._impacts.n_docs
        if isinstance(q, query.Term):
            mask = np.zeros(n_docs, dtype=bool)
            reader = self._searcher().reader()
            if (q.fieldname, q.text) in reader:
                ids = reader.postings(q.fieldname, q.text).all_ids()
                mask[np.fromiter(ids, dtype=np.int64)] = True
            return mask
        if isinstance(q, query.Or):
            # The parser flattens "a OR b" into one OR of every word's field terms.
            words, rest = _split_any_field_words(q.subqueries)
            mask = np.zeros(n_docs, dtype=bool)
            for word in words:
                mask[self._impacts.documents(word)] = True
            for child in rest:
                mask |= self._matches(child, within)
            return mask
        if isinstance(q, query.And):
            # Each part is looked for only where the parts before it matched: a second
            # phrase is then checked in a few sections instead of all that hold its words.
            mask = np.ones(n_docs, dtype=bool) if within is None else within.copy()
            for child in sorted(q.subqueries, key=_phrase_count):
                mask &= self._matches(child, mask)
            return mask
        if isinstance(q, query.AndNot):
            found = self._matches(q.a, within)
            return found & ~self._matches(q.b, found)
        if isinstance(q, query.AndMaybe):
            return self._matches(q.a, within)
        if isinstance(q, query.Not):
            return ~self._matches(q.query)
        if type(q) is query.Phrase and q.slop == 1 and q.words:
            return self._phrase_matches(q.fieldname, list(q.words), within)
        mask = np.zeros(n_docs, dtype=bool)
        mask[np.fromiter(self._searcher().docs_for_query(q), dtype=np.int64)] = True
        return mask

    def _phrase_matches(
        self, field: str, words: list[str], within: np.ndarray | None = None
    ) -> np.ndarray:
        """The sections where ``words`` stand next to each other, in order, in ``field``.

        The matches of Whoosh's phrase matcher (pinned by a test), found with less work: the
        impacts give the sections that hold every word, and only those are looked up in the
        field's postings. Whoosh walks the postings through its span machinery in Python,
        which took 40-70 ms for one query with two phrases on 5 MB of docs.
        """
        mask = np.zeros(self._impacts.n_docs, dtype=bool)
        candidates: np.ndarray | None = None
        for word in dict.fromkeys(words):
            docs = self._impacts.documents(word)
            candidates = docs if candidates is None else np.intersect1d(candidates, docs, assume_unique=True)
            if candidates.size == 0:
                return mask
        if within is not None:
            candidates = candidates[within[candidates]]
        reader = self._searcher().reader()
        if any((field, word) not in reader for word in words):
            return mask
        postings = {word: reader.postings(field, word) for word in dict.fromkeys(words)}
        for doc in candidates.tolist():
            positions: list[set[int]] = []
            for word in words:
                cursor = postings[word]
                if cursor.is_active() and cursor.id() < doc:
                    cursor.skip_to(doc)
                if not cursor.is_active():
                    return mask  # this word occurs in no later section of the field
                if cursor.id() != doc:
                    break
                positions.append(set(cursor.value_as("positions")))
            else:
                first, rest = positions[0], positions[1:]
                if any(all(start + i in later for i, later in enumerate(rest, 1)) for start in first):
                    mask[doc] = True
        return mask

    def _query_terms(self, q: query.Query) -> list[str]:
        """Index terms of a parsed query, wildcards expanded to the words they match."""
        found = q.existing_terms(self._searcher().reader(), phrases=True, expand=True)
        terms = sorted({text.decode() if isinstance(text, bytes) else text for _f, text in found})
        return terms[:MAX_EXPANDED_TERMS]

    def _scope_mask(self, scope: Scope) -> np.ndarray:
        """The sections of the (source, version) pairs in ``scope``; cached, as a server
        asks for the same few scopes again and again."""
        mask = self._scope_masks.get(scope)
        if mask is None:
            mask = np.zeros(self._impacts.n_docs, dtype=bool)
            searcher = self._searcher()
            for source, version in scope:
                # A name is either versioned in all its sources or in none (the sources
                # file is checked), so an unversioned one is matched by its name alone.
                wanted: query.Query = query.Term("source", source)
                if version:
                    wanted = query.And([wanted, query.Term("version", version)])
                mask[list(searcher.docs_for_query(wanted))] = True
            self._scope_masks[scope] = mask
        return mask

    # -- stored documents --------------------------------------------------------------

    def stored(self, ref: str) -> dict | None:
        return self._searcher().document(ref=ref)

    def stored_page(self, page_ref: str) -> list[dict]:
        docs = list(self._searcher().documents(page_ref=page_ref))
        return sorted(docs, key=lambda d: tuple(d["order"]))

    def all_stored(self) -> Iterator[dict]:
        docs = list(self._searcher().reader().all_stored_fields())
        return iter(sorted(docs, key=lambda d: tuple(d["order"])))

# How much of a section's text its meaning vector is made from (see section_texts).
SEMANTIC_LEAD_CHARS = 300


def section_texts(directory: Path) -> list[str]:
    """What the semantic layer embeds for each section, in document-number order (the
    order of the ranking arrays): its heading path, its page's description and the first
    few sentences of its text.

    What a section is about is said in its headings and its opening; a static embedding
    averages every token, so the rest of a long section (examples, code, asides) only
    blurs it (on the dev queries, the lead beat the whole text by about 0.02 MRR@10)."""
    ix = _open_whoosh(directory)
    try:
        with ix.reader() as reader:
            return [
                f"{fields['section']}\n{fields['page_description']}\n\n{_lead(fields['content'])}"
                for _doc, fields in sorted(reader.iter_docs(), key=lambda item: item[0])
            ]
    finally:
        ix.close()


def _lead(text: str, size: int = SEMANTIC_LEAD_CHARS) -> str:
    """The first ``size`` characters of ``text``, cut at a word boundary."""
    if len(text) <= size:
        return text
    cut = text.rfind(" ", 0, size + 1)
    return text[: cut if cut > size // 2 else size]


def _open_whoosh(directory: Path):
    # Whoosh leaves a file open when it fails on a damaged index; the warning its clean-up
    # raises is noise once the failure is reported as an IndexLoadError.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            storage = FileStorage(str(directory), readonly=True)
            if not index.exists(storage, indexname=INDEX_NAME):
                raise IndexLoadError(
                    f"{directory}: no search index files found "
                    "(expected a docwheel index directory)"
                )
            return storage.open_index(indexname=INDEX_NAME)
        except IndexLoadError:
            raise
        except Exception as exc:  # Whoosh raises many types for a damaged index
            failure = f"{type(exc).__name__}: {exc}"
        gc.collect()
    raise IndexLoadError(
        f"{directory}: the search index cannot be read ({failure}); "
        "reinstall the docs package or rebuild the index"
    )


def _phrase_count(q: query.Query) -> int:
    """How many phrases a query holds: AND evaluates the parts with fewer first."""
    if type(q) is query.Phrase:
        return 1
    if q.is_leaf():
        return 0
    return sum(_phrase_count(c) for c in q.children())


def _split_any_field_words(children: Sequence[query.Query]) -> tuple[list[str], list[query.Query]]:
    """OR children as (words searched in every one of SEARCH_FIELDS, the other children).

    The parser reads a bare word as one term per searched field; the impacts list the
    sections holding a word in any field, so such a word needs no walk over five postings.
    """
    fields_of: dict[str, set[str]] = {}
    for child in children:
        if type(child) is query.Term and child.fieldname in FIELD_BOOSTS:
            fields_of.setdefault(child.text, set()).add(child.fieldname)
    whole = {text for text, names in fields_of.items() if len(names) == len(FIELD_BOOSTS)}
    rest = [c for c in children if not (type(c) is query.Term and c.text in whole)]
    words = [text.decode() if isinstance(text, bytes) else text for text in whole]
    return sorted(words), rest


def _lift_negations(q: query.Query) -> query.Query:
    """Read ``a b NOT c`` as "a or b, but not c".

    With an OR default group Whoosh keeps ``Not(c)`` as one more alternative, which matches
    nearly every document; a query of only negations matches nothing.
    """
    if not isinstance(q, query.compound.CompoundQuery):
        return query.NullQuery if isinstance(q, query.Not) else q
    children = [_lift_negations(c) if not isinstance(c, query.Not) else c for c in q.subqueries]
    negated = [c.query for c in children if isinstance(c, query.Not)]
    positive = [c for c in children if not isinstance(c, query.Not) and c is not query.NullQuery]
    if not negated:
        return _with_subqueries(q, positive) if positive else query.NullQuery
    if not positive:
        return query.NullQuery
    kept = positive[0] if len(positive) == 1 else _with_subqueries(q, positive)
    return query.AndNot(kept, query.Or(negated) if len(negated) > 1 else negated[0])


def _with_subqueries(q: query.Query, subqueries: list[query.Query]) -> query.Query:
    """A copy of compound ``q`` (keeping its boost and scale) over other subqueries."""
    new = copy.copy(q)
    new.subqueries = subqueries
    return new


def _plain_words(text: str) -> str:
    words = [w for w in (_strip_syntax(w) for w in text.split()) if w and w not in {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}]
    return " ".join(words)


def _strip_syntax(word: str) -> str:
    return "".join(ch for ch in word if ch.isalnum() or ch in "._-")


def _has_negation(q: query.Query) -> bool:
    if isinstance(q, query.Not):
        return True
    return any(_has_negation(c) for c in getattr(q, "subqueries", ()))


def _has_match_all(q: query.Query) -> bool:
    """True when any part of the query matches (nearly) every document."""
    for leaf in q.leaves() if not q.is_leaf() else [q]:
        if isinstance(leaf, query.Every):
            return True
        if isinstance(leaf, (query.Wildcard, query.Prefix)) and len(leaf.text.strip("*?")) < 1:
            return True
    return False
