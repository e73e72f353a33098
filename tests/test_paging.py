"""Token budgets, safe places to cut Markdown, and cursors: pure functions, no server."""

from __future__ import annotations

import base64
import json
import random
import re

import pytest

from docwheel.errors import QueryError
from docwheel.paging import (
    CURSOR_PREFIX,
    MAX_CURSOR_LENGTH,
    CursorError,
    estimate_tokens,
    is_cursor,
    json_text_tokens,
    make_cursor,
    markdown_blocks,
    page_text,
    read_cursor,
    snapshot_id,
    take_items,
)

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def all_pages(text: str, budget: int, cost=estimate_tokens) -> list[str]:
    pages, offset = [], 0
    while offset is not None:
        page = page_text(text, offset, budget, cost)
        assert page.text, "every page moves on"
        assert page.next_offset is None or page.next_offset > offset
        pages.append(page.text)
        offset = page.next_offset
        assert len(pages) <= len(text) + 1
    return pages


def assert_code_is_never_cut_open(text: str, budget: int) -> None:
    """Where a page ends inside a code block, it closes the fence and the next page reopens it."""
    code = [b for b in markdown_blocks(text) if b.fence]
    offset = 0
    while offset is not None:
        page = page_text(text, offset, budget)
        end = page.next_offset
        inside = [b for b in code if end is not None and b.start < end < b.end]
        if inside:
            fence = inside[0].fence
            assert page.text.rstrip("\n").splitlines()[-1].strip() == FENCE.match(fence)[1], (
                page.text
            )
            assert page_text(text, end, budget).text.startswith(fence + "\n")
        offset = end


# -- estimates -----------------------------------------------------------------------------


def test_estimate_is_four_ascii_characters_per_token_rounded_up():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_estimate_counts_each_non_ascii_character_as_a_token():
    assert estimate_tokens("日本語") == 3
    assert estimate_tokens("café") == 2  # "caf" is one token, "é" another
    assert estimate_tokens("日本語のドキュメント" * 100) == 1000


def test_estimates_of_parts_add_up_to_at_least_the_whole():
    rng = random.Random(7)
    for _ in range(200):
        a = "".join(rng.choice("ab é\n日") for _ in range(rng.randrange(20)))
        b = "".join(rng.choice("ab é\n日") for _ in range(rng.randrange(20)))
        assert estimate_tokens(a) + estimate_tokens(b) >= estimate_tokens(a + b)


def test_json_cost_is_never_below_the_plain_text_cost():
    for text in ["plain", 'quotes " and \\ backslashes', "lines\n\n\nand\ttabs", "日本"]:
        assert json_text_tokens(text) >= estimate_tokens(text)


# -- blocks ----------------------------------------------------------------------------------


def spans(text: str) -> list[str]:
    return [text[b.start : b.end] for b in markdown_blocks(text)]


def test_blocks_cover_the_text_exactly():
    text = "# T\n\npara one\nstill one\n\n## H\n- a\n- b\n\n```py\nx\n\ny\n```\nafter\n"
    assert "".join(spans(text)) == text
    assert spans(text) == [
        "# T\n\n",
        "para one\nstill one\n\n",
        "## H\n",
        "- a\n- b\n\n",
        "```py\nx\n\ny\n```\n",
        "after\n",
    ]


def test_a_code_block_with_blank_lines_and_headings_inside_is_one_block():
    text = "Intro.\n\n```python\n# not a heading\n\n\ndef f():\n    pass\n```\n\nOutro.\n"
    blocks = markdown_blocks(text)
    code = [b for b in blocks if b.fence]
    assert len(code) == 1 and code[0].fence == "```python"
    assert not any(b.heading for b in blocks)
    assert text[code[0].start : code[0].end].startswith("```python\n# not a heading\n\n\ndef f()")


def test_fences_tildes_longer_closers_indented_and_unclosed():
    assert [b.fence for b in markdown_blocks("~~~\na\n```\nb\n~~~~\nc\n")] == ["~~~", None]
    listed = "1. Step:\n\n   ```bash\n   run\n\n   more\n   ```\n2. Next\n"
    assert [b.fence for b in markdown_blocks(listed)] == [None, "   ```bash", None]
    unclosed = "text\n\n```\ncode\n\n# still code\n"
    assert markdown_blocks(unclosed)[-1].fence == "```" and markdown_blocks(unclosed)[
        -1
    ].end == len(unclosed)


def test_inline_triple_backticks_do_not_open_a_fence():
    text = "```inline``` code\n\n# Heading\n"
    assert [b.fence for b in markdown_blocks(text)] == [None, None]
    assert markdown_blocks(text)[1].heading


# -- cutting text ---------------------------------------------------------------------------


def long_doc(sections: int = 12) -> str:
    parts = ["# Guide\n\nOpening paragraph.\n"]
    for n in range(sections):
        parts.append(
            f"\n## Section {n}\n\n"
            + " ".join(f"Sentence {n}.{i} of prose." for i in range(25))
            + "\n"
        )
        parts.append(
            f"\n```python\n# step {n}\n\nvalue_{n} = compute({n})\nprint(value_{n})\n```\n"
        )
    return "".join(parts)


def test_text_within_the_budget_is_one_page():
    text = long_doc(2)
    page = page_text(text, 0, estimate_tokens(text))
    assert page.text == text and page.next_offset is None


def test_pages_fit_the_budget_and_join_back_into_the_text():
    text = long_doc()
    pages = all_pages(text, 300)
    assert len(pages) > 3
    assert all(estimate_tokens(p) <= 300 for p in pages)
    assert "".join(pages) == text  # no block was split, so nothing was added


def test_pages_are_cut_between_blocks_never_inside_code():
    text = long_doc()
    for budget in (150, 250, 400):
        assert_code_is_never_cut_open(text, budget)
        for page in all_pages(text, budget):
            assert page.count("```") % 2 == 0, page


def test_a_page_does_not_end_on_a_heading():
    text = long_doc()
    for page in all_pages(text, 260)[:-1]:
        last = markdown_blocks(page)[-1]
        assert not last.heading, page[-80:]


def test_a_code_block_larger_than_a_page_is_closed_and_reopened_with_its_info_string():
    code = "".join(
        f"line_{i} = {i}  # some code\n" + ("\n" if i % 7 == 0 else "") for i in range(300)
    )
    text = f"Before.\n\n```python\n{code}```\n\nAfter.\n"
    pages = all_pages(text, 200)
    assert len(pages) > 5
    assert all(estimate_tokens(p) <= 200 for p in pages)
    middle = [p for p in pages if "line_150 " in p][0]
    assert middle.startswith("```python\n") and middle.rstrip("\n").endswith("```")
    for page in pages:
        assert page.count("```") % 2 == 0, page
    body = "".join(pages).replace("```\n```python\n", "")
    assert body == text  # only the added fence lines differ


def test_a_line_longer_than_the_budget_is_cut_inside_it_at_a_space():
    text = "word " * 2000 + "\n"
    pages = all_pages(text, 100)
    assert all(estimate_tokens(p) <= 100 for p in pages)
    assert all(p.endswith(" ") for p in pages[:-1])
    assert "".join(pages) == text


def test_random_markdown_always_pages_to_the_end_within_budget():
    rng = random.Random(2026)
    pieces = [
        "# Title\n",
        "## Heading\n",
        "\n",
        "Some prose words here.\n",
        "- item\n",
        "```js\n",
        "```\n",
        "~~~\n",
        "   ```\n",
        "日本語の文。\n",
        "x" * 300 + "\n",
        "| a | b |\n",
    ]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 80)))
        budget = rng.choice([20, 50, 120, 400])
        pages = all_pages(text, budget)
        assert all(estimate_tokens(p) <= budget for p in pages), (budget, text)
        assert_code_is_never_cut_open(text, budget)


def test_offset_outside_the_text_is_refused():
    with pytest.raises(ValueError):
        page_text("abc", 4, 100)
    assert page_text("abc", 3, 100).next_offset is None


# -- lists -------------------------------------------------------------------------------------


def test_take_items_fills_the_budget_and_always_takes_one():
    assert take_items([10, 10, 10], 25) == 2
    assert take_items([10, 10, 10], 30) == 3
    assert take_items([50, 1], 25) == 1
    assert take_items([50, 1], 25, at_least_one=False) == 0
    assert take_items([], 25) == 0


def test_take_items_reads_a_lazy_iterable_only_as_far_as_needed():
    seen = []

    def costs():
        for n in range(10**6):
            seen.append(n)
            yield 10

    assert take_items(costs(), 35) == 3
    assert len(seen) == 4


# -- cursors ----------------------------------------------------------------------------------


ARGS = {"query": "docker", "source": "all", "limit": 5, "full_text": False}


def test_cursor_round_trip():
    token = make_cursor("search_docs", ARGS, 7, "snap1")
    assert token.startswith(CURSOR_PREFIX) and is_cursor(token)
    assert re.fullmatch(r"dw1\.[A-Za-z0-9_-]+", token)
    cursor = read_cursor(token, tool="search_docs", snapshot="snap1", args=dict(ARGS))
    assert cursor.offset == 7 and cursor.ref is None
    carried = make_cursor("fetch", {}, 3, "snap1", ref="site:a#b")
    assert read_cursor(carried, tool="fetch", snapshot="snap1").ref == "site:a#b"


def test_cursor_errors_say_how_to_recover():
    token = make_cursor("search_docs", ARGS, 7, "snap1")
    with pytest.raises(CursorError, match="continues search_docs, not read_doc"):
        read_cursor(token, tool="read_doc", snapshot="snap1", args={"ref": "x"})
    with pytest.raises(CursorError, match="another docs snapshot"):
        read_cursor(token, tool="search_docs", snapshot="snap2", args=ARGS)
    with pytest.raises(CursorError, match="other arguments"):
        read_cursor(token, tool="search_docs", snapshot="snap1", args={**ARGS, "limit": 6})
    assert issubclass(CursorError, QueryError)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "abc",
        "dw1.",
        "dw1.!!!",
        "dw1." + base64.urlsafe_b64encode(b"not json").decode(),
        "dw1." + base64.urlsafe_b64encode(b"[1, 2]").decode(),
        "dw1."
        + base64.urlsafe_b64encode(
            json.dumps({"t": "search_docs", "a": "x", "o": -1, "s": "snap1"}).encode()
        ).decode(),
        "dw1."
        + base64.urlsafe_b64encode(
            json.dumps({"t": "search_docs", "a": "x", "o": True, "s": "snap1"}).encode()
        ).decode(),
        "dw1." + "A" * MAX_CURSOR_LENGTH,
    ],
    ids=[
        "empty",
        "plain",
        "bare-prefix",
        "not-base64",
        "not-json",
        "not-object",
        "negative",
        "bool",
        "too-long",
    ],
)
def test_malformed_cursors_are_refused_with_a_clear_message(token):
    with pytest.raises(CursorError, match="invalid cursor") as raised:
        read_cursor(token, tool="search_docs", snapshot="snap1", args=ARGS)
    assert "without cursor" in str(raised.value)


def test_snapshot_id_follows_the_manifest():
    manifest = {"name": "acme", "built_at": "2026-11-01T00:00:00Z", "sources": [{"sha256": "ab"}]}
    assert snapshot_id(manifest) == snapshot_id(dict(reversed(list(manifest.items()))))
    assert snapshot_id(manifest) != snapshot_id({**manifest, "built_at": "2026-11-02T00:00:00Z"})
