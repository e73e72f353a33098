"""Hybrid ranking: a section's word score and its meaning score, combined.

Word scores (BM25F impacts) are unbounded and differ from query to query; cosines of
static embeddings sit in a narrow band. Each is brought to 0..1 for the query at hand
(the word score divided by the best one, the cosine scaled between the lowest and the
highest candidate), then they are mixed by one weight. Candidates are the sections the
words matched plus the sections nearest in meaning, so a question phrased in other words
than the docs still finds its page while ``total`` keeps meaning "pages that matched".

Meaning decides only where words are weak. When the best word match holds every word of
the query, the words have found what was asked and meaning stays out (weight 0: the word
ranking, with the nearest sections in meaning below the word matches); the more of the
query the best word match lacks, the more meaning weighs, up to ``SEMANTIC_WEIGHT``. A
static encoder reads a question's gist but not its names: mixed in at one weight for every
query, it moved pages that held every word asked for below pages merely about the topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

# The share of meaning in the mix when words are weak, the share of the query the best word
# match must lack for meaning to get all of it (less lacking, proportionally less), and how
# many sections nearest in meaning join the candidates: each chosen leave-one-corpus-out on
# the dev queries, one setting for all corpora (tests/bench/relevance.py --loco).
SEMANTIC_WEIGHT = 0.5
SEMANTIC_FULL_MISSING = 0.25
SEMANTIC_CANDIDATES = 100


@dataclass(frozen=True)
class Fused:
    scores: np.ndarray  # the hybrid score of every section (0: not a candidate)
    lexical: np.ndarray  # each section's word score on the 0..1 scale used
    semantic: np.ndarray  # each section's cosine on the 0..1 scale used
    cosine: np.ndarray  # the raw cosines
    weight: float  # the share of meaning in this query's mix (meaning_weight)


def meaning_weight(
    covered: float, *, weight: float = SEMANTIC_WEIGHT, full_missing: float = SEMANTIC_FULL_MISSING
) -> float:
    """Meaning's share for a query whose best word match holds ``covered`` (0..1) of its
    words: 0 when it holds them all, ``weight`` once it lacks ``full_missing`` of them,
    in proportion between."""
    missing = min(max(1.0 - covered, 0.0), 1.0)
    if missing <= 1e-9:  # every word found (a float share of n words is not exactly 1)
        return 0.0
    if full_missing <= 0 or missing >= full_missing:
        return weight
    return weight * missing / full_missing


def corrected_query(text: str, corrections: Iterable[tuple[str, str]]) -> str:
    """The query as the encoder reads it: each word search corrected replaced by what it
    searched for instead. A static encoder knows nothing of 'webstrom'; 'webstorm' it knows."""
    for typed, fixed in corrections:
        text = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", lambda _m, fixed=fixed: fixed, text)
    return text


def fuse(
    lexical: np.ndarray,
    cosine: np.ndarray,
    *,
    covered: float,
    weight: float = SEMANTIC_WEIGHT,
    full_missing: float = SEMANTIC_FULL_MISSING,
    candidates: int = SEMANTIC_CANDIDATES,
) -> Fused:
    """``(1 - w) x lexical / max + w x scaled cosine`` over the candidates, where ``w`` is
    ``meaning_weight(covered)``: ``covered`` is the share of the query's words that the
    best word match holds (0 when the words matched nothing)."""
    lexical = np.asarray(lexical, dtype=np.float64)
    cosine = np.asarray(cosine, dtype=np.float64)
    share = meaning_weight(covered, weight=weight, full_missing=full_missing)
    pool = lexical > 0
    if candidates and cosine.size:
        nearest = np.argpartition(-cosine, min(candidates, cosine.size) - 1)[:candidates]
        pool[nearest[cosine[nearest] > 0]] = True
    if not pool.any():
        zeros = np.zeros_like(lexical)
        return Fused(zeros, zeros, zeros, cosine, share)
    top = lexical.max()
    words = lexical / top if top > 0 else np.zeros_like(lexical)
    low, high = cosine[pool].min(), cosine[pool].max()
    spread = high - low
    meaning = np.clip((cosine - low) / spread, 0.0, 1.0) if spread > 0 else np.where(pool, 1.0, 0.0)
    scores = np.where(pool, (1.0 - share) * words + share * meaning, 0.0)
    if share == 0.0:
        # Words decide; the sections only meaning found follow every word match, nearest first.
        scores = np.where(pool & (lexical <= 0), 1e-6 * meaning, scores)
    # A candidate at the bottom of both scales still matched: keep it above zero.
    scores = np.where(pool, np.maximum(scores, 1e-9), 0.0)
    return Fused(scores, words, meaning, cosine, share)
