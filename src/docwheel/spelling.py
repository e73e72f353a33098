"""Typo correction from the index's own vocabulary (pure).

A query word none of whose terms the index knows is most likely misspelt; the closest known
term by edit distance (ties: the more common term) replaces it. Only terms of similar length
and the same first letter are compared: first letters are rarely mistyped, and the
restriction keeps a lookup to a few hundred comparisons.
"""

from __future__ import annotations

import string
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


def one_edit(word: str, tail: int | None = None, letters: str = string.ascii_lowercase) -> set[str]:
    """Every string one edit from ``word``: a letter dropped, two neighbours swapped, a
    letter changed or one inserted; only within its last ``tail`` letters when given."""
    first = 0 if tail is None else max(0, len(word) - tail)
    splits = [(word[:i], word[i:]) for i in range(first, len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in letters}
    out |= {a + c + b for a, b in splits for c in letters}
    out.discard(word)
    return out


# A typed word this long may be corrected before stemming, within its last letters, where
# the suffixes a stemmer cuts are (Speller.suggest_word).
MIN_SURFACE_LENGTH = 6
SURFACE_TAIL = 5


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
        return self._remembered(term, lambda: self._suggest(term))

    def _remembered(self, key: str, compute: Callable[[], str | None]) -> str | None:
        # Returns its own value, never a re-read: another thread may clear the dict.
        if key in self._seen:
            return self._seen.get(key)
        if len(self._seen) > 10_000:  # bounded: a long-running server sees many typos
            self._seen.clear()
        found = self._seen[key] = compute()
        return found

    def suggest_word(self, word: str, stem: Callable[[str], str]) -> str | None:
        """A known term for a typed word whose typo stemming hides, or None.

        ``suggest`` compares stems, and a typo near the end of a word can keep the stemmer
        from cutting its suffix: ``elicitaton`` stays whole while ``elicitation`` becomes
        ``elicit``, four edits away. Here every word one edit from the typed one near its
        end (a typo earlier on leaves the suffix to the stemmer, and ``suggest`` finds it)
        is stemmed, and the most common known stem among them wins. Only for words of some
        length: short ones have too many neighbours that are real words."""
        word = word.lower()
        if len(word) < MIN_SURFACE_LENGTH or not word.isalpha() or not word.isascii():
            return None
        return self._remembered(f"\x00{word}", lambda: self._suggest_word(word, stem))

    def _suggest_word(self, word: str, stem: Callable[[str], str]) -> str | None:
        known = {stem(candidate) for candidate in one_edit(word, SURFACE_TAIL)}
        found = [(-self._frequency(term), term) for term in known if self._frequency(term)]
        return min(found)[1] if found else None

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
