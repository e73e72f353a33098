"""`docwheel new` and the hatch plugin: the files a docs project is made of, and an in-process
hatchling build of such a project (no subprocess, no isolation: about a second)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from datetime import date
from pathlib import Path

import pytest
import yaml
from helpers import FIXTURES, REPO, docwheel_cmd

import docwheel
from docwheel.config import load_config
from docwheel.errors import DocwheelError
from docwheel.scaffold import (
    docwheel_requirement,
    Source,
    calendar_version,
    import_name,
    name_problem,
    plan_sources,
    project_files,
)

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

DAY = date(2026, 11, 29)
SITE = FIXTURES / "site"


def new(*args: str | Path, status: int = 0, cwd: Path | None = None):
    proc = subprocess.run(
        [*docwheel_cmd(), "new", *map(str, args)],
        cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == status, proc.stderr
    return proc


def write(directory: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_text(text, encoding="utf-8")
    return directory


# -- names and sources ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["acme-docs", "acme", "plane2-docs-v3"])
def test_valid_project_names(name):
    assert name_problem(name) is None


@pytest.mark.parametrize(
    "name", ["Acme-docs", "acme_docs", "2acme", "acme--docs", "acme-", "", "a.b"]
)
def test_invalid_project_names_say_what_is_allowed(name):
    assert "lower-case letters, digits and '-'" in name_problem(name)


def test_import_name_and_calendar_version():
    assert import_name("acme-docs") == "acme_docs"
    assert import_name("Mini.Docs") == "mini_docs"
    assert calendar_version(DAY) == "2026.11.29"
    assert calendar_version(date(2027, 1, 2)) == "2027.01.02"


def test_sources_are_mapped_by_url_ending_and_local_kind(tmp_path):
    docs = tmp_path / "repo" / "docs"
    shutil.copytree(SITE, docs)
    (tmp_path / "far" / "away").mkdir(parents=True)
    full = tmp_path / "far" / "away" / "llms-full.txt"
    full.write_text("# A\n\ntext\n", encoding="utf-8")
    project = tmp_path / "repo" / "acme-docs"

    sources = plan_sources(
        [
            "https://docs.acme.dev/llms-full.txt",
            "https://www.acme.dev/llms.txt",
            "https://docs.acme.dev/guides/install.mdx",
            str(docs),
            str(docs / "guides" / "install.md"),
            str(full),
        ],
        project,
    )

    assert sources == [
        Source("docs-acme-dev", "llms-full", url="https://docs.acme.dev/llms-full.txt"),
        Source("acme-dev", "llms-txt", url="https://www.acme.dev/llms.txt"),
        Source("docs-acme-dev-2", "markdown", url="https://docs.acme.dev/guides/install.mdx"),
        Source("docs", "markdown", path="../docs/"),  # beside the project: relative
        Source("install", "markdown", path="../docs/guides/install.md"),
        Source("llms-full", "llms-full", path=full.resolve().as_posix()),  # far away: absolute
    ]


def test_a_name_that_cannot_be_derived_is_numbered(tmp_path):
    (tmp_path / "___").mkdir()
    (source,) = plan_sources([str(tmp_path / "___")], tmp_path / "project")
    assert source.name == "source-1"


def test_every_bad_source_is_reported_at_once(tmp_path):
    with pytest.raises(DocwheelError) as caught:
        plan_sources(
            ["https://acme.dev/docs/", str(tmp_path / "missing"), "https://acme.dev/a.md"],
            tmp_path / "project",
        )
    message = str(caught.value)
    assert "--source 'https://acme.dev/docs/': cannot tell the kind of source" in message
    assert f"--source '{tmp_path / 'missing'}': not found" in message
    assert "a.md" not in message


# -- the generated files -------------------------------------------------------------------


def test_generated_project_parses_and_its_sources_file_validates(tmp_path):
    project = tmp_path / "acme-docs"
    sources = plan_sources([str(SITE), "https://docs.acme.dev/llms-full.txt"], project)
    files = project_files("acme-docs", sources, today=DAY, docwheel_version="0.1.0")

    assert set(files) == {
        "pyproject.toml", "docwheel.yaml", "README.md", ".gitignore",
        "src/acme_docs/__init__.py", ".github/workflows/docs.yml",
    }
    write(project, files)
    pyproject = tomllib.loads(files["pyproject.toml"])
    assert pyproject["build-system"] == {
        "requires": ["hatchling>=1.27", "docwheel>=0.1.0,<0.2"],
        "build-backend": "hatchling.build",
    }
    assert pyproject["project"]["name"] == "acme-docs"
    assert pyproject["project"]["version"] == "2026.11.29"
    assert pyproject["project"]["dependencies"] == ["docwheel>=0.1.0,<0.2"]
    assert pyproject["tool"]["hatch"]["build"]["hooks"]["docwheel"] == {"config": "docwheel.yaml"}
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["src/acme_docs"]

    config = load_config(project / "docwheel.yaml")
    assert config.name == "acme-docs"
    assert [(s.name, s.kind, s.url, s.path) for s in config.sources] == [
        ("site", "markdown", None, SITE.resolve()),
        ("docs-acme-dev", "llms-full", "https://docs.acme.dev/llms-full.txt", None),
    ]

    workflow = yaml.safe_load(files[".github/workflows/docs.yml"])
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"][0]["cron"] and triggers["push"]["tags"]
    steps = "\n".join(str(step.get("run", "")) for step in workflow["jobs"]["build"]["steps"])
    assert "python -m build --wheel" in steps and "docwheel verify --index" in steps
    readme = files["README.md"]
    assert "import acme_docs" in readme and "docwheel serve --index" in readme


def test_odd_characters_in_a_url_survive_the_sources_file(tmp_path):
    url = "https://acme.dev/docs #1/llms-full.txt"
    sources = [
        Source("weird", "llms-full", url=url.replace(" ", "%20")),
        Source("quoted", "markdown", url="https://acme.dev/a.md?x=1#top"),
    ]
    files = project_files("acme-docs", sources, today=DAY, docwheel_version="0.1.0")
    config = load_config(write(tmp_path, files) / "docwheel.yaml")
    assert [s.url for s in config.sources] == [s.url for s in sources]


def test_the_package_exposes_its_index_dir(tmp_path):
    files = project_files("acme-docs", [], today=DAY, docwheel_version="0.1.0")
    write(tmp_path, files)
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        import acme_docs

        expected = tmp_path / "src" / "acme_docs" / "_docwheel_index"
        assert acme_docs.INDEX_DIR == expected.resolve()
    finally:
        sys.path.remove(str(tmp_path / "src"))
        sys.modules.pop("acme_docs", None)


# -- docwheel new ----------------------------------------------------------------------------


def test_new_writes_a_project_from_the_command_line(tmp_path):
    shutil.copytree(SITE, tmp_path / "site")
    proc = new("acme-docs", "--name", "acme-docs", "--source", "site",
               "--source", "https://docs.acme.dev/llms.txt", cwd=tmp_path)

    project = tmp_path / "acme-docs"
    assert "wrote acme-docs (2 sources) to acme-docs" in proc.stdout
    config = load_config(project / "docwheel.yaml")
    assert [(s.name, s.kind) for s in config.sources] == [
        ("site", "markdown"),
        ("docs-acme-dev", "llms-txt"),
    ]
    assert config.sources[0].path == (tmp_path / "site").resolve()
    assert (project / ".github" / "workflows" / "docs.yml").is_file()
    today = calendar_version(date.today())
    assert f'version = "{today}"' in (project / "pyproject.toml").read_text(encoding="utf-8")


def test_new_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine\n", encoding="utf-8")
    proc = new(tmp_path / "taken", "--name", "acme-docs", "--source", SITE, status=1)
    assert proc.stderr == (
        f"docwheel: error: {tmp_path / 'taken'}: not an empty folder; "
        "docwheel new writes a new project\n"
    )
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_new_into_an_empty_folder_works(tmp_path):
    (tmp_path / "empty").mkdir()
    new(tmp_path / "empty", "--name", "acme-docs", "--source", SITE)
    assert (tmp_path / "empty" / "src" / "acme_docs" / "__init__.py").is_file()


def test_new_rejects_a_bad_name_as_a_usage_error(tmp_path):
    proc = new(tmp_path / "p", "--name", "Acme_Docs", "--source", SITE, status=2)
    assert "argument --name: 'Acme_Docs': use lower-case letters" in proc.stderr
    assert not (tmp_path / "p").exists()


def test_new_with_a_bad_source_writes_nothing(tmp_path):
    proc = new(tmp_path / "p", "--name", "acme-docs", "--source", "https://acme.dev/", status=1)
    assert proc.stderr.startswith("docwheel: error: cannot create the docs project:\n")
    assert not (tmp_path / "p").exists()


# -- the hatch plugin, through hatchling in this process --------------------------------------


def test_docwheel_registers_its_hook_as_a_hatch_plugin():
    pytest.importorskip("hatchling")
    from docwheel.hatch_plugin import DocwheelBuildHook, hatch_register_build_hook

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["entry-points"]["hatch"] == {"docwheel": "docwheel.hatch_plugin"}
    assert hatch_register_build_hook() is DocwheelBuildHook
    assert DocwheelBuildHook.PLUGIN_NAME == "docwheel"


def _hatch_build(project: Path, out: Path) -> Path:
    pytest.importorskip("hatchling")
    from hatchling.builders.wheel import WheelBuilder

    # hatchling finds the hook by the `hatch` entry point of the installed docwheel.
    (wheel,) = WheelBuilder(str(project)).build(directory=str(out), versions=["standard"])
    return Path(wheel)


def test_a_minimal_project_builds_a_docs_wheel_with_its_own_package(tmp_path, monkeypatch, capsys):
    """Only the build system, the hook table and a sources file: the hook adds the package
    __init__.py and the dependency on docwheel."""
    monkeypatch.delenv("DOCWHEEL_CONFIG", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the hook's scratch folder
    project = tmp_path / "mini"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "docwheel"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "Mini.Docs"\nversion = "2026.01.02"\n'
        "[tool.hatch.build.hooks.docwheel]\n",
        encoding="utf-8",
    )
    (project / "docwheel.yaml").write_text(
        f"name: mini\nsources:\n  - name: site\n    kind: markdown\n    path: {SITE}\n",
        encoding="utf-8",
    )

    wheel = _hatch_build(project, tmp_path / "dist")

    assert wheel.name == "mini_docs-2026.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        manifest = json.loads(zf.read("mini_docs/_docwheel_index/manifest.json"))
        metadata = zf.read("mini_docs-2026.1.2.dist-info/METADATA").decode()
        init = zf.read("mini_docs/__init__.py").decode()
        entry_points = zf.read("mini_docs-2026.1.2.dist-info/entry_points.txt").decode()
        zf.extractall(tmp_path / "site-packages")
    assert f"Requires-Dist: {docwheel_requirement(docwheel.__version__)}" in metadata.splitlines()
    # How `docwheel serve` finds it once installed (discovery.ENTRY_POINT_GROUP).
    assert entry_points.split() == ["[docwheel.indexes]", "mini-docs", "=", "mini_docs:INDEX_DIR"]
    assert (manifest["name"], manifest["version"], manifest["pages"]) == ("mini", "2026.1.2", 4)
    assert "INDEX_DIR" in init and not any(n.startswith("docwheel/") for n in names)
    assert f"-> {tmp_path}/docwheel-index-" in capsys.readouterr().err
    assert list(tmp_path.glob("docwheel-index-*")) == []  # the scratch folder is gone
    with docwheel.open_index(tmp_path / "site-packages" / "mini_docs" / "_docwheel_index") as index:
        top = index.search("permission denied").results[0]
        assert top.ref == "site:guides/troubleshooting#permission-denied-when-starting"


def test_a_failing_source_stops_the_build_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the hook's scratch folder
    project = tmp_path / "acme-docs"
    gone = Source("gone", "markdown", path="missing/")
    files = project_files("acme-docs", [gone], today=DAY, docwheel_version="0.1.0")
    write(project, files)
    monkeypatch.setenv("DOCWHEEL_CONFIG", str(project / "docwheel.yaml"))

    with pytest.raises(SystemExit) as caught:
        _hatch_build(project, tmp_path / "dist")

    assert caught.value.code == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"docwheel: build failed: {project / 'docwheel.yaml'}: invalid sources file:"
    assert "missing/" in lines[1]
    assert not (tmp_path / "dist").exists() or list((tmp_path / "dist").iterdir()) == []
    assert list(tmp_path.glob("docwheel-index-*")) == []
