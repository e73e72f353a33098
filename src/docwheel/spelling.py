"""Typo correction from the index's own vocabulary (pure, but for reading its file).

A query word none of whose terms the index knows is most likely misspelt; the closest known
term by edit distance (ties: the more common term) replaces it. Only terms of similar length
and the same first letter are compared: first letters are rarely mistyped, and the
restriction keeps a lookup to a few hundred comparisons, most of which a letter count
rules out before any edit distance is computed.

A typo near the end of a word can keep the stemmer from cutting its suffix; those are found
through the words the docs use and their stems, written by the build (``SURFACE_FILE``), so
a query never stems hundreds of guesses. The same words judge a stem's correction: the
candidate fewer edits from the word as typed wins (``Speller.correct``).

A common English word is never corrected, though the docs may not use it: "rest" in "the
rest of the page" is not a typo of "reset", nor "leave" of "leak". The build writes the
most common English words the docs do not use (``COMMON_FILE``, from ``english.py``).
"""

from __future__ import annotations

import gzip
import json
import re
import string
import zlib
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

import numpy as np


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
# Suffixes that make a new word of a docs word and that the stemmer may leave on
# ("searchable" keeps its "able": Porter cuts it only after a longer stem). A word built so
# is searched as its root, not corrected to a neighbour ("searchlabel"): Speller.root.
DERIVED_SUFFIXES = ("ability", "ably", "able", "ible", "fully", "ful", "ness", "less", "ment", "ly")
# A root shorter than this is not trusted ("comment" is no "com" + "ment").
MIN_ROOT_LENGTH = 4
# A typed word this long is also compared, as typed, with the docs' words (Speller.correct).
MIN_TYPED_LENGTH = 4
# The words of the docs (lower-cased, ASCII letters, one shorter than MIN_SURFACE_LENGTH or
# longer: a guess may drop a letter) that the stemmer changes, each with its stem:
# {"configuration": "configur", "tools": "tool", ...}. A word that is its own stem needs no
# entry: it is an index term itself.
SURFACE_FILE = "spelling_surface.json"


# The most common English words (lower-cased, ASCII letters) that are not words of the docs,
# one a line, sorted, gzip-compressed (a fifth of the size, read in a few milliseconds). A
# query word that is one of them, or whose parts all are, is left as typed (Speller.is_common).
COMMON_FILE = "spelling_common.txt.gz"


def is_surface_word(word: str) -> bool:
    """Whether the build records ``word`` (lower-cased) in ``SURFACE_FILE``."""
    return len(word) >= MIN_SURFACE_LENGTH - 1 and word.isascii() and word.isalpha()


def save_surface(directory: Path, surface: Mapping[str, str]) -> None:
    """Write ``SURFACE_FILE``: sorted, so the bytes do not depend on who saw which word first."""
    text = json.dumps(dict(sorted(surface.items())), separators=(",", ":"), ensure_ascii=True)
    (directory / SURFACE_FILE).write_text(text, encoding="utf-8")


def load_surface(directory: Path) -> dict[str, str]:
    found = json.loads((directory / SURFACE_FILE).read_text(encoding="utf-8"))
    if not isinstance(found, dict):
        raise ValueError(f"{SURFACE_FILE} is not a JSON object")
    return found


def save_common(directory: Path, words: Iterable[str]) -> None:
    """Write ``COMMON_FILE``: sorted, and with no time in the gzip header, so a rebuild
    writes the same bytes."""
    text = "\n".join(sorted(set(words))).encode("ascii")
    (directory / COMMON_FILE).write_bytes(gzip.compress(text, compresslevel=9, mtime=0))


def load_common(directory: Path) -> frozenset[str]:
    try:
        text = gzip.decompress((directory / COMMON_FILE).read_bytes()).decode("ascii")
    except (EOFError, gzip.BadGzipFile, UnicodeDecodeError, zlib.error) as exc:
        raise ValueError(f"{COMMON_FILE} is not a gzip-compressed word list ({exc})") from None
    return frozenset(text.split("\n")) - {""}


def allowed_edits(term: str) -> int:
    """How far a correction may be: none for short words, one edit, two for long words.

    A word the docs do not use is more often a real word they happen not to contain than a
    typo ("certain" is two edits from "contain"), so the bar is kept low.
    """
    return 0 if len(term) <= 3 else 1 if len(term) <= 7 else 2


_NON_LETTERS = re.compile(r"[\W\d_]+")
_LETTERS = 27  # a-z, and one column for every other letter


def _letter_counts(words: list[str], length: int) -> np.ndarray:
    """How often each letter occurs in each of ``words`` (ASCII, all ``length`` long)."""
    codes = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).reshape(len(words), length)
    columns = np.where((codes >= 97) & (codes <= 122), codes.astype(np.int64) - 97, _LETTERS - 1)
    flat = columns + _LETTERS * np.arange(len(words))[:, None]
    return np.bincount(flat.ravel(), minlength=len(words) * _LETTERS).reshape(len(words), _LETTERS)


def _query_counts(term: str) -> np.ndarray:
    counts = np.zeros(_LETTERS, dtype=np.int64)
    for ch in term:
        counts[ord(ch) - 97 if "a" <= ch <= "z" else _LETTERS - 1] += 1
    return counts


class _Bucket:
    """The terms of one first letter and length, with their letter counts for the filter
    (computed on first use: a query looks at a few buckets)."""

    def __init__(self) -> None:
        self.ascii: list[str] = []
        self.other: list[str] = []
        self._counts: np.ndarray | None = None

    def near(self, term: str, limit: int) -> list[str]:
        """The terms whose letters differ from ``term``'s by at most ``limit`` (more
        letters to add or to drop): a lower bound of the edit distance, so none that is
        within ``limit`` edits is left out."""
        if not self.ascii:
            return list(self.other)
        if self._counts is None:
            self._counts = _letter_counts(self.ascii, len(self.ascii[0]))
        diff = self._counts - _query_counts(term)
        extra = np.clip(diff, 0, None).sum(axis=1)
        missing = np.clip(-diff, 0, None).sum(axis=1)
        keep = np.flatnonzero(np.maximum(extra, missing) <= limit)
        return [self.ascii[i] for i in keep.tolist()] + self.other


class Speller:
    """Suggests a known term for an unknown one.

    ``surface`` maps words of the docs to their stems (``SURFACE_FILE``), for
    ``suggest_word``; ``common`` holds common English words (``COMMON_FILE``), for
    ``is_common``; either may be given as a function that reads it on first use."""

    def __init__(
        self,
        terms: Iterable[str],
        frequency: Callable[[str], int],
        surface: Mapping[str, str] | Callable[[], Mapping[str, str]] = {},  # noqa: B006 (read only)
        common: Collection[str] | Callable[[], Collection[str]] = frozenset(),
    ):
        self._frequency = frequency
        self._seen: dict[str, str | None] = {}
        self._buckets: dict[tuple[str, int], _Bucket] = defaultdict(_Bucket)
        self._terms: set[str] = set()
        for term in terms:
            if term.isalpha():
                bucket = self._buckets[(term[0], len(term))]
                (bucket.ascii if term.isascii() else bucket.other).append(term)
                self._terms.add(term)
        self._surface = surface
        self._common = common

    def is_common(self, word: str) -> bool:
        """Whether ``word`` as typed is a common English word (every hyphenated or otherwise
        joined part of it is), which is meant as written even when the docs do not use it."""
        parts = [part for part in _NON_LETTERS.split(word.lower()) if part]
        if not parts:
            return False
        if callable(self._common):
            self._common = self._common()
        return all(part in self._common for part in parts)

    def root(self, word: str) -> str | None:
        """The docs' term for ``word`` built from a docs word with a derivational suffix
        (``DERIVED_SUFFIXES``: "searchable" -> "search", "resizable" -> "resize",
        "forgettable" -> "forget", "happiness" -> "happy"), or None."""
        lowered = word.lower()
        if not (lowered.isascii() and lowered.isalpha()):
            return None
        return self._remembered(f"\x02{lowered}", lambda: self._root(lowered))

    def _root(self, word: str) -> str | None:
        if callable(self._surface):
            self._surface = self._surface()
        for suffix in DERIVED_SUFFIXES:
            base = word[: -len(suffix)]
            if not word.endswith(suffix) or len(base) < MIN_ROOT_LENGTH:
                continue
            candidates = [base, base + "e"]
            if base[-1] == base[-2]:
                candidates.append(base[:-1])  # a doubled final consonant: forgettable
            if base.endswith("i"):
                candidates.append(base[:-1] + "y")  # happiness
            for candidate in candidates:
                found = self._surface.get(candidate) or (candidate if candidate in self._terms else None)
                if found:
                    return found
        return None

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

    def suggest_word(self, word: str) -> str | None:
        """A known term for a typed word whose typo stemming hides, or None.

        ``suggest`` compares stems, and a typo near the end of a word can keep the stemmer
        from cutting its suffix: ``elicitaton`` stays whole while ``elicitation`` becomes
        ``elicit``, four edits away. Here every word one edit from the typed one near its
        end (a typo earlier on leaves the suffix to the stemmer, and ``suggest`` finds it)
        that the docs use is looked up with its stem (``surface``; an index term stands for
        itself), and the most common stem among them wins. Only for words of some length:
        short ones have too many neighbours that are real words."""
        word = word.lower()
        if len(word) < MIN_SURFACE_LENGTH or not is_surface_word(word):
            return None
        return self._remembered(f"\x00{word}", lambda: self._suggest_word(word))

    def correct(self, term: str, word: str) -> str | None:
        """A known term for ``term``, the unknown stem of the typed ``word``, or None.

        When the stem has a nearest term (``suggest``), the stems of the docs' words one
        edit from the word as typed compete with it: the one fewer edits from the typed word
        wins, then the more common. A stem alone misleads: ``insted`` stems to ``inst``, one
        edit from ``init`` but three as typed, while ``instead`` is one; ``fles`` is one
        edit from ``flex`` and from ``files``, and files are what the docs talk about. A
        word whose stem has none is corrected as before (``suggest_word``): guessing from
        every word one edit away would also "correct" real words the docs do not use."""
        by_stem = self.suggest(term)
        if by_stem is None:
            return self.suggest_word(word)
        lowered = word.lower()
        if len(lowered) < MIN_TYPED_LENGTH or not (lowered.isascii() and lowered.isalpha()):
            return by_stem
        as_typed = self._remembered(f"\x01{lowered}", lambda: self._near_word(lowered, None))
        if as_typed is None or as_typed == by_stem:
            return by_stem
        stem_distance = edit_distance(lowered, by_stem, 2)
        if (1, -self._frequency(as_typed)) < (stem_distance, -self._frequency(by_stem)):
            return as_typed
        return by_stem

    def _near_word(self, word: str, tail: int | None) -> str | None:
        """The most common stem of the docs' words one edit from ``word``: within its last
        ``tail`` letters when given, else anywhere but its first letter, which is rarely
        mistyped."""
        if callable(self._surface):
            self._surface = self._surface()
        surface = self._surface
        known = set()
        for candidate in one_edit(word, tail):
            if candidate[:1] != word[:1]:
                continue
            found = surface.get(candidate) or (candidate if candidate in self._terms else None)
            if found:
                known.add(found)
        found = [(-self._frequency(term), term) for term in known if self._frequency(term)]
        return min(found)[1] if found else None

    def _suggest_word(self, word: str) -> str | None:
        return self._near_word(word, SURFACE_TAIL)

    def _suggest(self, term: str) -> str | None:
        limit = allowed_edits(term)
        if not limit or not term.isalpha():
            return None
        best: tuple[int, int, str] | None = None
        for length in range(len(term) - limit, len(term) + limit + 1):
            bucket = self._buckets.get((term[0], length))
            for known in bucket.near(term, limit) if bucket else ():
                distance = edit_distance(term, known, limit)
                if distance > limit:
                    continue
                key = (distance, -self._frequency(known), known)
                if best is None or key < best:
                    best = key
        return best[2] if best else None
