"""Writing the index: docwheel's posting writer against Whoosh's, spilled against held, and
the analysis helper process against analysing in the build process.

``index_write.write_index`` hands Whoosh ready postings and writes them term by term itself; these
tests pin that the files are the bytes Whoosh's own ``add_document`` and ``commit`` write.
"""

from __future__ import annotations

import gc
import random
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, child_processes, site_config, tree, write_config
from whoosh import index as whoosh_index

from docwheel import index_write
from docwheel.build import HELPER_MIN_BYTES, _BuildHelper, build_from_file
from docwheel.config import SourceConfig
from docwheel.errors import BuildError, SourceError
from docwheel.helper import HelperProcess
from docwheel.index import INDEX_NAME, make_schema
from docwheel.index_write import IndexDoc, with_plain, write_index
from docwheel.sources import load_source

WORDS = (
    "server client token rotate keys getUserName snake_case HTTPServer asyncio.gather "
    "the and how naïve café 東京 v2.1 --verbose x"
).split()


def sample_docs(count: int) -> list[IndexDoc]:
    """Sections whose common words recur in more than one block (128 postings) of a term."""
    rng = random.Random(7)
    docs = []
    for n in range(count):
        page = n // 3
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 60))]
        docs.append(
            IndexDoc(
                ref=f"s:p{page}#a{n}",
                page_ref=f"s:p{page}",
                source="s",
                version="",
                url=f"https://x.example/p{page}",
                anchor=f"a{n}",
                page_title=f"Page {page}",
                heading_text=f"Heading {n}",
                section=f"Page {page} > Heading {n}",
                level=2,
                page_description="about servers" if n % 3 == 0 else "",
                content=" ".join(words),
                content_hash="0" * 64,
                order=(page, n % 3),
                title=f"Page {page} {words[0] if words else ''}",
                heading=f"Heading {n}",
                description="about servers" if n % 3 == 0 else "",
                body=" ".join(words[: len(words) // 2]),
                code=" ".join(words[len(words) // 2 :]),
                # Some sections hold deeper headings; most store no anchors at all.
                anchors=(("deep", "Deep", 4, 3), (f"t{n}", "", 0, 9)) if n % 4 == 0 else None,
            )
        )
    return docs


def no_fetch(url: str) -> object:
    raise AssertionError(f"nothing is fetched here: {url}")


def whoosh_files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name.startswith(("_", INDEX_NAME))}


def whoosh_written(docs: list[IndexDoc], directory: Path) -> None:
    """The index Whoosh's own ``add_document`` and ``commit`` write for ``docs``."""
    directory.mkdir()
    random.seed(0)
    ix = whoosh_index.create_in(str(directory), make_schema(), indexname=INDEX_NAME)
    writer = ix.writer(compound=False)
    for doc in docs:
        row = dict(doc.__dict__)
        row["order"] = list(doc.order)
        writer.add_document(**with_plain(row))  # what the analysis adds to the stored fields
    writer.commit(optimize=True)
    ix.close()
    (directory / f"{INDEX_NAME}_WRITELOCK").unlink(missing_ok=True)


def postings_read(directory: Path) -> tuple[dict, set[int]]:
    """Every term's statistics and postings as Whoosh's reader gives them, block by block,
    and the compression levels its blocks were stored with."""
    ix = whoosh_index.open_dir(str(directory), indexname=INDEX_NAME)
    found: dict = {}
    levels: set[int] = set()
    with ix.reader() as reader:
        for name, term in reader.all_terms():
            info = reader.term_info(name, term)
            stats = (info.doc_frequency(), info.weight(), info.min_length(), info.max_length(),
                     info.max_weight(), info.min_id(), info.max_id())
            matcher = reader.postings(name, term)
            rows = []
            while matcher.is_active():
                levels.add(matcher._compression)
                rows.append((matcher.id(), matcher.weight(), matcher.value(), matcher.block_max_weight(),
                             matcher.block_min_length(), matcher.block_max_length()))
                matcher.next()
            found[name, term] = (stats, rows)
    ix.close()
    return found, levels


def test_posting_writer_writes_what_whoosh_own_writer_writes(tmp_path: Path) -> None:
    """The same bytes, but for the small posting blocks we leave uncompressed (so the
    postings file and the term offsets differ): Whoosh reads the same postings, block
    statistics and term statistics from both."""
    docs = sample_docs(400)
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    write_index(docs, ours)
    whoosh_written(docs, theirs)

    def same_bytes(files: dict[str, bytes]) -> dict[str, bytes]:
        return {name: data for name, data in files.items() if not name.endswith((".pst", ".trm"))}

    assert same_bytes(whoosh_files(ours)) == same_bytes(whoosh_files(theirs))
    assert len(same_bytes(whoosh_files(ours))) > 3
    read, levels = postings_read(ours)
    expected, their_levels = postings_read(theirs)
    assert read == expected
    assert len(read) > 100 and any(len(rows) > 128 for _, rows in read.values())
    assert (levels, their_levels) == ({0, 3}, {3})


def test_blocks_are_compressed_from_raw_block_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no block left raw the files are the bytes Whoosh's own writer writes."""
    docs = sample_docs(400)
    monkeypatch.setattr(index_write, "RAW_BLOCK_BYTES", 0)
    write_index(docs, tmp_path / "ours")
    whoosh_written(docs, tmp_path / "theirs")
    assert whoosh_files(tmp_path / "ours") == whoosh_files(tmp_path / "theirs")


def test_postings_spilled_to_disk_give_the_same_index_as_postings_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = site_config(tmp_path)
    build_from_file(config, tmp_path / "held")
    monkeypatch.setattr(index_write, "POOL_MB", 0.005)  # a run every few dozen postings
    build_from_file(config, tmp_path / "spilled")
    assert whoosh_files(tmp_path / "spilled") == whoosh_files(tmp_path / "held")
    assert len(whoosh_files(tmp_path / "held")) > 3


# How many requests the helper may hold before the build process analyses a batch (or
# encodes a chunk of terms) itself: 0, all here (the helper only counts); 1, whichever side
# is free; 100, all in the helper once it is up.
@pytest.mark.parametrize("in_flight", [0, 1, 100])
def test_analysis_shared_with_a_helper_process_writes_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_flight: int
) -> None:
    monkeypatch.setattr(index_write._HelperAnalysis, "BATCH_CHARS", 2_000)  # many batches in flight
    monkeypatch.setattr(index_write._HelperAnalysis, "IN_FLIGHT", in_flight)
    monkeypatch.setattr(index_write, "CHUNK_POSTINGS", 50)  # many chunks of terms to encode
    docs = sample_docs(400)
    write_index(docs, tmp_path / "here")
    before = child_processes()
    write_index(docs, tmp_path / "helper", helper=True)
    assert tree(tmp_path / "helper") == tree(tmp_path / "here")
    assert child_processes() == before


def test_a_source_failing_during_a_helper_build_raises_its_own_error_and_ends_the_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_write._HelperAnalysis, "BATCH_CHARS", 2_000)

    def docs():
        yield from sample_docs(300)
        raise SourceError("local", "big.txt", "cannot read: Input/output error")

    before = child_processes()
    with pytest.raises(SourceError) as info:
        write_index(docs(), tmp_path / "index", helper=True)
    assert str(info.value) == "source 'local' (big.txt): cannot read: Input/output error"
    assert child_processes() == before


def test_a_failure_inside_the_helper_process_is_a_build_error() -> None:
    helper = HelperProcess("docwheel.index_write", "_serve_analysis", "build's analysis process")
    try:
        helper.request(("start", None))
        ticket = helper.request(("sections", [(0, None)]))
        with pytest.raises(BuildError, match=r"^the build's analysis process failed: TypeError: "):
            helper.reply(ticket)
    finally:
        helper.close()


def test_a_build_large_enough_for_the_helper_gives_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docwheel import build

    config = site_config(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    build_from_file(config, tmp_path / "here")
    monkeypatch.setattr(build, "HELPER_MIN_BYTES", 0)
    build_from_file(config, tmp_path / "helper")
    assert tree(tmp_path / "helper") == tree(tmp_path / "here")


# -- the build's helper process: Markdown parsed beside the build process -----------------


def shared_parser(monkeypatch: pytest.MonkeyPatch) -> _BuildHelper:
    """A started build helper that takes every batch of a few files once it is up."""
    monkeypatch.setattr(_BuildHelper, "PARSE_CHARS", 500)
    monkeypatch.setattr(_BuildHelper, "IN_FLIGHT", 100)
    helper = _BuildHelper(True)
    helper.read(HELPER_MIN_BYTES)
    assert helper.process is not None and helper._ping is not None
    helper.process.reply(helper._ping)  # up: nothing is parsed here from now on
    helper._ping = None
    return helper


def test_pages_parsed_by_the_helper_are_the_pages_parsed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "site", folder)
    (folder / "broken.md").write_text("---\ntitle: [unclosed\n---\n# Broken\n\ntext\n", encoding="utf-8")
    (folder / "bad.md").write_bytes(b"# Bad \xff bytes\n\ntext\n")
    (folder / "hidden.md").write_text("---\nnoindex: true\n---\n# Hidden\n", encoding="utf-8")
    for n in range(30):
        (folder / f"p{n:02}.mdx").write_text(f"# Page {n}\n\n## Part\n\n{'words ' * 40 * n}\n", encoding="utf-8")
    source = SourceConfig("site", "markdown", path=folder, base_url="https://acme.example/")
    here = load_source(source, no_fetch)
    before = child_processes()
    with shared_parser(monkeypatch) as helper:
        shared = load_source(source, no_fetch, helper.parse)
        assert helper.process is not None and helper.process._sent > 5  # batches went to it
    assert shared.pages == here.pages
    assert shared.warnings == here.warnings
    assert len(here.warnings) >= 3  # noindex pages, bad frontmatter, bad bytes: in file order
    assert child_processes() == before


def test_a_helper_that_dies_while_parsing_fails_the_build_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docwheel import build

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(40):
        (folder / f"p{n:02}.md").write_text(f"# Page {n}\n\n{'words ' * 200}\n", encoding="utf-8")
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: docs\n    kind: markdown\n    path: {folder}\n"
    )
    helpers: list[_BuildHelper] = []
    real_parse = _BuildHelper.parse

    def parse_after_killing(self: _BuildHelper, jobs):
        assert self.process is not None
        helpers.append(self)
        self.process.reply(self.process.request(("ping", None)))  # up, then gone
        self.process._proc.kill()
        return real_parse(self, jobs)

    monkeypatch.setattr(build, "HELPER_MIN_BYTES", 0)
    monkeypatch.setattr(_BuildHelper, "parse", parse_after_killing)
    monkeypatch.setattr(_BuildHelper, "PARSE_CHARS", 500)
    before = child_processes()
    with pytest.raises(BuildError, match=r"^the build's helper process stopped \(exit status -9\)$"):
        build_from_file(config, tmp_path / "build" / "index")
    assert helpers
    assert not (tmp_path / "build").exists()
    assert child_processes() == before


def test_a_helper_that_dies_while_indexing_fails_the_build_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docwheel import build

    config = site_config(tmp_path)
    build_from_file(config, tmp_path / "index")
    before = tree(tmp_path / "index")
    real_write = index_write.write_index

    def write_after_killing(docs, directory, *, helper):
        assert not isinstance(helper, bool)
        helper._proc.kill()
        return real_write(docs, directory, helper=helper)

    monkeypatch.setattr(build, "HELPER_MIN_BYTES", 0)
    monkeypatch.setattr(build, "write_index", write_after_killing)
    before_children = child_processes()
    with pytest.raises(BuildError, match=r"^the build's helper process stopped \(exit status -9\)$"):
        build_from_file(config, tmp_path / "index")
    assert child_processes() == before_children
    assert tree(tmp_path / "index") == before  # the old index stays as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docwheel.yaml", "index"]


def test_a_write_that_fails_midway_leaves_no_index_file_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = site_config(tmp_path)

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(index_write, "_write_postings", disk_full)
    with pytest.raises(BuildError, match=r"^could not write .*index: \[Errno 28\] No space left on device$"):
        build_from_file(config, tmp_path / "index")
    # A file left open would warn as it is collected: an error under this suite's settings.
    gc.collect()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docwheel.yaml"]


def test_positions_are_encoded_as_whoosh_encodes_them_each_in_a_fresh_object() -> None:
    encode = make_schema()["body"].format.encode
    cases = [[0], [7], [255], [256], [70_000], [3, 9], [0, 1, 2], list(range(0, 5_000, 3)), [2**31 + 5]]
    for found in cases:
        assert index_write.encode_positions(found) == encode(found), found
    assert index_write.encode_positions([7]) is not index_write.encode_positions([7])
