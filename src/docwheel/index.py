"""The index's schema and analyzer, and reading and searching an index.

whoosh-reloaded is unmaintained upstream, so only this module and ``index_write`` (which
writes an index at build time) import it. At run time the index is opened through a
read-only storage and every thread gets its own searcher (a shared Whoosh searcher
corrupts results under threads).
"""

from __future__ import annotations

import copy
import functools
import gc
import json
import re
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from whoosh import fields, index, qparser, query, scoring
from whoosh.analysis import (
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
)
from whoosh.filedb.filestore import FileStorage

from .doctypes import ASKING_WORDS, DOC_TYPES, SECONDARY_TYPES
from .errors import IndexLoadError, QueryError, SemanticFilesError
from .fusion import (
    SEMANTIC_CANDIDATES,
    SEMANTIC_FULL_MISSING,
    SEMANTIC_WEIGHT,
    Fused,
    corrected_query,
    fuse,
)
from .ranking import (
    CHANGELOG_FACTOR,
    OLD_VERSION_FACTOR,
    FieldWeight,
    ImpactIndex,
    best_per_page,
    best_per_page_of,
    pseudo_frequency,
)
from .semantic import SECTION_VECTORS_FILE, SectionVectors, StaticEncoder
from .spelling import COMMON_FILE, SURFACE_FILE, Speller, load_common, load_surface
from .versions import named_versions
from .words import TOKEN_PATTERN, split_identifier, without_number_parts

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


# Irregular verb forms the stemmer cannot join to their verb ("overridden" stems to itself,
# "override" to overrid): each is read as its base form first, so "an overridden component"
# finds the page about overriding components. Only forms that are no other common word.
IRREGULAR_FORMS = {
    "arisen": "arise", "arose": "arise", "began": "begin", "begun": "begin",
    "broken": "break", "chose": "choose", "chosen": "choose", "drawn": "draw", "drew": "draw",
    "driven": "drive", "drove": "drive", "fallen": "fall", "forbade": "forbid",
    "forbidden": "forbid", "forgot": "forget", "forgotten": "forget", "froze": "freeze",
    "frozen": "freeze", "gave": "give", "given": "give", "gotten": "get", "grew": "grow",
    "grown": "grow", "hid": "hide", "hidden": "hide", "knew": "know", "known": "know",
    "overridden": "override", "overrode": "override", "overwritten": "overwrite",
    "overwrote": "overwrite", "ran": "run", "rewritten": "rewrite", "rewrote": "rewrite",
    "ridden": "ride", "rode": "ride", "shown": "show", "spoke": "speak", "spoken": "speak",
    "taken": "take", "threw": "throw", "thrown": "throw", "took": "take", "woken": "wake",
    "woke": "wake", "written": "write", "wrote": "write",
}


class IrregularForms(Filter):
    """Reads each irregular verb form in ``IRREGULAR_FORMS`` as its base form."""

    def __call__(self, tokens):
        for token in tokens:
            base = IRREGULAR_FORMS.get(token.text)
            if base is not None:
                token.text = base
            yield token


# English stemming by the Snowball rules (Porter2). Whoosh's default Porter stemmer leaves
# doubled consonants ("stubbing" -> stubb, "running" -> runn: not "stub", "run") and folds
# unrelated words together ("general", "generic" and "generate" -> gener).
STEM_LANGUAGE = "en"


def make_analyzer():
    """Tokenizer chain for prose and code: identifiers split into parts, stemmed English."""
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | IdentifierFilter()
        | LowercaseFilter()
        | IrregularForms()
        | StopWords(STOP_WORDS)
        | StemFilter(lang=STEM_LANGUAGE)
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
# Per page: its document type, as a place in doctypes.DOC_TYPES.
TYPES_FILE = "page_type.npy"
# Versioned copies of a page (versions.page_copies): per page, its family (the copies share
# one number), whether it is an old version and its version (a position in the labels);
# and (JSON) the version labels and the refs of the pages that have copies.
COPIES_FAMILY_FILE = "page_family.npy"
COPIES_OLD_FILE = "page_old.npy"
COPIES_VERSION_FILE = "page_version.npy"
COPIES_FILE = "page_copies.json"
# How much a section's page counts beside the section itself, and how strongly a section
# that matches only part of the query is held back (score x matched share ** power). Both
# chosen on the dev queries as one setting for all corpora, and checked leave-one-corpus-out
# (a square held back the section that holds a question's rare words among its common ones
# too much: power 1 was chosen on every held-out corpus and lost on none).
PAGE_WEIGHT = 1.0
COVERAGE_POWER = 1.0
# Coverage counts a query word found anywhere on the section's page, not only in the
# section: an answer's words are often spread over a page's sections.
PAGE_COVERAGE = True
# Neighbouring query words found next to each other in a section add this share of their
# pair's BM25F score (pair_terms); pairs come from the prose, title and headings.
PAIR_WEIGHT = 0.25
# A word a question writes as code, a call (``alert()``, ``sinon.reset()``) or in backticks,
# names the thing it asks about; beside the question's prose words, its terms count this
# many times their score in the section and in its page. Checked leave-one-corpus-out.
CODE_WORD_WEIGHT = 2.0
PAIR_FIELDS = frozenset({"title", "heading", "body"})
PAIR_JOINER = " "
# The field names a query may write before a colon (``title:install``), each with the index
# field it searches. Only these are fields: any other ``word:rest`` (``vite:preloadError``,
# ``std::vector``) is a literal term, as written in the docs.
QUERY_FIELDS = {"title": "title", "section": "heading", "source": "source"}
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
        anchors=fields.STORED(),  # Section.anchors (anchors.to_stored); absent when none
        page_title=fields.STORED(),
        heading_text=fields.STORED(),
        heading_markdown=fields.STORED(),  # Section.heading_markdown; absent when the same
        section=fields.STORED(),
        level=fields.STORED(),
        page_description=fields.STORED(),
        type=fields.ID(stored=True),
        content=fields.STORED(),
        plain=fields.STORED(),  # snippets.PlainText.to_stored; absent for a long section
        fences=fields.STORED(),  # snippets.fenced_spans of a long section; absent when none
        content_hash=fields.STORED(),
        order=fields.STORED(),
        **text,
    )


def pair_terms(text: str) -> list[str]:
    """The word pairs of ``text``: each word stands for its last term (an identifier's
    whole name, a plain word's stem), stop words are skipped, and neighbours are paired
    within a clause (``CLAUSE_BREAK``). Query and index pair words by the same rules, so
    pairs built from identifier parts (which would double-count the identifier) never occur
    on either side."""
    heads: list[str | None] = []
    for word in WORD_OR_BREAK_RE.findall(text):
        terms = _word_terms(word) if word else (None,)
        if terms:
            heads.append(terms[-1])
    return list(adjacent_pairs(heads))


def adjacent_pairs(terms: Iterable[str | None]) -> Iterator[str]:
    """Terms that follow each other (stop words skipped), as one pair term each; ``None``
    marks a clause break, which no pair spans.

    Pairs are indexed like words, so a query's own neighbouring words score a bonus where
    they stand together in a section: the phrase and proximity signal, precomputed.
    """
    previous = None
    for term in terms:
        if term is not None and previous is not None and previous != term:
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
    other_versions: tuple[str, ...] = ()  # page refs of the same page in other versions


@dataclass(frozen=True)
class Outcome:
    hits: list[RawHit]
    total: int  # pages that matched
    terms: list[str]  # index terms searched for (to rank, explain and mark in snippets)
    warnings: list[str]
    pairs: list[str] = field(default_factory=list)  # neighbouring query terms (adjacent_pairs)
    fused: Fused | None = None  # both signals, when meaning was mixed in
    # Versions the query names (positions in the index's labels): their pages keep their full
    # score and other versions' are demoted, instead of old versions'.
    named_versions: tuple[int, ...] = ()
    # The document types the search was filtered to: secondary ones among them are asked for.
    types: tuple[str, ...] = ()
    # Terms that counted more than their score (CODE_WORD_WEIGHT), with their weight.
    emphasis: dict[str, float] = field(default_factory=dict)


# A query field before its value (``title:install``), not inside a longer name.
_FIELD_NAMES = "|".join(map(re.escape, QUERY_FIELDS))
_NOT_INSIDE_A_NAME = r"(?<![\w:/.\-])"
_FIELD_PREFIX = rf"{_NOT_INSIDE_A_NAME}(?:{_FIELD_NAMES}):"
# Anything the Whoosh parser would read as an operator: quotes, grouping, wildcards,
# one of QUERY_FIELDS, and upper-case AND/OR/NOT. A "?" that ends a word ends a question;
# it is a wildcard only inside a word (`te?t`).
_OPERATOR = re.compile(
    rf'"|\w\*|\w\?\w|\b(?:AND|OR|NOT|ANDNOT|ANDMAYBE)\b|{_FIELD_PREFIX}(?=[^\s:])'
)


def is_plain(text: str) -> bool:
    """True when ``text`` is just words (the fast, precomputed path can answer it).

    Parentheses alone are prose ("(Windows COM)", ``stub()``); they group only together
    with AND/OR/NOT, which already makes a query an operator query.
    """
    return not _OPERATOR.search(text)


_WORD_ANALYZER = make_analyzer()
TOKEN_RE = re.compile(TOKEN_PATTERN)
# Where neighbouring words stop being a phrase, for word pairs: the end of a sentence or
# clause (. ; : ! ? before a space), a table cell, and a new line that starts a list item,
# quote, heading or paragraph. "environment; dependencies" is not the phrase "environment
# dependencies", and a table row's cells are not one sentence.
CLAUSE_BREAK = r"[.;:!?](?=\s|$)|\||\n[ \t]*(?:[-*+>#]|\d+[.)]\s|\n)"
# Words (the group) and clause breaks (an empty match of the group), in text order.
WORD_OR_BREAK_RE = re.compile(f"({TOKEN_PATTERN})|(?:{CLAUSE_BREAK})")
# Per secondary type (doctypes.SECONDARY_TYPES, by its place in DOC_TYPES): the query terms
# that ask for it, so its pages keep their full score.
ASKING_TERMS = {
    DOC_TYPES.index(name): frozenset(t.text for t in _WORD_ANALYZER(" ".join(ASKING_WORDS[name])))
    for name in SECONDARY_TYPES
}


def demoted_types(terms: Iterable[str], asked: Iterable[str] = ()) -> tuple[int, ...]:
    """The secondary types (places in DOC_TYPES) a query with ``terms`` does not ask for,
    by its words or by naming them in its type filter (``asked``)."""
    found = set(terms)
    named = {DOC_TYPES.index(name) for name in asked if name in DOC_TYPES}
    return tuple(
        code for code, asking in ASKING_TERMS.items() if code not in named and not asking & found
    )


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
# A function named as prose names one, with empty parentheses (``alert()``,
# ``sinon.reset()``), or a word in backticks. ``Array(3)`` is more often printed output.
_CODE_WORD = re.compile(r"\w\(\)|`")


def is_code_word(word: str) -> bool:
    """Whether a query word is written as code, which names what the question is about."""
    return _CODE_WORD.search(word) is not None


def _no_words(text: str) -> str:
    return f"query {_shown(text)!r} has no words to search for; use a few words from the docs"


_ABSENT = " does not appear in these docs"


def absent_word_note(word: str) -> str:
    """The warning for a query word no section contains (and no known word is near)."""
    return f"{word!r}{_ABSENT}"


def is_absent_word_note(warning: str) -> bool:
    return warning.endswith(_ABSENT)


def _loosened_note(text: str) -> str:
    return (
        f"nothing matched {_shown(text)!r} as written; showing sections with any of its "
        "words instead"
    )


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
            page_types = np.load(directory / TYPES_FILE, allow_pickle=False)
            if page_types.size and int(page_types.max()) >= len(DOC_TYPES):
                raise ValueError(f"{TYPES_FILE} holds an unknown type")
            # Per section: its page's document type (a place in DOC_TYPES).
            self._types = page_types[self._impacts.pages]
            self._type_counts = np.bincount(page_types, minlength=len(DOC_TYPES))
            secondary = [DOC_TYPES.index(name) for name in SECONDARY_TYPES]
            changelog = np.isin(self._types, secondary)  # per section
            self._page_family = np.load(directory / COPIES_FAMILY_FILE, allow_pickle=False)
            self._family = self._page_family[self._impacts.pages]  # per section
            old = np.load(directory / COPIES_OLD_FILE, allow_pickle=False)[self._impacts.pages]
            # Per section: 1 for a secondary type (a changelog, a blog post), 2 for an old
            # version (both: 3); what _factors reads.
            self._demotions = changelog.astype(np.uint8) | (old.astype(np.uint8) << 1)
            page_version = np.load(directory / COPIES_VERSION_FILE, allow_pickle=False)
            # Per section: its page's version (versions.PageCopies.version; -1: none).
            self._version = page_version[self._impacts.pages]
            for name in (SURFACE_FILE, COMMON_FILE):
                if not (directory / name).is_file():
                    raise OSError(f"{name} is missing")
            copies = json.loads((directory / COPIES_FILE).read_text(encoding="utf-8"))
            self._version_labels = [str(label) for label in copies["labels"]]
            self._copy_refs = {int(page): str(ref) for page, ref in copies["refs"].items()}
        except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            self._ix.close()
            raise IndexLoadError(
                f"{directory}: the ranking data cannot be read ({exc}); "
                "reinstall the docs package or rebuild the index"
            ) from None
        self._scope_masks: dict[Scope, np.ndarray] = {}
        self._type_masks: dict[tuple[int, ...], np.ndarray] = {}
        self.page_weight = PAGE_WEIGHT
        self.coord_power = COVERAGE_POWER
        self.pair_weight = PAIR_WEIGHT
        self.code_word_weight = CODE_WORD_WEIGHT
        self.page_coverage = PAGE_COVERAGE
        self._speller: Speller | None = None
        # The semantic layer, when the build wrote one: loaded on the first hybrid search.
        self.has_semantic = (directory / SECTION_VECTORS_FILE).is_file()
        self._semantic: tuple[StaticEncoder, SectionVectors] | None = None
        self.semantic_weight = SEMANTIC_WEIGHT
        self.semantic_full_missing = SEMANTIC_FULL_MISSING
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
        # Whoosh reads any ``word:`` as a field name; only QUERY_FIELDS are.
        parser.remove_plugin_class(qparser.FieldsPlugin)
        parser.add_plugin(qparser.FieldsPlugin(expr=rf"{_NOT_INSIDE_A_NAME}(?P<text>{_FIELD_NAMES}):"))
        aliases: dict[str, list[str]] = {}
        for name, field_name in QUERY_FIELDS.items():
            if name != field_name:
                aliases.setdefault(field_name, []).append(name)
        parser.add_plugin(qparser.FieldAliasPlugin(aliases))
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
        parsed = text
        try:
            q = self._parser.parse(text)
        except Exception:
            # Whoosh's parser crashes on some inputs (e.g. "NOT NOT x").
            q = None
        if q is None or _has_match_all(q):
            # A bare "*" would score every section (seconds on a large index).
            parsed = _plain_words(text)
            q = self._parser.parse(parsed)
            warnings.append("query syntax could not be used as written; searched its words")
        q = self._with_phrase_gaps(q, parsed)
        lifted = _lift_negations(q)
        if lifted is query.NullQuery and _has_negation(q):
            raise QueryError(_only_negations(text))
        if lifted is query.NullQuery or _has_match_all(lifted):
            raise QueryError(_no_words(text))
        return lifted, warnings

    def _with_phrase_gaps(self, q: query.Query, text: str) -> query.Query:
        """``q`` with each phrase knowing where its words stand (``GappedPhrase``)."""
        if type(q) is query.Phrase:
            ranges = q.char_ranges or []
            if len(ranges) != len(q.words) or not ranges or ranges[0][0] is None:
                return q
            span = text[ranges[0][0] : ranges[-1][1]]
            tokens = [(t.pos, t.text) for t in self._analyzer(span, positions=True)]
            if [term for _pos, term in tokens] != list(q.words):
                return q
            offsets = tuple(pos - tokens[0][0] for pos, _term in tokens)
            if offsets == tuple(range(len(offsets))):
                return q  # no gap: Whoosh's own phrase
            return GappedPhrase(q.fieldname, list(q.words), offsets, boost=q.boost, char_ranges=ranges)
        if q.is_leaf():
            return q
        return q.apply(lambda child: self._with_phrase_gaps(child, text))

    def search(
        self,
        text: str,
        *,
        scope: Scope | None = None,
        limit: int,
        per_page: bool = True,
        semantic: bool = False,
        types: tuple[str, ...] | None = None,
    ) -> Outcome:
        """Top ``limit`` sections for the query (at most one per page), and how it was read.

        Ranking is always BM25F from the precomputed impacts. Plain words are scored
        directly; operator syntax (AND/OR/NOT, phrases, ``field:``, wildcards) is parsed by
        Whoosh, which decides which sections match, and the impacts order those sections.
        ``types`` keeps the pages of those document types only (None: every type).
        """
        warnings: list[str] = []
        asked = tuple(types or ())
        words = text.split()
        if len(words) > MAX_QUERY_WORDS:
            text = " ".join(words[:MAX_QUERY_WORDS])
            warnings.append(f"query is long; searched its first {MAX_QUERY_WORDS} words")
        matching = None
        pairs: list[str] = []
        emphasis: dict[str, float] = {}  # terms that count more than once (code words)
        if is_plain(text):
            terms, corrections, absent, code = self._plain_terms(text)
            if not terms:
                raise QueryError(_no_words(text))
            if code and self.code_word_weight != 1:
                emphasis = dict.fromkeys(code, self.code_word_weight)
            pairs = list(dict.fromkeys(pair_terms(text)))
            warnings += [f"searched for {new!r} instead of {old!r}" for old, new in corrections]
            warnings += [absent_word_note(word) for word in absent]
        else:
            q, parse_warnings = self.parse(text)
            warnings += parse_warnings
            terms = self._query_terms(q)
            matching = self._matches(q)
            found = matching if scope is None else matching & self._scope_mask(scope)
            if not found.any():
                loosened = self._loosened(q)
                if loosened is not None:
                    terms, matching = loosened
                    warnings.append(_loosened_note(text))
        terms = list(dict.fromkeys(terms))
        named = named_versions(text, self._version_labels)
        # One result per page, and a page's copies in other versions count as that page.
        groups = self._family if per_page else self._impacts.pages
        fused = None
        if semantic and matching is None and self.has_semantic:
            # Plain words only: operator queries say exactly what must match.
            encoder, vectors = self._semantic_layer()
            lexical = self._score(terms, pairs, demote=False, emphasis=emphasis)
            factors = self._factors(None, terms, named, asked)
            fused = fuse(
                lexical,
                vectors.cosine(encoder.encode(corrected_query(text, corrections))[0]),
                covered=self._best_coverage(
                    lexical if factors is None else lexical * factors, terms, scope, types
                ),
                weight=self.semantic_weight,
                full_missing=self.semantic_full_missing,
                candidates=self.semantic_candidates,
            )
            scores = fused.scores if factors is None else fused.scores * factors
        elif matching is None and scope is None and types is None:
            # The common case stays sparse: no whole-index arrays at all.
            hit, part = self._sparse_score(terms, pairs, named=named, emphasis=emphasis)
            chosen, total = best_per_page_of(hit, part, groups, limit, per_page=per_page)
            hits = self._hits(chosen, per_page)
            return Outcome(hits, total, terms, warnings, pairs, fused, named, asked, emphasis)
        else:
            scores = self._score(terms, pairs, named=named, asked=asked, emphasis=emphasis)
        if matching is not None:
            # The query decides what matches; a match with no scored term (a wildcard over
            # rare words) still counts, below every scored one.
            scores = np.where(matching, scores + MATCH_FLOOR, 0.0)
        if scope is not None:
            scores = np.where(self._scope_mask(scope), scores, 0.0)
        if types is not None:
            scores = np.where(self._type_mask(types), scores, 0.0)
        chosen, total = best_per_page(scores, groups, limit, per_page=per_page)
        return Outcome(
            self._hits(chosen, per_page), total, terms, warnings, pairs, fused, named, asked, emphasis
        )

    def _best_coverage(
        self,
        scores: np.ndarray,
        terms: Sequence[str],
        scope: Scope | None,
        types: tuple[str, ...] | None,
    ) -> float:
        """The share of ``terms`` that the best-scoring section the search may return holds
        (it or, as coverage counts, its page); 0 when none matched. How far the words alone
        answered the query: the hybrid mix lets meaning weigh only where they fell short."""
        if scope is not None:
            scores = np.where(self._scope_mask(scope), scores, 0.0)
        if types is not None:
            scores = np.where(self._type_mask(types), scores, 0.0)
        if not terms or not scores.any():
            return 0.0
        doc = int(np.argmax(scores))
        covered = sum(1 for term in terms if self._impacts.impact(term, doc))
        if self.page_coverage:
            page = int(self._impacts.pages[doc])
            held = sum(1 for term in terms if self._page_impacts.impact(term, page))
            covered = max(covered, held)
        return covered / len(terms)

    def _loosened(self, q: query.Query) -> tuple[list[str], np.ndarray] | None:
        """What an operator query that matched nothing falls back to: its words (those it
        does not exclude), any of them in any field, still without the sections its NOT
        part excludes; None when it has no word the docs hold. A strict query that finds
        nothing says little, and an empty answer leaves the reader nowhere to go."""
        positive, negative = (q.a, q.b) if isinstance(q, query.AndNot) else (q, None)
        terms = self._query_terms(positive)
        if not terms:
            return None
        mask = np.zeros(self._impacts.n_docs, dtype=bool)
        for term in terms:
            mask[self._impacts.documents(term)] = True
        if negative is not None:
            mask &= ~self._matches(negative, mask)
        return terms, mask

    def _hits(self, chosen: list[tuple[int, float]], per_page: bool) -> list[RawHit]:
        stored_fields = self._stored_fields()
        return [
            RawHit(
                stored_fields(doc),
                score,
                doc,
                self._other_versions(doc) if per_page else (),
            )
            for doc, score in chosen
        ]

    def _stored_fields(self):
        """A function from a section number to a fresh dict of its stored fields.

        Whoosh's reader copies every stored dict through a filter against the schema (for
        fields a later schema removed: an index here is written once, with every stored
        field in its schema); its one segment's own reader gives the same dict, about
        10 µs a hit sooner."""
        reader = self._searcher().reader()
        perdoc = getattr(reader, "_perdoc", None)
        if perdoc is None:  # not one segment (an index docwheel did not write)
            return lambda doc: dict(reader.stored_fields(doc))
        return lambda doc: perdoc.stored_fields(doc) or {}

    def _other_versions(self, doc: int) -> tuple[str, ...]:
        """Page refs of the other copies of section ``doc``'s page, current versions first."""
        page = int(self._impacts.pages[doc])
        if page not in self._copy_refs:
            return ()
        copies = np.flatnonzero(self._page_family == self._page_family[page])
        firsts = np.searchsorted(self._impacts.pages, copies)
        old = self._demotions[firsts] & 2
        found = sorted((bool(o), int(copy)) for copy, o in zip(copies, old) if copy != page)
        return tuple(self._copy_refs[copy] for _, copy in found)

    def _plain_terms(self, text: str) -> tuple[list[str], list[tuple[str, str]], list[str], list[str]]:
        """The index terms of a plain query, unknown words replaced by their nearest known
        term; the words that are neither in the docs nor one edit from a word that is; and
        the terms of the words written as code (``is_code_word``) when prose words surround
        them (a query of names alone weighs them all alike)."""
        terms: list[str] = []
        corrections: list[tuple[str, str]] = []
        absent: list[str] = []
        code: list[str] = []
        words = text.split()
        prose = any(not is_code_word(word) for word in words)
        for word in words:
            shown = word.strip(_EDGE_PUNCTUATION)
            first = len(terms)
            fixes = []
            known = False
            word_terms = without_number_parts(list(_word_terms(word)))  # analyze, cached
            common: bool | None = None  # a common English word is meant as typed (read on need)
            for term in word_terms:
                fixed = None
                if term in self._impacts:
                    known = True
                else:
                    if common is None:
                        common = self._speller_for().is_common(shown)
                    if common:
                        pass
                    elif len(word_terms) == 1:
                        speller = self._speller_for()
                        fixed = speller.root(shown) or speller.correct(term, shown)
                    else:
                        fixed = self._speller_for().suggest(term)
                if fixed:
                    fixes.append(fixed)
                terms.append(fixed or term)
            if word_terms and not known and not fixes and not common:
                absent.append(shown)  # a common word is phrasing: no news that the docs lack it
            if fixes:
                corrections.append((shown, max(fixes, key=len)))
            if prose and is_code_word(word):
                code += terms[first:]
        return terms, corrections, list(dict.fromkeys(absent)), code

    def _speller_for(self) -> Speller:
        if self._speller is None:
            self._speller = Speller(
                self._impacts.words(),
                self._impacts.document_frequency,
                self._surface,
                self._common,
            )
        return self._speller

    def _surface(self) -> dict[str, str]:
        return self._spelling_data(load_surface, SURFACE_FILE)

    def _common(self) -> frozenset[str]:
        return self._spelling_data(load_common, COMMON_FILE)

    def _spelling_data(self, load, name: str):
        try:
            return load(self.directory)
        except (OSError, ValueError) as exc:
            raise IndexLoadError(
                f"{self.directory / name}: the spelling data cannot be read ({exc}); "
                "reinstall the docs package or rebuild the index"
            ) from None

    def _score(
        self,
        terms: list[str],
        pairs: Sequence[str] = (),
        demote: bool = True,
        named: tuple[int, ...] = (),
        asked: tuple[str, ...] = (),
        emphasis: Mapping[str, float] | None = None,
    ) -> np.ndarray:
        """Every section's score for plain query terms (0 for a section matching none)."""
        hit, part = self._sparse_score(terms, pairs, demote, named, asked, emphasis)
        out = np.zeros(self._impacts.n_docs, dtype=np.float64)
        out[hit] = part
        return out

    def _sparse_score(
        self,
        terms: list[str],
        pairs: Sequence[str] = (),
        demote: bool = True,
        named: tuple[int, ...] = (),
        asked: tuple[str, ...] = (),
        emphasis: Mapping[str, float] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sections matching any plain query term (ascending) and their scores (> 0);
        a term in ``emphasis`` counts that many times its score.

        Only those sections are computed: on a large index most sections match nothing,
        and whole-array passes per query would dominate its time."""
        scores, matched = self._impacts.scores(terms, emphasis)
        hit = np.flatnonzero(matched)
        if hit.size == 0:
            return hit, np.zeros(0)
        pages = self._impacts.pages[hit]
        page_scores, page_matched = self._page_impacts.scores(terms, emphasis)
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
        if demote:
            factors = self._factors(hit, terms, named, asked)
            if factors is not None:
                part = part * factors
        return hit, part

    def _factors(
        self,
        docs: np.ndarray | None,
        terms: Sequence[str],
        named: tuple[int, ...],
        asked: tuple[str, ...] = (),
    ) -> np.ndarray | None:
        """What sections ``docs`` (None: every section) are demoted by, or None when none
        is: secondary types (changelogs, blog posts) unless the query asks for them by its
        words or its type filter (``asked``); a publisher's ``types:`` refiles a page, and its
        rank follows. Also old versions of a page, or when the query names versions, the
        pages of every other version."""
        demotions = self._demotions if docs is None else self._demotions[docs]
        demoted = demoted_types(terms, asked)
        if len(demoted) < len(ASKING_TERMS):
            # The query asks for some secondary types: only the others are held back.
            section_types = self._types if docs is None else self._types[docs]
            demotions = (demotions & 2) | np.isin(section_types, demoted).astype(np.uint8)
        if named:
            demotions = demotions & 1
            version = self._version if docs is None else self._version[docs]
            demotions[(version != -1) & ~np.isin(version, named)] |= 2
        if not demotions.any():
            return None
        return np.array(
            [1.0, CHANGELOG_FACTOR, OLD_VERSION_FACTOR, CHANGELOG_FACTOR * OLD_VERSION_FACTOR]
        )[demotions]

    def explain_fused(self, doc: int, fused: Fused, lexical: dict) -> dict:
        """``explain`` for a hybrid score: the word part (``lexical``, explained as usual)
        and the meaning part, each on the 0..1 scale they are mixed on."""
        factor = lexical["changelog_factor"] * lexical["version_factor"]
        return {
            **lexical,
            "hybrid": {
                "semantic_weight": fused.weight,
                "lexical": round(float(fused.lexical[doc]), 4),
                "semantic": round(float(fused.semantic[doc]), 4),
                "cosine": round(float(fused.cosine[doc]), 4),
                "score": round(float(fused.scores[doc]) * factor, 4),
            },
        }

    def explain(
        self,
        doc: int,
        terms: list[str],
        pairs: Sequence[str] = (),
        named: tuple[int, ...] = (),
        asked: tuple[str, ...] = (),
        emphasis: Mapping[str, float] | None = None,
    ) -> dict:
        """Why section ``doc`` scored what it did: the BM25F contribution of each matched
        term split across the fields it was found in, the neighbouring-word pairs found,
        the page's share, and the coverage, changelog and version factors. The score is
        ``(section x coverage + pair_weight x pairs + page_weight x page) x changelog x version``,
        given as ``score`` (for a hybrid hit: the word score it was mixed from)."""
        reader = self._searcher().reader()
        n_docs = reader.doc_count_all()
        emphasis = emphasis or {}
        matched = {}
        for term in terms:
            impact = self._impacts.impact(term, doc) * emphasis.get(term, 1.0)
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
        page_parts = [self._page_impacts.impact(term, page) * emphasis.get(term, 1.0) for term in terms]
        page_score = sum(page_parts)
        covered = len(matched)
        if self.page_coverage:
            covered = max(covered, sum(1 for part in page_parts if part))
        coverage = (covered / len(terms)) ** self.coord_power if len(terms) > 1 else 1.0
        changelog = int(self._types[doc]) in demoted_types(terms, asked)
        if named:
            other = int(self._version[doc]) not in (-1, *named)
        else:
            other = bool(self._demotions[doc] & 2)
        pair_score = sum(found_pairs.values())
        changelog_factor = CHANGELOG_FACTOR if changelog else 1.0
        version_factor = OLD_VERSION_FACTOR if other else 1.0
        score = (
            sum(m["score"] for m in matched.values()) * coverage
            + self.pair_weight * pair_score
            + self.page_weight * page_score
        ) * changelog_factor * version_factor
        return {
            "score": round(score, 4),
            "terms": terms,
            "matched": matched,
            "section_score": round(sum(m["score"] for m in matched.values()), 4),
            "coverage": round(coverage, 4),
            "pairs": {p: v for p, v in found_pairs.items() if v},
            "pair_weight": self.pair_weight,
            "page_score": round(page_score, 4),
            "page_weight": self.page_weight,
            "emphasis": dict(emphasis),
            "changelog_factor": changelog_factor,
            "version_factor": version_factor,
            "type": DOC_TYPES[int(self._types[doc])],
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
                # A section one alternative matched needs no look for the others (a phrase
                # is looked for field by field): only where nothing matched yet, and only
                # where the caller looks.
                unmatched = ~mask if within is None else within & ~mask
                mask |= self._matches(child, unmatched)
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
        if isinstance(q, query.Phrase) and q.slop == 1 and q.words:
            offsets = q.offsets if isinstance(q, GappedPhrase) else None
            return self._phrase_matches(q.fieldname, list(q.words), within, offsets)
        mask = np.zeros(n_docs, dtype=bool)
        mask[np.fromiter(self._searcher().docs_for_query(q), dtype=np.int64)] = True
        return mask

    def _phrase_matches(
        self,
        field: str,
        words: list[str],
        within: np.ndarray | None = None,
        offsets: Sequence[int] | None = None,
    ) -> np.ndarray:
        """The sections where ``words`` stand next to each other, in order, in ``field``
        (``offsets``, when given: each word that far from the first one's position).

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
                steps = offsets[1:] if offsets is not None else range(1, len(words))
                if any(all(start + i in later for i, later in zip(steps, rest)) for start in first):
                    mask[doc] = True
        return mask

    def _query_terms(self, q: query.Query) -> list[str]:
        """Index terms of a parsed query, wildcards expanded to the words they match.

        Whoosh's ``existing_terms`` leaves out the words of phrases, and a word its field
        does not hold (``title:gather``); every word the index holds in any field counts
        here, so phrases rank by their words too."""
        found = q.existing_terms(self._searcher().reader(), phrases=True, expand=True)
        named = (_text(text) for _f, text in q.iter_all_terms(phrases=True))
        terms = {_text(text) for _f, text in found} | {t for t in named if t in self._impacts}
        return sorted(terms)[:MAX_EXPANDED_TERMS]

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

    def _type_mask(self, types: tuple[str, ...]) -> np.ndarray:
        """The sections of pages of the document types ``types``; cached like scopes."""
        codes = tuple(sorted(DOC_TYPES.index(name) for name in types if name in DOC_TYPES))
        mask = self._type_masks.get(codes)
        if mask is None:
            mask = self._type_masks[codes] = np.isin(self._types, codes)
        return mask

    def type_counts(self) -> dict[str, int]:
        """Pages of each document type present, in DOC_TYPES order."""
        return {name: int(n) for name, n in zip(DOC_TYPES, self._type_counts.tolist()) if n}

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


class GappedPhrase(query.Phrase):
    """A phrase with a stop word inside ("dependencies with yield"): the stop word is no
    term, but it keeps its place, in the index and in the query alike, so ``offsets`` says
    how far from the first word each word stands (0, 2 for "dependencies with yield").
    Whoosh's phrase wants its words at consecutive places and would match nothing."""

    def __init__(self, fieldname, words, offsets, boost=1.0, char_ranges=None):
        super().__init__(fieldname, words, slop=1, boost=boost, char_ranges=char_ranges)
        self.offsets = tuple(offsets)

    def __eq__(self, other):
        return super().__eq__(other) and self.offsets == other.offsets

    def __hash__(self):
        return super().__hash__() ^ hash(self.offsets)


def _phrase_count(q: query.Query) -> int:
    """How many phrases a query holds: AND evaluates the parts with fewer first."""
    if isinstance(q, query.Phrase):
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


def _text(term: str | bytes) -> str:
    return term.decode() if isinstance(term, bytes) else term


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
