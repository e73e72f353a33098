"""Snippets: the passage of a section that best matches the query, with matches marked.

Pure functions: the caller passes a ``terms_of`` function that maps a word to the index
terms it produces (the same analyzer the index uses), so a snippet marks exactly the words
that made the section match, stems included.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

WIDTH = 300
_MAX_PROBE_HITS = 2000  # enough for any section; bounds the work on a pathological one
_MAX_WINDOWS = 300  # candidate passages scored per section (from its first matches)
# Sections longer than this are cut to the lines around their likeliest passage before
# the passage is picked (_excerpt); the cut reaches this far after the passage's start.
EXCERPT_FROM = 4000
EXCERPT_REACH = 1600

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_SPACES = re.compile(r"\s+")
# The start of a line (split at "\n") that _FENCE matches.
_FENCE_LINE = re.compile(r"^[^\S\n]*(?:`{3,}|~{3,})", re.MULTILINE)
_WORD = re.compile(r"\w+(?:[.:\-/]\w+)*")
# (pattern, replacement, texts one of which must occur for the pattern to match, none:
# always tried; most sections have no images, tags or tables, and skipping those passes
# halves a snippet's cost)
_INLINE = [
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1", ("![",)),  # images -> alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1", ("](",)),  # links -> link text
    # reference links -> link text (not indexing such as data["a"]["b"] outside code)
    (re.compile(r"(?<![\w\])])\[([^\]\n]+)\]\[[^\]\n]*\]"), r"\1", ("][",)),
    (re.compile(r"<[^>\n]{1,200}>"), " ", ("<",)),  # HTML / JSX tags
    (re.compile(r"(\*\*|`)"), "", ("**", "`")),  # bold and stray code markers
    # __bold__ and _emphasis_ around words only: __init__ and snake_case_names stay
    (re.compile(r"(?<![\w_])__(?=\S)([^\n]+?)(?<=\S)__(?![\w_])"), r"\1", ("__",)),
    (re.compile(r"(?<![\w_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\w_])"), r"\1", ("_",)),
    # block markers, also indented (Mintlify indents the Markdown inside its components)
    (re.compile(r"(?m)^[ \t]*(#{1,6}|>|[-*+]|\d+[.)])[ \t]+"), "", ()),
    # *emphasis* around words (after list markers are gone); "a * b" and "*.md" stay
    (re.compile(r"(?<![\w*])\*(\w(?:[^*\n]*?[\w).!?])?)\*(?![\w*])"), r"\1", ("*",)),
    (re.compile(r"(?m)^\s*\|?[\s:|-]*-{3,}[\s:|-]*$"), "", ("---",)),  # table rules
    (re.compile(r"\|"), " ", ("|",)),
]
_SENTENCE_END = re.compile(r"[.!?:]\s|\n")
# An inline code span, or a backslash escape of ASCII punctuation (CommonMark's rule).
_LITERAL = re.compile(r"(`+)([^`\n]+?)\1|\\([!-/:-@\[-`{-~])")
_HIDDEN = re.compile(r"\x00(\d+)\x00")


def _hide_literals(text: str) -> tuple[str, list[str]]:
    """``text`` with each inline code span and escaped character replaced by a
    placeholder, and what each placeholder stands for.

    Markup rules must not touch code (``Promise<void>`` is not a tag, ``m[i][j]`` not a
    link, ``*args`` not emphasis), and an escaped ``\\_`` or ``\\[`` is the plain character
    (``claude\\_desktop\\_config.json`` reads as ``claude_desktop_config.json``)."""
    if "`" not in text and "\\" not in text:
        return text, []
    kept: list[str] = []

    def hide(m: re.Match) -> str:
        literal = m.group(2) if m.group(2) is not None else m.group(3)
        kept.append(literal.replace("\x00", ""))
        return f"\x00{len(kept) - 1}\x00"

    return _LITERAL.sub(hide, text.replace("\x00", "")), kept


@dataclass(frozen=True)
class _Segment:
    text: str
    is_code: bool


def plain_segments(markdown: str) -> list[_Segment]:
    """Split Markdown into prose and code segments with markup removed and entities decoded."""
    segments: list[_Segment] = []
    buf: list[str] = []
    fence: str | None = None

    def flush(is_code: bool) -> None:
        text = "\n".join(buf)
        buf.clear()
        if not is_code:
            text, kept = _hide_literals(text)
            for pattern, repl, needed in _INLINE:
                if not needed or _any_in(needed, text):
                    text = pattern.sub(repl, text)
            if kept:
                text = _HIDDEN.sub(lambda m: kept[int(m.group(1))], text)
        text = _SPACES.sub(" ", html.unescape(text)).strip()
        if text:
            segments.append(_Segment(text, is_code))

    if "```" not in markdown and "~~~" not in markdown:
        # No line can open a fence (most sections): one prose segment, no line by line pass.
        buf.extend(markdown.splitlines())
        flush(False)
        return segments
    for line in markdown.splitlines():
        m = _FENCE.match(line)
        if fence is None and m:
            flush(False)
            fence = m.group(1)
            continue
        if fence is not None and m and _closes(line, m, fence):
            flush(True)
            fence = None
            continue
        buf.append(line)
    flush(fence is not None)
    return segments


def _any_in(needles: tuple[str, ...], text: str) -> bool:
    for needle in needles:
        if needle in text:
            return True
    return False


def make_snippet(
    markdown: str,
    query_terms: Iterable[str],
    terms_of: Callable[[str], Iterable[str]],
    *,
    width: int = WIDTH,
) -> str:
    """The ~``width``-character passage with the most distinct query terms, matches in **bold**.

    Prose outranks code when both match; when nothing matches, the opening of the section.
    """
    return placed_snippet(markdown, query_terms, terms_of, width=width)[0]


def placed_snippet(
    markdown: str,
    query_terms: Iterable[str],
    terms_of: Callable[[str], Iterable[str]],
    *,
    width: int = WIDTH,
    marks: Sequence[int] = (),
    prepared: PlainText | None = None,
    fences: Sequence[tuple[int, int, str]] | None = None,
) -> tuple[str, int]:
    """``make_snippet``, and under which of ``marks`` the passage lies: the index of the
    last mark (ascending offsets of line starts in ``markdown``, where deeper headings
    begin) at or before the passage's first match; -1 when it is before them all or
    nothing matched. The snippet is the same with or without marks.

    ``prepared`` is ``prepare(markdown, marks)`` computed ahead (the build stores it for
    each short section), ``fences`` is ``fenced_spans(markdown)`` (stored for a long one):
    the same snippet, without stripping the markup or finding the code blocks again."""
    wanted = set(query_terms)
    if len(markdown) <= EXCERPT_FROM:
        plain = prepared if prepared is not None else prepare(markdown, marks)
        assert plain is not None
        placed = _snippet_of(plain, wanted, terms_of, width)
        snippet, under, _matched = placed
        return snippet, plain.kept[under] if under >= 0 else -1
    spans = list(fences) if fences is not None else _fenced_spans(markdown)
    if marks and spans:
        # A mark that this module reads as inside code (its fence rules are simpler than
        # the parser's) must not cut the text: the code after it would be read as prose.
        kept = _kept_marks(marks, spans)
        if len(kept) < len(marks):
            snippet, under = placed_snippet(
                markdown, query_terms, terms_of, width=width, marks=[marks[k] for k in kept],
                fences=spans,
            )
            return snippet, kept[under] if under >= 0 else -1
    excerpt, cut_before, cut_after, found, lo, shift = _excerpt(
        markdown, _probes(wanted), width, spans
    )
    # No query term anywhere in the raw text: the opening it is. Otherwise the raw
    # text's matches may all sit in link targets or tags the reader never sees, and
    # then the whole section is searched after all.
    needs_match = found and (cut_before or cut_after)
    above = bisect.bisect_left(marks, lo)  # marks before the excerpt
    inside = [m - lo + shift for m in marks[above:] if m - lo < len(excerpt) - shift]
    placed = _snippet(
        excerpt, wanted, terms_of, width, cut_before, cut_after, needs_match, inside
    )
    if placed is not None:
        snippet, under, matched = placed
        return snippet, (above + under if under >= 0 else above - 1) if matched else -1
    whole = _snippet(markdown, wanted, terms_of, width, marks=marks)
    return (whole[0], whole[1]) if whole is not None else ("", -1)


@dataclass(frozen=True)
class PlainText:
    """A short section's text as a snippet is cut from it: markup stripped, prose and code
    segments joined by one ``\\n`` each, where each code segment lies (``code_spans``),
    where the text after each kept mark begins (``starts``), which of the marks given
    those are (``kept``: a mark read as inside code does not cut the text), and where its
    sentences end (``sentence_ends``, ``_Sentences``).

    Stripping markup was a third of a snippet's time and depends on the section alone,
    so the build does it once per section (``prepare``) and stores it (``to_stored``)."""

    text: str
    code_spans: tuple[tuple[int, int], ...]
    starts: tuple[int, ...]
    kept: tuple[int, ...]
    sentence_ends: tuple[int, ...] | None = None  # None: found when needed

    def to_stored(self) -> tuple:
        spans = [list(span) for span in self.code_spans]
        ends = list(self.sentence_ends if self.sentence_ends is not None else _sentence_ends(self.text))
        return (self.text, spans, list(self.starts), list(self.kept), ends)

    @classmethod
    def from_stored(cls, stored: object) -> PlainText | None:
        """The stored form read back; None for a section stored without one (a long one)."""
        if not stored:
            return None
        text, spans, starts, kept, ends = stored  # type: ignore[misc]
        return cls(text, tuple((lo, hi) for lo, hi in spans), tuple(starts), tuple(kept), tuple(ends))


def prepare(markdown: str, marks: Sequence[int] = ()) -> PlainText | None:
    """What ``placed_snippet`` reads of a section up to ``EXCERPT_FROM`` characters long,
    given the marks it will be passed; None for a longer one (cut to an excerpt around the
    query's words first, so nothing of it is fixed ahead)."""
    if len(markdown) > EXCERPT_FROM:
        return None
    kept = list(range(len(marks)))
    if marks and (fences := _fenced_spans(markdown)):
        kept = _kept_marks(marks, fences)
    segments, starts = _marked_segments(markdown, [marks[k] for k in kept])
    text, code_spans = _joined(segments)
    return PlainText(text, tuple(code_spans), tuple(starts), tuple(kept), tuple(_sentence_ends(text)))


def _kept_marks(marks: Sequence[int], fences: list[tuple[int, int, str]]) -> list[int]:
    """Which of ``marks`` are not inside a fenced code block (places in ``marks``)."""
    fence_starts = [start for start, _end, _opener in fences]
    return [k for k, at in enumerate(marks) if not _inside(fences, fence_starts, at)]


def _joined(segments: list[_Segment]) -> tuple[str, list[tuple[int, int]]]:
    """The segments' texts joined by ``\\n`` (a segment boundary counts as a sentence end
    and is printed as a space), and where each code segment lies in it."""
    text = ""
    code_spans: list[tuple[int, int]] = []
    for seg in segments:
        if text:
            text += "\n"
        if seg.is_code:
            code_spans.append((len(text), len(text) + len(seg.text)))
        text += seg.text
    return text, code_spans


def _snippet(
    markdown: str,
    wanted: set[str],
    terms_of: Callable[[str], Iterable[str]],
    width: int,
    cut_before: bool = False,
    cut_after: bool = False,
    needs_match: bool = False,
    marks: Sequence[int] = (),
) -> tuple[str, int, bool] | None:
    """``placed_snippet`` for ``markdown``, an excerpt when cut before or after it, and
    whether it holds a match: None when ``needs_match`` and it holds no visible match."""
    segments, starts = _marked_segments(markdown, marks)
    text, code_spans = _joined(segments)
    plain = PlainText(text, tuple(code_spans), tuple(starts), ())
    return _snippet_of(plain, wanted, terms_of, width, cut_before, cut_after, needs_match)


def _snippet_of(
    plain: PlainText,
    wanted: set[str],
    terms_of: Callable[[str], Iterable[str]],
    width: int,
    cut_before: bool = False,
    cut_after: bool = False,
    needs_match: bool = False,
) -> tuple[str, int, bool] | None:
    """``_snippet`` of text already stripped of its markup."""
    text = plain.text
    if not text:
        return "", -1, False
    words = _matched_words(text, wanted, terms_of, list(plain.code_spans))
    if not words and needs_match:
        return None
    start = _best_start(text, words, width, plain.sentence_ends) if words else 0
    end = _cut_end(text, start, width)
    marked = _mark(text, start, end, words)
    prefix = "… " if start > 0 or cut_before else ""
    suffix = " …" if end < len(text) or cut_after else ""
    under = _mark_under(list(plain.starts), words, start, end) if words and plain.starts else -1
    return f"{prefix}{marked}{suffix}", under, bool(words)


def _mark_under(
    starts: list[int], words: list[tuple[int, int, str, bool]], start: int, end: int
) -> int:
    """Which mark the passage ``text[start:end]`` belongs under: the one whose part of it
    holds the most distinct query terms (code counting half, as ``_best_start`` does);
    the first of equals. -1 for the text before the first mark."""
    found: dict[int, dict[str, float]] = {}
    for s, e, term, code in words:
        if s >= start and e <= end:
            terms = found.setdefault(bisect.bisect_right(starts, s) - 1, {})
            terms[term] = max(terms.get(term, 0.0), 0.5 if code else 1.0)
    if not found:
        return bisect.bisect_right(starts, start) - 1
    return max(sorted(found), key=lambda k: sum(found[k].values()))


def _marked_segments(markdown: str, marks: Sequence[int]) -> tuple[list[_Segment], list[int]]:
    """``plain_segments(markdown)``, and where the text after each mark begins in the
    plain text ``_snippet`` joins from them (one character between segments). Cut at the
    marks, the prose either side of one joins as one segment, so the text is the same."""
    if not marks:
        return plain_segments(markdown), []
    segments: list[_Segment] = []
    starts: list[int] = []
    size = -1  # length of the joined text so far, less the separator before the next
    bounds = [0, *marks, len(markdown)]
    for k, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        if k:
            starts.append(size + 1)
        for n, seg in enumerate(plain_segments(markdown[lo:hi])):
            if n == 0 and k and segments and not seg.is_code and not segments[-1].is_code:
                segments[-1] = _Segment(f"{segments[-1].text} {seg.text}", False)
            else:
                segments.append(seg)
            size += 1 + len(seg.text)
    return segments, starts


def _probes(wanted: set[str]) -> set[str]:
    """Plain-text stand-ins for the query terms: a stem is a prefix of the words it comes
    from, except that the stemmer turns a final "y" into "i" (happy -> happi)."""
    return {t[:-1] if t.endswith("i") and len(t) > 2 else t for t in wanted if t}


def _excerpt(
    markdown: str,
    probes: set[str],
    width: int,
    fences: Sequence[tuple[int, int, str]] | None = None,
) -> tuple[str, bool, bool, bool, int, int]:
    """The whole lines of a long section around its likeliest passage, whether text was
    cut before and after it, whether any query term occurs in the raw text at all, where
    the excerpt begins in ``markdown``, and the length of the reopened fence line put
    before it (0 when none).

    Stripping markup from and analysing every word of a long section made snippets most
    of a search's time (a spec page is tens of kilobytes). The passage is found on the raw
    text the way ``_best_start`` finds it on the plain text (most distinct query terms
    within a window, code counting half), then only its surroundings are processed."""
    order = sorted(probes)
    found = _probe_positions(markdown.lower(), probes)
    if not any(found.values()):
        opening = _whole_lines(markdown, 0, EXCERPT_REACH)
        return opening, False, len(opening) < len(markdown), False, 0, 0
    if fences is None:
        fences = _fenced_spans(markdown)
    fences = list(fences)
    # Every hit (position, probe) in the order sorted((at, probe)) gives: by position,
    # then by probe.
    at = np.concatenate([np.asarray(found[probe], dtype=np.int64) for probe in order])
    term = np.concatenate(
        [np.full(len(found[probe]), n, dtype=np.int64) for n, probe in enumerate(order)]
    )
    ranked = np.lexsort((term, at))
    at, term = at[ranked], term[ranked]
    in_code = _inside_any(fences, at)
    best_at = int(at[_best_window(at, term, in_code, len(order), 2 * width)])
    lo = markdown.rfind("\n", 0, max(0, best_at - EXCERPT_REACH // 4)) + 1
    excerpt = _whole_lines(markdown, lo, EXCERPT_REACH + (best_at - lo))
    cut_after = lo + len(excerpt) < len(markdown)
    opener = _open_fence_at(fences, lo)
    shift = 0
    if opener is not None:
        excerpt = f"{opener}\n{excerpt}"  # the excerpt starts inside a code block
        shift = len(opener) + 1
    return excerpt, lo > 0, cut_after, True, lo, shift


def _probe_positions(lowered: str, probes: set[str]) -> dict[str, list[int]]:
    """``_probe_hits`` by probe: where each occurs (at most ``_MAX_PROBE_HITS`` in all,
    counted in the set's order, as ``_probe_hits`` counts them). str.find scans faster
    than a regular expression; each scan of a long page is most of this."""
    found: dict[str, list[int]] = {}
    left = _MAX_PROBE_HITS
    for probe in probes:
        places: list[int] = []
        at = lowered.find(probe) if left else -1
        while at != -1 and len(places) < left:
            places.append(at)
            at = lowered.find(probe, at + len(probe))
        left -= len(places)
        found[probe] = places
    return found


def _inside_any(spans: list[tuple[int, int, str]], at: np.ndarray) -> np.ndarray:
    """``_inside`` for every position of ``at``: whether it lies inside a code block."""
    if not spans:
        return np.zeros(len(at), dtype=bool)
    starts = np.array([start for start, _end, _opener in spans], dtype=np.int64)
    ends = np.array([end for _start, end, _opener in spans], dtype=np.int64)
    k = np.searchsorted(starts, at, side="right") - 1
    inside = k >= 0
    k = np.maximum(k, 0)
    return inside & (starts[k] < at) & (at < ends[k])


def _best_window(
    at: np.ndarray, term: np.ndarray, in_code: np.ndarray, n_terms: int, reach: int
) -> int:
    """Which of the first ``_MAX_WINDOWS`` hits (ascending ``at``) opens the best window:
    the hits from it up to ``reach`` characters on, scored per term 1 with a hit in prose,
    else 0.5 with one in code; the first of equals. Sums of 1 and 0.5 are exact, so this is
    the score a walk over the hits adds up, computed for all windows at once."""
    windows = min(len(at), _MAX_WINDOWS)
    upto = np.searchsorted(at, at[:windows] + reach, side="right")
    first = np.arange(windows)
    score = np.zeros(windows)
    for n in range(n_terms):
        mine = term == n
        # How many of the term's hits in prose (in code) come before each hit.
        prose = np.concatenate(([0], np.cumsum(mine & ~in_code)))
        code = np.concatenate(([0], np.cumsum(mine & in_code)))
        has_prose = prose[upto] - prose[first] > 0
        has_code = code[upto] - code[first] > 0
        score += np.where(has_prose, 1.0, np.where(has_code, 0.5, 0.0))
    return int(np.argmax(score))


def _probe_hits(lowered: str, probes: set[str]) -> list[tuple[int, str]]:
    """Where each probe occurs in ``lowered`` (at most ``_MAX_PROBE_HITS`` in all)."""
    hits: list[tuple[int, str]] = []
    for probe in probes:
        at = lowered.find(probe)
        while at != -1 and len(hits) < _MAX_PROBE_HITS:
            hits.append((at, probe))
            at = lowered.find(probe, at + len(probe))
    return hits


def _whole_lines(markdown: str, start: int, size: int) -> str:
    end = markdown.find("\n", start + size)
    return markdown[start:] if end == -1 else markdown[start:end]


def fenced_spans(markdown: str) -> list[tuple[int, int, str]] | None:
    """``_fenced_spans`` of a long section, for the build to store (None for a short one,
    whose ``prepare`` says all a snippet needs): finding them was a fifth of a long
    section's snippet time."""
    return _fenced_spans(markdown) if len(markdown) > EXCERPT_FROM else None


def _fenced_spans(markdown: str) -> list[tuple[int, int, str]]:
    """(start, end, opening line) of each fenced code block, as ``plain_segments`` reads
    fences."""
    spans: list[tuple[int, int, str]] = []
    fence: str | None = None
    opened, opener = 0, ""
    # Only lines that start like a fence can open or close one: found in one pass.
    for found in _FENCE_LINE.finditer(markdown):
        pos = found.start()
        end = markdown.find("\n", pos)
        line = markdown[pos:] if end == -1 else markdown[pos:end]
        m = _FENCE.match(line)
        if fence is None and m:
            fence, opened, opener = m.group(1), pos, line
        elif fence is not None and m and _closes(line, m, fence):
            spans.append((opened, pos + len(line), opener))
            fence = None
    if fence is not None:
        spans.append((opened, len(markdown), opener))
    return spans


def _closes(line: str, m: re.Match, fence: str) -> bool:
    marker = m.group(1)
    return marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker):].strip()


def _inside(spans: list[tuple[int, int, str]], starts: list[int], at: int) -> bool:
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and spans[k][0] < at < spans[k][1]


def _open_fence_at(spans: list[tuple[int, int, str]], at: int) -> str | None:
    """The opening line of the code block that ``at`` (a line start) is inside, if any."""
    for start, end, opener in spans:
        if start < at < end:
            return opener
    return None


def _matched_words(
    text: str,
    wanted: set[str],
    terms_of: Callable[[str], Iterable[str]],
    code_spans: list[tuple[int, int]],
) -> list[tuple[int, int, str, bool]]:
    """Every word of ``text`` that yields a query term: (start, end, term, in code).

    Analysing every word of a long section is what makes snippets slow, so only words that
    contain a query term as plain text (``_probes``) are analysed.
    """
    starts = {_word_start(text, at) for at, _probe in _probe_hits(text.lower(), _probes(wanted))}
    found: list[tuple[int, int, str, bool]] = []
    cache: dict[str, str | None] = {}
    code_starts = [lo for lo, _hi in code_spans]
    for start in sorted(starts):
        m = _WORD.match(text, start)
        if not m:
            continue
        word = m.group()
        if word not in cache:
            cache[word] = next((t for t in terms_of(word) if t in wanted), None)
        term = cache[word]
        if term is not None:
            k = bisect.bisect_right(code_starts, start) - 1
            in_code = k >= 0 and start < code_spans[k][1]
            found.append((start, m.end(), term, in_code))
    return found


def _word_start(text: str, at: int) -> int:
    """The start of the word (identifiers included) that contains position ``at``."""
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_.:-/"):
        at -= 1
    while at < len(text) and not (text[at].isalnum() or text[at] == "_"):
        at += 1
    return at


def _best_start(
    text: str,
    words: list[tuple[int, int, str, bool]],
    width: int,
    sentence_ends: Sequence[int] | None = None,
) -> int:
    best_score, best_start = 0.0, 0
    matches = [w for w in words if w[2] is not None]
    sentences = _Sentences(text, sentence_ends)
    previous_start = -1
    for i in range(min(len(matches), _MAX_WINDOWS)):
        window_start = sentences.start(matches[i][0])
        if window_start == previous_start:
            continue  # the same window as the match before: already scored
        previous_start = window_start
        distinct: dict[str, float] = {}
        for k in range(i, len(matches)):
            _s, e, term, code = matches[k]
            if e > window_start + width:
                break
            weight = 0.5 if code else 1.0
            if distinct.get(term, 0.0) < weight:
                distinct[term] = weight
        score = sum(distinct.values()) + 0.01 * len(distinct)
        if score > best_score:
            best_score, best_start = score, window_start
    return best_start


class _Sentences:
    """Where the sentence holding a position of ``text`` starts (``start``), or a few
    words back when that is far: for every match of a snippet, so its sentence ends are
    found in one pass, not searched for around each match.

    ``_SENTENCE_END`` searched from ``lo`` finds the ends of the whole text's matches that
    start at ``lo`` or later; a "\\n" matches on its own too, so a match that ends with
    one is found from the "\\n" (its ``latest`` start)."""

    def __init__(self, text: str, ends: Sequence[int] | None = None, reach: int = 80):
        self.text = text
        self.reach = reach
        self.ends = ends if ends is not None else _sentence_ends(text)

    def start(self, pos: int) -> int:
        lo = max(0, pos - self.reach)
        k = bisect.bisect_right(self.ends, pos) - 1
        if k >= 0:
            end = self.ends[k]
            # A match is "\n" alone or a mark and a space: two characters.
            latest = end - 1 if self.text[end - 1] == "\n" else end - 2
            if latest >= lo:
                return end
        if lo == 0:
            return 0
        lo = max(0, pos - self.reach // 3)
        space = self.text.find(" ", lo, pos)
        return space + 1 if space != -1 else pos


def _sentence_ends(text: str) -> list[int]:
    """Where each match of ``_SENTENCE_END`` in ``text`` ends (what ``_Sentences`` reads)."""
    return [m.end() for m in _SENTENCE_END.finditer(text)]


def _cut_end(text: str, start: int, width: int) -> int:
    end = start + width
    if end >= len(text):
        return len(text)
    space = text.rfind(" ", start, end)
    return space if space > start else end


def _mark(text: str, start: int, end: int, words: list[tuple[int, int, str | None, bool]]) -> str:
    out: list[str] = []
    pos = start
    for s, e, term, _code in words:
        if term is None or s < start or e > end:
            continue
        out.append(text[pos:s])
        out.append(f"**{text[s:e]}**")
        pos = e
    out.append(text[pos:end])
    return "".join(out).replace("\n", " ").strip()
