"""End to end: a separate docs project, made by `docwheel new`, builds its own docs wheel with
the installed docwheel's hatch plugin; the wheel installs beside docwheel and is searched
through its package's INDEX_DIR.

docwheel is not on the package index, so the docs project is built without isolation in a
fresh virtualenv that has the docwheel wheel (built from this checkout), hatchling and build.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from datetime import date
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from helpers import FIXTURES
from httpserver import HTTPTestServer
from test_wheel import (
    MCP_CLIENT,
    base_env,
    build_wheel,
    copy_project,
    make_venv,
    offline_or_skip,
    offline_prefix,
    run,
)

from docwheel import __version__
from docwheel.scaffold import calendar_version, docwheel_requirement

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh virtualenv with docwheel (as a wheel of this checkout), hatchling and build."""
    root = tmp_path_factory.mktemp("docs-project")
    env = base_env(root)
    project = copy_project(root / "docwheel")
    build_wheel(project, root / "dist", env)
    (wheel,) = (root / "dist").glob("docwheel-*.whl")
    bin_dir = make_venv(root / "venv", env)
    pip = [bin_dir / "python", "-m", "pip", "install", "--quiet"]
    run([*pip, wheel, "hatchling", "build"], env=env)
    # The plugin must come from the installed wheel, never from this checkout's src/.
    where = run([bin_dir / "python", "-c", "import docwheel; print(docwheel.__file__)"], env=env)
    assert "site-packages" in where.stdout
    return bin_dir, env


def test_a_project_from_docwheel_new_builds_installs_and_is_searchable(venv, tmp_path):
    bin_dir, env = venv
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    run([bin_dir / "docwheel", "new", "acme-docs", "--name", "acme-docs", "--source", "site"],
        env=env, cwd=tmp_path)
    project = tmp_path / "acme-docs"

    built = run(
        [bin_dir / "python", "-m", "build", "--wheel", "--no-isolation", "--outdir",
         tmp_path / "dist", project],
        env=env,
    )

    assert "docwheel: indexed 4 pages" in built.stdout
    version = calendar_version(date.today())
    normalized = ".".join(str(int(part)) for part in version.split("."))
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"acme_docs-{normalized}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(f"acme_docs-{normalized}.dist-info/METADATA").decode()
        manifest = json.loads(zf.read("acme_docs/_docwheel_index/manifest.json"))
    assert "acme_docs/__init__.py" in names
    assert not any(n.startswith("docwheel/") for n in names)
    requires = [Requirement(line.split(":", 1)[1]) for line in metadata.splitlines()
                if line.startswith("Requires-Dist:")]
    assert requires == [Requirement(docwheel_requirement(__version__))]
    # The manifest records the wheel's version, as packaging normalises it (2026.12.01 is
    # 2026.12.1), the one `pip install acme-docs==…` pins.
    assert (manifest["name"], manifest["version"]) == ("acme-docs", normalized)
    assert [s["name"] for s in manifest["sources"]] == ["site"]

    run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-index", wheel], env=env)
    offline = offline_prefix() or ()
    index_dir = run(
        [*offline, bin_dir / "python", "-c", "import acme_docs; print(acme_docs.INDEX_DIR)"],
        env=env, cwd=tmp_path,
    ).stdout.strip()
    assert "site-packages" in index_dir
    searched = run(
        [*offline, bin_dir / "docwheel", "search", "--json", "--index", index_dir,
         "permission denied"],
        env=env,
    )
    top = json.loads(searched.stdout)["results"][0]
    assert top["ref"] == "site:guides/troubleshooting#permission-denied-when-starting"
    verified = run([*offline, bin_dir / "docwheel", "verify", "--index", index_dir], env=env)
    assert "index files match the manifest" in verified.stdout


def test_a_broken_source_fails_the_docs_build_with_one_line(
    venv, tmp_path, http_server: HTTPTestServer
):
    bin_dir, env = venv
    missing = http_server.url("/gone/llms-full.txt")  # no route: 404
    run([bin_dir / "docwheel", "new", tmp_path / "acme-docs", "--name", "acme-docs",
         "--source", missing], env=env)

    built = run(
        [bin_dir / "python", "-m", "build", "--wheel", "--no-isolation", "--outdir",
         tmp_path / "dist", tmp_path / "acme-docs"],
        env=env, check=False,
    )

    assert built.returncode != 0, built.stdout
    failures = [line for line in built.stdout.splitlines() if "build failed" in line]
    assert failures == [
        f"docwheel: build failed: source '127-0-0-1' ({missing}): HTTP 404 Not Found"
    ]
    assert "Traceback" not in built.stdout
    assert not list((tmp_path / "dist").glob("*.whl"))
    assert sorted(Path(env["TMPDIR"]).glob("docwheel-index-*")) == []



def _project_with_checks(bin_dir: Path, env: dict[str, str], where: Path, checks: str) -> Path:
    """A project from `docwheel new` for the fixture site, with these answer checks."""
    shutil.copytree(FIXTURES / "site", where / "site")
    run([bin_dir / "docwheel", "new", "acme-docs", "--name", "acme-docs", "--source", "site"],
        env=env, cwd=where)
    project = where / "acme-docs"
    with open(project / "docwheel.yaml", "a", encoding="utf-8") as sources_file:
        sources_file.write(checks)
    return project


def test_answer_checks_that_hold_are_recorded_in_the_docs_wheel(venv, tmp_path):
    bin_dir, env = venv
    project = _project_with_checks(bin_dir, env, tmp_path, (
        "checks:\n"
        "  - query: permission denied\n"
        "    expect: site:guides/troubleshooting#permission-denied-when-starting\n"
        "    within: 1\n"
        "  - query: rotate api keys\n"
        "    expect: [site:guides/configure, site:index]\n"
    ))

    built = run(
        [bin_dir / "python", "-m", "build", "--wheel", "--no-isolation", "--outdir",
         tmp_path / "dist", project],
        env=env,
    )

    assert "docwheel: answer checks: all 2 held" in built.stdout
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        manifest = json.loads(zf.read("acme_docs/_docwheel_index/manifest.json"))
        zf.extractall(tmp_path / "unpacked")
    assert [(c["query"], c["rank"], c["passed"]) for c in manifest["checks"]] == [
        ("permission denied", 1, True), ("rotate api keys", 1, True),
    ]
    index_dir = tmp_path / "unpacked" / "acme_docs" / "_docwheel_index"
    info = run([bin_dir / "docwheel", "info", "--index", index_dir], env=env).stdout
    assert "answer checks: 2 of 2 held at build time" in info
    checked = run(
        [bin_dir / "docwheel", "check", "--index", index_dir], env=env, cwd=project
    ).stdout
    assert checked.endswith("answer checks: all 2 held\n")


def test_a_missed_answer_check_fails_the_docs_build_naming_the_query_and_leaves_no_wheel(
    venv, tmp_path
):
    bin_dir, env = venv
    project = _project_with_checks(bin_dir, env, tmp_path, (
        "checks:\n"
        "  - query: permission denied\n"
        "    expect: site:guides/troubleshooting\n"
        "  - query: permission denied\n"
        "    expect: site:guides/install\n"
        "    within: 1\n"
    ))

    built = run(
        [bin_dir / "python", "-m", "build", "--wheel", "--no-isolation", "--outdir",
         tmp_path / "dist", project],
        env=env, check=False,
    )

    assert built.returncode != 0, built.stdout
    lines = built.stdout.splitlines()
    failed = lines.index(
        "docwheel: build failed: 1 of 2 answer check(s) missed (checks: in the sources file); "
        "fix the docs or the check:"
    )
    assert lines[failed + 1].startswith(
        "  checks[1] 'permission denied': expected site:guides/install within 1, "
    )
    assert "top 3: site:guides/troubleshooting#permission-denied-when-starting" in lines[failed + 1]
    assert "Traceback" not in built.stdout
    assert not list((tmp_path / "dist").glob("*.whl"))
    assert sorted(Path(env["TMPDIR"]).glob("docwheel-index-*")) == []


BETA_DOCS = """\
# Webhooks
Source: https://beta.example/webhooks

## Verify webhook signatures

Every delivery carries an X-Beta-Signature header, an HMAC of the body made with your
signing secret. Compare it in constant time before you trust the payload.

# Rate limits
Source: https://beta.example/rate-limits

Each API key may make 600 requests per minute; a 429 answer says when to retry.
"""


def _docs_wheel(bin_dir: Path, env: dict[str, str], where: Path, name: str, url: str) -> Path:
    """A docs wheel from a project written by `docwheel new` for one served source."""
    run([bin_dir / "docwheel", "new", where / name, "--name", name, "--source", url], env=env)
    run(
        [bin_dir / "python", "-m", "build", "--wheel", "--no-isolation", "--outdir",
         where / "dist", where / name],
        env=env,
    )
    (wheel,) = (where / "dist").glob(f"{name.replace('-', '_')}-*.whl")
    return wheel


def test_two_docs_wheels_installed_together_are_searched_as_one_without_network(
    venv, tmp_path, http_server: HTTPTestServer
):
    offline = offline_or_skip()
    bin_dir, env = venv
    # Only these two docs wheels in the environment (the test above installs an acme-docs).
    run([bin_dir / "python", "-m", "pip", "uninstall", "--quiet", "--yes", "acme-docs"], env=env)
    http_server.route("/acme/llms-full.txt", (FIXTURES / "llms" / "llms-full.txt").read_text())
    http_server.route("/beta/llms-full.txt", BETA_DOCS)
    acme = _docs_wheel(bin_dir, env, tmp_path, "acme-docs", http_server.url("/acme/llms-full.txt"))
    beta = _docs_wheel(bin_dir, env, tmp_path, "beta-docs", http_server.url("/beta/llms-full.txt"))
    run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-index", acme, beta], env=env)
    http_server.reset()  # from here on, nothing may be fetched (and nothing could be)

    def docwheel(*args: str) -> dict:
        found = run([*offline, bin_dir / "docwheel", *args, "--json"], env=env, cwd=tmp_path)
        return json.loads(found.stdout)

    # Both scaffolds named their source after the host, so each is shown with its snapshot.
    refund = docwheel("search", "refund for unused seats")["results"]
    assert refund[0]["ref"] == "acme-docs.127-0-0-1:billing#refunds"
    signature = docwheel("search", "verify webhook signature hmac")["results"]
    assert signature[0]["ref"] == "beta-docs.127-0-0-1:webhooks#verify-webhook-signatures"
    mixed = docwheel("search", "api rate limits billing", "--limit", "5")["results"]
    assert {hit["source"] for hit in mixed} == {"acme-docs.127-0-0-1", "beta-docs.127-0-0-1"}
    assert [h["score"] for h in mixed] == sorted((h["score"] for h in mixed), reverse=True)
    only_beta = docwheel("search", "refund for unused seats", "--only", "beta-docs")["results"]
    assert {hit["source"] for hit in only_beta} <= {"127-0-0-1"}  # alone: its own name
    filtered = docwheel("search", "refund", "--source", "beta-docs.127-0-0-1")
    assert all(h["source"] == "beta-docs.127-0-0-1" for h in filtered["results"])
    info = docwheel("info")
    version = ".".join(str(int(part)) for part in calendar_version(date.today()).split("."))
    assert [(m["name"], m["version"]) for m in info["snapshots"]] == [
        ("acme-docs", version), ("beta-docs", version),
    ]
    page = run([*offline, bin_dir / "docwheel", "read", refund[0]["ref"]], env=env).stdout
    assert "Ask support within 30 days" in page

    served = run(
        [*offline, bin_dir / "python", "-c", MCP_CLIENT, bin_dir / "docwheel",
         "verify webhook signature"],
        env=env,
    )
    answer = json.loads(served.stdout)
    assert not answer["search_error"] and not answer["read_error"]
    assert answer["search"]["results"][0]["ref"].startswith("beta-docs.127-0-0-1:webhooks")
    assert "constant time" in answer["read"]["text"]
    assert http_server.requests == []
