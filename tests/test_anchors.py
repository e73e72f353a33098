"""Every heading of every level has its anchor: headings deeper than the section split and
HTML anchors are parsed into ``Section.anchors``, stored in the index, resolved by ``read``
(API, CLI and MCP) and carried by a hit's URL when its passage lies under them."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

import docwheel
from docwheel.anchors import from_stored, heading_marks, part_of, to_stored
from docwheel.build import build_from_file
from docwheel.errors import UnknownRefError
from docwheel.library import open_docs
from docwheel.formats.llms import parse_llms_full
from docwheel.formats.markdown import parse_markdown
from docwheel.models import Anchor
from docwheel.server import create_server
from docwheel.snippets import EXCERPT_FROM, make_snippet, placed_snippet

from helpers import FIXTURES, docwheel_cmd, write_config

ANCHORS = FIXTURES / "anchors"
OPTIONS = "site:client/options"
SITE = "https://acme.example/docs/client/options"


def parse(text: str, **kwargs):
    return parse_markdown(text, url="u", path="p", fallback_title="Page", **kwargs)


def section(page, anchor: str):
    return next(s for s in page.sections if s.anchor == anchor)


# -- parsing -------------------------------------------------------------------------------


def test_headings_below_the_split_are_anchors_of_their_section_numbered_as_the_page_numbers_them():
    page = parse((ANCHORS / "site" / "client" / "options.md").read_text(encoding="utf-8"))
    retries = section(page, "retries")
    found = [(a.anchor, a.heading, a.level) for a in retries.anchors]
    assert found == [
        ("backoff", "Backoff", 4),
        ("jitter", "Jitter", 5),
        ("circuit-breaker", "Circuit breaker", 4),
        ("backoff-1", "Backoff", 4),  # the second "Backoff" on the page, as the site numbers it
        ("timeouts", "Timeouts", 4),
        ("legacy-timeouts", "Timeouts", 4),  # the <a name> placed before it
    ]
    for a in retries.anchors:
        assert retries.text[a.offset :].startswith("#" * a.level + " " + a.heading)
    # The text is what it was before anchors were kept: the deep headings stay in it.
    assert "#### Circuit breaker\n\nAfter five failures" in retries.text


def test_an_html_anchor_before_a_section_heading_names_that_heading_not_the_section_above():
    page = parse((ANCHORS / "site" / "client" / "options.md").read_text(encoding="utf-8"))
    assert section(page, "proxy").anchors == (Anchor("proxy-settings", "Proxy", 3, 0),)
    retries = section(page, "retries")
    assert "proxy-settings" not in {a.anchor for a in retries.anchors}
    assert retries.text.endswith("thirty seconds is cancelled.")  # its line went with it


def test_an_html_anchor_in_code_is_shown_not_a_target_and_one_ending_the_page_is_kept():
    page = parse("## A\n\nWrite `<a id=\"x\"></a>` to mark a place.\n\n<a id=\"end\"></a>\n")
    a = section(page, "a")
    assert a.anchors == (Anchor("end", "", 0, a.text.index("<a id=\"end\">")),)


def test_an_html_anchor_inside_a_heading_line_or_inside_prose():
    page = parse(
        "## <a name=\"review\"></a>Adding the review pages\n\nText.\n\n"
        "### `url(file)`<a id='urlmethod'></a>\n\n"
        "Before. Here <a id=\"mid\"></a> it continues.\n"
    )
    assert section(page, "adding-the-review-pages").anchors == (
        Anchor("review", "Adding the review pages", 2, 0),
    )
    url = section(page, "urlfile")
    assert [(a.anchor, a.level) for a in url.anchors] == [("urlmethod", 3), ("mid", 0)]
    mid = url.anchors[1]
    assert url.text[mid.offset :].startswith("Before. Here")  # the line that holds it


def test_headings_in_code_and_ids_that_repeat_a_heading_are_not_anchors():
    page = parse(
        "## Setup\n\n```bash\n#### not a heading\n```\n\n<a name=\"setup\"></a>\n\n"
        "#### Custom {#my-id}\n\nText.\n"
    )
    setup = section(page, "setup")
    assert setup.anchors == (Anchor("my-id", "Custom", 4, setup.text.index("#### Custom")),)


def test_a_heading_is_slugged_from_what_it_shows_not_from_its_text_stripped_twice():
    """A code span showing a tag is text on the page: `<StarlightPage>` stays in the slug."""
    page = parse("## `<Tabs>` component\n\n#### `<StarlightPage>` component\n\nText.\n")
    tabs = section(page, "tabs-component")
    assert tabs.heading == "<Tabs> component"
    assert [a.anchor for a in tabs.anchors] == ["starlightpage-component"]


def test_deep_headings_before_the_first_section_belong_to_the_intro():
    page = parse("# Title\n\nIntro.\n\n#### Note\n\nA note.\n\n## Next\n\nMore.\n")
    assert page.sections[0].anchors == (Anchor("note", "Note", 4, 8),)
    assert page.sections[0].text[8:].startswith("#### Note")


def test_max_level_decides_what_is_a_section_and_what_an_anchor():
    text = "## A\n\n### B\n\n#### C\n\nText.\n"
    assert [s.anchor for s in parse(text, max_level=2).sections] == ["", "a"]
    assert [a.anchor for a in parse(text, max_level=2).sections[1].anchors] == ["b", "c"]
    assert [a.anchor for a in parse(text, max_level=4).sections[3].anchors] == []


def test_llms_full_pages_get_their_deep_anchors_too():
    text = (ANCHORS / "llms-full.txt").read_text(encoding="utf-8")
    (page,) = parse_llms_full(text).pages
    signatures = section(page, "signatures")
    found = [a.anchor for a in signatures.anchors]
    assert found == ["verifying-a-signature", "rotating-the-secret"]


# -- the pure reading side ----------------------------------------------------------------


def test_stored_anchors_round_trip_and_none_when_a_section_has_none():
    anchors = (Anchor("a", "A", 4, 3), Anchor("t", "", 0, 9))
    assert from_stored(to_stored(anchors)) == anchors
    assert to_stored(()) is None and from_stored(None) == ()


def test_a_deep_heading_stands_for_the_text_up_to_the_next_heading_of_its_level_or_higher():
    text = "Intro.\n\n#### B\n\nb text\n\n##### C\n\nc text\n\n#### D\n\nd text"
    anchors = (
        Anchor("b", "B", 4, text.index("#### B")),
        Anchor("c", "C", 5, text.index("##### C")),
        Anchor("d", "D", 4, text.index("#### D")),
        Anchor("t", "", 0, text.index("c text")),
    )
    b = part_of(text, anchors, "b", 3)
    assert text[b.start : b.end].strip() == "#### B\n\nb text\n\n##### C\n\nc text"
    assert b.headings == ("B",)
    c = part_of(text, anchors, "c", 3)
    assert (text[c.start : c.end].strip(), c.headings) == ("##### C\n\nc text", ("B", "C"))
    t = part_of(text, anchors, "t", 3)  # a bare target: to the end of the heading it is under
    assert (text[t.start : t.end].strip(), t.headings) == ("c text", ("B", "C"))
    assert part_of(text, anchors, "nope", 3) is None
    offsets = [a.offset for a in anchors[:3]]
    assert heading_marks(anchors, 3) == (offsets, ["b", "c", "d"])


def _terms_of(word: str) -> list[str]:
    return [word.lower()]


def test_placed_snippet_names_the_deep_heading_holding_most_of_the_matched_words():
    text = (
        "Opening words.\n\n#### Backoff\n\nWait between attempts.\n\n"
        "##### Jitter\n\nJitter spreads attempts apart."
    )
    marks = [text.index("#### Backoff"), text.index("##### Jitter")]
    assert placed_snippet(text, {"jitter", "spreads"}, _terms_of, marks=marks)[1] == 1
    assert placed_snippet(text, {"wait"}, _terms_of, marks=marks)[1] == 0
    assert placed_snippet(text, {"opening"}, _terms_of, marks=marks)[1] == -1
    assert placed_snippet(text, {"absent"}, _terms_of, marks=marks)[1] == -1
    for terms in ({"jitter"}, {"wait", "apart"}, {"opening"}, {"absent"}):
        snippet = placed_snippet(text, terms, _terms_of, marks=marks)[0]
        assert snippet == make_snippet(text, terms, _terms_of)


def test_a_mark_the_snippet_reads_as_inside_code_does_not_cut_the_code():
    # An unclosed fence, as this module reads it: the rest is code.
    text = "Intro words.\n\n```\nneedle in code\n\n#### Later\n\nmore needle code"
    marks = [text.index("#### Later")]
    assert placed_snippet(text, {"needle"}, _terms_of, marks=marks) == (
        make_snippet(text, {"needle"}, _terms_of),
        -1,
    )


def test_placed_snippet_finds_the_deep_heading_in_a_long_section_cut_to_an_excerpt():
    filler = "".join(f"Filler sentence number {n} about nothing much.\n\n" for n in range(150))
    text = f"{filler}#### Far down\n\n{filler}#### Farther\n\nThe needle is here.\n\n{filler}"
    assert len(text) > EXCERPT_FROM
    marks = [text.index("#### Far down"), text.index("#### Farther")]
    snippet, under = placed_snippet(text, {"needle"}, _terms_of, marks=marks)
    assert "**needle**" in snippet and under == 1
    assert snippet == make_snippet(text, {"needle"}, _terms_of)


# -- a real index: read, search, suggestions -----------------------------------------------


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("anchors")
    config = write_config(
        root,
        f"""\
name: anchors
sources:
  - name: site
    kind: markdown
    path: {ANCHORS / "site"}
    base_url: https://acme.example/docs/
  - name: hooks
    kind: llms-full
    path: {ANCHORS / "llms-full.txt"}
""",
    )
    build_from_file(config, root / "index")
    return root / "index"


@pytest.fixture(scope="module")
def docs(index_dir: Path) -> Iterator[docwheel.DocIndex]:
    with docwheel.open_index(index_dir) as index:
        yield index


def test_read_of_a_deep_anchor_gives_the_part_under_that_heading_and_its_heading_path(docs):
    doc = docs.read(f"{OPTIONS}#jitter")
    assert doc.ref == f"{OPTIONS}#jitter"
    assert doc.url == f"{SITE}#jitter"
    assert doc.section == "Client options > Connection > Retries > Backoff > Jitter"
    assert doc.text == "##### Jitter\n\nA random jitter spreads the attempts of many clients apart."


def test_read_of_a_numbered_duplicate_heading_gives_the_second_one(docs):
    doc = docs.read(f"{OPTIONS}#backoff-1")
    assert doc.text.startswith("#### Backoff\n\nBefore a reconnect")
    assert "doubling the pause" not in doc.text
    assert docs.read(f"{OPTIONS}#backoff").text.startswith("#### Backoff\n\nBetween attempts")


def test_read_of_an_html_anchor_gives_the_heading_it_names(docs):
    timeouts = docs.read(f"{OPTIONS}#legacy-timeouts")
    assert timeouts.text == (
        "#### Timeouts\n\nA request that takes longer than thirty seconds is cancelled."
    )
    assert timeouts.section.endswith("Retries > Timeouts")
    proxy = docs.read(f"{OPTIONS}#proxy-settings")  # names a section's own heading
    assert proxy.text == docs.read(f"{OPTIONS}#proxy").text
    assert proxy.url == f"{SITE}#proxy-settings"


def test_an_unknown_deep_anchor_is_an_unknown_ref_with_suggestions_from_deep_anchors(docs):
    with pytest.raises(UnknownRefError) as caught:
        docs.read(f"{OPTIONS}#jiter")
    assert f"{OPTIONS}#jitter" in caught.value.suggestions


def test_a_hits_url_carries_the_deep_heading_its_match_lies_under_and_its_ref_stays(docs):
    (hit,) = docs.search("jitter spreads attempts", limit=1).results
    assert hit.ref == f"{OPTIONS}#retries"
    assert hit.url == f"{SITE}#jitter"
    assert hit.section == "Client options > Connection > Retries"
    (second,) = docs.search("reconnect backs off", limit=1).results
    assert (second.ref, second.url) == (f"{OPTIONS}#retries", f"{SITE}#backoff-1")


def test_a_match_in_the_sections_own_text_keeps_the_sections_url(docs):
    (hit,) = docs.search("failed request sent again", limit=1).results
    assert (hit.ref, hit.url) == (f"{OPTIONS}#retries", f"{SITE}#retries")


def test_llms_full_hits_carry_deep_anchors_too(docs):
    (hit,) = docs.search("HMAC constant time", source="hooks", limit=1).results
    assert hit.url == "https://acme.example/docs/webhooks#verifying-a-signature"
    assert docs.read(hit.url.replace("https://acme.example/", "hooks:")).text.startswith(
        "#### Verifying a signature"
    )


def test_a_library_of_snapshots_reads_deep_anchors_and_suggests_them_by_its_names(
    index_dir, tmp_path
):
    site = f"  - name: site\n    kind: markdown\n    path: {ANCHORS / 'site'}\n"
    other = write_config(tmp_path, f"name: other\nsources:\n{site}")
    build_from_file(other, tmp_path / "index")
    with open_docs([index_dir, tmp_path / "index"]) as library:
        doc = library.read("anchors.site:client/options#jitter")
        assert (doc.ref, doc.url) == ("anchors.site:client/options#jitter", f"{SITE}#jitter")
        assert library.read("other.site:client/options#jitter").url == "client/options.md#jitter"
        with pytest.raises(UnknownRefError) as caught:
            library.read("other.site:client/options#jiter")
    assert "other.site:client/options#jitter" in caught.value.suggestions


def test_docwheel_read_resolves_a_deep_anchor(index_dir):
    proc = subprocess.run(
        [*docwheel_cmd(), "read", f"{OPTIONS}#circuit-breaker", "--index", str(index_dir)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:5] == [
        "Client options > Connection > Retries > Circuit breaker",
        f"{SITE}#circuit-breaker",
        "type: guide",
        "",
        "#### Circuit breaker",
    ]


# -- the same through a real MCP client session -------------------------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def _call(client: Client, tool: str, arguments: dict) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.anyio
async def test_mcp_search_docs_url_carries_the_deep_anchor_and_read_doc_resolves_it(docs):
    async with Client(create_server(docs)) as client:
        query = {"query": "breaker opens five failures", "limit": 1}
        (hit,) = (await _call(client, "search_docs", query))["results"]
        assert (hit["ref"], hit["url"]) == (f"{OPTIONS}#retries", f"{SITE}#circuit-breaker")
        shown = await client.call_tool("search_docs", query)
        assert f"url: {SITE}#circuit-breaker" in shown.content[0].text
        read = await _call(client, "read_doc", {"ref": f"{OPTIONS}#circuit-breaker"})
        assert read["section"] == "Client options > Connection > Retries > Circuit breaker"
        assert read["text"].startswith("#### Circuit breaker")
        wrong = await client.call_tool("read_doc", {"ref": f"{OPTIONS}#circuit-braker"})
        assert wrong.is_error
        assert f"{OPTIONS}#circuit-breaker" in wrong.content[0].text
