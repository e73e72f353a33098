"""Typo correction from the index's own vocabulary (pure).

A query word none of whose terms the index knows is most likely misspelt; the closest known
term by edit distance (ties: the more common term) replaces it. Only terms of similar length
and the same first letter are compared: first letters are rarely mistyped, and the
restriction keeps a lookup to a few hundred comparisons.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance with transpositions counted as one edit; ``limit + 1`` if above."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def allowed_edits(term: str) -> int:
    """How far a correction may be: none for short words, one edit, two for long words.

    A word the docs do not use is more often a real word they happen not to contain than a
    typo ("certain" is two edits from "contain"), so the bar is kept low.
    """
    return 0 if len(term) <= 3 else 1 if len(term) <= 7 else 2


class Speller:
    """Suggests a known term for an unknown one."""

    def __init__(self, terms: Iterable[str], frequency: Callable[[str], int]):
        self._frequency = frequency
        self._seen: dict[str, str | None] = {}
        self._buckets: dict[tuple[str, int], list[str]] = defaultdict(list)
        for term in terms:
            if term.isalpha():
                self._buckets[(term[0], len(term))].append(term)

    def suggest(self, term: str) -> str | None:
        if term not in self._seen:
            if len(self._seen) > 10_000:  # bounded: a long-running server sees many typos
                self._seen.clear()
            self._seen[term] = self._suggest(term)
        return self._seen[term]

    def _suggest(self, term: str) -> str | None:
        limit = allowed_edits(term)
        if not limit or not term.isalpha():
            return None
        best: tuple[int, int, str] | None = None
        for length in range(len(term) - limit, len(term) + limit + 1):
            for known in self._buckets.get((term[0], length), ()):
                distance = edit_distance(term, known, limit)
                if distance > limit:
                    continue
                key = (distance, -self._frequency(known), known)
                if best is None or key < best:
                    best = key
        return best[2] if best else None
