"""The reading API over a real index built from the fixture docs."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

import docwheel
from docwheel.build import build_from_file
from docwheel.errors import IndexLoadError, QueryError, UnknownRefError

from helpers import site_config


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("api")
    out = root / "index"
    build_from_file(site_config(root), out, version="2026.11.01")
    return out


@pytest.fixture(scope="module")
def docs(index_dir):
    with docwheel.open_index(index_dir) as index:
        yield index


def test_search_puts_the_answering_page_first(docs):
    result = docs.search("rotate signing keys")
    top = result.results[0]
    assert top.ref == "site:guides/configure#rotating-api-keys"
    assert top.title == "Configuration"
    assert top.url == "https://acme.example/docs/guides/configure#rotating-api-keys"
    assert top.section == "Configuration > Rotating API keys"
    assert "**rotate**" in top.snippet
    assert top.source == "site"
    assert top.text is None


def test_search_returns_one_result_per_page(docs):
    result = docs.search("docker compose pip install", limit=10)
    pages = [hit.ref.split("#")[0] for hit in result.results]
    assert len(pages) == len(set(pages))
    assert pages[0] == "site:guides/install"


def test_question_words_do_not_block_matches(docs):
    result = docs.search("how do I get a refund for unused seats?")
    assert result.results[0].ref == "platform:billing#refunds"


def test_source_filter_limits_results(docs):
    everywhere = docs.search("project")
    only_site = docs.search("project", source="site")
    assert {h.source for h in everywhere.results} >= {"platform"}
    assert {h.source for h in only_site.results} <= {"site"}


def test_unknown_source_lists_valid_ones(docs):
    with pytest.raises(QueryError, match="unknown source 'nope'; valid sources: all, site, platform"):
        docs.search("widgets", source="nope")


def test_full_text_carries_the_section_text(docs):
    hit = docs.search("permission denied", full_text=True).results[0]
    assert hit.text is not None and "acme doctor" in hit.text


@pytest.mark.parametrize("query", ["", "   ", "*", "how do I", "(("])
def test_queries_without_words_are_clear_errors(docs, query):
    with pytest.raises(QueryError, match="empty query|no words to search for"):
        docs.search(query)


@pytest.mark.parametrize("query", ["NOT widget", "NOT widget NOT docker", '(NOT "hydration mismatch")'])
def test_a_query_of_only_exclusions_says_to_add_words(docs, query):
    with pytest.raises(QueryError, match="only says what to leave out; add words to search for"):
        docs.search(query)


@pytest.mark.parametrize(
    "query", ['"unbalanced', "(widget", "NOT NOT widget", "a NOT NOT b", "NOT OR x", "widget *", "x" * 5000, "widget " * 2000]
)
def test_malformed_queries_never_raise_parser_errors(docs, query):
    result = docs.search(query)
    assert isinstance(result.total, int)


def test_operators_are_honoured(docs):
    assert docs.search('"hydration mismatch"').results[0].ref.startswith("site:guides/troubleshooting")
    hits = docs.search("docker NOT compose", limit=10, full_text=True).results
    assert hits and all("compose" not in (h.text or "").lower() for h in hits)
    assert "site:guides/install" not in {h.ref for h in docs.search("pip ANDNOT docker").results}


def test_limit_is_bounded(docs):
    with pytest.raises(QueryError, match="limit"):
        docs.search("widgets", limit=0)


def test_no_results_is_a_warning_not_an_error(docs):
    result = docs.search("zyzzyvaqq")
    assert result.results == () and result.total == 0
    assert "no results" in result.warnings[0]


def test_a_word_the_docs_never_use_is_named_in_the_warnings(docs):
    result = docs.search("install zyzzyvaqq")
    assert result.results and result.warnings == ("'zyzzyvaqq' does not appear in these docs",)
    assert docs.search("install docker").warnings == ()
    # A word one edit from a known one is corrected instead, and said so.
    assert docs.search("install dokcer").warnings == ("searched for 'docker' instead of 'dokcer'",)


def test_read_page_returns_all_sections_in_order(docs):
    doc = docs.read("site:guides/install")
    assert doc.title == "Installation"
    assert doc.url == "https://acme.example/docs/guides/install"
    text = doc.text
    assert text.startswith("# Installation\n")
    assert text.index("## With pip") < text.index("## With Docker") < text.index("### Docker Compose")
    assert "Heading-like comment inside a fence" in text


def test_read_section(docs):
    doc = docs.read("site:guides/install#docker-compose")
    assert doc.section == "Installation > With Docker > Docker Compose"
    assert doc.text.startswith("### Docker Compose")
    assert "Run the official image" not in doc.text


def test_every_search_ref_can_be_read(docs):
    for hit in docs.search("widget docker keys refund", limit=10).results:
        assert docs.read(hit.ref).text


def test_unknown_ref_suggests_close_ones(docs):
    with pytest.raises(UnknownRefError) as err:
        docs.read("site:guides/instal")
    assert "site:guides/install" in err.value.suggestions
    with pytest.raises(UnknownRefError):
        docs.read("no-colon-here")


def test_outline_lists_pages_and_sections(docs):
    pages = {p.ref: p for p in docs.outline()}
    install = pages["site:guides/install"]
    assert [s.heading for s in install.sections] == ["With pip", "With Docker", "Docker Compose"]
    assert [s.level for s in install.sections] == [2, 2, 3]
    assert install.description == "Install the Acme toolkit with pip or Docker."
    assert {p.source for p in docs.outline("platform")} == {"platform"}


def test_manifest_is_exposed(docs):
    assert docs.manifest["name"] == "acme-docs"
    assert docs.manifest["version"] == "2026.11.01"
    assert docs.sources == ["site", "platform"]


def test_concurrent_searches_match_single_threaded_answers(docs):
    queries = ["rotate keys", "docker", "refund", "hydration error", "config file", "deploy"] * 20
    expected = {q: docs.search(q) for q in set(queries)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(docs.search, queries))
    assert all(answer == expected[q] for q, answer in zip(queries, answers))


def test_missing_index_directory_is_a_clear_error(tmp_path):
    with pytest.raises(IndexLoadError, match="does not exist"):
        docwheel.open_index(tmp_path / "nowhere")


def test_directory_without_manifest_is_not_an_index(tmp_path):
    with pytest.raises(IndexLoadError, match="manifest.json is missing"):
        docwheel.open_index(tmp_path)


def test_index_of_another_format_is_refused(index_dir, tmp_path):
    copy = tmp_path / "old"
    shutil.copytree(index_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["index_format"] = 0
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match="rebuild the index"):
        docwheel.open_index(copy)


def test_corrupt_index_files_are_a_clear_error(index_dir, tmp_path):
    copy = tmp_path / "corrupt"
    shutil.copytree(index_dir, copy)
    for toc in copy.glob("*.toc"):
        toc.write_bytes(b"garbage")
    with pytest.raises(IndexLoadError, match="cannot be read"):
        docwheel.open_index(copy)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("page_family.npy", None, "index file page_family.npy is missing"),
        ("page_old.npy", b"garbage", "the ranking data cannot be read"),
        ("page_version.npy", b"garbage", "the ranking data cannot be read"),
        ("page_copies.json", b"{not json", "the ranking data cannot be read"),
        ("page_copies.json", b'{"labels": 3, "refs": {}}', "the ranking data cannot be read"),
        ("page_copies.json", b'{"labels": []}', "the ranking data cannot be read"),
    ],
)
def test_missing_or_corrupt_version_copies_data_is_a_clear_error(
    index_dir, tmp_path, name, content, message
):
    copy = tmp_path / "copies"
    shutil.copytree(index_dir, copy)
    if content is None:
        (copy / name).unlink()
    else:
        (copy / name).write_bytes(content)
    with pytest.raises(IndexLoadError, match=f"{message}.*rebuild the index"):
        docwheel.open_index(copy)


def test_index_opens_and_searches_read_only(index_dir, tmp_path):
    copy = tmp_path / "ro"
    shutil.copytree(index_dir, copy)
    before = sorted(p.name for p in copy.iterdir())
    for path in [copy, *copy.iterdir()]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        with docwheel.open_index(copy) as index:
            assert index.search("docker").results
        assert sorted(p.name for p in copy.iterdir()) == before
    finally:
        copy.chmod(0o755)


def test_verify_passes_on_a_fresh_index(docs):
    assert docs.verify() == []


def test_verify_names_a_changed_and_an_extra_file(index_dir, tmp_path):
    copy = tmp_path / "tampered"
    shutil.copytree(index_dir, copy)
    with docwheel.open_index(copy) as index:
        target = sorted(index.manifest["files"])[0]
        (copy / target).write_bytes((copy / target).read_bytes() + b"x")
        (copy / "stray.bin").write_bytes(b"")
        assert index.verify() == [
            f"{target}: content differs from the manifest",
            "stray.bin: not listed in the manifest",
        ]


def test_a_missing_index_file_is_named_at_open(index_dir, tmp_path):
    copy = tmp_path / "partial"
    shutil.copytree(index_dir, copy)
    (copy / "rank_impacts.npy").unlink()
    with pytest.raises(IndexLoadError, match="index file rank_impacts.npy is missing"):
        docwheel.open_index(copy)


def test_each_section_records_the_hash_of_its_content(docs):
    import hashlib

    stored = docs._wix.stored("site:guides/install#with-docker")
    assert stored["content_hash"] == hashlib.sha256(stored["content"].encode("utf-8")).hexdigest()
