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
from helpers import FIXTURES
from httpserver import HTTPTestServer
from test_wheel import base_env, build_wheel, copy_project, make_venv, offline_prefix, run

from docwheel import __version__
from docwheel.scaffold import calendar_version

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
    assert f"Requires-Dist: docwheel>={__version__}" in metadata.splitlines()
    assert (manifest["name"], manifest["version"]) == ("acme-docs", version)
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

