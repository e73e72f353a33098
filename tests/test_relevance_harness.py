"""The relevance harness's own rules: how corpora are read, labels matched, baselines scored
and constants set for --loco (tests/bench/relevance.py)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

import docwheel
import docwheel.index
import docwheel.ranking

from helpers import write_config

_PATH = Path(__file__).parent / "bench" / "relevance.py"
_spec = importlib.util.spec_from_file_location("relevance_harness", _PATH)
relevance = importlib.util.module_from_spec(_spec)
sys.modules["relevance_harness"] = relevance
_spec.loader.exec_module(relevance)


def test_a_corpus_is_read_from_its_llms_full_file_or_its_docs_folder(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "llms-full.txt").write_text("# A\n\ntext\n")
    (tmp_path / "two" / "docs").mkdir(parents=True)
    (tmp_path / "three").mkdir()
    assert relevance.find_corpus(tmp_path, "one").kind == "llms-full"
    two = relevance.find_corpus(tmp_path, "two")
    assert (two.kind, two.path) == ("markdown", tmp_path / "two" / "docs")
    with pytest.raises(FileNotFoundError, match="neither llms-full.txt nor a docs/ folder"):
        relevance.find_corpus(tmp_path, "three")


@pytest.mark.parametrize(
    ("url", "ref", "label", "same"),
    [
        ("guide/browser/index.md", "docs:guide/browser", "guide/browser/index", True),
        ("index.mdx", "docs:index", "index", True),
        ("servers/tools.mdx", "docs:servers/tools", "servers/tools", True),
        # A versioned copy never counts for the current page, nor the other way round.
        ("v3/servers/tools.mdx", "docs:v3/servers/tools", "servers/tools", False),
        ("servers/tools.mdx", "docs:servers/tools", "v3/servers/tools", False),
        # No file path in the URL (a site URL): the ref path names the file.
        ("https://docs.example/guide/", "docs:guide#intro", "guide/index", True),
    ],
)
def test_docs_tree_labels_name_the_source_file_and_match_only_by_equality(url, ref, label, same):
    tree = relevance.Corpus("c", "markdown", Path("docs"))
    assert (relevance.page_key(tree, url, ref) == relevance.label_key(tree, label)) is same


def test_llms_full_labels_are_urls_without_anchor_or_trailing_slash():
    flat = relevance.Corpus("c", "llms-full", Path("llms-full.txt"))
    key = relevance.page_key(flat, "https://a.example/reference/field-types/#x", "s:x")
    assert key == relevance.label_key(flat, "https://a.example/reference/field-types/")


def _pages():
    return [
        relevance.PageText("stubs", "Stubs", "Return values", "Stubs replace functions. A stub returns."),
        relevance.PageText("spies", "Spies", "", "Spies record calls and arguments of the function."),
        relevance.PageText("clock", "Fake timers", "Tick", "The clock ticks. Ticking moves time."),
    ]


def test_bm25s_baseline_scores_as_lucene_bm25_with_stemming_and_stop_words():
    pages = _pages()
    rank = relevance.bm25s_ranker(pages)
    assert rank("the stubbing") == ["stubs"]  # "the" is a stop word, "stubbing" stems to stub
    assert rank("ticking clock")[0] == "clock"
    assert rank("nothing here") == []
    # "function" is in two of three pages: idf and length normalisation as Lucene computes them.
    from whoosh.lang import stemmer_for_language

    stem = stemmer_for_language("en")
    lengths = [len(relevance._bm25s_tokens(f"{p.title}\n{p.headings}\n{p.body}", stem)) for p in pages]
    average = sum(lengths) / 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))

    def score(doc):
        return idf * 1 / (1 + 1.5 * (1 - 0.75 + 0.75 * lengths[doc] / average))

    expected = sorted(["stubs", "spies"], key=lambda k: -score(["stubs", "spies"].index(k)))
    assert rank("function") == expected


def test_fts5_baseline_takes_raw_user_input_without_raising():
    rank = relevance.fts5_ranker(_pages())
    assert rank('c++ "a-b AND NOT (stub')[0] == "stubs"  # its words, any of them
    assert rank("Fake timers")[0] == "clock"  # the title column weighs most
    assert rank("!!!") == []


def test_loco_sets_a_constant_where_search_reads_it(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "changelog.md").write_text("# Changelog\n\nThe widget option.\n")
    (site / "guide.md").write_text("# Guide\n\nThe widget option, explained at length here.\n")
    config = write_config(tmp_path, f"name: t\nsources:\n  - name: s\n    kind: markdown\n    path: {site}\n")
    from docwheel.build import build_from_file

    build_from_file(config, tmp_path / "index")
    default = relevance.constant("CHANGELOG_FACTOR")
    try:
        with docwheel.open_index(tmp_path / "index") as docs:
            before = {h.title: h.score for h in docs.search("widget option").results}
        relevance.set_constant("CHANGELOG_FACTOR", 1.0)
        assert docwheel.index.CHANGELOG_FACTOR == docwheel.ranking.CHANGELOG_FACTOR == 1.0
        with docwheel.open_index(tmp_path / "index") as docs:
            after = {h.title: h.score for h in docs.search("widget option").results}
        assert after["Changelog"] == pytest.approx(before["Changelog"] * 2, rel=1e-3)
    finally:
        relevance.set_constant("CHANGELOG_FACTOR", default)
    with pytest.raises(SystemExit, match="NO_SUCH_CONSTANT"):
        relevance.set_constant("NO_SUCH_CONSTANT", 1.0)


def test_loco_grids_name_constants_that_exist():
    specs = relevance.parse_loco([""])
    assert [name for name, _grid in specs] == list(relevance.LOCO_GRIDS)
    for name, grid in specs:
        assert relevance.constant(name) in grid  # the default is always tried
    assert relevance.parse_loco(["PAGE_WEIGHT=0.5,2"]) == [("PAGE_WEIGHT", (0.5, 1.0, 2.0))]
