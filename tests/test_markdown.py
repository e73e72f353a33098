from __future__ import annotations

from pathlib import Path

import pytest

from docwheel.formats.headings import (
    Slugger,
    slugify,
    slugify_mintlify,
    slugify_vitepress,
    strip_inline,
)
from docwheel.formats.html import decode_entities, html_to_text
from docwheel.formats.markdown import (
    clean_body,
    page_meta,
    page_path_from_url,
    parse_markdown,
    site_url,
    split_code,
    split_frontmatter,
    strip_mdx,
    title_from_path,
    unlisted,
)
from docwheel.models import Page, Section

FIXTURES = Path(__file__).parent / "fixtures" / "parsing"


def parse(text: str, **kwargs) -> Page:
    options = {"url": "https://x.io/page", "path": "page", "fallback_title": "Fallback"}
    return parse_markdown(text, **{**options, **kwargs})


def headings(page: Page) -> list[str]:
    return [s.heading for s in page.sections[1:]]


@pytest.fixture(scope="module")
def guide():
    text = (FIXTURES / "guide.mdx").read_text(encoding="utf-8")
    return parse_markdown(
        text, url="https://widgets.example/guide", path="guide", fallback_title="Guide"
    )


def section(page: Page, heading: str) -> Section:
    return next(s for s in page.sections if s.heading == heading)


# -- slugs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Getting Started", "getting-started"),
        ("What's new in 2.0?", "whats-new-in-20"),
        ("The `fastmcp.apps` module", "the-fastmcpapps-module"),
        ("`__init__`", "__init__"),
        ("**Bold** and _emphasis_", "bold-and-emphasis"),
        ("See [the docs](https://x.io/docs)", "see-the-docs"),
        ("Install <Badge>new</Badge>", "install-new"),
        ("Tools & Resources", "tools--resources"),
        ("Überblick über Größen", "überblick-über-größen"),
        ("snake_case-and-kebab", "snake_case-and-kebab"),
        ("日本語の見出し", "日本語の見出し"),
    ],
)
def test_slugify_matches_github_anchors(heading, slug):
    assert slugify(heading) == slug


def test_slugger_numbers_repeated_headings_github_style():
    slugger = Slugger()
    assert [slugger.slug(h) for h in ["Foo", "Foo", "Foo-1", "Foo"]] == [
        "foo",
        "foo-1",
        "foo-1-1",
        "foo-2",
    ]


def test_punctuation_only_heading_gets_a_fallback_anchor():
    assert slugify("???") == ""
    slugger = Slugger()
    assert [slugger.slug("???"), slugger.slug("!!")] == ["section", "section-1"]


# -- frontmatter -------------------------------------------------------------------------


def test_frontmatter_is_split_from_the_body():
    meta, body, warning = split_frontmatter("---\ntitle: A\ntag: NEW\n---\nBody\n")
    assert (meta, body, warning) == ({"title": "A", "tag": "NEW"}, "Body\n", None)


def test_text_without_frontmatter_is_returned_unchanged():
    assert split_frontmatter("# Title\n---\n") == ({}, "# Title\n---\n", None)


def test_unclosed_frontmatter_fence_is_a_thematic_break():
    assert split_frontmatter("---\nno closing line") == ({}, "---\nno closing line", None)


def test_malformed_frontmatter_yaml_warns_and_drops_the_block():
    meta, body, warning = split_frontmatter("---\ntitle: [unclosed\n---\nBody")
    assert meta == {}
    assert body == "Body"
    assert warning is not None and warning.startswith("malformed frontmatter: ")


def test_non_mapping_frontmatter_warns():
    meta, body, warning = split_frontmatter("---\n- a\n- b\n---\nBody")
    assert (meta, body) == ({}, "Body")
    assert warning == "malformed frontmatter: expected a mapping, got list"


def test_impossible_date_in_frontmatter_warns_instead_of_raising():
    _, _, warning = split_frontmatter("---\ndate: 2024-13-45\n---\n")
    assert warning is not None and warning.startswith("malformed frontmatter")


def test_frontmatter_title_and_description_are_used(guide):
    assert guide.title == "Widget Guide"
    assert guide.description == "Build and ship widgets."


def test_malformed_frontmatter_is_reported_through_warn():
    messages: list[str] = []
    page = parse("---\ntitle: : :\n---\n# Real title\n", warn=messages.append)
    assert page.title == "Real title"
    assert len(messages) == 1 and messages[0].startswith("malformed frontmatter: ")


def test_missing_description_is_empty():
    assert parse("---\ntitle: T\n---\nx").description == ""


def test_only_frontmatter_yields_one_empty_intro_section():
    page = parse("---\ntitle: Just meta\n---\n")
    assert page.title == "Just meta"
    assert page.sections == (Section("", "", 0, ("Just meta",), ""),)


# -- titles and sections -----------------------------------------------------------------


def test_leading_h1_is_the_title_and_not_a_section():
    page = parse("# The Title\n\nIntro.\n\n## Next\n\nMore.")
    assert page.title == "The Title"
    assert headings(page) == ["Next"]
    assert page.sections[0].text == "Intro."


def test_h1_after_another_heading_is_a_section_not_the_title():
    page = parse("## First\n\n# Later H1\n")
    assert page.title == "Fallback"
    assert [(s.heading, s.level) for s in page.sections[1:]] == [("First", 2), ("Later H1", 1)]


def test_body_h1_repeating_the_frontmatter_title_is_not_duplicated():
    page = parse("---\ntitle: Same\n---\n# Same\n\nText.")
    assert page.title == "Same"
    assert headings(page) == []
    assert page.sections[0].text == "Text."


def test_body_h1_differing_from_the_frontmatter_title_is_a_section():
    page = parse("---\ntitle: Meta title\n---\n# Body title\n\nText.")
    assert page.title == "Meta title"
    assert page.sections[1].path == ("Meta title", "Body title")


def test_forced_title_wins_over_frontmatter_and_h1():
    page = parse("---\ntitle: Meta\n---\n# Body\n", title="Forced")
    assert page.title == "Forced"
    assert headings(page) == ["Body"]


def test_h1_title_has_inline_markup_stripped():
    assert parse("# `fastmcp.apps`\n").title == "fastmcp.apps"


def test_fallback_title_when_there_is_no_title_anywhere():
    assert parse("Plain text.").title == "Fallback"


def test_intro_section_is_always_first_even_when_empty():
    page = parse("## Right away\n\nText.")
    assert page.sections[0] == Section("", "", 0, ("Fallback",), "")
    assert page.sections[1].text == "Text."


def test_empty_text_yields_one_intro_section():
    assert parse("").sections == (Section("", "", 0, ("Fallback",), ""),)


def test_heading_paths_follow_levels(guide):
    paths = [s.path for s in guide.sections]
    assert paths == [
        ("Widget Guide",),
        ("Widget Guide", "Install"),
        ("Widget Guide", "Install", "From source"),
        ("Widget Guide", "Configure"),
        ("Widget Guide", "Configure", "Options"),
        ("Widget Guide", "Configure"),
    ]


def test_h2_resets_deeper_levels():
    page = parse("# T\n## A\n### A1\n## B\n### B1\n")
    assert [s.path for s in page.sections[1:]] == [
        ("T", "A"),
        ("T", "A", "A1"),
        ("T", "B"),
        ("T", "B", "B1"),
    ]


def test_duplicate_headings_get_unique_anchors(guide):
    assert [s.anchor for s in guide.sections] == [
        "",
        "install",
        "from-source",
        "configure",
        "options",
        "configure-1",
    ]


def test_headings_deeper_than_max_level_stay_in_the_text(guide):
    from_source = section(guide, "From source")
    assert "#### Build flags" in from_source.text
    assert from_source.text.endswith("Pass `--fast` to skip checks.")


def test_max_level_controls_which_headings_split():
    text = "# T\n## A\ntext a\n### A1\ntext a1\n"
    assert headings(parse(text, max_level=2)) == ["A"]
    assert headings(parse(text, max_level=3)) == ["A", "A1"]
    assert parse(text, max_level=2).sections[1].text == "text a\n### A1\ntext a1"


def test_deeper_headings_still_count_for_anchor_numbering():
    page = parse("# T\n#### Example\n## Example\n", max_level=2)
    assert page.sections[1].anchor == "example-1"


def test_section_text_has_no_heading_line_and_no_edge_blank_lines():
    page = parse("# T\n\n## A\n\n\nline one\n\nline two\n\n\n## B\n")
    assert page.sections[1].text == "line one\n\nline two"


def test_heading_text_has_inline_markup_stripped():
    page = parse("# T\n## The `run()` [method](/api#run) **now** ##\n")
    assert page.sections[1].heading == "The run() method now"
    assert page.sections[1].anchor == "the-run-method-now"


def test_punctuation_only_heading_gets_section_anchor():
    page = parse("# T\n## ???\ntext\n")
    assert (page.sections[1].heading, page.sections[1].anchor) == ("???", "section")


def test_hash_without_space_or_text_is_not_a_heading():
    page = parse("# T\n#hashtag\n#\n## Real\n")
    assert headings(page) == ["Real"]
    assert page.sections[0].text == "#hashtag\n#"


# -- code fences -------------------------------------------------------------------------


def test_hash_lines_inside_backtick_fence_are_not_headings():
    page = parse("# T\n\n```bash\n# Using uvx\n## also not\n```\n\n## Real\n")
    assert headings(page) == ["Real"]
    assert "# Using uvx" in page.sections[0].text


def test_hash_lines_inside_tilde_fence_are_not_headings():
    page = parse("# T\n~~~\n# comment\n~~~\n## Real\n")
    assert headings(page) == ["Real"]


def test_fence_closes_only_with_same_char_and_at_least_same_length():
    text = "# T\n````md\n```\n# inner\n```\n~~~~\n## still code\n````\n## Real\n"
    assert headings(parse(text)) == ["Real"]


def test_indented_fence_inside_a_component_hides_its_headings(guide):
    assert headings(guide) == ["Install", "From source", "Configure", "Options", "Configure"]
    install = section(guide, "Install").text
    assert "\n# Using pip\n" in install  # shown without the tabs' indentation, still code
    assert "\n# still inside the tilde fence\n" in install


def test_headings_indented_inside_a_component_are_headings():
    # Mintlify indents whole tab bodies; MDX has no indented code, so these are headings.
    text = (
        "# T\n\nIntro.\n\n<Tabs>\n  <Tab title=\"Python\">\n    Set up Python.\n\n"
        "    ## System Requirements\n\n    Python 3.10.\n\n    ```bash\n    # a comment\n"
        "    uv init\n      nested\n    ```\n  </Tab>\n  <Tab title=\"Java\">\n"
        "    ## Spring setup\n\n    Use Maven.\n  </Tab>\n</Tabs>\n"
    )
    page = parse(text)
    assert headings(page) == ["System Requirements", "Spring setup"]
    assert "```bash\n# a comment\nuv init\n  nested\n```" in section(page, "System Requirements").text
    assert section(page, "Spring setup").text == "Use Maven."


def test_indented_lines_outside_components_stay_as_written():
    text = "# T\n\nIntro.\n\n    ## indented, not in a component\n\n<Note>\nFlat body.\n</Note>\n"
    page = parse(text)
    assert headings(page) == []
    assert "    ## indented, not in a component" in page.sections[0].text


def test_deeply_indented_fence_is_still_a_fence():
    text = "# T\n<Steps>\n        ```python\n  # comment\n        ```\n</Steps>\n## Real\n"
    assert headings(parse(text)) == ["Real"]


def test_unclosed_fence_makes_the_rest_code():
    page = parse("# T\n## Before\n```\n## swallowed\n# also\n")
    assert headings(page) == ["Before"]
    assert page.sections[1].text == "```\n## swallowed\n# also"


def test_split_code_separates_prose_from_fenced_code():
    prose, code = split_code("Intro\n```py\nx = 1\n```\nMiddle\n  ~~~\n  y = 2\n  ~~~\nEnd")
    assert prose == "Intro\nMiddle\nEnd"
    assert code == "x = 1\n  y = 2"


def test_prose_is_searched_as_the_page_shows_it_without_link_targets_or_tag_markup():
    prose, _ = split_code(
        "See [the middleware guide](/servers/middleware) and ![a diagram](img/flow.png).\n"
        '#### `lifespan` <sup><a href="https://github.com/acme/x/blob/main/x_slim/y.py#L1" '
        'target="_blank"><Icon icon="github" style="width: 14px" /></a></sup>\n'
        '<ParamField body="dependencies" type="list[str]">Packages.</ParamField>\n'
        "<Card title='Environment' href=\"/env\">Set it up.</Card> `<b>[kept](as/written)</b>`\n"
        "Returns a List<String> of names."
    )
    assert "See the middleware guide and a diagram." in prose
    for hidden in ("/servers/middleware", "img/flow", "github", "x_slim", "_blank", "14px", "Icon", "ParamField", "href"):
        assert hidden not in prose
    assert "dependencies" in prose and "list[str]" in prose and "Packages." in prose
    assert "Environment" in prose and "Set it up." in prose
    assert "`<b>[kept](as/written)</b>`" in prose  # code spans stay as written
    assert "List<String>" in prose  # a generic type, not a tag


def test_split_code_reads_backslash_escapes_in_prose_but_not_in_code():
    prose, code = split_code("Edit claude\\_desktop\\_config.json \\(once\\)\n```\nC:\\new\\_dir\n```")
    assert prose == "Edit claude_desktop_config.json (once)"
    assert code == "C:\\new\\_dir"


def test_split_code_without_code_returns_empty_code():
    assert split_code("just words") == ("just words", "")


# -- MDX -----------------------------------------------------------------------------------


def test_mdx_imports_and_multiline_export_are_dropped(guide):
    intro = guide.sections[0].text
    assert intro == "Widgets turn gears into  sprockets."


def test_component_tag_lines_are_removed_but_inner_text_kept(guide):
    install = section(guide, "Install").text
    assert "<Note>" not in install and "</Note>" not in install and "Tab" not in install
    assert "Widgets need Python 3.10 or newer." in install


def test_title_attributes_are_kept_as_text(guide):
    assert "pip\n" in section(guide, "Install").text
    configure = section(guide, "Configure").text
    assert configure.splitlines() == ["Settings reference", "Every option, with defaults."]


def test_multiline_component_tag_is_removed():
    text = (
        '<Card\n  title="Auth"\n  href="/auth"\n>\n  Body\n</Card>\n'
        '<YouTubeEmbed\n  videoId="x"\n/>\nAfter'
    )
    assert strip_mdx(text) == "Auth\n  Body\nAfter"


def test_self_closing_component_keeps_only_its_title():
    text = '<CardGroup>\n<Card title="Quickstart" href="/q" />\n<Icon icon="x" />\n</CardGroup>'
    assert strip_mdx(text) == "Quickstart"


def test_inline_component_in_a_paragraph_keeps_the_words():
    assert strip_mdx('Run <Icon icon="play" /> now, <Tooltip tip="t">hover</Tooltip>.') == (
        "Run  now, hover."
    )


def test_strip_mdx_leaves_code_fences_and_inline_code_alone():
    text = (
        "```tsx\nimport { X } from 'x'\nexport const y = 1\n<Note>kept</Note>\n```\n"
        "Use `<Tab>` inside `<Tabs>`."
    )
    assert strip_mdx(text) == text


def test_strip_mdx_keeps_generics_and_lowercase_html():
    text = 'Returns List<String>.\n<img src="a.png" />'
    assert strip_mdx(text) == text


def test_shell_style_export_line_is_not_treated_as_esm():
    assert strip_mdx("export FOO=1\nimport the module first") == (
        "export FOO=1\nimport the module first"
    )


def test_jsx_export_component_is_dropped_up_to_its_balanced_end():
    text = (
        "{/* prettier-ignore-start */}\n"
        "export const CHECK = () => (\n"
        '  <span className="x">\n'
        '    <Icon icon="check" size={18} />\n'
        "  </span>\n"
        ");\n"
        "{/* prettier-ignore-end */}\n"
        "Matrix text."
    )
    assert strip_mdx(text) == "Matrix text."


def test_unbalanced_export_drops_only_its_own_line():
    assert strip_mdx("export const x = {\n\nStill here.") == "\nStill here."


# -- BOM and line endings ------------------------------------------------------------------


def test_bom_and_crlf_are_handled():
    text = "\ufeff---\r\ntitle: Win\r\n---\r\n## One\r\ntext\r\n## Two\r\n"
    page = parse(text)
    assert page.title == "Win"
    assert headings(page) == ["One", "Two"]
    assert page.sections[1].text == "text"


# -- page paths and titles -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://modelcontextprotocol.io/docs/concepts/tools", "docs/concepts/tools"),
        ("/concepts/spies.md", "concepts/spies"),
        ("servers/tools.mdx", "servers/tools"),
        ("https://x.io/", "index"),
        ("https://x.io", "index"),
        ("", "index"),
        ("guide/index.md", "guide"),
        ("https://x.io/index.html", "index"),
        ("https://x.io/a/b/?q=1#frag", "a/b"),
        ("./docs//intro.MDX", "docs/intro"),
        ("docs\\windows\\page.md", "docs/windows/page"),
        ("https://x.io/caf%C3%A9.html", "café"),
        ("https://x.io/llms-full.txt", "llms-full"),
    ],
)
def test_page_path_from_url(url, path):
    assert page_path_from_url(url) == path


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("getting-started", "Getting started"),
        ("docs/concepts/tool_calls.mdx", "Tool calls"),
        ("guide/index.md", "Guide"),
        ("", "Index"),
        ("API-reference", "API reference"),
    ],
)
def test_title_from_path(path, title):
    assert title_from_path(path) == title


def test_sidebar_title_is_the_title_when_there_is_no_title_or_h1():
    assert parse("---\nsidebarTitle: Short\n---\nText.").title == "Short"
    assert parse("---\nsidebarTitle: Short\n---\n# The H1\n").title == "The H1"


def test_page_without_any_title_uses_the_fallback_from_its_path():
    page = parse_markdown(
        "Just text.",
        url="u",
        path="guides/tool_calls",
        fallback_title=title_from_path("guides/tool_calls"),
    )
    assert page.title == "Tool calls"


# -- unlisted pages --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frontmatter", "reason"),
    [
        ("noindex: true", "noindex"),
        ("hidden: true", "hidden"),
        ("hidden: 'true'", "hidden"),
        ("noindex: false", None),
        ("hidden: no", None),
        ("title: Plain", None),
    ],
)
def test_unlisted_reads_noindex_and_hidden(frontmatter, reason):
    assert unlisted(page_meta(f"---\n{frontmatter}\n---\nBody")) == reason


def test_page_meta_of_malformed_or_missing_frontmatter_is_empty():
    assert page_meta("---\ntitle: [x\n---\n") == {}
    assert page_meta("# No frontmatter") == {}


# -- Mintlify per-page .md -------------------------------------------------------------------


def test_documentation_index_blockquote_is_dropped():
    page = parse_markdown(
        (FIXTURES / "mintlify-page.md").read_text(encoding="utf-8"),
        url="https://widgets.example/keys",
        path="keys",
        fallback_title="Keys",
    )
    assert page.title == "Rotate API keys"
    assert page.sections[0].text == "Keys expire after 90 days.\n\n> A real quote stays."
    assert "Documentation Index" not in "".join(s.text for s in page.sections)


def test_documentation_index_blockquote_before_frontmatter_is_dropped_too():
    text = (
        "> ## Documentation Index\n> Fetch it at: https://x.io/llms.txt\n---\ntitle: T\n---\nBody"
    )
    page = parse(text)
    assert (page.title, page.sections[0].text) == ("T", "Body")


# -- VitePress containers and entities -------------------------------------------------------


@pytest.fixture(scope="module")
def vitepress():
    text = (FIXTURES / "vitepress.md").read_text(encoding="utf-8")
    return parse_markdown(text, url="u", path="p", fallback_title="F")


def test_container_markers_go_and_their_text_and_titles_stay(vitepress):
    lines = vitepress.sections[0].text.split("\n")
    assert lines[:8] == [
        "Containers keep their text.",
        "",
        "Mind the gears",
        "Gears bite.",
        "",
        "Click to expand",
        "Hidden by default, still indexed.",
        "",
    ]
    assert "::: not a container inside code" in lines  # fenced: untouched
    assert [line for line in lines if line.startswith(":::")] == ["::: not a container inside code"]


def test_entities_are_decoded_in_title_description_and_text_but_not_code(vitepress):
    assert vitepress.title == "Containers & entities"
    assert vitepress.description == "Tips \u2013 and warnings"
    last = vitepress.sections[0].text.split("\n")[-1]
    assert last == "Widgets \u00d7 2 cost $5 \u2014 see `&amp;` and ?a=1&copy=2."


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("a&nbsp;b", "a b"),
        ("&#x7B;x&#x7D;", "{x}"),
        ("&quot;q&quot; &lt;T&gt;", '"q" <T>'),
        ("zero&#8203;width", "zerowidth"),
        ("AT&T &copy 2", "AT&T &copy 2"),
        ("&unknownentity;", "&unknownentity;"),
    ],
)
def test_decode_entities(text, decoded):
    assert decode_entities(text) == decoded


def test_heading_permalink_with_zero_width_text_leaves_no_trace():
    assert strip_inline('Sizes [\u200b](https://x.io/\\#sizes "Direct link to Sizes")') == "Sizes"


# -- HTML ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def html_page():
    text = (FIXTURES / "html-blocks.mdx").read_text(encoding="utf-8")
    return parse_markdown(text, url="u", path="p", fallback_title="F")


def test_html_table_becomes_rows_of_cells(html_page):
    assert html_page.sections[0].text == "Option | Default\ngear_ratio | 1 : 2"


def test_script_content_is_never_indexed(html_page):
    assert "script text" not in "".join(s.text for s in html_page.sections)


def test_generated_reference_html_becomes_its_text(html_page):
    widget = html_page.sections[1]
    assert (widget.heading, widget.anchor) == ("Widget", "widget")
    assert widget.text.startswith(
        'interface Widget {\nname: string;\n}\nA widget "turns" gears.\n\n'
    )


def test_commented_out_heading_is_not_a_section_and_comments_leave_no_text(html_page):
    assert [s.heading for s in html_page.sections] == ["", "Widget"]
    text = html_page.sections[1].text
    assert "Commented-out" not in text and "hidden" not in text
    assert "Inline  comment and <code>inline html</code> stay readable." in text


def test_details_keep_summary_and_markdown_body(html_page):
    assert "More about widgets\n\nWidgets are **great**." in html_page.sections[1].text


def test_html_in_code_fences_is_untouched(html_page):
    assert html_page.sections[1].text.endswith(
        "```html\n<div>code samples keep their tags &amp; entities</div>\n```"
    )


def test_lone_tag_starts_an_html_block_but_cannot_interrupt_a_paragraph():
    assert clean_body('\n<span class="x">\nblock text\n</span>\n') == "\nblock text\n"
    assert clean_body("Some text\n<span>\nkept\n</span>\n") == "Some text\n<span>\nkept\n</span>\n"
    assert clean_body("\n<span>inline html</span> in a paragraph\n") == (
        "\n<span>inline html</span> in a paragraph\n"
    )


def test_unclosed_html_comment_hides_nothing():
    page = parse("# T\n<!-- never closed\n## Still a heading\ntext\n")
    assert [s.heading for s in page.sections[1:]] == ["Still a heading"]


def test_html_to_text_keeps_image_alt_and_drops_svg():
    assert html_to_text('<p><img src="x.png" alt="A gear"> <svg><text>no</text></svg>ok</p>') == (
        "A gear ok"
    )


# -- site URLs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "served"),
    [
        ("https://x.io/docs/install.md", "https://x.io/docs/install"),
        ("https://x.io/docs/install.mdx", "https://x.io/docs/install"),
        ("https://x.io/guide/stubs.html#api", "https://x.io/guide/stubs#api"),
        ("https://x.io/docs/guide/index.md", "https://x.io/docs/guide/"),
        ("https://x.io/index.html", "https://x.io/"),
        ("https://x.io/docs/install", "https://x.io/docs/install"),
        ("https://x.io/llms-full.txt", "https://x.io/llms-full.txt"),
        ("https://x.io/docs/README.MD?raw=1", "https://x.io/docs/README?raw=1"),
        ("guides/index.md", "guides/"),
        ("index.mdx", ""),
    ],
)
def test_site_url_drops_markdown_and_html_extensions(url, served):
    assert site_url(url) == served


@pytest.mark.parametrize(
    ("heading", "github", "vitepress"),
    [
        ("sinon.stub().resolves(value)", "sinonstubresolvesvalue", "sinon-stub-resolves-value"),
        ("`stub.callsFake(fn)`", "stubcallsfakefn", "stub-callsfake-fn"),
        ("Héllo Wörld!", "héllo-wörld", "hello-world"),
        ("1. Install", "1-install", "_1-install"),
        ("What's new?", "whats-new", "what-s-new"),
        ("A -- B", "a----b", "a-b"),
        ("foo_bar baz", "foo_bar-baz", "foo-bar-baz"),
    ],
)
def test_anchors_follow_the_slug_rules_of_the_site(heading, github, vitepress):
    assert slugify(heading) == github
    assert slugify_vitepress(heading) == vitepress


def test_a_custom_heading_id_is_the_anchor_and_leaves_the_heading_text():
    page = parse_markdown(
        "# T\n\n## Install it {#setup}\n\nx\n\n## Install it\n\ny\n",
        url="u", path="p", fallback_title="T", anchors="vitepress",
    )
    assert [(s.anchor, s.heading) for s in page.sections[1:]] == [
        ("setup", "Install it"), ("install-it", "Install it"),
    ]


def test_mintlify_anchors_are_githubs_with_slashes_kept():
    assert slugify_mintlify("`notifications/tools/list_changed`") == "notifications/tools/list_changed"
    assert slugify_mintlify("Rate limits (beta)") == slugify("Rate limits (beta)") == "rate-limits-beta"


def test_a_heading_keeps_its_code_spans_as_markdown_for_reading():
    page = parse_markdown(
        "# T\n\n## `<Aside>` Props\n\nx\n\n## Plain heading\n\ny\n",
        url="u", path="p", fallback_title="T",
    )
    aside, plain = page.sections[1:]
    assert (aside.heading, aside.heading_markdown) == ("<Aside> Props", "`<Aside>` Props")
    assert (plain.heading, plain.heading_markdown) == ("Plain heading", "")


def test_a_component_whose_attributes_nest_deeply_leaves_no_trace():
    text = (
        "Intro\n\n<SidebarPreview\n\tconfig={[\n\t\t{ label: 'a', items: [{ label: 'b' }] },\n"
        "\t]}\n/>\n\n<ThemeGrid\n\tlabels={{\n\t\tnote: 'Data from {{date}}.',\n\t}}\n/>\n\n"
        "After `<X a={{b}}>` code\n"
    )
    assert clean_body(text) == "Intro\n\nAfter `<X a={{b}}>` code\n"
