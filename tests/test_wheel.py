"""End to end: build real wheels with the hook, install them, search them with no network.

Each test copies the project files into a temporary folder and builds there, so the checkout
is never written to. Builds use real build isolation (hatchling and the hook's dependencies
come from the package index configured for pip); installs go into a fresh virtualenv.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO
from httpserver import HTTPTestServer

import docwheel

pytestmark = pytest.mark.slow

PROJECT_FILES = ("pyproject.toml", "build_index.py", "README.md", "LICENSE")
PROJECT_DIRS = ("src", "docs")
SITE = FIXTURES / "site"
LLMS_FULL = FIXTURES / "llms" / "llms-full.txt"
VERSION = "0.1.0"  # pyproject.toml's project version
STEP_TIMEOUT = 300  # seconds for one build or install


# -- helpers -----------------------------------------------------------------------------


def copy_project(dest: Path) -> Path:
    """The files a docs project is built from, without any index or bytecode."""
    dest.mkdir(parents=True)
    for name in PROJECT_FILES:
        shutil.copy2(REPO / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in PROJECT_DIRS:
        shutil.copytree(REPO / name, dest / name, ignore=ignore)
    shutil.rmtree(dest / "src" / "docwheel" / "_index", ignore_errors=True)
    return dest


def base_env(tmp_path: Path) -> dict[str, str]:
    """The environment for builds and installs: the test's own, with a private TMPDIR."""
    env = {k: v for k, v in os.environ.items() if k not in ("DOCWHEEL_CONFIG", "PYTHONPATH")}
    for name in ("no_proxy", "NO_PROXY"):
        env[name] = "127.0.0.1,localhost"
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp)
    return env


def run(cmd: list[str], *, env: dict[str, str], cwd: Path | None = None, check: bool = True):
    proc = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=STEP_TIMEOUT,
    )
    if check:
        assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stdout}"
    return proc


def build_wheel(project: Path, outdir: Path, env: dict[str, str], *, check: bool = True):
    pytest.importorskip("build", reason="the 'build' package (test extra) builds the wheels")
    return run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", outdir, project],
        env=env,
        check=check,
    )


def make_venv(path: Path, env: dict[str, str]) -> Path:
    run([sys.executable, "-m", "venv", path], env=env)
    return path / "bin"


def scratch_dirs(env: dict[str, str]) -> list[str]:
    return sorted(p.name for p in Path(env["TMPDIR"]).glob("docwheel-index-*"))


@functools.lru_cache(maxsize=1)
def offline_prefix() -> tuple[str, ...] | None:
    """A command prefix that runs a program in a new network namespace with no interfaces
    up, or None if this machine cannot make one (as root `unshare -n`; else `unshare -rn`)."""
    if not shutil.which("unshare"):
        return None
    for prefix in (("unshare", "-n"), ("unshare", "-rn")):
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return prefix
    return None


def offline_or_skip() -> tuple[str, ...]:
    prefix = offline_prefix()
    if prefix is None:
        pytest.skip(
            "cannot run without a network here: `unshare -n true` and `unshare -rn true` failed"
        )
    return prefix


def listing_sha256(entries: list[tuple[bytes, str]]) -> str:
    """The manifest's sha256 of a source made of several documents (see sources.Loaded)."""
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {where}\n" for data, where in entries)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def wheel_index(wheel: Path, dest: Path) -> tuple[list[str], dict]:
    """The names under docwheel/_index in ``wheel``, extracted to ``dest``, and the manifest."""
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.startswith("docwheel/_index/")]
        for name in names:
            target = dest / name.removeprefix("docwheel/_index/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    return names, manifest


def page_ref(source: str, rel: str) -> str:
    """The ref of the page read from ``rel`` in a folder source: no extension, and an
    ``index`` page named by its folder (the top one stays ``index``)."""
    stem = rel.rsplit(".", 1)[0]
    if stem != "index":
        stem = stem.removesuffix("/index")
    return f"{source}:{stem}"


MCP_CLIENT = textwrap.dedent(
    """\
    import json
    import sys

    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client


    async def main(command, query):
        params = StdioServerParameters(command=command, args=["serve"])
        async with Client(stdio_client(params)) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search_docs", {"query": query, "limit": 3})
            out = {
                "tools": sorted(tool.name for tool in tools.tools),
                "search": found.structured_content,
                "search_error": found.is_error,
            }
            if found.structured_content and found.structured_content["results"]:
                ref = found.structured_content["results"][0]["ref"]
                page = await client.call_tool("read_doc", {"ref": ref})
                out["read"] = page.structured_content
                out["read_error"] = page.is_error
        print(json.dumps(out))


    anyio.run(main, sys.argv[1], sys.argv[2])
    """
)


# -- 1. build from served docs, install, search and serve with no network ----------------


def test_wheel_from_served_docs_installs_and_works_without_network(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    offline = offline_or_skip()
    full_bytes = LLMS_FULL.read_bytes()
    http_server.route("/llms-full.txt", full_bytes)
    pages = ["guides/install.md", "guides/configure.mdx", "guides/troubleshooting.md", "index.md"]
    listing = "# Acme Widgets\n\n## Docs\n\n" + "".join(f"- [{p}]({p})\n" for p in pages)
    http_server.route("/docs/llms.txt", listing)
    http_server.serve_dir("/docs/", SITE)
    full_url = http_server.url("/llms-full.txt")
    txt_url = http_server.url("/docs/llms.txt")
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "name: acme-docs\ndescription: Acme, served from 127.0.0.1\nsources:\n"
        f"  - name: platform\n    kind: llms-full\n    url: {full_url}\n"
        f"  - name: site\n    kind: llms-txt\n    url: {txt_url}\n",
        encoding="utf-8",
    )
    project = copy_project(tmp_path / "project")
    # A stale editable index in the tree must not reach the wheel; the fresh one must.
    stale = project / "src" / "docwheel" / "_index"
    stale.mkdir()
    (stale / "manifest.json").write_text('{"stale": true}\n', encoding="utf-8")
    (stale / "stale.seg").write_bytes(b"stale")
    env = base_env(tmp_path)
    env["DOCWHEEL_CONFIG"] = str(sources)
    env["SOURCE_DATE_EPOCH"] = "1798761600"

    built = build_wheel(project, tmp_path / "dist", env)

    assert "docwheel: indexed 6 pages" in built.stdout
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"docwheel-{VERSION}-py3-none-any.whl"
    assert scratch_dirs(env) == []  # the hook's scratch directory is gone
    names, manifest = wheel_index(wheel, tmp_path / "unpacked")
    assert names.count("docwheel/_index/manifest.json") == 1
    assert "docwheel/_index/stale.seg" not in names
    assert not any("WRITELOCK" in n for n in names)
    assert any(n.endswith(".trm") for n in names)  # Whoosh's term file
    assert "docwheel/_index/rank_impacts.npy" in names  # the ranking data
    assert set(manifest["files"]) == {n.rsplit("/", 1)[1] for n in names if "/_index/" in n} - {"manifest.json"}
    assert manifest["name"] == "acme-docs"
    assert manifest["version"] == VERSION
    assert manifest["built_at"] == "2027-01-01T00:00:00Z"
    assert manifest["pages"] == 6  # 2 in llms-full.txt, 4 linked from llms.txt
    platform, site = manifest["sources"]
    assert (platform["name"], platform["url"]) == ("platform", full_url)
    assert platform["sha256"] == hashlib.sha256(full_bytes).hexdigest()
    assert platform["bytes"] == len(full_bytes)
    assert (site["name"], site["url"]) == ("site", txt_url)
    assert site["sha256"] == listing_sha256(
        [(listing.encode(), txt_url)]
        + [((SITE / p).read_bytes(), http_server.url(f"/docs/{p}")) for p in pages]
    )

    bin_dir = make_venv(tmp_path / "venv", env)
    run([bin_dir / "python", "-m", "pip", "install", "--quiet", wheel], env=env)
    http_server.reset()  # from here on, any request to the docs server would be a bug

    searched = run(
        [*offline, bin_dir / "docwheel", "search", "--json", "refund unused seats"], env=env
    )
    result = json.loads(searched.stdout)
    assert result["results"][0]["ref"] == "platform:billing#refunds"
    assert result["results"][0]["url"] == "https://docs.example.com/billing#refunds"
    searched = run(
        [*offline, bin_dir / "docwheel", "search", "--json", "--source=site", "permission denied"],
        env=env,
    )
    top = json.loads(searched.stdout)["results"][0]
    assert top["ref"] == "site:docs/guides/troubleshooting#permission-denied-when-starting"
    assert top["url"] == http_server.url(
        "/docs/guides/troubleshooting.md#permission-denied-when-starting"
    )

    client = tmp_path / "mcp_client.py"
    client.write_text(MCP_CLIENT, encoding="utf-8")
    session = run(
        [*offline, bin_dir / "python", client, bin_dir / "docwheel", "rotate API keys"], env=env
    )
    data = json.loads(session.stdout.strip().splitlines()[-1])
    assert data["tools"] == ["describe_docs", "list_docs", "read_doc", "search_docs"]
    assert not data["search_error"] and not data["read_error"]
    hit = data["search"]["results"][0]
    assert hit["ref"] == "site:docs/guides/configure#rotating-api-keys"
    assert data["read"]["ref"] == hit["ref"]
    assert "acme.keys.rotate" in data["read"]["text"]
    assert http_server.requests == []


# -- 2. a broken source fails the build ---------------------------------------------------


def test_a_broken_source_fails_the_wheel_build_with_one_line(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    missing = http_server.url("/docs/llms-full.txt")
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "name: broken\nsources:\n"
        f"  - name: ok\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
        f"  - name: web\n    kind: llms-full\n    url: {missing}\n",
        encoding="utf-8",
    )
    project = copy_project(tmp_path / "project")
    env = base_env(tmp_path)
    env["DOCWHEEL_CONFIG"] = str(sources)
    dist = tmp_path / "dist"

    built = build_wheel(project, dist, env, check=False)

    assert built.returncode != 0, built.stdout
    failures = [line for line in built.stdout.splitlines() if "build failed" in line]
    assert failures == [f"docwheel: build failed: source 'web' ({missing}): HTTP 404 Not Found"]
    assert "Traceback" not in built.stdout
    assert list(dist.glob("*.whl")) == []
    assert scratch_dirs(env) == []
    assert not (project / "src" / "docwheel" / "_index").exists()


# -- 3. sdist, then a wheel from the sdist ------------------------------------------------


def test_wheel_built_from_the_sdist_bundles_the_default_docs(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="the 'build' package (test extra) builds the wheels")
    project = copy_project(tmp_path / "project")
    env = base_env(tmp_path)
    dist = tmp_path / "dist"

    run([sys.executable, "-m", "build", "--outdir", dist, project], env=env)

    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    docs = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert {"build_index.py", "docs/docwheel.yaml", "pyproject.toml", "src/docwheel/build.py"} <= members
    assert {f"docs/{d}" for d in docs} <= members
    assert not any(m.startswith("src/docwheel/_index") for m in members)

    (wheel,) = dist.glob("*.whl")
    names, manifest = wheel_index(wheel, tmp_path / "unpacked")
    assert manifest["name"] == "docwheel-docs"
    assert manifest["version"] == VERSION
    # docs/docwheel.yaml pins answers; the wheel exists because its build held them.
    assert manifest["checks"] and all(check["passed"] for check in manifest["checks"])
    (source,) = manifest["sources"]
    assert (source["name"], source["kind"], source["path"]) == ("docs", "markdown", ".")
    assert source["pages"] == manifest["pages"] == len(docs)
    assert source["sha256"] == listing_sha256(
        [((REPO / "docs" / d).read_bytes(), d) for d in docs]
    )
    assert scratch_dirs(env) == []
    with docwheel.open_index(tmp_path / "unpacked") as index:
        refs = {page.ref for page in index.outline()}
        assert refs == {page_ref("docs", d) for d in docs}
        hits = index.search("add a source").results
        assert hits and all(hit.source == "docs" for hit in hits)


# -- 4. an editable install uses the index written into src/ ------------------------------


def test_editable_install_searches_the_index_in_the_source_tree(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    env = base_env(tmp_path)
    bin_dir = make_venv(tmp_path / "venv", env)

    run([bin_dir / "python", "-m", "pip", "install", "--quiet", "-e", project], env=env)

    index_dir = project / "src" / "docwheel" / "_index"
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "docwheel-docs"
    assert manifest["version"] == VERSION
    assert [p.name for p in index_dir.parent.iterdir() if p.name.startswith("._index")] == []
    offline = offline_prefix() or ()
    info = run([*offline, bin_dir / "docwheel", "info"], env=env)
    assert f"index: {index_dir.resolve()}" in info.stdout
    searched = run([*offline, bin_dir / "docwheel", "search", "--json", "add a source"], env=env)
    hits = json.loads(searched.stdout)["results"]
    assert hits and all(hit["source"] == "docs" for hit in hits)
    with docwheel.open_index(index_dir) as index:
        assert hits[0]["ref"] == index.search("add a source").results[0].ref


@pytest.mark.slow
def test_the_same_sources_build_a_byte_identical_wheel(tmp_path: Path) -> None:
    """Two builds of the default docs, in different directories and with different hash
    seeds but one SOURCE_DATE_EPOCH, give the same wheel file."""
    digests = []
    for n, seed in enumerate(("1", "2")):
        project = copy_project(tmp_path / f"project-{n}")
        env = {**base_env(tmp_path), "SOURCE_DATE_EPOCH": "1798761600", "PYTHONHASHSEED": seed}
        build_wheel(project, tmp_path / f"dist-{n}", env)
        (wheel,) = (tmp_path / f"dist-{n}").glob("*.whl")
        digests.append(hashlib.sha256(wheel.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
