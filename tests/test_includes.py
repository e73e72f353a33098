"""Include lines resolved by the pure resolver, over an in-memory set of files."""

from __future__ import annotations

from docwheel.formats.includes import MAX_DEPTH, resolve_includes

FILES = {
    "guide/cli.md": "# CLI\n\n<!--@include: ./cli-generated.md-->\n",
    "guide/cli-generated.md": "### --watch\n\nWatch files.\n",
    "parts/lines.md": "one\ntwo\nthree\nfour\n",
    "parts/regions.md": "a\n<!-- #region usage -->\nused\n<!-- #endregion usage -->\nb\n",
    "snippets/abbr.md": "*[HTML]: Hyper Text\n",
    "snippets/sections.md": "x\n--8<-- [start:fn]\nin section\n--8<-- [end:fn]\ny\n",
    "code/example.py": "def f():\n    return 1\n",
    "loop/a.md": "A\n<!--@include: ./b.md-->\n",
    "loop/b.md": "B\n<!--@include: ./a.md-->\n",
}


def read(target: str, where: str):
    """Relative to the including file, or to the root for '/x' (tests need nothing more)."""
    if target.startswith("/"):
        path = target.lstrip("/")
    else:
        parts = where.split("/")[:-1]
        for piece in target.split("/"):
            if piece == "..":
                if not parts:
                    return None  # outside the folder
                parts.pop()
            elif piece not in ("", "."):
                parts.append(piece)
        path = "/".join(parts)
    return (FILES[path], path) if path in FILES else None


def test_vitepress_include_is_replaced_by_the_fragment_and_named_as_included():
    text, included = resolve_includes(FILES["guide/cli.md"], "guide/cli.md", read)
    assert text == "# CLI\n\n### --watch\n\nWatch files.\n"
    assert included == {"guide/cli-generated.md"}


def test_line_ranges_and_regions_select_part_of_the_target():
    def one(line: str) -> str:
        return resolve_includes(line, "page.md", read)[0]

    assert one("<!--@include: ./parts/lines.md{2,3}-->") == "two\nthree"
    assert one("<!--@include: ./parts/lines.md{3,}-->") == "three\nfour"
    assert one("<!--@include: ./parts/regions.md#usage-->") == "used"
    assert one('--8<-- "parts/lines.md:2:2"') == "two"
    assert one('--8<-- "snippets/sections.md:fn"') == "in section"


def test_snippet_block_includes_each_file_in_turn():
    text, included = resolve_includes(
        "--8<--\nparts/lines.md\n;commented.md\nsnippets/abbr.md\n--8<--", "page.md", read
    )
    assert text == "one\ntwo\nthree\nfour\n*[HTML]: Hyper Text"
    assert included == {"parts/lines.md", "snippets/abbr.md"}


def test_code_imports_become_fences_in_the_targets_language():
    text, _ = resolve_includes("<<< @/code/example.py{2} [example]", "guide/x.md", read)
    assert text == "```py [example]\ndef f():\n    return 1\n```"
    text, _ = resolve_includes("{* ../code/example.py hl[2] *}", "guide/x.md", read)
    assert text == "```py\ndef f():\n    return 1\n```"


def test_an_include_indented_in_a_list_item_keeps_its_indentation():
    text, _ = resolve_includes("1. Item\n\n    --8<-- \"parts/lines.md:1:2\"", "page.md", read)
    assert text == "1. Item\n\n    one\n    two"


def test_a_missing_or_outside_target_is_left_for_the_cleanup_to_drop():
    line = '--8<-- "../../CONTRIBUTING.md"'
    assert resolve_includes(line, "page.md", read) == (line, set())
    line = "<!--@include: ./nowhere.md-->"
    assert resolve_includes(line, "page.md", read) == (line, set())


def test_an_include_cycle_stops_instead_of_recursing():
    text, included = resolve_includes(FILES["loop/a.md"], "loop/a.md", read)
    assert text == "A\nB\n<!--@include: ./a.md-->\n"
    assert included == {"loop/b.md"}


def test_includes_stop_at_the_maximum_depth():
    chain = {f"d{k}.md": f"<!--@include: ./d{k + 1}.md-->" for k in range(MAX_DEPTH + 3)}

    def deep(target: str, where: str):
        path = target.removeprefix("./")
        return (chain.get(path, "end"), path)

    text, included = resolve_includes(chain["d0.md"], "d0.md", deep)
    assert text.startswith("<!--@include:") and len(included) == MAX_DEPTH


def test_an_imported_markdown_component_is_replaced_by_its_text_without_frontmatter():
    files = {"snippets/tip.mdx": "---\ntitle: Tip\n---\n<Tip>\nPin the version.\n</Tip>\n"}

    def reader(target: str, where: str):
        path = target.lstrip("/")
        return (files[path], path) if path in files else None

    page = "import PinTip from '/snippets/tip.mdx'\n\n# Apps\n\n<PinTip />\n\nText <PinTip /> inline.\n"
    text, included = resolve_includes(page, "apps.mdx", reader)
    assert text == (
        "import PinTip from '/snippets/tip.mdx'\n\n# Apps\n\n<Tip>\nPin the version.\n</Tip>\n\n"
        "Text <PinTip /> inline.\n"
    )
    assert included == set()  # snippets/ holds no pages anyway (sources.SKIP_DIRS)


def test_an_imported_page_stays_a_page_unless_its_name_marks_a_partial():
    files = {"intro.md": "Intro text.", "_shared.mdx": "Shared text."}

    def reader(target: str, where: str):
        path = target.removeprefix("./")
        return (files[path], path) if path in files else None

    page = "import Intro from './intro.md'\nimport Shared from './_shared.mdx'\n\n<Intro />\n\n<Shared />\n"
    text, included = resolve_includes(page, "page.mdx", reader)
    assert text.endswith("\nIntro text.\n\nShared text.\n")
    assert included == {"_shared.mdx"}


def test_block_includes_inside_a_code_sample_are_shown_as_written():
    sample = (
        "import Tip from '/snippets/tip.mdx'\n\n```mdx\n<Tip />\n<<< @/code/example.py\n```\n"
    )
    assert resolve_includes(sample, "page.mdx", read) == (sample, set())
