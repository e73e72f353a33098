from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import write_config

from docwheel.config import KINDS, LAYOUT_NAMES, Config, SourceConfig, load_config, parse_config
from docwheel.errors import ConfigError

VALID = """\
name: plane-docs
description: Plane's documentation
sources:
  - name: help
    kind: llms-full
    url: https://docs.plane.so/llms-full.txt
  - name: guides
    kind: llms-txt
    url: https://example.com/llms.txt
    max_level: 2
  - name: pages
    kind: markdown
    path: docs/
    base_url: https://example.com/docs/
  - name: api
    kind: markdown
    urls:
      - https://example.com/a.md
      - https://example.com/b.md
"""


def write(tmp_path: Path, text: str, name: str = "docwheel.yaml") -> Path:
    file = tmp_path / name
    file.write_text(textwrap.dedent(text), encoding="utf-8")
    return file


def problems_of(data: object, base_dir: Path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(data, base_dir=base_dir, origin="docwheel.yaml")
    return info.value.problems


def source(**fields: object) -> dict:
    return {"name": "help", "kind": "llms-full", "url": "https://x.test/llms-full.txt", **fields}


def one_source(tmp_path: Path, **fields: object) -> list[str]:
    entry = {k: v for k, v in source(**fields).items() if v is not ...}
    return problems_of({"name": "snap", "sources": [entry]}, tmp_path)


def test_valid_file_loads_every_field(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    config = load_config(write(tmp_path, VALID))
    assert config == Config(
        name="plane-docs",
        description="Plane's documentation",
        sources=(
            SourceConfig("help", "llms-full", url="https://docs.plane.so/llms-full.txt"),
            SourceConfig("guides", "llms-txt", url="https://example.com/llms.txt", max_level=2),
            SourceConfig(
                "pages",
                "markdown",
                path=(tmp_path / "docs").resolve(),
                base_url="https://example.com/docs/",
            ),
            SourceConfig(
                "api",
                "markdown",
                urls=("https://example.com/a.md", "https://example.com/b.md"),
            ),
        ),
        origin=(tmp_path / "docwheel.yaml").resolve(),
    )
    assert KINDS == ("llms-full", "llms-txt", "markdown")


def test_location_names_url_path_as_written_or_url_count(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    help_, _, pages, api = load_config(write(tmp_path, VALID)).sources
    assert help_.location == "https://docs.plane.so/llms-full.txt"
    assert pages.location == "docs/"
    assert api.location == "2 URLs"


def test_description_is_optional(tmp_path: Path) -> None:
    config = parse_config(
        {"name": "a.b_c-1", "sources": [source()]}, base_dir=tmp_path, origin="x.yaml"
    )
    assert config.description == ""
    assert config.origin == Path("x.yaml")
    assert config.sources[0].max_level == 3


def test_path_resolves_against_the_sources_file_folder_not_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "content").mkdir(parents=True)
    (project / "content" / "llms-full.txt").write_text("# Hi\n", encoding="utf-8")
    file = write(
        project,
        """\
        name: snap
        sources:
          - {name: local, kind: llms-full, path: content/llms-full.txt}
        """,
    )
    monkeypatch.chdir(tmp_path)
    (src,) = load_config(Path("project") / "docwheel.yaml").sources
    assert src.path == (project / "content" / "llms-full.txt").resolve()
    assert src.path.is_absolute()
    assert src.location == "content/llms-full.txt"
    assert load_config(file).origin == file.resolve()


def test_missing_path_is_reported_with_where_it_looked(tmp_path: Path) -> None:
    (problem,) = one_source(tmp_path, url=..., path="nowhere.txt")
    assert problem.startswith("sources[0].path: 'nowhere.txt' not found")
    assert str(tmp_path / "nowhere.txt") in problem


def test_folder_path_is_refused_for_a_single_file_kind(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (problem,) = one_source(tmp_path, url=..., path="docs")
    assert problem == "sources[0].path: 'docs' is a folder; llms-full takes one file"


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        """\
        description: 3
        extra: true
        sources:
          - name: help
            kind: llmsfull
            url: https://example.com/llms-full.txt
          - name: help
            kind: llms-txt
            uri: https://example.com/llms.txt
          - name: pages
            kind: markdown
          - name: Bad Name
            kind: markdown
            url: ftp://example.com/a.md
            max_level: 9
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_config(file)
    assert info.value.problems == [
        "top level: unknown key 'extra'",
        "name: missing",
        "description: expected a string, got a number (3)",
        "sources[0].kind: 'llmsfull' is not one of llms-full, llms-txt, markdown (or docs, for markdown)",
        "sources[1]: unknown key 'uri' (did you mean 'url'?)",
        "sources[1].url: missing (or give path)",
        "sources[2].url: missing (or give urls or path)",
        "sources[3].name: 'Bad Name' must be lower-case letters, digits, '-' or '_', "
        "starting with a letter or digit",
        "sources[3].url: 'ftp://example.com/a.md' is not an http(s) URL",
        "sources[3].max_level: 9 is not between 1 and 6",
    ]
    message = str(info.value)
    assert message.startswith(f"{file}: invalid sources file:\n")
    assert "  sources[2].url: missing (or give urls or path)" in message


def test_duplicate_source_names_are_reported_with_the_first_use(tmp_path: Path) -> None:
    problems = problems_of(
        {"name": "snap", "sources": [source(), source(kind="llms-txt"), source()]}, tmp_path
    )
    assert problems == [
        "sources[1].name: 'help' is already used by sources[0]",
        "sources[2].name: 'help' is already used by sources[0]",
    ]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"name": ...}, "sources[0].name: missing"),
        ({"kind": ...}, "sources[0].kind: missing"),
        ({"url": ...}, "sources[0].url: missing (or give path)"),
        ({"name": 7}, "sources[0].name: expected a string, got a number (7)"),
        ({"name": "-x"}, "sources[0].name: '-x' must be lower-case letters"),
        ({"kind": ["markdown"]}, "sources[0].kind: expected a string, got a list"),
        ({"url": None}, "sources[0].url: empty"),
        ({"url": "docs.plane.so/llms.txt"}, "sources[0].url: 'docs.plane.so/llms.txt' is not an"),
        ({"url": {"a": 1}}, "sources[0].url: expected a URL string, got a mapping"),
        ({"path": "x.txt"}, "sources[0]: give exactly one of url, path"),
        ({"urls": ["https://a.test/x.md"]}, "sources[0].urls: only markdown sources take"),
        ({"base_url": "/docs/"}, "sources[0].base_url: '/docs/' is not an http(s) URL"),
        ({"max_level": 0}, "sources[0].max_level: 0 is not between 1 and 6"),
        ({"max_level": "3"}, "sources[0].max_level: expected a whole number 1-6, got a string"),
        ({"max_level": True}, "sources[0].max_level: expected a whole number 1-6, got true"),
        (
            {"format": "mintlfy"},
            "sources[0].format: 'mintlfy' is not one of page-tags, rule-blocks, firecrawl, "
            "mintlify, vitepress, headings",
        ),
        ({"format": 3}, "sources[0].format: expected a string, got a number (3)"),
        ({"kind": "markdown", "format": "mintlify"}, "sources[0].format: only llms-full sources"),
    ],
)
def test_bad_source_field_is_reported_with_its_place(
    tmp_path: Path, fields: dict, expected: str
) -> None:
    problems = one_source(tmp_path, **fields)
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize(
    ("urls", "expected"),
    [
        ([], "sources[0].urls: empty; list at least one URL"),
        (
            "https://a.test/x.md",
            "sources[0].urls: expected a list of URLs, got a string ('https://a.test/x.md')",
        ),
        (["https://a.test/x.md", "x.md"], "sources[0].urls[1]: 'x.md' is not an http(s) URL"),
        (["https://a.test/x.md"] * 2, "sources[0].urls[1]: repeats sources[0].urls[0]"),
    ],
)
def test_bad_markdown_url_list_is_reported(tmp_path: Path, urls: object, expected: str) -> None:
    problems = one_source(tmp_path, kind="markdown", url=..., urls=urls)
    assert problems == [expected]


def test_markdown_with_url_and_urls_asks_for_exactly_one(tmp_path: Path) -> None:
    problems = one_source(tmp_path, kind="markdown", urls=["https://a.test/x.md"])
    assert problems == ["sources[0]: give exactly one of url, urls, path"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (None, "the file is empty; it needs at least name: and sources:"),
        (["a"], "top level: expected a mapping with name and sources, got a list"),
        ({"name": "snap"}, "sources: missing"),
        ({"name": "snap", "sources": []}, "sources: empty; list at least one source"),
        ({"name": "snap", "sources": {"help": 1}}, "sources: expected a list, got a mapping"),
        ({"name": "snap", "sources": ["help"]}, "sources[0]: expected a mapping"),
        ({"name": "my docs", "sources": [source()]}, "name: 'my docs' must be letters, digits"),
        ({"name": 1.5, "sources": [source()]}, "name: expected a string, got a number (1.5)"),
    ],
)
def test_bad_top_level_is_reported(tmp_path: Path, data: object, expected: str) -> None:
    (problem,) = problems_of(data, tmp_path)
    assert problem.startswith(expected)


def test_missing_file_says_how_to_name_another(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(missing)
    assert info.value.origin == str(missing)
    (problem,) = info.value.problems
    assert "not found" in problem
    assert "--config FILE" in problem
    assert "DOCWHEEL_CONFIG" in problem


def test_yaml_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        """\
        name: snap
        sources:
          - name: help
            kind: llms-full
           url: https://example.com/llms-full.txt
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_config(file)
    (problem,) = info.value.problems
    assert problem.startswith("invalid YAML at line 5, column 4: ")


def test_key_given_twice_is_a_yaml_error_not_a_silent_overwrite(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        """\
        name: snap
        sources:
          - name: help
            kind: llms-full
            url: https://example.com/a.txt
            url: https://example.com/b.txt
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_config(file)
    assert info.value.problems == ["invalid YAML at line 6, column 5: duplicate key 'url'"]


def test_folder_given_as_sources_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.problems == ["is a folder, not a sources file"]


def test_non_utf8_sources_file_is_reported(tmp_path: Path) -> None:
    file = tmp_path / "docwheel.yaml"
    file.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ConfigError) as info:
        load_config(file)
    assert info.value.problems == ["not UTF-8 text (bad byte at offset 9)"]


def test_format_forces_an_llms_full_layout(tmp_path: Path) -> None:
    config = parse_config(
        {"name": "snap", "sources": [source(format="firecrawl")]},
        base_dir=tmp_path,
        origin="docwheel.yaml",
    )
    assert config.sources[0].format == "firecrawl"


def test_format_names_are_the_llms_layout_table() -> None:
    from docwheel.formats.llms import LAYOUTS

    assert LAYOUT_NAMES == tuple(LAYOUTS)
    assert set(LAYOUT_NAMES) == {
        "mintlify",
        "vitepress",
        "page-tags",
        "firecrawl",
        "rule-blocks",
        "headings",
    }


@pytest.mark.parametrize(
    ("written", "expected"),
    [("250 MB", 250_000_000), ("1.5GB", 1_500_000_000), ("512kb", 512_000), (4096, 4096), ("10", 10)],
)
def test_max_size_takes_a_byte_count_or_a_size_with_a_unit(tmp_path, written, expected):
    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: web\n    kind: llms-full\n"
        f"    url: https://x.example/llms-full.txt\n    max_size: {written}\n",
    )
    assert load_config(config).sources[0].max_bytes == expected


@pytest.mark.parametrize("written", ["lots", "-5", "0", "3 TB", "true"])
def test_a_bad_max_size_names_the_key(tmp_path, written):
    config = write_config(
        tmp_path,
        f"name: t\nsources:\n  - name: web\n    kind: llms-full\n"
        f"    url: https://x.example/llms-full.txt\n    max_size: {written}\n",
    )
    with pytest.raises(ConfigError, match=r"sources\[0\]\.max_size: "):
        load_config(config)


def test_anchors_names_a_slug_style(tmp_path):
    base = "name: t\nsources:\n  - name: web\n    kind: markdown\n    url: https://x.example/a.md\n"
    assert load_config(write_config(tmp_path, base + "    anchors: vitepress\n")).sources[0].anchors == "vitepress"
    with pytest.raises(ConfigError, match=r"sources\[0\]\.anchors: 'hugo' is not one of github, docutils, mintlify, vitepress, mkdocs, jupyter"):
        load_config(write_config(tmp_path, base + "    anchors: hugo\n"))


def test_kind_docs_is_a_markdown_source(tmp_path):
    (tmp_path / "docs").mkdir()
    config = load_config(
        write_config(tmp_path, "name: t\nsources:\n  - name: d\n    kind: docs\n    path: docs\n")
    )
    assert config.sources[0].kind == "markdown"
