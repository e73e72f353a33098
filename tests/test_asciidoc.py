"""AsciiDoc pages (formats/asciidoc.py), and plain folders of ``.adoc`` files.

The rules come from Asciidoctor's documentation (docs.asciidoctor.org, AsciiDoc language):
sections/auto-ids (how a section id is computed: lower case, ``idprefix`` prepended,
character references, tags and other non-word characters removed, spaces, hyphens and
periods replaced by ``idseparator``, repeats condensed, a number appended until unique;
``== Wiley & Sons, Inc.`` -> ``_wiley_sons_inc``), sections/id-prefix-and-separator
(``:idprefix:`` and ``:idseparator:``, empty values), sections/custom-ids (``[#id]`` and
``[[id]]``), attributes/document-attributes and attribute references (a missing reference
is left as written), directives/include (``lines=``, ``tag=``/``tags=``, ``leveloffset=``),
directives/ifdef-ifndef and ifeval, blocks/delimited (listing, literal, example, sidebar,
quote, open, passthrough, comment), blocks/admonitions, tables, lists and macros (``link:``,
URLs with text, ``xref:``, ``<<id,text>>``, ``kbd:``, ``btn:``, ``image:``). Fixtures are
small trees built for real (``load_source``, ``build_index``).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docwheel.api import open_index
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.formats.asciidoc import to_markdown
from docwheel.formats.headings import Slugger
from docwheel.formats.markdown import parse_markdown
from test_generators import load, pages_by_path, tree


def page(text: str, **kwargs):
    converted = to_markdown(text, "page.adoc", **kwargs)
    return parse_markdown(converted.markdown, url="u", path="page", fallback_title="Fallback")


def sections(text: str, **kwargs) -> dict:
    return {s.anchor: s for s in page(text, **kwargs).sections}


# -- titles and section ids ------------------------------------------------------------


def test_the_document_title_names_the_page_and_sections_get_asciidoctors_ids():
    found = page("= Acme Guide\n\n== Install the CLI\n\nRun it.\n\n=== Wiley & Sons, Inc.\n\nText.\n")
    assert found.title == "Acme Guide"
    assert [(s.anchor, s.heading, s.level) for s in found.sections[1:]] == [
        ("_install_the_cli", "Install the CLI", 2),
        ("_wiley_sons_inc", "Wiley & Sons, Inc.", 3),
    ]


def test_a_repeated_title_is_numbered_from_two_and_markup_leaves_the_id():
    ids = list(sections("= T\n\n== Options\n\n== Options\n\n== The `run` command\n\n== Don't panic\n"))
    assert ids == ["", "_options", "_options_2", "_the_run_command", "_dont_panic"]


def test_the_documents_idprefix_and_idseparator_are_respected():
    ids = list(sections("= T\n:idprefix:\n:idseparator: -\n\n== Install the CLI\n\n== A.B-c d\n"))
    assert ids == ["", "install-the-cli", "a-b-c-d"]
    ids = list(sections("= T\n:idprefix: id_\n:idseparator:\n\n== Install the CLI\n"))
    assert ids == ["", "id_installthecli"]


def test_the_asciidoctor_anchor_style_gives_markdown_headings_the_ids_of_an_antora_site():
    slugger = Slugger("asciidoctor")
    ids = [slugger.slug(h) for h in ("Install the CLI", "Options", "Options", "Wiley & Sons, Inc.")]
    assert ids == ["_install_the_cli", "_options", "_options_2", "_wiley_sons_inc"]
    found = parse_markdown("# T\n\n## Add a user\n", url="u", path="p", fallback_title="F", anchors="asciidoctor")
    assert found.sections[1].anchor == "_add_a_user"


def test_custom_ids_before_a_heading_win_and_markdown_headings_are_sections():
    found = sections("= T\n\n[#setup]\n== Set up\n\n[[tuning]]\n## Tune it\n\nText.\n")
    assert list(found) == ["", "setup", "tuning"]
    assert found["tuning"].heading == "Tune it"


def test_doctitle_names_the_page_when_there_is_no_title_line():
    assert page(":doctitle: From the attribute\n\nIntro.\n").title == "From the attribute"


def test_the_author_and_revision_lines_are_not_page_text_and_description_is_kept():
    found = page("= T\nJane Doe <jane@example.com>\nv1.0, 2024-01-01\n:description: About T.\n\nBody.\n")
    assert found.sections[0].text == "Body."
    assert found.description == "About T."


# -- attributes and conditionals -------------------------------------------------------


def test_attribute_references_are_replaced_and_a_missing_one_stays_as_written():
    text = page("= T\n:product: Acme CLI\n\nUse {product} and {unknown}.{nbsp}End.\n").sections[0].text
    assert text == "Use Acme CLI and {unknown}. End."


def test_an_attribute_has_the_value_set_above_where_it_is_used():
    text = page("= T\n:v: one\n\nFirst {v}.\n\n:v: two\n\nThen {v}.\n\n:v!:\n\nGone {v}.\n").sections[0].text
    assert text == "First one.\n\nThen two.\n\nGone {v}."


def test_attributes_given_from_outside_are_set_before_the_pages_own():
    text = page("= T\n\nOn {platform}.\n", attributes={"platform": "Linux"}).sections[0].text
    assert text == "On Linux."


def test_ifdef_ifndef_and_ifeval_keep_what_the_attributes_set_in_the_document_say():
    text = page(
        "= T\n:beta:\n:level: 3\n\nifdef::beta[]\nBeta only.\nendif::[]\n"
        "ifndef::beta[]\nStable only.\nendif::[]\n\nifdef::missing[Never shown.]\n"
        "ifeval::[{level} > 2]\nHigh level.\nendif::[]\n"
    ).sections[0].text
    assert "Beta only." in text and "High level." in text
    assert "Stable only." not in text and "Never shown." not in text and "endif" not in text


# -- blocks ----------------------------------------------------------------------------


def test_listing_and_literal_blocks_are_code_and_attributes_inside_stay_verbatim():
    text = page(
        "= T\n:v: 2\n\n[source,python]\n----\nprint('{v}')  # <1>\n----\n<1> Prints.\n\n"
        "....\nliteral text\n....\n\n indented literal\n"
    ).sections[0].text
    assert "```python\nprint('{v}')\n```" in text  # the callout marker is gone too
    assert "```\nliteral text\n```" in text and "```\nindented literal\n```" in text


def test_admonitions_keep_their_label_as_paragraphs_and_as_blocks():
    text = page("= T\n\nNOTE: Back up first.\n\n[WARNING]\n====\nDo not delete it.\n====\n").sections[0].text
    assert text == "Note\n\nBack up first.\n\nWarning\n\nDo not delete it."
    text = page("= T\n:tip-caption: Pro tip\n\nTIP: Use the cache.\n").sections[0].text
    assert text == "Pro tip\n\nUse the cache."  # the caption attribute names the label


def test_sidebars_examples_quotes_and_open_blocks_keep_their_text_and_comments_go():
    text = page(
        "= T\n\n.Sidebar title\n****\nSide text.\n****\n\n====\nExample text.\n====\n\n"
        "[quote, Ada Lovelace]\n____\nQuoted words.\n____\n\n--\nOpen text.\n--\n\n"
        "// a comment line\n////\nA comment block.\n////\n"
    ).sections[0].text
    for words in ("Sidebar title", "Side text.", "Example text.", "Quoted words.", "— Ada Lovelace", "Open text."):
        assert words in text
    assert "comment" not in text


def test_block_macros_and_breaks_show_only_an_images_alt_text():
    source = "= T\n\nBefore.\n\nimage::arch.png[System overview,600]\n\nvideo::abc[youtube]\n\n'''\n\ntoc::[]\n\nAfter.\n"
    assert page(source).sections[0].text == "Before.\n\nSystem overview\n\nAfter."


def test_passthrough_blocks_are_read_as_html():
    text = page("= T\n\n++++\n<p>Raw <b>bold</b> words</p>\n++++\n").sections[0].text
    assert text == "Raw bold words"


def test_lists_and_tables_read_as_text():
    text = page(
        "= T\n\n* First\n** Nested\n* Second\n+\nAttached paragraph.\n\n. Step one\n. Step two\n\n"
        "CPU:: The processor.\n\n|===\n|Name |Value\n\n|a\n|b\n|===\n"
    ).sections[0].text
    assert "- First\n  - Nested\n- Second\n\n  Attached paragraph." in text
    assert "1. Step one\n1. Step two" in text
    assert "CPU\n\n  The processor." in text
    assert "| Name | Value |\n| --- | --- |\n| a | b |" in text


def test_table_cells_that_span_or_repeat_keep_the_rows_in_their_columns():
    text = page("= T\n\n|===\n|A |B |C\n\n2+|Span |c\n3*|x\n|===\n").sections[0].text
    assert text == "| A | B | C |\n| --- | --- | --- |\n| Span |  | c |\n| x | x | x |"


def test_inline_markup_reads_as_the_page_shows_it():
    text = page(
        "= T\n\n== Target section\n\nSee *bold*, _em_, `code`, link:https://a.example[the site], "
        "https://b.example[B], xref:other.adoc[Other page], <<_target_section>>, "
        "<<_target_section,here>>, kbd:[Ctrl+C], btn:[Save], image:logo.png[Logo].\n"
    ).sections[1].text
    assert text == (
        "See **bold**, *em*, `code`, [the site](https://a.example), [B](https://b.example), "
        "Other page, Target section, here, `Ctrl+C`, Save, Logo."
    )


def test_prose_never_reads_as_markdown_structure():
    text = page("= T\n\nA line\n# not a heading\n<Tabs> not a component\n").sections[0].text
    assert "\\# not a heading" in text and "<Tabs> not a component" in text


# -- includes --------------------------------------------------------------------------


def test_includes_read_lines_tags_and_leveloffset_through_the_callback():
    files = {
        "code.py": "import os\n# tag::main[]\nprint('hi')\n# end::main[]\nrest\n",
        "part.adoc": "= Part title\n\nPart text.\n",
    }
    seen = []

    def read(target, where):
        seen.append((target, where))
        return (files[target], target) if target in files else None

    converted = to_markdown(
        "= T\n\n[source,python]\n----\ninclude::code.py[tag=main]\n----\n\n----\ninclude::code.py[lines=1;5]\n----\n\n"
        "include::part.adoc[leveloffset=+1]\n\ninclude::missing.adoc[]\n",
        "page.adoc",
        read,
    )
    assert "```python\nprint('hi')\n```" in converted.markdown
    assert "```\nimport os\nrest\n```" in converted.markdown
    assert "## Part title {#_part_title}" in converted.markdown
    assert converted.included == {"code.py", "part.adoc"}
    assert ("missing.adoc", "page.adoc") in seen
    assert converted.warnings == ("include::missing.adoc[] not resolved (missing, or outside the docs)",)


def test_a_file_that_includes_itself_stops_with_a_warning():
    loop = "Loop text.\ninclude::loop.adoc[]\ninclude::loop.adoc[]\n"
    converted = to_markdown("= T\n\ninclude::loop.adoc[]\n", "page.adoc", lambda target, where: (loop, "loop.adoc"))
    assert converted.markdown.count("Loop text.") <= 200
    assert converted.warnings == ("include::loop.adoc[] not read: includes nest or repeat too deeply",)


# -- robustness ------------------------------------------------------------------------

PIECES = [
    "= Title\n", "== Section\n", "=== Deeper\n", "###### Six\n", "[#id]\n", "[[anchor]]\n",
    "[source,python]\n", "[NOTE]\n", "[quote, A]\n", "[cols=\"1,2\"]\n", "----\n", "....\n",
    "====\n", "****\n", "____\n", "++++\n", "////\n", "--\n", "|===\n", "```\n", "|a |b\n",
    "* item\n", "** nested\n", ". step\n", "term:: def\n", "+\n", "NOTE: note\n", ":attr: v\n",
    ":attr!:\n", "{attr}\n", "ifdef::attr[]\n", "ifndef::x[]\n", "endif::[]\n", "ifeval::[1 == 1]\n",
    "include::x.adoc[]\n", "include::x.adoc[tag=a;!b]\n", "include::x.adoc[lines=2..-1]\n",
    "// comment\n", ".Title\n", "text *bold* _em_ `code`\n", "link:x[y]\n", "<<a,b>>\n", "<<\n",
    "xref:a.adoc[]\n", "kbd:[\n", "pass:[<b>]\n", "+++raw+++\n", "<b>\n", "\\\n", " literal\n",
    "# tag::a[]\n", "[\n", "]\n", "{\n", "\ufeff", "\t\n", "image::a.png[Alt]\n", "'''\n",
    "2+|span\n", "[%header]\n", "<1> callout\n", ":leveloffset: +1\n",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", "\n", "\n\n"])), max_size=30))
def test_any_mix_of_asciidoc_fragments_converts_and_parses_without_errors(parts):
    text = "".join(piece + gap for piece, gap in parts)
    converted = to_markdown(text, "p.adoc", lambda target, where: ("Included *text*\n:attr: w\n", "x.adoc"))
    found = parse_markdown(converted.markdown, url="u", path="p", fallback_title="F")
    for section in found.sections:
        assert not any(mark in section.text for mark in "\ufdd5\ufdd6\ufdd7\ufdd8")
        assert "{#" not in section.heading  # every id went into the anchor, none into the text
        assert all(0 <= a.offset <= len(section.text) for a in section.anchors)


# -- plain folders ---------------------------------------------------------------------

ADOC_SITE = {
    "docs/index.adoc": "= Acme\n\ninclude::_shared.adoc[]\n\n== Usage\n\nUse the thing.\n",
    "docs/_shared.adoc": ":product: Acme CLI\n\nShared words about {product}.\n",
    "docs/guide/install.adoc": (
        "= Installing\n:idprefix:\n:idseparator: -\n\n== Install the CLI\n\n"
        "Download the wombat archive and unpack it.\n"
    ),
    "docs/notes.md": "# Notes\n\nMarkdown beside AsciiDoc.\n",
}


def test_a_plain_folder_of_adoc_files_serves_each_at_its_path_and_an_included_file_is_no_page(tmp_path):
    tree(tmp_path, ADOC_SITE)
    loaded = load(tmp_path)
    assert loaded.generator == "plain"
    pages = pages_by_path(loaded)
    assert {p: pages[p].url for p in pages} == {
        "index": "https://site.example/",
        "guide/install": "https://site.example/guide/install",
        "notes": "https://site.example/notes",
    }
    assert pages["index"].sections[0].text == "Shared words about Acme CLI."
    assert "docs/_shared.adoc" not in pages and "_shared.adoc" in [r.location for r in loaded.raws]


def test_other_generators_do_not_read_adoc_files(tmp_path):
    tree(tmp_path, {**ADOC_SITE, "mkdocs.yml": "site_name: Acme\n"})
    loaded = load(tmp_path)
    assert loaded.generator == "mkdocs"
    assert list(pages_by_path(loaded)) == ["notes"]


def test_a_built_adoc_folder_finds_a_section_by_its_words_and_opens_at_its_id(tmp_path):
    tree(tmp_path, ADOC_SITE)
    config = parse_config(
        {"name": "t", "sources": [{"name": "d", "kind": "markdown", "path": "docs", "base_url": "https://site.example/"}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    build_index(config, tmp_path / "index")
    with open_index(tmp_path / "index") as docs:
        hit = docs.search("wombat archive", limit=1).results[0]
        assert hit.ref == "d:guide/install#install-the-cli"
        assert hit.url == "https://site.example/guide/install#install-the-cli"
        assert docs.read(hit.ref).title == "Installing"


def test_an_adoc_page_named_by_url_is_read_as_asciidoc_from_a_real_server(http_server, tmp_path):
    http_server.route("/docs/README.adoc", "= Acme\n\n== Quick start\n\nRun the *ocelot* service.\n\ninclude::x.adoc[]\n")
    config = parse_config(
        {"name": "t", "sources": [{"name": "w", "kind": "markdown", "urls": [http_server.url("/docs/README.adoc")]}]},
        base_dir=tmp_path, origin="t.yaml",
    )
    messages: list[str] = []
    build_index(config, tmp_path / "index", progress=messages.append)
    assert any("include::x.adoc[] not resolved" in m for m in messages)  # nothing else is fetched
    with open_index(tmp_path / "index") as docs:
        hit = docs.search("ocelot", limit=1).results[0]
        assert (hit.ref, hit.title) == ("w:docs/README#_quick_start", "Acme")
        assert hit.url == http_server.url("/docs/README.adoc") + "#_quick_start"


def test_a_single_adoc_file_named_by_path_is_a_page(tmp_path):
    tree(tmp_path, {"docs/guide.adoc": "= Guide\n\ninclude::part.adoc[]\n", "docs/part.adoc": "Part words.\n"})
    (found,) = load(tmp_path, "docs/guide.adoc").pages
    assert (found.title, found.sections[0].text) == ("Guide", "Part words.")
