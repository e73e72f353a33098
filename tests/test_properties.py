"""Property tests: any query string and any parser input end in a result or a clean error."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import docwheel
from docwheel.build import build_from_file
from docwheel.errors import QueryError
from docwheel.formats.llms import parse_llms_txt, split_llms_full
from docwheel.formats.markdown import parse_markdown

from helpers import site_config

OPERATOR_ALPHABET = list(' "()*?:-._#') + ["AND", "OR", "NOT", "title", "section", "source", "widget", "docker", "x"]
RELAXED = settings(
    max_examples=150,
    deadline=2000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    root = tmp_path_factory.mktemp("props")
    build_from_file(site_config(root), root / "index")
    with docwheel.open_index(root / "index") as index:
        yield index


def _search_or_clean_error(docs, text: str) -> None:
    try:
        result = docs.search(text)
    except QueryError as exc:
        assert str(exc)  # a message, never an empty error
        return
    assert result.total >= len(result.results)
    for hit in result.results:
        assert hit.ref and hit.url and isinstance(hit.snippet, str)


@RELAXED
@given(st.text(max_size=300))
def test_any_text_searches_or_fails_cleanly(docs, text):
    _search_or_clean_error(docs, text)


@RELAXED
@given(st.lists(st.sampled_from(OPERATOR_ALPHABET), max_size=25).map("".join))
def test_operator_soup_searches_or_fails_cleanly(docs, text):
    _search_or_clean_error(docs, text)


@RELAXED
@given(st.text(max_size=200))
def test_any_text_as_a_ref_reads_or_fails_cleanly(docs, ref):
    try:
        docs.read(ref)
    except docwheel.UnknownRefError as exc:
        assert "unknown ref" in str(exc)


MARKDOWNISH = st.lists(
    st.sampled_from(
        ["# T", "## H", "### H3", "```", "~~~", "---", "title: x", "Source: https://a.io/p",
         "url: /p.md", "<Note>", "</Note>", "import x from 'y'", "export const a = {", "}",
         "text", "", "  ```js", "[l](/a.md)", "::: tip", ":::", "<page>", "</page>"]
    ),
    max_size=40,
).map("\n".join)


@settings(max_examples=200, deadline=2000)
@given(st.one_of(st.text(max_size=500), MARKDOWNISH))
def test_markdown_parser_accepts_anything(text):
    page = parse_markdown(text, url="https://a.io/p", path="p", fallback_title="P")
    assert page.sections and page.sections[0].anchor == ""
    assert page.title


@settings(max_examples=200, deadline=2000)
@given(st.one_of(st.text(max_size=500), MARKDOWNISH, st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace"))))
def test_llms_parsers_accept_anything(text):
    for page in split_llms_full(text, base_url="https://a.io/llms-full.txt"):
        assert page.sections
    for url in parse_llms_txt(text, base_url="https://a.io/llms.txt"):
        assert url.startswith(("http://", "https://"))
