"""Snippets: the best passage, matched words marked, markup gone."""

from __future__ import annotations

import re

import pickle
import random
from pathlib import Path

import numpy as np

import docwheel
from docwheel.anchors import from_stored, heading_marks
from docwheel.build import build_from_file
from docwheel.snippets import (
    EXCERPT_FROM,
    _SENTENCE_END,
    PlainText,
    _best_window,
    _Sentences,
    _excerpt,
    _fenced_spans,
    fenced_spans,
    make_snippet,
    placed_snippet,
    plain_segments,
    prepare,
)

from helpers import site_config


def _terms_of(word: str) -> list[str]:
    # Stand-in analyzer for pure tests: lower-case and drop a plural "s".
    w = word.lower()
    return [w[:-1] if w.endswith("s") and len(w) > 3 else w]


def test_snippet_is_the_matching_passage_not_the_opening():
    filler = " ".join(f"Filler sentence number {i} about nothing in particular." for i in range(30))
    text = f"{filler}\n\nTo rotate the signing keys, run the rotate command twice.\n\n{filler}"
    snippet = make_snippet(text, {"rotate", "key"}, _terms_of)
    assert "**rotate** the signing **keys**" in snippet
    assert snippet.startswith("… ")
    assert len(snippet) <= 320


def test_snippet_prefers_passage_with_more_distinct_terms():
    text = (
        "Tokens expire. " + "Padding words here. " * 30
        + "Tokens can be refreshed with the refresh endpoint before they expire."
    )
    snippet = make_snippet(text, {"token", "refresh", "expire"}, _terms_of)
    assert "**refresh** endpoint" in snippet


def test_snippet_cuts_at_word_boundaries():
    text = "alpha " * 200 + "needle " + "omega " * 200
    snippet = make_snippet(text, {"needle"}, _terms_of, width=120)
    body = snippet.strip("… ").split()
    assert all(word in {"alpha", "omega", "**needle**"} for word in body)


def test_snippet_without_matches_is_the_opening_text():
    snippet = make_snippet("First words. Second sentence.", {"absent"}, _terms_of)
    assert snippet == "First words. Second sentence."


def test_snippet_drops_markdown_markup_and_decodes_entities():
    text = "## Heading\n\nUse [the **config** file](https://x.io/c) &amp; `flags` <Note>here</Note>."
    snippet = make_snippet(text, {"config"}, _terms_of)
    assert "](" not in snippet and "<Note>" not in snippet and "&amp;" not in snippet
    assert "the **config** file & flags" in snippet


def test_snippet_drops_reference_links_and_single_emphasis():
    text = "Clients *SHOULD* send the header; see [the spec][0] and [RFC 8414][rfc]. Cost is 2 * 3 * 4 for *.md, *.txt files."
    snippet = make_snippet(text, {"header"}, _terms_of)
    assert "Clients SHOULD send the **header**; see the spec and RFC 8414." in snippet
    assert "2 * 3 * 4 for *.md, *.txt files" in snippet
    indexing = make_snippet('Read the header with `data["a"]["b"]` or `m[i][j]`.', {"header"}, _terms_of)
    assert 'data["a"]["b"] or m[i][j]' in indexing


def test_inline_code_keeps_its_text_verbatim():
    text = "Names match `^[a-z0-9][a-z0-9_-]*$`; it returns `Promise<void>` and takes `*args` or `[x](y)`."
    snippet = make_snippet(text, {"name"}, _terms_of)
    assert "^[a-z0-9][a-z0-9_-]*$" in snippet
    assert "Promise<void>" in snippet and "*args" in snippet and "[x](y)" in snippet
    assert "`" not in snippet


def test_backslash_escapes_read_as_the_plain_character():
    text = r"Edit claude\_desktop\_config.json (\~200 words), not \*this\* or \[that\]; `C:\dir\_x` stays."
    snippet = make_snippet(text, {"edit"}, _terms_of)
    assert "claude_desktop_config.json (~200 words), not *this* or [that]" in snippet
    assert "C:\\dir\\_x" in snippet  # code spans keep their backslashes


def test_underscore_emphasis_is_dropped_but_names_with_underscores_stay():
    text = "_A short description_ of __the issues__: set my_var_name or a__b__c, see _private."
    snippet = make_snippet(text, {"issue"}, _terms_of)
    assert snippet == "A short description of the **issues**: set my_var_name or a__b__c, see _private."


def test_snippet_leaves_no_dangling_code_fence():
    text = "Install it:\n\n```bash\npip install widget\n```\n\nThen import widget."
    snippet = make_snippet(text, {"widget"}, _terms_of)
    assert "```" not in snippet
    assert "**widget**" in snippet


def test_prose_match_beats_code_match():
    code = "```python\n" + "\n".join(f"x{i} = frobnicate({i})" for i in range(60)) + "\n```"
    text = f"{code}\n\n" + "Words " * 80 + "\n\nCall frobnicate to tidy the cache."
    snippet = make_snippet(text, {"frobnicate"}, _terms_of, width=100)
    assert "tidy the cache" in snippet


def test_plain_segments_mark_code():
    segments = plain_segments("Prose line.\n\n~~~\ncode here\n~~~\n\nMore prose.")
    assert [(s.text, s.is_code) for s in segments] == [
        ("Prose line.", False),
        ("code here", True),
        ("More prose.", False),
    ]


def test_unclosed_fence_is_code_to_the_end():
    segments = plain_segments("Intro.\n```\nno close")
    assert segments[-1].is_code and segments[-1].text == "no close"


def test_empty_text_gives_empty_snippet():
    assert make_snippet("", {"x"}, _terms_of) == ""
    assert not re.search(r"\*\*\*\*", make_snippet("** **", {"x"}, _terms_of))


FILLER = "Plain words about nothing in particular fill this paragraph of the page.\n\n"


def test_a_long_section_is_cut_around_its_match_and_says_so():
    text = FILLER * 60 + "Rotate the signing key every ninety days.\n\n" + FILLER * 60
    assert len(text) > EXCERPT_FROM
    snippet = make_snippet(text, {"rotat", "kei"}, _terms_of_stems)
    assert snippet.startswith("… ") and snippet.endswith(" …")
    assert "**Rotate** the signing **key** every ninety days." in snippet


def test_a_long_section_whose_match_sits_in_a_link_target_falls_back_to_the_visible_one():
    hidden = "See [the guide](https://x.io/rotate-key) for more.\n\n"
    text = hidden + FILLER * 80 + "Rotate the key here.\n\n" + FILLER * 10
    snippet = make_snippet(text, {"rotat", "kei"}, _terms_of_stems)
    assert "**Rotate** the **key** here." in snippet


def test_a_cut_inside_a_long_code_block_keeps_it_code():
    code = "\n".join(f"line_{i} = compute({i})" for i in range(400))
    text = "Intro.\n\n```python\n" + code + "\nrotate_key(now)\n```\n\nThe end.\n"
    snippet = make_snippet(text, {"rotate_key"}, lambda w: [w.lower()])
    assert "**rotate_key**(now)" in snippet and "```" not in snippet and "python" not in snippet
    excerpt, cut_before, cut_after, found, _lo, _shift = _excerpt(text, {"rotate_key"}, 300)
    assert found and cut_before and not cut_after and excerpt.startswith("```python\nline_")
    assert [seg.is_code for seg in plain_segments(excerpt)] == [True, False]


def _terms_of_stems(word: str) -> list[str]:
    w = word.lower()
    return [{"rotate": "rotat", "key": "kei"}.get(w, w)]


def test_a_long_section_without_any_query_term_gives_its_opening():
    text = "First words of the page.\n\n" + FILLER * 80
    snippet = make_snippet(text, {"absent"}, _terms_of)
    assert snippet.startswith("First words of the page.") and snippet.endswith(" …")


# -- the text a snippet is cut from, prepared at build time --------------------------------

PREPARED_TEXTS = [
    ("", []),
    ("Rotate the key. " * 20, []),
    ("Intro about keys.\n\n#### Rotate\n\nRotate a **key** with `rotate_key()`.\n\n"
     "##### Later\n\nMore [key](https://x.io/key) words &amp; <b>tags</b>.", ["#### Rotate", "##### Later"]),
    # A mark inside a fence (as this module reads fences) does not cut the text.
    ("Keys first.\n\n```\nrotate key\n\n#### Inside\n\nkey code\n```\n\n#### After\n\nkey prose",
     ["#### Inside", "#### After"]),
    ("```python\nkey = rotate()\n```\n\n| key | rotate |\n|---|---|\n| a | b |\n\n\\_key\\_ *rotate*", []),
]


def _round_trip(plain: PlainText | None) -> PlainText | None:
    # As the index stores it: pickled, then read back.
    return PlainText.from_stored(pickle.loads(pickle.dumps(plain.to_stored() if plain else None, 2)))


def test_a_prepared_section_gives_the_same_snippet_and_heading_as_its_markdown():
    for text, headings in PREPARED_TEXTS:
        marks = [text.index(h) for h in headings]
        prepared = _round_trip(prepare(text, marks))
        assert prepared is not None
        for terms in ({"key"}, {"rotat", "kei"}, {"rotate_key", "tag"}, {"absent"}, set()):
            assert placed_snippet(text, terms, _terms_of, marks=marks, prepared=prepared) == (
                placed_snippet(text, terms, _terms_of, marks=marks)
            )


def test_a_long_section_is_not_prepared_and_is_cut_at_search_time():
    text = FILLER * 60 + "Rotate the signing key every ninety days.\n\n" + FILLER * 60
    assert prepare(text) is None and PlainText.from_stored(None) is None
    assert prepare(text[:EXCERPT_FROM]) is not None


def _walked_window(hits: list[tuple[int, int, bool]], reach: int, windows: int) -> int:
    """The best window by the plain definition: for each of the first ``windows`` hits
    (position, term, in code), the hits from it up to ``reach`` further; a term counts 1
    with a hit in prose there, else 0.5 with one in code; the first best."""
    best, best_k = -1.0, 0
    for k, (at, _term, _code) in enumerate(hits[:windows]):
        inside = [h for h in hits[k:] if h[0] <= at + reach]
        worth: dict[int, float] = {}
        for _at, term, code in inside:
            worth[term] = max(worth.get(term, 0.0), 0.5 if code else 1.0)
        if sum(worth.values()) > best:
            best, best_k = sum(worth.values()), k
    return best_k


def test_the_best_window_computed_at_once_is_the_one_a_walk_over_the_hits_finds():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 60)
        hits = sorted(
            (rng.randint(0, 3000), rng.randint(0, 3), rng.random() < 0.3) for _ in range(n)
        )
        hits = sorted({(at, term): code for at, term, code in hits}.items())
        flat = [(at, term, code) for (at, term), code in hits]
        at = np.array([h[0] for h in flat], dtype=np.int64)
        term = np.array([h[1] for h in flat], dtype=np.int64)
        code = np.array([h[2] for h in flat], dtype=bool)
        reach = rng.choice([50, 300, 600])
        assert _best_window(at, term, code, 4, reach) == _walked_window(flat, reach, 300)


def _searched_sentence_start(text: str, pos: int, reach: int = 80) -> int:
    """A sentence's start by searching back from ``pos``: the last sentence end in the
    ``reach`` characters before it, else a few words back (the whole text's start when near)."""
    lo = max(0, pos - reach)
    last = None
    for m in _SENTENCE_END.finditer(text, lo, pos):
        last = m.end()
    if last is not None:
        return last
    if lo == 0:
        return 0
    space = text.find(" ", max(0, pos - reach // 3), pos)
    return space + 1 if space != -1 else pos


def test_sentence_starts_from_one_pass_are_the_ones_a_search_back_finds():
    rng = random.Random(11)
    for _ in range(200):
        # Sentence ends far apart, so the one at a window's very start is often the last.
        chars = rng.choices("ab .:!?\n\t", weights=[30, 30, 20, 1, 1, 1, 1, 1, 1], k=rng.randint(0, 400))
        text = "".join(chars)
        sentences = _Sentences(text)
        for pos in range(len(text) + 1):
            assert sentences.start(pos) == _searched_sentence_start(text, pos)


def test_a_long_sections_stored_code_blocks_give_the_same_snippet_as_finding_them():
    code = "\n".join(f"line_{i} = compute({i})" for i in range(200))
    text = FILLER * 30 + "#### Keys\n\n```python\n" + code + "\nrotate_key(now)\n```\n\n" + FILLER * 30
    marks = [text.index("#### Keys")]
    assert fenced_spans(text) == _fenced_spans(text) and fenced_spans(FILLER) is None
    for terms in ({"rotate_key"}, {"compute", "filler"}, {"absent"}):
        assert placed_snippet(text, terms, _terms_of, marks=marks, fences=fenced_spans(text)) == (
            placed_snippet(text, terms, _terms_of, marks=marks)
        )


def test_the_build_stores_each_short_sections_prepared_text_and_search_snippets_match_it(tmp_path: Path):
    build_from_file(site_config(tmp_path), tmp_path / "index")
    with docwheel.open_index(tmp_path / "index") as docs:
        stored = list(docs._wix.all_stored())
        assert stored and all(
            ("plain" in doc) == (len(doc["content"]) <= EXCERPT_FROM) != ("fences" in doc)
            for doc in stored
        )
        for doc in stored:
            marks, _names = heading_marks(from_stored(doc.get("anchors")), doc["level"])
            assert PlainText.from_stored(doc.get("plain")) == prepare(doc["content"], marks)
        found = docs.search("install the widget configuration", limit=10)
        assert found.results
        terms = set(docs._wix.search("install the widget configuration", limit=10).terms)
        for hit in found.results:
            doc = docs._wix.stored(hit.ref)
            marks, _names = heading_marks(from_stored(doc.get("anchors")), doc["level"])
            assert hit.snippet == placed_snippet(doc["content"], terms, docs._wix.word_terms, marks=marks)[0]
