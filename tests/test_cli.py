"""The command line, run as a real subprocess (`python -m docwheel` and the console script)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest

import docwheel
from docwheel.build import build_from_file
from docwheel.cli import _parser

from helpers import REPO, docwheel_cmd, site_config, write_config


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    out = root / "index"
    build_from_file(site_config(root), out, version="2026.11.01")
    return out


def run(*args: str | os.PathLike, status: int = 0, cmd: Sequence[str] | None = None):
    proc = subprocess.run(
        [*(cmd or docwheel_cmd()), *map(str, args)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == status, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc


def run_json(*args: str | os.PathLike):
    return json.loads(run(*args, "--json").stdout)


def fails(*args: str | os.PathLike) -> str:
    """Run a command that must fail with one clean error; return that error line."""
    proc = run(*args, status=1)
    assert proc.stderr.startswith("docwheel: error: "), proc.stderr
    assert proc.stdout == ""
    return proc.stderr


# -- search -------------------------------------------------------------------------------


def test_search_prints_heading_path_once_url_ref_and_snippet(index_dir):
    out = run("search", "rotate signing keys", "--index", index_dir).stdout
    lines = out.splitlines()
    assert lines[0] == "1. Configuration > Rotating API keys"  # the title is not repeated
    assert lines[1] == "   https://acme.example/docs/guides/configure#rotating-api-keys"
    assert lines[2] == "   ref: site:guides/configure#rotating-api-keys"
    assert lines[3] == "   type: guide"
    assert "**rotate**" in lines[4]
    assert re.search(r"^\d+ of \d+ matching pages$", lines[-1])


def test_search_json_has_the_mcp_structure(index_dir):
    data = run_json("search", "rotate signing keys", "--index", index_dir)
    assert set(data) == {"query", "total", "results", "warnings"}
    assert data["query"] == "rotate signing keys" and data["warnings"] == []
    top = data["results"][0]
    assert set(top) == {"ref", "title", "url", "source", "section", "snippet", "score", "type"}
    assert top["ref"] == "site:guides/configure#rotating-api-keys"
    assert top["section"] == "Configuration > Rotating API keys"


def test_search_source_filter(index_dir):
    data = run_json("search", "project", "--source", "platform", "--index", index_dir)
    assert data["results"] and {hit["source"] for hit in data["results"]} == {"platform"}


def test_search_limit(index_dir):
    data = run_json("search", "widget docker keys refund", "--limit", "1", "--index", index_dir)
    assert len(data["results"]) == 1 and data["total"] > 1
    out = run("search", "widget docker keys refund", "--limit", "2", "--index", index_dir).stdout
    assert out.splitlines()[-1] == f"2 of {data['total']} matching pages"


def test_search_full_text(index_dir):
    data = run_json("search", "permission denied", "--full-text", "--index", index_dir)
    assert "acme doctor" in data["results"][0]["text"]
    out = run("search", "pip install", "--full-text", "--limit", "1", "--index", index_dir).stdout
    assert "   pip install acme-widgets" in out and "Heading-like comment" in out


def test_search_without_results_says_so(index_dir):
    proc = run("search", "zyzzyvaqq", "--index", index_dir)
    assert proc.stdout == "0 of 0 matching pages\n"
    assert proc.stderr.startswith("note: no results")


# -- read, list, info ----------------------------------------------------------------------


def test_read_section(index_dir):
    out = run("read", "site:guides/install#docker-compose", "--index", index_dir).stdout
    assert out.splitlines()[:5] == [
        "Installation > With Docker > Docker Compose",
        "https://acme.example/docs/guides/install#docker-compose",
        "type: guide",
        "",
        "### Docker Compose",
    ]
    assert "Run the official image" not in out


def test_read_page(index_dir):
    out = run("read", "site:guides/install", "--index", index_dir).stdout
    lines = out.splitlines()
    assert lines[:5] == [
        "Installation", "https://acme.example/docs/guides/install", "type: guide", "", "# Installation"
    ]
    assert out.index("## With pip") < out.index("## With Docker") < out.index("### Docker Compose")


def test_read_json(index_dir):
    data = run_json("read", "site:guides/install#docker-compose", "--index", index_dir)
    assert data == {
        "ref": "site:guides/install#docker-compose",
        "title": "Installation",
        "url": "https://acme.example/docs/guides/install#docker-compose",
        "source": "site",
        "section": "Installation > With Docker > Docker Compose",
        "text": data["text"],
        "type": "guide",
    }
    assert data["text"].startswith("### Docker Compose")


def test_list_prints_pages_and_sections(index_dir):
    out = run("list", "--index", index_dir).stdout
    assert "Installation  [site:guides/install]  (guide)\n  https://acme.example/docs/guides/install\n" in out
    assert "    - Docker Compose  [#docker-compose]\n" in out
    assert "Billing  [platform:billing]" in out
    assert out.endswith("6 pages\n")


def test_list_json_and_source_filter(index_dir):
    data = run_json("list", "--index", index_dir)
    assert data["total"] == len(data["pages"]) == 6
    install = next(p for p in data["pages"] if p["ref"] == "site:guides/install")
    assert [s["heading"] for s in install["sections"]] == ["With pip", "With Docker", "Docker Compose"]
    only = run_json("list", "--source", "platform", "--index", index_dir)
    assert only["pages"] and {p["source"] for p in only["pages"]} == {"platform"}
    out = run("list", "--source", "platform", "--index", index_dir).stdout
    assert "site:" not in out and out.endswith(f"{only['total']} pages\n")


def test_info_json_is_the_manifest(index_dir):
    data = run_json("info", "--index", index_dir)
    assert data["name"] == "acme-docs"
    assert data["version"] == "2026.11.01"
    assert data["docwheel_version"] == docwheel.__version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["built_at"])
    assert [s["name"] for s in data["sources"]] == ["site", "platform"]
    for source in data["sources"]:
        assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
        assert source["bytes"] > 0 and source["pages"] > 0 and source["sections"] >= source["pages"]


def test_info_readable(index_dir):
    out = run("info", "--index", index_dir).stdout
    assert out.startswith("acme-docs 2026.11.01\n  Test docs\n")
    assert "6 pages" in out and f"with docwheel {docwheel.__version__}" in out
    assert "source site (markdown)" in out and "source platform (llms-full)" in out
    assert "sha256 " in out


# -- build ----------------------------------------------------------------------------------


def test_build_creates_an_index_that_search_uses(tmp_path):
    config = site_config(tmp_path)
    out = tmp_path / "built"
    proc = run("build", "--config", config, "--out", out)
    assert proc.stdout == ""
    assert "docwheel: indexed 6 pages" in proc.stderr  # progress goes to stderr
    assert (out / "manifest.json").is_file()
    data = run_json("search", "refund unused seats", "--index", out)
    assert data["results"][0]["ref"] == "platform:billing#refunds"
    quiet = run("build", "--config", config, "--out", out, "-q")  # replaces an existing index
    assert quiet.stderr == ""
    assert run_json("info", "--index", out)["pages"] == 6


@pytest.mark.parametrize("occupant", ["file", "folder"])
def test_build_refuses_to_replace_something_that_is_not_an_index(tmp_path, occupant):
    out = tmp_path / "precious"
    if occupant == "file":
        out.write_text("keep me")
    else:
        out.mkdir()
        (out / "notes.txt").write_text("keep me")
    message = fails("build", "--config", site_config(tmp_path), "--out", out)
    assert "output" in message and "choose a new or empty directory" in message
    assert (out if occupant == "file" else out / "notes.txt").read_text() == "keep me"


def test_build_bad_sources_file_lists_every_problem(tmp_path):
    config = write_config(tmp_path, "name: Bad Name\nsources:\n  - kind: weird\n")
    message = fails("build", "--config", config, "--out", tmp_path / "out")
    assert "invalid sources file" in message
    assert "name:" in message and "sources[0].name" in message and "sources[0].kind" in message
    assert not (tmp_path / "out").exists()


def test_build_with_a_missing_path_fails_cleanly(tmp_path):
    config = write_config(
        tmp_path, f"name: ok\nsources:\n  - name: s\n    kind: markdown\n    path: {tmp_path / 'gone'}\n"
    )
    message = fails("build", "--config", config, "--out", tmp_path / "out")
    assert "gone" in message
    assert not (tmp_path / "out").exists()


def test_build_with_a_missing_sources_file_fails_cleanly(tmp_path):
    assert "not found" in fails("build", "--config", tmp_path / "nope.yaml", "--out", tmp_path / "o")


# -- errors ---------------------------------------------------------------------------------


def test_unknown_ref_names_it_and_suggests(index_dir):
    message = fails("read", "site:guides/instal", "--index", index_dir)
    assert "unknown ref 'site:guides/instal'" in message and "site:guides/install" in message
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("command", [["search", "widget"], ["list"]])
def test_unknown_source_lists_valid_ones(index_dir, command):
    message = fails(*command, "--source", "nope", "--index", index_dir)
    assert "unknown source 'nope'; valid sources: all, site, platform" in message


@pytest.mark.parametrize("query", ["", "   ", "*"])
def test_query_without_words_is_an_error(index_dir, query):
    assert "query" in fails("search", query, "--index", index_dir)


@pytest.mark.parametrize("command", [["search", "widget"], ["read", "site:x"], ["list"], ["info"]])
def test_missing_index_directory_is_an_error(tmp_path, command):
    message = fails(*command, "--index", tmp_path / "nowhere")
    assert "does not exist" in message and len(message.splitlines()) == 1


def test_directory_that_is_not_an_index_is_an_error(tmp_path):
    assert "manifest.json is missing" in fails("search", "widget", "--index", tmp_path)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["search"],
        ["read"],
        ["search", "widget", "--limit", "0"],
        ["search", "widget", "--limit", "many"],
        ["search", "widget", "--limit", "51"],
        ["serve", "--port", "0"],
        ["serve", "--port", "70000"],
        ["serve", "--tools", "everything"],
        ["serve", "--token", "0123456789abcdef"],
        ["serve", "--stateless"],
        ["build", "--out", "x"],
        ["list", "--bogus"],
    ],
)
def test_usage_errors_exit_2(args):
    proc = run(*args, status=2)
    assert proc.stdout == ""
    assert proc.stderr.startswith("usage: docwheel")
    assert "docwheel" in proc.stderr.splitlines()[-1] and "error:" in proc.stderr.splitlines()[-1]


# -- entry points, the bundled index, docs ---------------------------------------------------


def test_version_from_module_and_console_script():
    assert run("--version").stdout == f"docwheel {docwheel.__version__}\n"
    script = shutil.which("docwheel", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no docwheel console script beside this interpreter")
    assert run("--version", cmd=[script]).stdout == f"docwheel {docwheel.__version__}\n"


def test_bundled_index_answers_add_a_source():
    data = run_json("search", "add a source")
    assert data["results"][0]["ref"].startswith("docs:sources-file")
    out = run("search", "add a source").stdout
    assert out.splitlines()[2].startswith("   ref: docs:sources-file")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def _subcommands() -> list[str]:
    return sorted(_subparsers())


def _options() -> dict[str, list[str]]:
    """Every long option of every command (--help and --index aside)."""
    return {
        command: sorted(
            option
            for action in parser._actions
            for option in action.option_strings
            if option.startswith("--") and option not in ("--help", "--index")
        )
        for command, parser in _subparsers().items()
    }


def _tools(index_dir: Path) -> dict[str, list[str]]:
    from docwheel.server import TOOL_SETS, create_server

    tools = {}
    with docwheel.open_index(index_dir) as index:
        for tool_set in TOOL_SETS:
            for tool in anyio.run(create_server(index, tools=tool_set).list_tools):
                tools[tool.name] = sorted(tool.input_schema["properties"])
    return tools


def test_readme_documents_every_command_option_and_tool(index_dir):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = _subcommands()
    assert set(commands) >= {"search", "read", "list", "info", "serve", "build"}
    missing = [c for c in commands if f"docwheel {c}" not in readme]
    assert not missing, f"README.md does not show: {missing}"
    missing = [f"{c} {o}" for c, options in _options().items() for o in options if o not in readme]
    assert not missing, f"README.md does not show: {missing}"
    tools = _tools(index_dir)
    docs_tools = {"search_docs", "read_doc", "list_docs", "describe_docs"}
    assert set(tools) == docs_tools | {"search", "fetch"}
    for tool, arguments in tools.items():
        row = next((line for line in readme.splitlines() if line.startswith(f"| `{tool}`")), None)
        assert row is not None, f"README.md has no table row for {tool}"
        assert all(f"`{arg}" in row for arg in arguments), (tool, arguments, row)


def test_cli_reference_documents_every_command_and_option():
    reference = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for command, options in _options().items():
        section = reference.split(f"## docwheel {command}\n", 1)
        assert len(section) == 2, f"docs/cli.md has no section for {command}"
        body = section[1].split("\n## ", 1)[0]
        missing = [option for option in options if f"`{option}" not in body]
        assert not missing, f"docs/cli.md, docwheel {command}: {missing}"


def test_mcp_guide_documents_every_tool_and_argument(index_dir):
    guide = (REPO / "docs" / "mcp-server.md").read_text(encoding="utf-8")
    for tool, arguments in _tools(index_dir).items():
        assert f"`{tool}(" in guide, f"docs/mcp-server.md does not show {tool}(...)"
        signature = guide.split(f"`{tool}(", 1)[1].split("`", 1)[0]
        assert all(arg in signature for arg in arguments), (tool, arguments, signature)


def test_readme_shows_every_client_configuration():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for client, config in [
        ("Claude Code", "claude mcp add docwheel -- docwheel serve"),
        ("Claude Desktop", '"mcpServers": {"docwheel": {"command": "docwheel", "args": ["serve"]'),
        ("Cursor", ".cursor/mcp.json"),
        ("VS Code", '"servers": {"docwheel": {"type": "stdio", "command": "docwheel", "args"'),
    ]:
        row = next((line for line in readme.splitlines() if line.startswith(f"| {client} |")), "")
        assert config in row, (client, row)


def test_reading_commands_import_neither_network_code_nor_the_mcp_sdk(index_dir):
    """Run-time reading never loads the fetch module (the only network code), the SDK, or
    what only builds need (the docs parsers: formats, docutils; the English word list)."""
    script = (
        "import sys, io, contextlib\n"
        "from docwheel.cli import main\n"
        f"idx = {str(index_dir)!r}\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in (['search', 'rotate keys'], ['search', 'rotaet the keys whenever'],\n"
        "                 ['read', 'site:guides/install'],\n"
        "                 ['list'], ['info']):\n"
        "        assert main([*argv, '--index', idx]) == 0\n"
        "loaded = sorted(m for m in sys.modules\n"
        "                if m in ('docwheel.fetch', 'docwheel.build', 'docwheel.sources', 'mcp',\n"
        "                         'docwheel.english', 'docwheel.index_write')\n"
        "                or m.split('.')[0] in ('docutils', 'spellchecker') or m.startswith('docwheel.formats'))\n"
        "print(loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_search_explain_shows_the_score_formula_and_field_parts(index_dir):
    out = run("search", "rotate signing keys", "--explain", "--limit", "1", "--index", index_dir).stdout
    assert "score " in out and "x coverage" in out
    assert re.search(r"rotat: [\d.]+ \(.*heading [\d.]+", out)
    data = run_json("search", "rotate signing keys", "--explain", "--limit", "1", "--index", index_dir)
    assert set(data["results"][0]["explain"]["matched"]) >= {"rotat", "key"}  # stems


def test_search_lists_a_pages_other_versions_and_the_version_factor(tmp_path):
    site = tmp_path / "site"
    (site / "v2").mkdir(parents=True)
    (site / "keys.md").write_text("# Keys\n\nRotate keys.\n")
    (site / "v2" / "keys.md").write_text("# Keys\n\nRotate keys; rotate keys often.\n")
    (site / "v2" / "legacy.md").write_text("# Legacy\n\nRotate keys by hand.\n")
    config = write_config(tmp_path, f"name: acme\nsources:\n  - name: site\n    kind: markdown\n    path: {site}\n")
    build_from_file(config, tmp_path / "index")
    out = run("search", "rotate keys", "--explain", "--index", tmp_path / "index").stdout
    first, second = out.split("\n\n")[:2]
    assert "ref: site:keys\n   type: guide\n   other versions: site:v2/keys\n" in first
    assert "x version" not in first
    assert "ref: site:v2/legacy\n" in second and "x changelog 1 x version 0.6" in second
    data = run_json("search", "rotate keys", "--index", tmp_path / "index")
    assert data["results"][0]["other_versions"] == ["site:v2/keys"]
    assert "other_versions" not in data["results"][1]


def test_search_sections_may_repeat_a_page(index_dir):
    data = run_json("search", "docker pip compose install", "--sections", "--limit", "5", "--index", index_dir)
    pages = [hit["ref"].split("#")[0] for hit in data["results"]]
    assert len(pages) > len(set(pages))


def test_verify_passes_then_names_a_tampered_file(index_dir, tmp_path):
    assert "match the manifest" in run("verify", "--index", index_dir).stdout
    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    (copy / "rank_docs.npy").write_bytes(b"tampered")
    proc = run("verify", "--index", copy, status=1)
    assert "rank_docs.npy: content differs from the manifest" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("docwheel: error: ")


def test_info_shows_the_detected_layout(index_dir):
    assert "layout: mintlify" in run("info", "--index", index_dir).stdout
