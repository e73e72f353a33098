"""Writing an index at build time: sections analysed (here or in the build's helper
process), their postings encoded in Whoosh 2.7.5's own file formats, and the impact arrays
ranking reads.

Whoosh's writer spends most of a build in per-posting Python; this module writes the same
files (pinned by tests/test_index_write.py against Whoosh's writer) grouping postings by
term as sections arrive. It leans on Whoosh internals, so whoosh-reloaded stays pinned.
Reading, the schema and the analyzer live in ``index``; only these two modules import Whoosh.
"""

from __future__ import annotations

from array import array
import contextlib
import heapq
import json
import marshal
import operator
import os
import pickle
import random
import tempfile
import zlib
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from whoosh import formats, index
from whoosh.codec import default_codec
from whoosh.codec.whoosh3 import STORED_COLUMN, WHOOSH3_HEADER_MAGIC, W3TermInfo
from whoosh.columns import VarBytesColumn
from whoosh.system import pack_int, pack_uint, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte

from .anchors import from_stored, heading_marks
from .impact_build import ImpactBuilder
from .index import (
    COPIES_FAMILY_FILE,
    COPIES_OLD_FILE,
    COPIES_VERSION_FILE,
    COPIES_FILE,
    FIELD_WEIGHTS,
    INDEX_NAME,
    PAGE_RANKING,
    PAIR_FIELDS,
    SEARCH_FIELDS,
    SECTION_RANKING,
    STOP_WORDS,
    TOKEN_RE,
    TYPES_FILE,
    WORD_OR_BREAK_RE,
    adjacent_pairs,
    make_analyzer,
    make_schema,
)
from .doctypes import DOC_TYPES
from .english import write_common
from .ranking import WORDS_SUFFIX
from .snippets import prepare
from .spelling import is_surface_word, load_surface, save_surface
from .versions import page_copies
from .words import split_identifier

if TYPE_CHECKING:
    from .helper import HelperProcess  # imported when a build starts one


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
    # The ids inside the section's text (``anchors.to_stored``); None stores nothing.
    anchors: tuple[tuple[str, str, int, int], ...] | None = None
    type: str = "guide"  # the page's document type (doctypes.DOC_TYPES)
    heading_markdown: str | None = None  # Section.heading_markdown; None stores nothing
    # The text a snippet is cut from (snippets.PlainText.to_stored); None (a section too
    # long for one) stores nothing.
    plain: tuple | None = None
    # A long section's fenced code blocks (snippets.fenced_spans); None stores nothing.
    fences: tuple | None = None


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
        page_types: list[int] = []  # per dense page: its type's place in DOC_TYPES
        page_ids: list[tuple[str, str, str]] = []  # per dense page: source, version, path
        page_refs: list[str] = []  # per dense page
        known_lengths = array("q")  # stored length of each section's text fields, in a row
        count = 0
        given = None if isinstance(helper, bool) else helper
        with _HelperAnalysis(given) if helper else _LocalAnalysis() as analysis:
            try:
                for doc in docs:
                    if doc.order[0] not in page_numbers:
                        page_path = doc.page_ref.partition(":")[2]
                        page_types.append(DOC_TYPES.index(doc.type))
                        page_ids.append((doc.source, doc.version, page_path))
                        page_refs.append(doc.page_ref)
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
            try:
                writer.commit(optimize=True)
            except BaseException:
                # Whoosh leaves a segment's files open when writing them fails (a helper
                # that died, a full disk); they would stay open until garbage collection.
                if not writer.is_closed:
                    with contextlib.suppress(Exception):
                        writer.cancel()
                postings.cleanup()
                raise
            postings.cleanup()
            analysis.finish_writing(directory)
        with open(directory / TYPES_FILE, "wb") as f:
            np.save(f, np.array(page_types, dtype=np.uint8), allow_pickle=False)
        _write_copies(directory, page_ids, page_refs)
        ix.close()
        # The lock file is only meaningful while writing; an index ships without it.
        (directory / f"{INDEX_NAME}_WRITELOCK").unlink(missing_ok=True)
        return count
    finally:
        random.setstate(state)


def _write_common_words(directory: Path) -> None:
    """The common English words the docs do not use (``spelling.COMMON_FILE``), read
    against the index's terms and the docs' words just written; stop words never reach
    the speller."""
    words = json.loads((directory / f"{SECTION_RANKING}{WORDS_SUFFIX}").read_text(encoding="utf-8"))
    write_common(directory, STOP_WORDS.union(words), load_surface(directory))


def _write_copies(
    directory: Path, page_ids: list[tuple[str, str, str]], page_refs: list[str]
) -> None:
    """Which pages are versions of one another (``versions.page_copies``), per page; and
    the refs of the pages that have copies, so a hit names its other versions without
    reading their stored fields."""
    copies = page_copies(page_ids)
    with open(directory / COPIES_FAMILY_FILE, "wb") as f:
        np.save(f, np.array(copies.family, dtype=np.int32), allow_pickle=False)
    with open(directory / COPIES_OLD_FILE, "wb") as f:
        np.save(f, np.array(copies.old, dtype=bool), allow_pickle=False)
    with open(directory / COPIES_VERSION_FILE, "wb") as f:
        np.save(f, np.array(copies.version, dtype=np.int32), allow_pickle=False)
    sizes = Counter(copies.family)
    refs = {page: ref for page, ref in enumerate(page_refs) if sizes[copies.family[page]] > 1}
    text = json.dumps({"labels": copies.labels, "refs": refs}, ensure_ascii=False)
    (directory / COPIES_FILE).write_text(text, encoding="utf-8")


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

    @property
    def surface(self) -> dict[str, str]:
        """The words seen so far that the stemmer changes, with their stems."""
        return self._fields.surface

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
        return (lengths, postings, stored_bytes(with_plain(stored))), (
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
        save_surface(directory, self._analyse.surface)
        _write_common_words(directory)


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
        # The words this process analysed itself; the helper adds its own and writes them.
        self._helper.request(("surface", self._analyse.surface), wanted=False)
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
            self._analyse.surface.clear()  # the analyser serves one index after another
            self._surface: dict[str, str] = {}
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
        if kind == "surface":
            self._surface.update(payload)  # type: ignore[arg-type]
            return None
        if kind == "write":
            impacts.write(Path(payload), SECTION_RANKING, PAGE_RANKING)  # type: ignore[arg-type]
            assert self._analyse is not None
            save_surface(Path(payload), {**self._analyse.surface, **self._surface})  # type: ignore[arg-type]
            _write_common_words(Path(payload))  # type: ignore[arg-type]
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
        # Words the stemmer changes, with their stems, for the speller (spelling.SURFACE_FILE).
        self.surface: dict[str, str] = {}

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
            if len(terms) == 1 and is_surface_word(word):
                lowered = word.lower()
                if terms[0][1] != lowered:
                    self.surface[lowered] = terms[0][1]
        return got

    def analyse(self, text: str, pairs: bool) -> Analysed:
        positions: dict[str, list[int]] = {}
        heads: list[str | None] = []
        head = heads.append
        known = self._cache.get
        find = positions.get
        base = 0
        for word in (WORD_OR_BREAK_RE if pairs else TOKEN_RE).findall(text):
            if not word:  # a clause break: no pair spans it
                head(None)
                continue
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


def with_plain(row: dict) -> dict:
    """``row`` with the text a short section's snippets are cut from (``plain``,
    ``snippets.prepare``, given the marks ``api`` passes it), prepared here, with the
    analysis, so a large build's helper process takes it off the build process too."""
    if row.get("plain") is not None or "content" not in row:
        return row
    marks, _names = heading_marks(from_stored(row.get("anchors")), row.get("level", 0))
    plain = prepare(row["content"], marks)
    if plain is None:
        return row
    return dict(sorted({**row, "plain": plain.to_stored()}.items()))


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
