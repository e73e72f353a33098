"""Hybrid ranking: a section's word score and its meaning score, combined.

Word scores (BM25F impacts) are unbounded and differ from query to query; cosines of
static embeddings sit in a narrow band. Each is brought to 0..1 for the query at hand
(the word score divided by the best one, the cosine scaled between the lowest and the
highest candidate), then they are mixed by one weight. Candidates are the sections the
words matched plus the sections nearest in meaning, so a question phrased in other words
than the docs still finds its page while ``total`` keeps meaning "pages that matched".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The share of meaning in the mix, and how many sections nearest in meaning join the
# candidates: chosen on the dev queries as one setting for all corpora (tests/bench/relevance.py).
SEMANTIC_WEIGHT = 0.5
SEMANTIC_CANDIDATES = 100


@dataclass(frozen=True)
class Fused:
    scores: np.ndarray  # the hybrid score of every section (0: not a candidate)
    lexical: np.ndarray  # each section's word score on the 0..1 scale used
    semantic: np.ndarray  # each section's cosine on the 0..1 scale used
    cosine: np.ndarray  # the raw cosines


def fuse(
    lexical: np.ndarray,
    cosine: np.ndarray,
    *,
    weight: float = SEMANTIC_WEIGHT,
    candidates: int = SEMANTIC_CANDIDATES,
) -> Fused:
    """``(1 - weight) x lexical / max + weight x scaled cosine`` over the candidates."""
    lexical = np.asarray(lexical, dtype=np.float64)
    cosine = np.asarray(cosine, dtype=np.float64)
    pool = lexical > 0
    if candidates and cosine.size:
        nearest = np.argpartition(-cosine, min(candidates, cosine.size) - 1)[:candidates]
        pool[nearest[cosine[nearest] > 0]] = True
    if not pool.any():
        zeros = np.zeros_like(lexical)
        return Fused(zeros, zeros, zeros, cosine)
    top = lexical.max()
    words = lexical / top if top > 0 else np.zeros_like(lexical)
    low, high = cosine[pool].min(), cosine[pool].max()
    spread = high - low
    meaning = np.clip((cosine - low) / spread, 0.0, 1.0) if spread > 0 else np.where(pool, 1.0, 0.0)
    scores = np.where(pool, (1.0 - weight) * words + weight * meaning, 0.0)
    # A candidate at the bottom of both scales still matched: keep it above zero.
    scores = np.where(pool, np.maximum(scores, 1e-9), 0.0)
    return Fused(scores, words, meaning, cosine)
