"""Everything that touches Whoosh: the schema, writing an index, and reading one.

whoosh-reloaded is unmaintained upstream, so no other module imports it. Writing happens only
at build time; at run time the index is opened through a read-only storage and every thread
gets its own searcher (a shared Whoosh searcher corrupts results under threads).
"""

from __future__ import annotations

import copy
import functools
import gc
import random
import re
import threading
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from whoosh import fields, index, qparser, query, scoring
from whoosh.analysis import (
    IntraWordFilter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
    StopFilter,
)
from whoosh.filedb.filestore import FileStorage

from .errors import IndexLoadError, QueryError
from .ranking import FieldWeight, ImpactIndex, best_per_page, pseudo_frequency

INDEX_NAME = "docwheel"

# Question words carry no meaning for matching ("how do I ..."); Whoosh's own list lacks them.
STOP_WORDS = frozenset(
    """a an and are as at be by can could do does did for from has have how i if in into is
    it its me my of on or our should so that the their them then there these this to too us
    was we what when where which who why will with would you your""".split()
)

# Keeps dotted, dashed and slashed names whole (asyncio.gather, --transport, a/b) so the
# intra-word filter can emit both their parts and the merged form.
_TOKEN_PATTERN = r"\w+(?:[.:\-/]\w+)*"


def make_analyzer():
    """Tokenizer chain for prose and code: identifiers split into parts, stemmed English."""
    return (
        RegexTokenizer(_TOKEN_PATTERN)
        | IntraWordFilter(mergewords=True, mergenums=True)
        | LowercaseFilter()
        | StopFilter(stoplist=STOP_WORDS, minsize=1)
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
# Words in more than this share of the sections only add to the score (split_common_terms).
COMMON_TERM_SHARE = 0.05


def make_schema() -> fields.Schema:
    ana = make_analyzer()
    text = {name: fields.TEXT(analyzer=ana, field_boost=boost) for name, boost in FIELD_BOOSTS.items()}
    return fields.Schema(
        ref=fields.ID(stored=True, unique=True),
        page_ref=fields.ID(stored=True, sortable=True),
        source=fields.ID(stored=True),
        url=fields.STORED(),
        anchor=fields.STORED(),
        page_title=fields.STORED(),
        heading_text=fields.STORED(),
        section=fields.STORED(),
        level=fields.STORED(),
        page_description=fields.STORED(),
        content=fields.STORED(),
        order=fields.STORED(),
        **text,
    )


@dataclass(frozen=True)
class IndexDoc:
    """One section as it is written to the index (the build assigns refs and order)."""

    ref: str
    page_ref: str
    source: str
    url: str
    anchor: str
    page_title: str
    heading_text: str
    section: str
    level: int
    page_description: str
    content: str
    order: tuple[int, int]
    # Searchable text, already split by the build.
    title: str
    heading: str
    description: str
    body: str
    code: str


def write_index(docs: Iterable[IndexDoc], directory: Path) -> int:
    """Write a fresh single-segment index into an empty ``directory``; return the doc count.

    The global ``random`` (Whoosh names segments with it) is seeded for the write and
    restored afterwards, so segment names do not vary between builds.
    """
    directory.mkdir(parents=True, exist_ok=True)
    state = random.getstate()
    random.seed(0)
    try:
        ix = index.create_in(str(directory), make_schema(), indexname=INDEX_NAME)
        writer = ix.writer(limitmb=256)
        pages: list[int] = []
        try:
            for doc in docs:
                row = {k: v for k, v in doc.__dict__.items()}
                row["order"] = list(doc.order)
                writer.add_document(**row)
                pages.append(doc.order[0])
        except BaseException:
            writer.cancel()
            raise
        writer.commit(optimize=True)
        with ix.reader() as reader:
            ImpactIndex.from_postings(_pseudo_frequencies(reader), pages).save(directory)
        ix.close()
        # The lock file is only meaningful while writing; an index ships without it.
        (directory / f"{INDEX_NAME}_WRITELOCK").unlink(missing_ok=True)
        return len(pages)
    finally:
        random.setstate(state)


def _pseudo_frequencies(reader) -> dict[str, dict[int, float]]:
    """term -> {section: BM25F pseudo-frequency}, read back from the finished Whoosh index."""
    n_docs = reader.doc_count_all()
    combined: dict[str, dict[int, float]] = defaultdict(dict)
    for name, weight in FIELD_WEIGHTS.items():
        lengths = [reader.doc_field_length(d, name, 0) or 0 for d in range(n_docs)]
        average = sum(lengths) / n_docs if n_docs else 0.0
        for term in reader.lexicon(name):
            matcher = reader.postings(name, term)
            text = term.decode("utf-8")
            row = combined[text]
            while matcher.is_active():
                doc = matcher.id()
                share = pseudo_frequency(matcher.weight(), lengths[doc], average, weight)
                row[doc] = row.get(doc, 0.0) + share
                matcher.next()
    return combined


@dataclass(frozen=True)
class RawHit:
    fields: dict
    score: float


@dataclass(frozen=True)
class Outcome:
    hits: list[RawHit]
    total: int  # pages that matched
    terms: set[str]  # index terms searched for (to mark in snippets)
    warnings: list[str]


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


@functools.lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    return tuple(t.text for t in _WORD_ANALYZER(word))


def _no_words(text: str) -> str:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return f"query {shown!r} has no words to search for; use a few words from the docs"


class WhooshIndex:
    """A read-only view of an index directory, safe to use from several threads."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._ix = _open_whoosh(directory)
        try:
            self._impacts = ImpactIndex.load(directory)
        except (OSError, ValueError, KeyError) as exc:
            self._ix.close()
            raise IndexLoadError(
                f"{directory}: the ranking data cannot be read ({exc}); "
                "reinstall the docs package or rebuild the index"
            ) from None
        self._source_masks: dict[str, np.ndarray] = {}
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
        words = text.split()
        if len(words) > MAX_QUERY_WORDS:
            text = " ".join(words[:MAX_QUERY_WORDS])
            warnings.append(f"query is long; searched its first {MAX_QUERY_WORDS} words")
        try:
            q = self._parser.parse(text)
        except Exception:
            # Whoosh's parser crashes on some inputs (e.g. "NOT NOT x").
            q = None
        if q is None or _has_match_all(q):
            # A bare "*" would score every section (seconds on a large index).
            q = self._parser.parse(_plain_words(text))
            warnings.append("query syntax could not be used as written; searched its words")
        q = _lift_negations(q)
        if q is query.NullQuery or _has_match_all(q):
            raise QueryError(_no_words(text))
        return q, warnings

    @staticmethod
    def query_terms(q: query.Query) -> set[str]:
        """The index terms a parsed query looks for (to mark them in snippets)."""
        terms = set()
        for _field, text in q.iter_all_terms():
            terms.add(text.decode() if isinstance(text, bytes) else text)
        return terms

    def search(self, text: str, *, source: str | None, limit: int) -> Outcome:
        """Top ``limit`` sections for the query (at most one per page), and how it was read.

        Plain words go through the precomputed BM25F impacts; operator syntax (AND/OR/NOT,
        phrases, ``field:``, wildcards) through Whoosh's parser and scorer.
        """
        if is_plain(text):
            return self._search_plain(text, source=source, limit=limit)
        q, warnings = self.parse(text)
        hits, total = self._search_whoosh(q, source=source, limit=limit)
        return Outcome(hits, total, self.query_terms(q), warnings)

    def _search_plain(self, text: str, *, source: str | None, limit: int) -> Outcome:
        warnings: list[str] = []
        words = text.split()
        if len(words) > MAX_QUERY_WORDS:
            text = " ".join(words[:MAX_QUERY_WORDS])
            warnings.append(f"query is long; searched its first {MAX_QUERY_WORDS} words")
        terms = list(dict.fromkeys(self.analyze(text)))
        if not terms:
            raise QueryError(_no_words(text))
        scores, _matched = self._impacts.scores(terms)
        if source:
            scores = np.where(self._source_mask(source), scores, 0.0)
        chosen, total = best_per_page(scores, self._impacts.pages, limit)
        searcher = self._searcher()
        hits = [RawHit(dict(searcher.stored_fields(doc)), score) for doc, score in chosen]
        return Outcome(hits, total, set(terms), warnings)

    def _source_mask(self, source: str) -> np.ndarray:
        mask = self._source_masks.get(source)
        if mask is None:
            mask = np.zeros(self._impacts.n_docs, dtype=bool)
            docs = list(self._searcher().docs_for_query(query.Term("source", source)))
            mask[docs] = True
            self._source_masks[source] = mask
        return mask

    def _search_whoosh(
        self, q: query.Query, *, source: str | None, limit: int
    ) -> tuple[list[RawHit], int]:
        searcher = self._searcher()
        q = split_common_terms(q, searcher.reader(), COMMON_TERM_SHARE)
        flt = query.Term("source", source) if source else None
        results = searcher.search(q, limit=limit, filter=flt, collapse="page_ref", collapse_limit=1)
        hits = [RawHit(dict(hit.fields()), float(hit.score)) for hit in results]
        pages = searcher.reader().column_reader("page_ref")
        allowed = set(searcher.docs_for_query(flt)) if flt is not None else None
        matched = {
            pages[doc] for doc in searcher.docs_for_query(q) if allowed is None or doc in allowed
        }
        return hits, len(matched)

    # -- stored documents --------------------------------------------------------------

    def stored(self, ref: str) -> dict | None:
        return self._searcher().document(ref=ref)

    def stored_page(self, page_ref: str) -> list[dict]:
        docs = list(self._searcher().documents(page_ref=page_ref))
        return sorted(docs, key=lambda d: tuple(d["order"]))

    def all_stored(self) -> Iterator[dict]:
        docs = list(self._searcher().reader().all_stored_fields())
        return iter(sorted(docs, key=lambda d: tuple(d["order"])))

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


def split_common_terms(q: query.Query, reader, share: float) -> query.Query:
    """Score very common words only on sections that match a rarer word of the query.

    In a plain OR query, a word found in a large share of the sections (``fastmcp`` in the
    FastMCP docs) adds little to ranking but dominates the cost, because every section it
    occurs in must be scored. As in Lucene's common-terms query, such words become optional
    (``AndMaybe``): they still lift the sections that match the rare words.
    """
    if not isinstance(q, query.Or) or not all(isinstance(t, query.Term) for t in q.subqueries):
        return q
    limit = share * max(1, reader.doc_count())
    frequency: dict[str, int] = defaultdict(int)
    for term in q.subqueries:
        if (term.fieldname, term.text) in reader:
            frequency[term.text] = max(frequency[term.text], reader.doc_frequency(term.fieldname, term.text))
    common = {text for text, df in frequency.items() if df > limit}
    rare = [t for t in q.subqueries if t.text not in common]
    if not common or not rare:
        return q
    optional = [t for t in q.subqueries if t.text in common]
    return query.AndMaybe(_with_subqueries(q, rare), _with_subqueries(q, optional))


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


def _has_match_all(q: query.Query) -> bool:
    """True when any part of the query matches (nearly) every document."""
    for leaf in q.leaves() if not q.is_leaf() else [q]:
        if isinstance(leaf, query.Every):
            return True
        if isinstance(leaf, (query.Wildcard, query.Prefix)) and len(leaf.text.strip("*?")) < 1:
            return True
    return False
