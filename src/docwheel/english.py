"""Common English words for the speller (build time only: search reads the file it writes).

A question is written in English around the docs' names, and many of its words are words
the docs happen not to use; the speller must leave those alone (``spelling.COMMON_FILE``).
The list is pyspellchecker's English word frequencies, cut to the most common words: its
long tail holds misspellings ("tets", "instal"), and a rarer real word is as often a typo of
a docs word ("sever" for "server").
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from pathlib import Path

from .spelling import save_common

# How many words count as common. 20,000 word forms cover all but a few per cent of running
# English text; of the single-letter typos of the dev queries' own words, 0.9% land on one
# of them and are left as typed (0.7% at 10,000, 1.3% at 40,000).
COMMON_WORDS = 20_000


@functools.lru_cache(maxsize=2)
def common_english(limit: int = COMMON_WORDS) -> tuple[str, ...]:
    """The ``limit`` most frequent English words of ASCII letters, at least two long
    (remembered: reading the list takes a fifth of a second, and a process may build often)."""
    from spellchecker import SpellChecker  # imported here: the build's dependency only

    frequencies = SpellChecker(language="en", distance=1).word_frequency
    words = [(-count, word) for word, count in frequencies.items() if len(word) > 1 and word.isascii() and word.isalpha()]
    words.sort()  # equal counts: the alphabetically first, whatever order the file has
    return tuple(word for _, word in words[:limit])


def write_common(directory: Path, terms: Collection[str], surface: Mapping[str, str]) -> int:
    """Write the common words that are not words of the docs (an index term or a word of
    ``surface``: those are never corrected anyway); returns how many."""
    words = [word for word in common_english() if word not in terms and word not in surface]
    save_common(directory, words)
    return len(words)
