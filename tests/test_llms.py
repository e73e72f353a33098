from __future__ import annotations

import re
from pathlib import Path

import pytest

from docwheel.formats.llms import (
    LAYOUT_NAMES,
    detect_layout,
    parse_llms_full,
    parse_llms_txt,
    split_llms_full,
)

FIXTURES = Path(__file__).parent / "fixtures" / "parsing"
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def split(text: str, **kwargs):
    messages: list[str] = []
    pages = split_llms_full(text, warn=messages.append, **kwargs)
    return pages, messages


@pytest.fixture(scope="module")
def fixture_split():
    text = (FIXTURES / "llms-full.txt").read_text(encoding="utf-8")
    return split(text, base_url="https://widgets.example/llms-full.txt")


# -- Source-delimited pages ------------------------------------------------------------------


def test_each_title_and_source_pair_starts_a_page(fixture_split):
    pages, messages = fixture_split
    assert [(p.title, p.url, p.path) for p in pages] == [
        ("Quickstart", "https://widgets.example/docs/quickstart", "docs/quickstart"),
        ("Concepts", "https://widgets.example/docs/concepts", "docs/concepts"),
        ("Quickstart", "https://widgets.example/v2/docs/quickstart", "v2/docs/quickstart"),
    ]
    assert messages == []


def test_hash_line_inside_code_fence_is_not_a_page(fixture_split):
    pages, _ = fixture_split
    install = pages[0].sections[1]
    assert install.heading == "Install"
    assert "# Using pip" in install.text
    assert "Source: https://widgets.example/not-a-page" in install.text


def test_page_body_starts_after_the_source_line(fixture_split):
    pages, _ = fixture_split
    intro = pages[0].sections[0]
    assert intro.text == "Get a widget running in five minutes."
    assert intro.path == ("Quickstart",)
    assert [s.heading for s in pages[0].sections[1:]] == ["Install", "Run"]


def test_h1_without_source_line_stays_inside_its_page(fixture_split):
    pages, _ = fixture_split
    concepts = pages[1]
    assert concepts.title == "Concepts"
    assert [(s.heading, s.level, s.path) for s in concepts.sections[1:]] == [
        ("Widget Client", 1, ("Concepts", "Widget Client")),
        ("Gears", 2, ("Concepts", "Widget Client", "Gears")),
    ]


def test_relative_source_url_is_resolved_against_base_url(fixture_split):
    pages, _ = fixture_split
    assert pages[1].url == "https://widgets.example/docs/concepts"


def test_relative_source_url_without_base_url_is_kept():
    pages, _ = split("# A\nSource: /docs/a\n\nText.")
    assert (pages[0].url, pages[0].path) == ("/docs/a", "docs/a")


def test_pages_with_the_same_path_are_all_kept():
    text = "# A\nSource: https://x.io/a\n\none\n\n# A again\nSource: https://x.io/a\n\ntwo\n"
    pages, _ = split(text)
    assert [p.path for p in pages] == ["a", "a"]
    assert [p.sections[0].text for p in pages] == ["one", "two"]


def test_source_line_may_follow_blank_lines():
    pages, _ = split("# A\n\n\nSource: https://x.io/a\nBody")
    assert (pages[0].title, pages[0].sections[0].text) == ("A", "Body")


def test_page_title_is_forced_even_when_the_body_has_its_own_h1():
    pages, _ = split("# Listed title\nSource: https://x.io/a\n\n# Body H1\n\ntext")
    assert pages[0].title == "Listed title"
    assert pages[0].sections[1].heading == "Body H1"


def test_page_title_has_inline_markup_stripped():
    pages, _ = split("# `fastmcp.apps`\nSource: https://x.io/python-sdk/apps\n")
    assert pages[0].title == "fastmcp.apps"


def test_max_level_is_passed_to_each_page():
    text = "# A\nSource: https://x.io/a\n## B\n### C\n"
    pages, _ = split(text, max_level=2)
    assert [s.heading for s in pages[0].sections] == ["", "B"]


def test_preamble_before_the_first_page_is_reported():
    pages, messages = split("LLMS VERSION: 1\n\n# A\nSource: https://x.io/a\nBody")
    assert len(pages) == 1
    assert messages == ["ignored 15 characters before the first page"]


def test_page_warnings_name_the_page():
    text = "# A\nSource: https://x.io/docs/a\n---\n- not: [a mapping\n---\n"
    _, messages = split(text)
    assert len(messages) == 1 and messages[0].startswith("docs/a: malformed frontmatter: ")


def test_bom_and_crlf_are_handled():
    pages, messages = split("\ufeff# A\r\nSource: https://x.io/a\r\n\r\n## B\r\ntext\r\n")
    assert messages == []
    assert (pages[0].title, pages[0].sections[1].heading) == ("A", "B")
    assert pages[0].sections[1].text == "text"


def test_empty_file_yields_no_pages_and_no_warnings():
    assert split("") == ([], [])
    assert split("\n\n  \n") == ([], [])


def test_unclosed_fence_hides_later_pairs():
    pages, _ = split("# A\nSource: https://x.io/a\n```\n# B\nSource: https://x.io/b\n")
    assert [p.path for p in pages] == ["a"]


# -- fallback layouts ------------------------------------------------------------------------


def test_without_source_lines_split_at_top_level_headings_with_warning():
    text = "Preamble.\n\n# First Page\n\nOne.\n\n```sh\n# comment\n```\n\n# Second\n## Sub\nTwo."
    pages, messages = split(text, base_url="https://x.io/llms-full.txt")
    assert [(p.title, p.url, p.path) for p in pages] == [
        ("First Page", "https://x.io/llms-full.txt#first-page", "first-page"),
        ("Second", "https://x.io/llms-full.txt#second", "second"),
    ]
    assert messages == [
        "no known llms-full layout found; assumed layout 'headings' (a page per top-level "
        "'# ' heading); set format: in the sources file to choose another",
        "ignored 9 characters before the first page",
    ]
    assert "# comment" in pages[0].sections[0].text
    assert pages[1].sections[1].path == ("Second", "Sub")


def test_fallback_without_base_url_uses_unique_slugs():
    pages, _ = split("# Same\none\n# Same\ntwo\n")
    assert [(p.url, p.path) for p in pages] == [("same", "same"), ("same-1", "same-1")]


def test_file_without_any_top_level_heading_becomes_one_page():
    pages, messages = split("## Only\ntext\n", base_url="https://x.io/docs/llms-full.txt")
    assert [(p.title, p.path) for p in pages] == [("Llms full", "docs/llms-full")]
    assert [s.heading for s in pages[0].sections] == ["", "Only"]
    assert messages == [
        "no page markers or top-level '# ' headings found; the whole file is one page"
    ]


# -- real corpus -----------------------------------------------------------------------------


def test_real_mintlify_llms_full_splits_into_the_documented_page_count():
    corpus = CORPORA / "mcp-llms-full"
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not available")
    stated = re.search(r"(\d+) pages", (corpus / "SOURCE.md").read_text(encoding="utf-8"))
    assert stated is not None and int(stated.group(1)) == 78
    messages: list[str] = []
    pages = split_llms_full(
        (corpus / "llms-full.txt").read_text(encoding="utf-8"),
        base_url="https://modelcontextprotocol.io/llms-full.txt",
        warn=messages.append,
    )
    assert len(pages) == 78
    assert all(p.url.startswith("https://") for p in pages)
    assert messages == []


# -- layout detection and format ------------------------------------------------------------


def parse_fixture(name: str, **kwargs):
    messages: list[str] = []
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return parse_llms_full(text, warn=messages.append, **kwargs), messages


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("llms-full.txt", "mintlify"),
        ("llms-ctx.txt", "page-tags"),
        ("llms-full-pages.txt", "page-tags"),
        ("llms-full-firecrawl.txt", "firecrawl"),
        ("llms-full-rule-blocks.txt", "rule-blocks"),
    ],
)
def test_layout_is_detected_per_file(name, layout):
    assert detect_layout((FIXTURES / name).read_text(encoding="utf-8")) == layout
    result, _ = parse_fixture(name)
    assert result.layout == layout


def test_detect_layout_names_vitepress_and_the_headings_fallback():
    assert detect_layout(VITEPRESS) == "vitepress"
    assert detect_layout("# Just\ntext\n") == "headings"
    assert LAYOUT_NAMES[-1] == "headings"


def test_format_forces_a_layout_over_detection():
    text = (FIXTURES / "llms-full.txt").read_text(encoding="utf-8")
    result = parse_llms_full(text, layout="headings")
    assert result.layout == "headings"
    # Every top-level heading outside code starts a page, Source lines or not.
    assert [p.title for p in result.pages] == [
        "Quickstart",
        "Concepts",
        "Widget Client",
        "Quickstart",
    ]


def test_forced_format_that_finds_no_page_warns_and_yields_nothing():
    messages: list[str] = []
    result = parse_llms_full(
        "# A\nSource: https://x.io/a\n", layout="firecrawl", warn=messages.append
    )
    assert (result.pages, result.layout) == ((), "firecrawl")
    assert messages == ["format 'firecrawl' found no pages in this file"]


def test_split_llms_full_still_returns_a_list_of_pages():
    pages = split_llms_full("# A\nSource: https://x.io/a\n\nBody")
    assert isinstance(pages, list) and [p.title for p in pages] == ["A"]


def test_mintlify_title_entities_are_decoded():
    pages, _ = split("# Tools &amp; resources&nbsp;API\nSource: https://x.io/tools\n\nBody")
    assert pages[0].title == "Tools & resources API"


def test_page_markers_inside_indented_or_tilde_fences_do_not_split():
    text = (
        '# A\nSource: https://x.io/a\n\n<Tabs>\n  <Tab title="t">\n    ~~~md\n'
        "    # B\n    Source: https://x.io/b\n    ~~~\n  </Tab>\n</Tabs>\n"
    )
    pages, _ = split(text)
    assert [p.path for p in pages] == ["a"]
    assert "Source: https://x.io/b" in pages[0].sections[0].text


# -- page-tags -------------------------------------------------------------------------------


def test_doc_tags_are_pages_with_title_description_and_url_attributes():
    result, messages = parse_fixture(
        "llms-ctx.txt", base_url="https://widgets.example/llms-ctx.txt"
    )
    assert [(p.title, p.url, p.path) for p in result.pages] == [
        ("Widget quick start", "https://widgets.example/docs/quickstart.md", "docs/quickstart"),
        ("Gear reference", "https://widgets.example/llms-ctx.txt#gear-reference", "gear-reference"),
        ("Changelog", "https://widgets.example/changelog", "changelog"),
    ]
    assert result.pages[0].description == "A tour of widgets & gears"
    # The project summary before <docs> is not a page, and the build says so.
    assert messages == ["ignored 56 characters before the first page"]


def test_doc_tag_inside_a_code_fence_is_not_a_page():
    result, _ = parse_fixture("llms-ctx.txt")
    quick = result.pages[0]
    assert [s.heading for s in quick.sections] == ["", "Quick start for web devs", "Run"]
    assert '<doc title="Not a page">' in quick.sections[1].text


def test_page_tags_with_frontmatter_take_url_and_title_from_it():
    result, messages = parse_fixture(
        "llms-full-pages.txt", base_url="https://widgets.example/llms-full.txt"
    )
    assert messages == []
    assert [(p.title, p.url, p.path, p.description) for p in result.pages] == [
        ("Overview · Widgets docs", "https://widgets.example/docs/", "docs", "What widgets are"),
        ("Gears & sprockets", "https://widgets.example/docs/gears/", "docs/gears", ""),
    ]
    overview, gears = result.pages
    assert "<page>\n# not a page either\n</page>" in overview.sections[1].text
    assert [s.heading for s in gears.sections] == ["", "Gears body heading"]


def test_page_tag_without_its_closing_line_is_not_a_page():
    assert detect_layout("<page>\n# A\n\ntext\n") == "headings"


def test_text_between_page_tags_is_reported():
    text = "<page url='/a'>\nA\n</page>\nstray words\n<page url='/b'>\nB\n</page>\n"
    result = parse_llms_full(text, warn=(messages := []).append)
    assert [p.path for p in result.pages] == ["a", "b"]
    assert messages == ["ignored 11 characters outside the page tags"]


# -- firecrawl -------------------------------------------------------------------------------


def test_firecrawl_pages_start_at_the_skip_link_and_take_the_h1_as_title():
    result, messages = parse_fixture("llms-full-firecrawl.txt")
    assert messages == []  # the "# <site> llms-full.txt" header is expected
    assert [(p.title, p.url, p.path) for p in result.pages] == [
        ("Widgets - Getting Started", "https://widgets.example/", "index"),
        # No H1 on the page: the crawler's summary title is all there is.
        ("Gear Summary Written By A Model", "https://widgets.example/docs/gears", "docs/gears"),
    ]


def test_firecrawl_heading_permalinks_are_not_part_of_headings():
    result, _ = parse_fixture("llms-full-firecrawl.txt")
    start, gears = result.pages
    assert [(s.heading, s.anchor) for s in start.sections[1:]] == [
        ("Install the toolkit", "install-the-toolkit")
    ]
    assert [(s.heading, s.anchor) for s in gears.sections[1:]] == [("Sizes", "sizes")]
    assert start.sections[0].text == "Widgets turn gears into sprockets."


def test_firecrawl_skip_link_inside_a_fence_is_not_a_page():
    result, _ = parse_fixture("llms-full-firecrawl.txt")
    install = result.pages[0].sections[1].text
    assert "[Skip to main content](https://widgets.example/inside-a-fence)" in install
    assert install.startswith("tip\n\nUse a virtualenv.")


# -- rule-blocks -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rule_blocks():
    return parse_fixture(
        "llms-full-rule-blocks.txt", base_url="https://widgets.example/docs/", clean_urls=True
    )


def test_rule_blocks_take_url_doc_path_title_and_nav_group(rule_blocks):
    result, messages = rule_blocks
    assert messages == []  # the KEY: value preamble is expected
    assert [(p.title, p.url, p.group) for p in result.pages] == [
        (
            "What are widgets?",
            "https://widgets.example/docs/guide/introduction",
            ("Getting Started",),
        ),
        # No URL: line: DOC_PATH against base_url; no H1: the last NAV_PATH crumb.
        ("Gears", "https://widgets.example/docs/guide/gears", ("Getting Started",)),
        # TITLE: wins over the body's H1, which becomes a section.
        ("Build a widget & ship it", "https://widgets.example/docs/tutorials/build", ()),
    ]
    assert [s.heading for s in result.pages[2].sections] == ["", "Tutorial body H1"]


def test_unclosed_containers_keep_their_text_and_do_not_swallow_the_page(rule_blocks):
    intro = rule_blocks[0].pages[0]
    assert [s.heading for s in intro.sections] == ["", "Next steps"]
    assert intro.sections[0].text == (
        "Widgets turn gears into sprockets – fast.\n\n"
        "Howdy! 👋🏻\nContainers here are never closed."
    )
    assert rule_blocks[0].pages[1].sections[0].text == "Gears mesh.\n\nMind your fingers."


def test_html_comment_spanning_a_fence_is_dropped_whole(rule_blocks):
    next_steps = rule_blocks[0].pages[0].sections[1].text
    assert "Hidden draft note" not in next_steps and "inside-a-comment" not in next_steps
    assert next_steps.startswith("Read [the guide](/guide/gears.md).")


def test_rule_block_inside_a_fence_is_not_a_page(rule_blocks):
    assert len(rule_blocks[0].pages) == 3
    assert "URL: https://widgets.example/inside-a-fence" in rule_blocks[0].pages[0].sections[1].text


def test_unexpected_preamble_is_still_reported():
    text = "Some intro words.\n" + (FIXTURES / "llms-full-rule-blocks.txt").read_text(
        encoding="utf-8"
    )
    messages: list[str] = []
    parse_llms_full(text, warn=messages.append)
    assert messages == ["ignored 17 characters before the first page"]


# -- llms.txt ---------------------------------------------------------------------------------


def test_llms_txt_links_are_absolute_deduplicated_and_in_order():
    text = (FIXTURES / "llms.txt").read_text(encoding="utf-8")
    assert parse_llms_txt(text, base_url="https://widgets.example/llms.txt") == [
        "https://widgets.example/docs/quickstart.md",
        "https://widgets.example/docs/concepts.md",
        "https://widgets.example/gears.md",
        "https://en.wikipedia.org/wiki/Gear_(device)",
    ]


def test_llms_txt_skips_images_and_understands_angle_brackets_and_link_titles():
    text = '![logo](/logo.png)\n[A](<a.md>) [B](/b.md "The B page")'
    assert parse_llms_txt(text, base_url="https://x.io/docs/llms.txt") == [
        "https://x.io/docs/a.md",
        "https://x.io/b.md",
    ]


def test_llms_txt_without_links_is_empty():
    assert parse_llms_txt("", base_url="https://x.io/llms.txt") == []


VITEPRESS = """\
---
url: /guide/spies.md
description: >-
  Spies record calls,
  arguments and return values.
---

# Spies

Intro text.

```yaml
---
url: /not/a/page.md
---
```

## Creating a spy

Call `spy()`.

---

---
url: /guide/stubs.md
---

# Stubs

Stubs replace functions.
"""


def test_vitepress_layout_splits_at_frontmatter_blocks_with_url():
    pages, messages = split(VITEPRESS)
    assert messages == []
    assert [(p.url, p.path, p.title) for p in pages] == [
        ("/guide/spies.md", "guide/spies", "Spies"),
        ("/guide/stubs.md", "guide/stubs", "Stubs"),
    ]
    assert pages[0].description == "Spies record calls, arguments and return values."
    assert [s.heading for s in pages[0].sections] == ["", "Creating a spy"]
    assert "url: /not/a/page.md" in pages[0].sections[0].text  # fenced: not a page
    assert "---" not in pages[0].sections[-1].text  # the joining rule belongs to no page


def test_vitepress_pages_get_vitepress_anchors_unless_the_source_says():
    pages, _ = split(VITEPRESS)
    assert pages[0].sections[1].anchor == "creating-a-spy"
    text = VITEPRESS.replace("## Creating a spy", "## Calling spy.calledWith()")
    assert split(text)[0][0].sections[1].anchor == "calling-spy-calledwith"
    assert split(text, anchors="github")[0][0].sections[1].anchor == "calling-spycalledwith"


def test_vitepress_urls_resolve_against_base_url():
    pages, _ = split(VITEPRESS, base_url="https://sinonjs.org/")
    assert pages[1].url == "https://sinonjs.org/guide/stubs.md"


def test_clean_urls_give_the_address_the_site_serves():
    pages, _ = split(VITEPRESS, base_url="https://sinonjs.org/", clean_urls=True)
    assert [(p.url, p.path) for p in pages] == [
        ("https://sinonjs.org/guide/spies", "guide/spies"),
        ("https://sinonjs.org/guide/stubs", "guide/stubs"),
    ]


def test_real_vitepress_llms_full_splits_into_the_documented_page_count():
    corpus = CORPORA / "sinon-llms-full"
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not available")
    stated = re.search(r"(\d+) pages", (corpus / "SOURCE.md").read_text(encoding="utf-8"))
    pages, messages = split((corpus / "llms-full.txt").read_text(encoding="utf-8"))
    assert stated is not None and len(pages) == int(stated.group(1)) == 222
    assert messages == []
    assert all(p.url.startswith("/") and p.url.endswith(".md") for p in pages)
    assert sum(1 for p in pages if p.description) == 219


# -- streaming a large file ----------------------------------------------------------------

_STREAM_FILES = [
    FIXTURES / "llms-full.txt",
    FIXTURES / "llms-ctx.txt",
    FIXTURES / "llms-full-firecrawl.txt",
    FIXTURES / "llms-full-pages.txt",
    FIXTURES / "llms-full-rule-blocks.txt",
    FIXTURES / "vitepress.md",
    *sorted(CORPORA.glob("*-llms-full/llms-full.txt")),
]


@pytest.mark.parametrize("path", _STREAM_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("chunk_lines", [5, 60, 100_000])
def test_a_stream_gives_the_pages_and_warnings_of_the_whole_file(path: Path, chunk_lines: int):
    from docwheel.formats.llms import LlmsFullStream
    from docwheel.sources import file_lines

    base = "https://widgets.example/llms-full.txt"
    whole_warnings: list[str] = []
    whole = parse_llms_full(path.read_text(encoding="utf-8"), base_url=base, warn=whole_warnings.append)
    stream_warnings: list[str] = []
    stream = LlmsFullStream(
        file_lines(path), base_url=base, warn=stream_warnings.append, chunk_lines=chunk_lines
    )
    assert list(stream) == list(whole.pages)
    assert (stream.layout, stream.pages) == (whole.layout, len(whole.pages))
    assert stream_warnings == whole_warnings


def test_file_lines_read_like_normalized_split(tmp_path: Path):
    from docwheel.formats.markdown import normalize_text
    from docwheel.sources import file_lines

    for data in (b"", b"a", b"a\n", b"\xef\xbb\xbfa\r\nb\rc\n\n", b"x\ny"):
        path = tmp_path / "f.txt"
        path.write_bytes(data)
        assert list(file_lines(path)) == normalize_text(data.decode("utf-8")).split("\n")
