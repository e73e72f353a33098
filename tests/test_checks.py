"""Answer checks (``checks:`` in the sources file): the sources file part, the runner over a
real built index, the build that fails on a miss, ``docwheel check``, and what ``docwheel
info`` and ``describe_docs`` say about them.

The docs are a small site written here, so the ranks the tests pin do not move when the
shared fixtures do: a word each page owns (``docker`` is only on the install page) gives a
rank that any sensible ranking keeps.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import anyio
import pytest
import yaml
from mcp import Client

import docwheel
from docwheel.build import build_from_file
from docwheel.checks import miss_line, run_checks, table
from docwheel.config import Check, load_config, parse_config
from docwheel.errors import ChecksFailedError, ConfigError
from docwheel.server import create_server

from helpers import FIXTURES, REPO, docwheel_cmd

PAGES = {
    "guide/install.md": """\
        ---
        title: Install
        description: Put acme on your machine.
        ---
        # Install

        One command puts acme on your machine.

        ## With pip

        Run `pip install acme` in a virtual environment.

        ## With Docker

        Run the acme image: `docker run acme/acme`. The docker image is rebuilt nightly.
        """,
    "guide/credentials.md": """\
        # Credentials

        Rotate API keys every 90 days: create a new key, deploy it, then revoke the old key.

        ## Revoke a key

        A revoked key stops working within a minute.
        """,
    "guide/webhooks.md": """\
        # Webhooks

        Acme posts events to your endpoint, signed with your signing token.

        ## Retries

        Failed deliveries are retried with backoff for three days.
        """,
    "api/tokens.md": """\
        # Tokens

        Create a token for the API. A token is shown once; a token can be revoked.

        ## Token scopes

        A token's scopes limit what it may call.
        """,
}

SOURCES = """\
name: acme-docs
sources:
  - name: guide
    kind: markdown
    path: site/guide
  - name: api
    kind: markdown
    path: site/api
"""


def write_site(root: Path) -> Path:
    for relative, text in PAGES.items():
        path = root / "site" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def sources_file(root: Path, checks: str = "", head: str = SOURCES) -> Path:
    path = root / "docwheel.yaml"
    path.write_text(head + textwrap.dedent(checks), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_site(tmp_path_factory.mktemp("checks"))


@pytest.fixture(scope="module")
def index_dir(site: Path) -> Path:
    out = site / "index"
    build_from_file(sources_file(site), out)
    return out


@pytest.fixture(scope="module")
def docs(index_dir: Path):
    with docwheel.open_index(index_dir) as index:
        yield index


def checks_of(site: Path, checks: str) -> tuple[Check, ...]:
    """The checks of a sources file with these ``checks:`` lines, as the build reads them."""
    data = yaml.safe_load(SOURCES + textwrap.dedent(checks))
    return parse_config(data, base_dir=site, origin="docwheel.yaml").checks


def problems_of(site: Path, checks: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        checks_of(site, checks)
    return caught.value.problems


def ranks(site: Path, docs, checks: str) -> list[tuple[int | None, bool]]:
    results = run_checks(checks_of(site, checks), docs, origin="docwheel.yaml")
    return [(r.rank, r.passed) for r in results]


# -- the checks: part of the sources file -------------------------------------------------


def test_a_check_reads_query_expect_within_and_filters(site: Path) -> None:
    checks = checks_of(site, """\
        checks:
          - query: " install with docker "
            expect: guide:install
          - query: create a token
            expect: [api:tokens, api:tokens#token-scopes]
            within: 1
            source: api
            mode: lexical
        """)
    assert checks == (
        Check("install with docker", ("guide:install",), 3),
        Check("create a token", ("api:tokens", "api:tokens#token-scopes"), 1, "api", None, "lexical"),
    )
    assert [c.place for c in checks] == ["checks[0]", "checks[1]"]


def test_no_checks_key_and_an_empty_list_mean_no_checks(site: Path) -> None:
    assert checks_of(site, "") == ()
    assert checks_of(site, "checks: []\n") == ()


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"expect": "guide:install"}, "checks[0].query: missing (the question a user asks)"),
        ({"query": 3, "expect": "guide:install"}, "checks[0].query: expected a string, got a number (3)"),
        ({"query": "  ", "expect": "guide:install"}, "checks[0].query: empty"),
        ({"query": "q"}, "checks[0].expect: missing (the page ref source:path, or section ref "
         "source:path#anchor, the query must find)"),
        ({"query": "q", "expect": []}, "checks[0].expect: empty; list at least one ref"),
        ({"query": "q", "expect": {"a": 1}}, "checks[0].expect: expected a ref or a list of refs, got a mapping"),
        ({"query": "q", "expect": "install"}, "checks[0].expect: 'install' is not a ref; write "
         "source:path or source:path#anchor (`docwheel list` shows them)"),
        ({"query": "q", "expect": ["guide:install", 7]}, "checks[0].expect[1]: a number (7) is not "
         "a ref; write source:path or source:path#anchor (`docwheel list` shows them)"),
        ({"query": "q", "expect": "gide:install"}, "checks[0].expect: 'gide:install' names no "
         "source (did you mean 'guide'?); sources: api, guide"),
        ({"query": "q", "expect": "guide:install@x"}, None),  # '@' in a path is a path
        ({"query": "q", "expect": "guide@2.0:install"}, "checks[0].expect: 'guide@2.0:install': "
         "source 'guide' has no version '2.0' (versions: none)"),
        ({"query": "q", "expect": "guide:install", "within": 0}, "checks[0].within: 0 is not between 1 and 20"),
        ({"query": "q", "expect": "guide:install", "within": 21}, "checks[0].within: 21 is not between 1 and 20"),
        ({"query": "q", "expect": "guide:install", "within": "3"},
         "checks[0].within: expected a whole number 1-20, got a string ('3')"),
        ({"query": "q", "expect": "guide:install", "within": True},
         "checks[0].within: expected a whole number 1-20, got true (true/false)"),
        ({"query": "q", "expect": "guide:install", "source": "gude"},
         "checks[0].source: 'gude' is not one of the sources (api, guide)"),
        ({"query": "q", "expect": "guide:install", "source": "api"},
         "checks[0].expect: 'guide:install' is not in source 'api', the only one this check searches"),
        ({"query": "q", "expect": "guide:install", "version": "2.0"},
         "checks[0].version: '2.0' is not a version of any source (versions: none (no source has a version:))"),
        ({"query": "q", "expect": "guide:install", "version": 2.1},
         "checks[0].version: write it in quotes (version: \"2.1\"): unquoted, YAML reads it as a "
         "number and 2.10 becomes 2.1"),
        ({"query": "q", "expect": "guide:install", "mode": "fuzzy"},
         "checks[0].mode: 'fuzzy' is not one of hybrid, lexical"),
        ({"query": "q", "expect": "guide:install", "mode": "hybrid"},
         "checks[0].mode: hybrid searches by meaning too, which needs semantic: in the sources file"),
        ({"query": "q", "expected": "guide:install"}, "checks[0]: unknown key 'expected' (did you mean 'expect'?)"),
        ("rotate keys", "checks[0]: expected a mapping with query and expect, got a string ('rotate keys')"),
    ],
)
def test_each_bad_field_of_a_check_is_a_config_error_with_its_place(
    site: Path, entry: object, expected: str | None
) -> None:
    data = {**yaml.safe_load(SOURCES), "checks": [entry]}
    if expected is None:
        assert parse_config(data, base_dir=site, origin="docwheel.yaml").checks
        return
    with pytest.raises(ConfigError) as caught:
        parse_config(data, base_dir=site, origin="docwheel.yaml")
    assert expected in caught.value.problems, caught.value.problems


def test_checks_that_is_not_a_list_is_reported(site: Path) -> None:
    assert problems_of(site, "checks: {query: q}\n") == [
        "checks: expected a list of {query, expect}, got a mapping"
    ]


def test_every_bad_check_is_reported_at_once_with_the_other_problems(site: Path) -> None:
    problems = problems_of(site, """\
        offline: 3
        checks:
          - query: q
            expect: guide:install
            within: 30
          - query: q
            expect: [guide:install, api:tokens]
            source: guide
        """)
    assert problems == [
        "offline: expected a snapshot folder name, got a number (3)",
        "checks[0].within: 30 is not between 1 and 20",
        "checks[1].expect[1]: 'api:tokens' is not in source 'guide', the only one this check searches",
    ]


VERSIONED = """\
name: client-docs
sources:
  - name: client
    kind: markdown
    path: v1
    version: "1.0"
  - name: client
    kind: markdown
    path: v2
    version: "2.0"
"""


def versioned_site(root: Path) -> Path:
    for version, text in (("v1", "Retries happen three times."), ("v2", "Retries back off.")):
        (root / version).mkdir(parents=True, exist_ok=True)
        (root / version / "retries.md").write_text(f"# Retries\n\n{text}\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"query": "q", "expect": "client:retries"}, "checks[0].expect: 'client:retries': source "
         "'client' is versioned, so its refs start with client@1.0:, client@2.0:"),
        ({"query": "q", "expect": "client@1.0:retries"}, "checks[0].expect: 'client@1.0:retries' "
         "is version 1.0, but the check searches version 2.0 of 'client'; add version: \"1.0\" to "
         "the check"),
        ({"query": "q", "expect": "client@3.0:retries"}, "checks[0].expect: 'client@3.0:retries': "
         "source 'client' has no version '3.0' (versions: 1.0, 2.0)"),
        ({"query": "q", "expect": "client@2.0:retries", "version": "1.0"}, "checks[0].expect: "
         "'client@2.0:retries' is version 2.0, but the check searches version 1.0 of 'client'; change one"),
        ({"query": "q", "expect": "client@1.0:retries", "version": "1.5"},
         "checks[0].version: '1.5' is not a version of any source (versions: 1.0, 2.0)"),
    ],
)
def test_a_ref_of_a_versioned_source_must_be_of_the_version_the_check_searches(
    tmp_path: Path, entry: dict, expected: str
) -> None:
    data = {**yaml.safe_load(VERSIONED), "checks": [entry]}
    with pytest.raises(ConfigError) as caught:
        parse_config(data, base_dir=versioned_site(tmp_path), origin="docwheel.yaml")
    assert caught.value.problems == [expected]


def test_a_version_filter_finds_the_page_of_that_version(tmp_path: Path) -> None:
    root = versioned_site(tmp_path)
    config = root / "docwheel.yaml"
    config.write_text(VERSIONED + textwrap.dedent("""\
        checks:
          - query: retries three times
            expect: client@1.0:retries
            version: "1.0"
          - query: retries back off
            expect: client@2.0:retries
          - query: retries
            expect: [client@1.0:retries]
            version: all
        """), encoding="utf-8")
    manifest = build_from_file(config, root / "index")
    assert [(c.get("version"), c["rank"]) for c in manifest["checks"]] == [
        ("1.0", 1), (None, 1), ("all", 1),
    ]
    # With version: all, a page kept in several versions is one result at its newest
    # version; the older one is found as its other version.
    assert manifest["checks"][2]["top"] == ["client@2.0:retries"]


# -- ranks, against a real index -----------------------------------------------------------


def test_a_page_ref_is_found_through_any_of_its_sections(site: Path, docs) -> None:
    # "docker" is only in the install page's "With Docker" section.
    assert ranks(site, docs, """\
        checks:
          - query: docker image
            expect: guide:install
            within: 1
        """) == [(1, True)]


def test_a_section_ref_counts_only_that_section(site: Path, docs) -> None:
    assert ranks(site, docs, """\
        checks:
          - query: docker image
            expect: guide:install#with-docker
            within: 1
          - query: docker image
            expect: guide:install#with-pip
        """) == [(1, True), (None, False)]


def test_a_list_passes_when_any_ref_is_within_and_names_the_one_found(site: Path, docs) -> None:
    (result,) = run_checks(checks_of(site, """\
        checks:
          - query: rotate api keys
            expect: [guide:webhooks, guide:credentials]
            within: 1
        """), docs, origin="docwheel.yaml")
    assert (result.rank, result.found, result.passed) == (1, "guide:credentials", True)


def test_within_is_the_rank_a_check_must_reach(site: Path, docs) -> None:
    # "token" is all over api:tokens and once on guide:webhooks, which comes second.
    found = docs.search("token", limit=5).results
    assert [hit.ref.partition("#")[0] for hit in found][:2] == ["api:tokens", "guide:webhooks"]
    assert ranks(site, docs, """\
        checks:
          - query: token
            expect: guide:webhooks
            within: 1
          - query: token
            expect: guide:webhooks
            within: 2
        """) == [(2, False), (2, True)]


def test_a_source_filter_searches_like_search_source(site: Path, docs) -> None:
    assert ranks(site, docs, """\
        checks:
          - query: token
            expect: guide:webhooks
            within: 1
            source: guide
        """) == [(1, True)]


def test_mode_lexical_searches_by_words_and_hybrid_needs_semantic_vectors(
    site: Path, docs
) -> None:
    assert ranks(site, docs, """\
        checks:
          - query: docker image
            expect: guide:install
            mode: lexical
        """) == [(1, True)]
    # A sources file with semantic: may be checked against an index built without it.
    data = {**yaml.safe_load(SOURCES), "semantic": True, "checks": [
        {"query": "docker", "expect": "guide:install", "mode": "hybrid"},
    ]}
    checks = parse_config(data, base_dir=site, origin="docwheel.yaml").checks
    with pytest.raises(ConfigError) as caught:
        run_checks(checks, docs, origin="docwheel.yaml")
    assert caught.value.problems == [
        "checks[0].mode: hybrid, but these docs have no semantic vectors (they were built "
        "without semantic:)"
    ]


def test_unknown_pages_and_sections_are_config_errors_with_the_closest_refs(
    site: Path, docs
) -> None:
    with pytest.raises(ConfigError) as caught:
        run_checks(checks_of(site, """\
            checks:
              - query: install
                expect: guide:instal
              - query: install
                expect: [guide:install#with-dockr, guide:install#zzz, guide:instll#with-pip]
              - query: token
                expect: guide:tokens
              - query: token
                expect: api:nothing-like-this
            """), docs, origin="docwheel.yaml")
    assert str(caught.value).startswith("docwheel.yaml: invalid sources file:\n")
    assert caught.value.problems == [
        "checks[0].expect: unknown page 'guide:instal' (did you mean 'guide:install'?)",
        "checks[1].expect[0]: unknown section 'guide:install#with-dockr' (did you mean "
        "'guide:install#with-docker'?)",
        "checks[1].expect[1]: unknown section 'guide:install#zzz' (its sections: #with-pip, "
        "#with-docker)",
        "checks[1].expect[2]: unknown section 'guide:instll#with-pip' (no page 'guide:instll'; "
        "did you mean 'guide:install'?)",
        "checks[2].expect: unknown page 'guide:tokens' (did you mean 'api:tokens'?)",
        "checks[3].expect: unknown page 'api:nothing-like-this'",
    ]


def test_a_miss_is_one_line_with_query_expected_rank_and_the_top_three(site: Path, docs) -> None:
    results = run_checks(checks_of(site, """\
        checks:
          - query: token
            expect: guide:webhooks
            within: 1
          - query: token
            expect: [guide:install, guide:credentials]
            source: guide
        """), docs, origin="docwheel.yaml")
    assert [miss_line(r) for r in results] == [
        "checks[0] 'token': expected guide:webhooks within 1, got rank 2; "
        "top 3: api:tokens#token-scopes, guide:webhooks",
        "checks[1] 'token' (source guide): expected guide:install or guide:credentials within 3, "
        "not in the top 20; top 3: guide:webhooks",
    ]
    assert table(results).splitlines() == [
        "query  expected                            rank  within  result",
        "token  guide:webhooks                         2       1  FAIL",
        "token  guide:install or guide:credentials   >20       3  FAIL",
        "",
        "answer checks: 2 of 2 missed",
        "  " + miss_line(results[0]),
        "  " + miss_line(results[1]),
    ]


# -- the build -------------------------------------------------------------------------------


def test_a_build_records_every_check_and_its_rank_in_the_manifest(tmp_path: Path) -> None:
    root = write_site(tmp_path)
    messages: list[str] = []
    manifest = build_from_file(sources_file(root, """\
        checks:
          - query: docker image
            expect: guide:install#with-docker
            within: 1
          - query: token
            expect: [guide:webhooks]
            source: guide
        """), root / "index", progress=messages.append)

    assert manifest["checks"] == [
        {"query": "docker image", "expect": ["guide:install#with-docker"], "within": 1,
         "rank": 1, "found": "guide:install#with-docker", "passed": True,
         "top": ["guide:install#with-docker"]},
        {"query": "token", "expect": ["guide:webhooks"], "within": 3, "source": "guide",
         "rank": 1, "found": "guide:webhooks", "passed": True, "top": ["guide:webhooks"]},
    ]
    assert "answer checks: all 2 held" in messages
    written = json.loads((root / "index" / "manifest.json").read_text(encoding="utf-8"))
    assert written == manifest
    with docwheel.open_index(root / "index") as index:
        assert index.verify() == []  # the manifest's file hashes still hold


def test_a_miss_fails_the_build_naming_the_query_and_leaves_the_old_index(tmp_path: Path) -> None:
    root = write_site(tmp_path)
    out = root / "index"
    build_from_file(sources_file(root), out)
    before = sorted(p.name for p in out.iterdir())
    config = sources_file(root, """\
        checks:
          - query: docker image
            expect: guide:install
          - query: token
            expect: guide:webhooks
            within: 1
        """)

    with pytest.raises(ChecksFailedError) as caught:
        build_from_file(config, out)

    assert str(caught.value) == (
        "1 of 2 answer check(s) missed (checks: in the sources file); fix the docs or the "
        "check:\n  checks[1] 'token': expected guide:webhooks within 1, got rank 2; top 3: "
        "api:tokens#token-scopes, guide:webhooks"
    )
    assert sorted(p.name for p in out.iterdir()) == before
    assert "checks" not in json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert [p.name for p in root.iterdir() if p.name.startswith(".index.")] == []  # no scratch


def test_an_unknown_expected_page_fails_the_build_and_leaves_nothing(tmp_path: Path) -> None:
    root = write_site(tmp_path)
    config = sources_file(root, "checks:\n  - {query: install, expect: 'guide:instal'}\n")
    with pytest.raises(ConfigError) as caught:
        build_from_file(config, root / "new" / "index")
    assert caught.value.problems == [
        "checks[0].expect: unknown page 'guide:instal' (did you mean 'guide:install'?)"
    ]
    assert not (root / "new").exists()


def test_docwheels_own_docs_carry_checks_that_their_build_holds(tmp_path: Path) -> None:
    config = load_config(REPO / "docs" / "docwheel.yaml")
    assert len(config.checks) >= 3
    manifest = build_from_file(REPO / "docs" / "docwheel.yaml", tmp_path / "index")
    assert [c["passed"] for c in manifest["checks"]] == [True] * len(config.checks)


# -- docwheel check, info and describe_docs ---------------------------------------------------


def run(*args: object, cwd: Path | None = None, status: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [*docwheel_cmd(), *map(str, args)], cwd=cwd, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == status, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc


PASSING = """\
checks:
  - query: docker image
    expect: guide:install
  - query: rotate api keys
    expect: [guide:webhooks, guide:credentials#revoke-a-key, guide:credentials]
    within: 1
"""
FAILING = PASSING + """\
  - query: token
    expect: guide:webhooks
    within: 1
"""


def test_check_prints_a_table_and_exits_0_when_every_check_holds(
    site: Path, index_dir: Path, tmp_path: Path
) -> None:
    config = sources_file(write_site(tmp_path), PASSING)
    proc = run("check", "--config", config, "--index", index_dir)
    assert proc.stdout.splitlines() == [
        "query            expected           rank  within  result",
        "docker image     guide:install         1       3  pass",
        "rotate api keys  guide:credentials     1       1  pass",
        "",
        "answer checks: all 2 held",
    ]
    assert proc.stderr == ""


def test_check_exits_1_on_a_miss_and_names_it(index_dir: Path, tmp_path: Path) -> None:
    config = sources_file(write_site(tmp_path), FAILING)
    proc = run("check", "--config", config, "--index", index_dir, status=1)
    lines = proc.stdout.splitlines()
    assert lines[3] == "token            guide:webhooks        2       1  FAIL"
    assert lines[5:] == [
        "answer checks: 1 of 3 missed",
        "  checks[2] 'token': expected guide:webhooks within 1, got rank 2; top 3: "
        "api:tokens#token-scopes, guide:webhooks",
    ]


def test_check_json_gives_every_result_and_the_indexes_read(index_dir: Path, tmp_path: Path) -> None:
    config = sources_file(write_site(tmp_path), FAILING)
    proc = run("check", "--config", config, "--index", index_dir, "--json", status=1)
    data = json.loads(proc.stdout)
    assert (data["config"], data["indexes"]) == (str(config), [str(index_dir)])
    assert (data["total"], data["passed"]) == (3, 2)
    assert [(c["rank"], c["passed"]) for c in data["checks"]] == [(1, True), (1, True), (2, False)]
    assert data["checks"][2]["top"] == ["api:tokens#token-scopes", "guide:webhooks"]
    assert proc.stderr == "docwheel: answer checks: 1 of 3 missed\n"


def test_check_reads_docwheel_yaml_of_the_current_folder_by_default(
    index_dir: Path, tmp_path: Path
) -> None:
    sources_file(write_site(tmp_path), PASSING)
    assert run("check", "--index", index_dir, cwd=tmp_path).stdout.endswith("all 2 held\n")


def test_check_without_index_needs_installed_docs_of_the_same_snapshot(tmp_path: Path) -> None:
    config = sources_file(write_site(tmp_path), PASSING)
    proc = run("check", "--config", config, status=1)
    assert proc.stderr.startswith(
        f"docwheel: error: no installed docs of snapshot 'acme-docs', which {config} names "
        "(installed: "
    )
    assert f"`docwheel build --config {config} --out DIR` and pass --index DIR" in proc.stderr


def test_check_of_a_sources_file_without_checks_says_so(index_dir: Path, tmp_path: Path) -> None:
    config = sources_file(write_site(tmp_path))
    proc = run("check", "--config", config, "--index", index_dir, status=1)
    assert proc.stderr == (
        f"docwheel: error: {config}: no checks: to run; list questions and the page each must "
        "find (see docs/publishing.md)\n"
    )


def test_check_reports_an_unknown_page_like_a_sources_file_error(
    index_dir: Path, tmp_path: Path
) -> None:
    config = sources_file(write_site(tmp_path), "checks:\n  - {query: q, expect: 'api:tokns'}\n")
    proc = run("check", "--config", config, "--index", index_dir, status=1)
    assert proc.stderr == (
        f"docwheel: error: {config}: invalid sources file:\n"
        "  checks[0].expect: unknown page 'api:tokns' (did you mean 'api:tokens'?)\n"
    )
    assert proc.stdout == ""


@pytest.fixture(scope="module")
def checked_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_site(tmp_path_factory.mktemp("checked"))
    head = SOURCES.replace("name: acme-docs", "name: acme-checked")
    build_from_file(sources_file(root, PASSING, head=head), root / "index")
    return root / "index"


def test_info_says_how_many_checks_held(checked_index: Path, index_dir: Path) -> None:
    shown = run("info", "--index", checked_index).stdout
    assert "  answer checks: 2 of 2 held at build time (docwheel info --json lists them)\n" in shown
    assert "answer checks" not in run("info", "--index", index_dir).stdout
    assert len(json.loads(run("info", "--index", checked_index, "--json").stdout)["checks"]) == 2


def test_describe_docs_says_how_many_checks_held(checked_index: Path, index_dir: Path) -> None:
    async def describe(*directories: Path) -> tuple[dict, str]:
        from docwheel.library import open_docs

        with open_docs(directories) as docs:
            async with Client(create_server(docs)) as client:
                result = await client.call_tool("describe_docs", {})
                assert not result.is_error
                return result.structured_content, result.content[0].text

    data, text = anyio.run(describe, checked_index)
    assert data["checks"] == {"total": 2, "held": 2}
    assert "answer checks: 2 of 2 held at build time" in text
    data, text = anyio.run(describe, index_dir)
    assert "checks" not in data and "answer checks" not in text
    # Served together: each snapshot's count, and their sum.
    data, _text = anyio.run(describe, checked_index, index_dir)
    assert data["checks"] == {"total": 2, "held": 2}
    assert [part.get("checks") for part in data["snapshots"]] == [{"total": 2, "held": 2}, None]


# -- docwheel new ----------------------------------------------------------------------------


def test_a_new_projects_sources_file_shows_an_example_check_that_is_valid_uncommented(
    tmp_path: Path,
) -> None:
    from datetime import date

    from docwheel.scaffold import plan_sources, project_files

    site = write_site(tmp_path)
    project = tmp_path / "acme-docs"
    sources = plan_sources([str(site / "site" / "guide")], project)
    files = project_files("acme-docs", sources, today=date(2026, 12, 1), docwheel_version="0.1.0")
    text = files["docwheel.yaml"]
    project.mkdir()
    (project / "docwheel.yaml").write_text(text, encoding="utf-8")
    # As written, the example is a comment: nothing is known yet about what the docs answer,
    # and a made-up check would fail the first build.
    assert load_config(project / "docwheel.yaml").checks == ()
    assert "# checks:\n#   - query: how do I install it\n#     expect: guide:install\n" in text
    uncommented = text.replace("\n# checks:", "\nchecks:").replace("\n#   ", "\n  ")
    (project / "docwheel.yaml").write_text(uncommented, encoding="utf-8")
    (check,) = load_config(project / "docwheel.yaml").checks
    assert check == Check("how do I install it", ("guide:install",), 3)
    # ... and holds on these docs, which have that page.
    manifest = build_from_file(project / "docwheel.yaml", tmp_path / "index")
    assert manifest["checks"][0]["passed"]
    workflow = files[".github/workflows/docs.yml"]
    assert "answer check" in workflow and "python -m build --wheel" in workflow


# -- mode, on docs with semantic vectors -------------------------------------------------------


def test_on_docs_with_vectors_a_check_searches_hybrid_unless_its_mode_says_lexical(
    tmp_path: Path,
) -> None:
    from test_hybrid import topic_encoder

    from docwheel.index import section_texts
    from docwheel.semantic import quantize_sections, save_encoder, save_section_vectors
    head = (
        f"name: topics\nsemantic: true\nsources:\n  - name: client\n    kind: markdown\n"
        f"    path: {FIXTURES / 'versions' / '2.0'}\n  - name: hooks\n    kind: markdown\n"
        f"    path: {FIXTURES / 'other'}\n"
    )
    out = tmp_path / "index"
    build_from_file(sources_file(tmp_path, "", head=head.replace("semantic: true\n", "")), out)
    # The vectors of a hand-made encoder (test_hybrid.py): "tamper forged" means webhooks.
    encoder = topic_encoder()
    save_encoder(encoder, out)
    save_section_vectors(out, *quantize_sections(encoder.encode(section_texts(out))))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    manifest["semantic"] = {"model": "topics", "licence": "CC0-1.0", "dims": 4}
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    data = yaml.safe_load(head)
    data["checks"] = [
        {"query": "spot tamper forged", "expect": "hooks:webhooks"},
        {"query": "spot tamper forged", "expect": "hooks:webhooks", "mode": "hybrid"},
        {"query": "spot tamper forged", "expect": "hooks:webhooks", "mode": "lexical"},
    ]
    checks = parse_config(data, base_dir=tmp_path, origin="docwheel.yaml").checks
    with docwheel.open_index(out) as index:
        results = run_checks(checks, index, origin="docwheel.yaml")
    assert [(r.rank, r.passed) for r in results] == [(1, True), (1, True), (None, False)]


def test_a_ref_to_a_deeper_heading_counts_when_the_result_opens_at_it(tmp_path: Path) -> None:
    """``page#deep-anchor`` (a heading below the section split) is found by the section
    result whose URL opens at that heading: its best match lies under it."""
    config = tmp_path / "docwheel.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: anchors
        sources:
          - name: site
            kind: markdown
            path: {FIXTURES / "anchors" / "site"}
            base_url: https://acme.example/
        checks:
          - query: random jitter spreads attempts
            expect: site:client/options#jitter
            within: 1
          - query: circuit breaker opens after five failures
            expect: site:client/options#jitter
        """), encoding="utf-8")
    with pytest.raises(ChecksFailedError) as caught:
        build_from_file(config, tmp_path / "index")
    (miss,) = caught.value.misses
    assert miss.startswith("checks[1] ")


def test_a_document_type_filter_searches_only_pages_of_that_type(tmp_path: Path) -> None:
    root = write_site(tmp_path)
    head = SOURCES.replace("    path: site/api\n", "    path: site/api\n    types: {\"**\": reference}\n")
    config = sources_file(root, """\
        checks:
          - query: revoke a key or a token
            expect: api:tokens
            within: 1
            document_type: reference
          - query: revoke a key or a token
            expect: guide:credentials
            within: 1
        """, head=head)
    manifest = build_from_file(config, root / "index")
    tops = [(c.get("document_type"), c["rank"], c["top"][0].partition("#")[0]) for c in manifest["checks"]]
    # Without the filter the guide answers first; with it, the reference page does.
    assert tops == [("reference", 1, "api:tokens"), (None, 1, "guide:credentials")]


def test_a_document_type_outside_the_vocabulary_is_a_config_error(site: Path) -> None:
    assert problems_of(site, """\
        checks:
          - query: tokens
            expect: api:tokens
            document_type: referense
        """) == [
        "checks[0].document_type: 'referense' is not one of guide, tutorial, reference, "
        "changelog, migration, troubleshooting, blog"
    ]
