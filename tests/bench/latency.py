"""Search latency on the dev queries, quieter than the relevance harness, and the check that
a speed-up changed no answer.

    python tests/bench/latency.py build DIR [--corpus NAME ...]    # build the dev corpora into DIR/NAME
    python tests/bench/latency.py time DIR [--runs N] [--corpus NAME ...]
    python tests/bench/latency.py profile DIR [--corpus NAME ...] [--top N]
    python tests/bench/latency.py dump DIR FILE [--corpus NAME ...]
    python tests/bench/latency.py compare OLD_FILE NEW_FILE

``time`` runs every dev query of a corpus ``--runs`` times (default 7) against an index opened
once and warmed up, as a long-running server does, and prints per corpus the median and p95 of
``search(q, limit=10)`` (snippets included) in wall-clock time and in the thread's CPU time (on a
shared machine the wall clock mostly measures the other processes), the CPU time split into
ranking (``WhooshIndex.search``) and building the hits (stored fields, snippets, URLs), and the
first run of each query on its own. ``profile`` prints cProfile's top entries over the same searches. ``dump`` writes every
dev query's answer (refs, URLs, snippets, scores, total, warnings) as JSON lines; ``compare``
says whether two dumps are identical and lists each difference, so a change meant to be
faster only can be checked to answer exactly as before on all the dev queries.

The indexes are built once (``build``) and reused, so "before" and "after" can each be built
by their own checkout. Needs ``../shared/eval`` and ``../shared/corpora``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from docwheel import open_index  # noqa: E402
from docwheel.errors import DocwheelError  # noqa: E402

SHARED = REPO.parent / "shared"
EVAL = SHARED / "eval" / "dev.jsonl"
CORPORA = SHARED / "corpora"
LIMIT = 10


def dev_queries(corpora: list[str]) -> dict[str, list[dict]]:
    """The dev queries by corpus, in file order (only ``corpora`` when given)."""
    found: dict[str, list[dict]] = {}
    for line in EVAL.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            if not corpora or q["corpus"] in corpora:
                found.setdefault(q["corpus"], []).append(q)
    return dict(sorted(found.items()))


def build(out: Path, corpora: list[str]) -> None:
    import relevance  # the harness's way of building a corpus, allowed secrets included

    for name in dev_queries(corpora):
        started = time.perf_counter()
        relevance.build_docwheel(relevance.find_corpus(CORPORA, name), out / name)
        print(f"built {name} in {time.perf_counter() - started:.1f}s", flush=True)


def _search(docs, query: str):
    try:
        return docs.search(query, limit=LIMIT, mode="lexical")
    except DocwheelError as exc:
        return exc


def _percentiles(timings: list[float]) -> str:
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(ordered):6.2f} / {p95:6.2f}"


def time_corpora(directory: Path, corpora: list[str], runs: int) -> None:
    print(f"ms median / p95 of search(q, limit={LIMIT}), each dev query {runs}x: wall clock, "
          "and CPU time of the thread (what a loaded machine's scheduler does not add); "
          "rank = WhooshIndex.search, hits = stored fields + snippets (CPU)")
    print(f"{'':18} {'wall':>15} {'cpu':>15} {'rank cpu':>15} {'hits cpu':>15} {'first wall':>15}")
    for name, queries in dev_queries(corpora).items():
        with open_index(directory / name) as docs:
            wix = docs._wix
            ranking: list[float] = []
            original = wix.search

            def timed_search(*args, **kwargs):
                started = time.thread_time()
                try:
                    return original(*args, **kwargs)
                finally:
                    ranking.append((time.thread_time() - started) * 1000)

            wix.search = timed_search
            _search(docs, "warm up the searcher")
            ranking.clear()
            wall: list[float] = []
            cpu: list[float] = []
            first: list[float] = []
            for q in queries:
                for i in range(runs):
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    _search(docs, q["query"])
                    cpu.append((time.thread_time() - started_cpu) * 1000)
                    wall.append((time.perf_counter() - started) * 1000)
                    if i == 0:
                        first.append(wall[-1])
            hits = [c - r for c, r in zip(cpu, ranking)]
            print(f"{name:18} {_percentiles(wall):>15} {_percentiles(cpu):>15} "
                  f"{_percentiles(ranking):>15} {_percentiles(hits):>15} {_percentiles(first):>15}",
                  flush=True)


def profile(directory: Path, corpora: list[str], top: int, runs: int) -> None:
    for name, queries in dev_queries(corpora).items():
        with open_index(directory / name) as docs:
            _search(docs, "warm up the searcher")
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(runs):
                for q in queries:
                    _search(docs, q["query"])
            profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("tottime").print_stats(top)
        stats.sort_stats("cumulative").print_stats(top)
        print(f"== {name}: {len(queries)} queries x {runs}")
        print(out.getvalue())


def dump(directory: Path, corpora: list[str], path: Path) -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # A long section's snippet may depend on the order of a set of query words (when
        # a one-letter word such as the "s" of "API's" fills the cap on places looked at):
        # two dumps compare only under one hash seed.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    lines = []
    for name, queries in dev_queries(corpora).items():
        with open_index(directory / name) as docs:
            for q in queries:
                found = _search(docs, q["query"])
                if isinstance(found, Exception):
                    answer: dict = {"error": str(found)}
                else:
                    answer = {
                        "total": found.total,
                        "warnings": list(found.warnings),
                        "results": [
                            {"ref": h.ref, "url": h.url, "score": h.score, "snippet": h.snippet,
                             "other_versions": list(h.other_versions)}
                            for h in found.results
                        ],
                    }
                lines.append(json.dumps({"id": q["id"], "corpus": name, "query": q["query"], **answer}))
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"wrote {len(lines)} answers to {path}")


def compare(old: Path, new: Path) -> int:
    def load(path: Path) -> dict[str, dict]:
        return {a["id"]: a for a in map(json.loads, path.read_text(encoding="utf-8").splitlines())}

    before, after = load(old), load(new)
    differ = 0
    for qid in sorted(set(before) | set(after)):
        a, b = before.get(qid), after.get(qid)
        if a == b:
            continue
        differ += 1
        print(f"{qid}: {a['query'] if a else b['query']!r}")
        if a is None or b is None:
            print("  only in " + (str(new) if a is None else str(old)))
            continue
        for key in ("error", "total", "warnings"):
            if a.get(key) != b.get(key):
                print(f"  {key}: {a.get(key)!r} -> {b.get(key)!r}")
        ra, rb = a.get("results", []), b.get("results", [])
        if [r["ref"] for r in ra] != [r["ref"] for r in rb]:
            print(f"  refs: {[r['ref'] for r in ra]} -> {[r['ref'] for r in rb]}")
        for k, (x, y) in enumerate(zip(ra, rb)):
            for key in ("url", "score", "snippet", "other_versions"):
                if x[key] != y[key]:
                    print(f"  [{k}] {key}:\n    {x[key]!r}\n    {y[key]!r}")
    n_results = sum(len(a.get("results", [])) for a in after.values())
    print(f"{len(after)} queries, {n_results} results: "
          + ("identical (refs, URLs, scores, snippets, totals, warnings)" if not differ else f"{differ} queries differ"))
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("build", "time", "profile", "dump"):
        p = sub.add_parser(command)
        p.add_argument("indexes", type=Path)
        if command == "dump":
            p.add_argument("file", type=Path)
        p.add_argument("--corpus", action="append", default=[], metavar="NAME")
        p.add_argument("--runs", type=int, default=7 if command == "time" else 3)
        p.add_argument("--top", type=int, default=30)
    p = sub.add_parser("compare")
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "compare":
        return compare(args.old, args.new)
    if not EVAL.is_file() or not CORPORA.is_dir():
        print(f"no eval data at {EVAL} or corpora at {CORPORA}; nothing to measure")
        return 1
    if args.command == "build":
        build(args.indexes, args.corpus)
    elif args.command == "time":
        time_corpora(args.indexes, args.corpus, args.runs)
    elif args.command == "profile":
        profile(args.indexes, args.corpus, args.top, args.runs)
    else:
        dump(args.indexes, args.corpus, args.file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
