"""`docwheel diff OLD NEW`: two snapshots built from small docs folders, compared as index
directories and as wheels, through the library and the CLI."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from helpers import write_config

from docwheel.build import build_from_file
from docwheel.cli import main
from docwheel.diff import IndexDiff, PageChange, PageSummary, diff_indexes
from docwheel.errors import IndexLoadError

PAGES = {
    "index.md": "# Home\n\nWelcome.\n",
    "install.md": "# Install\n\nIntro.\n\n## With pip\n\nRun pip.\n\n## With Docker\n\nRun docker.\n",
    "old.md": "# Old page\n\nGoing away.\n",
}


def _build(tmp_path: Path, name: str, pages: dict[str, str]) -> Path:
    root = tmp_path / name
    docs = root / "docs"
    docs.mkdir(parents=True)
    for file, text in pages.items():
        (docs / file).write_text(text, encoding="utf-8")
    config = write_config(
        root, "name: acme\nsources:\n  - name: site\n    kind: markdown\n    path: docs\n"
    )
    build_from_file(config, root / "index", version=name)
    return root / "index"


@pytest.fixture
def snapshots(tmp_path: Path) -> tuple[Path, Path]:
    new_pages = dict(PAGES)
    del new_pages["old.md"]
    new_pages["new.md"] = "# New page\n\nJust added.\n\n## Details\n\nMore.\n"
    new_pages["install.md"] = (
        "# Install\n\nIntro.\n\n## With pip\n\nRun pip install acme.\n\n## With uv\n\nRun uv.\n"
    )
    return _build(tmp_path, "1.0", PAGES), _build(tmp_path, "2.0", new_pages)


def _wheel(index: Path, wheel: Path, folder: str = "docwheel/_index") -> Path:
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{folder.split('/')[0]}/__init__.py", "")
        for file in sorted(index.iterdir()):
            archive.write(file, f"{folder}/{file.name}")
    return wheel


def test_diff_lists_pages_and_sections_added_removed_and_changed(snapshots) -> None:
    old, new = snapshots
    result = diff_indexes(old, new)
    assert isinstance(result, IndexDiff)
    assert result.pages_added == (PageSummary("site:new", "New page", 2),)
    assert result.pages_removed == (PageSummary("site:old", "Old page", 1),)
    assert result.pages_changed == (
        PageChange(
            ref="site:install",
            title="Install",
            fields=(),
            sections_added=("site:install#with-uv",),
            sections_removed=("site:install#with-docker",),
            sections_changed=("site:install#with-pip",),
        ),
    )
    assert result.pages_unchanged == 1
    assert result.old.startswith("acme 1.0 (built ") and result.new.startswith("acme 2.0 ")


def test_a_snapshot_against_itself_has_no_differences(snapshots, capsys) -> None:
    old, _ = snapshots
    assert main(["diff", str(old), str(old)]) == 0
    out = capsys.readouterr().out
    assert "no differences" in out
    assert out.endswith("pages: 0 added, 0 removed, 0 changed, 3 unchanged\n")


def test_cli_prints_readable_and_json(snapshots, capsys) -> None:
    old, new = snapshots
    assert main(["diff", str(old), str(new)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        "+ site:new  New page (2 sections)",
        "- site:old  Old page (1 sections)",
        "~ site:install  Install",
        "    + site:install#with-uv",
        "    - site:install#with-docker",
        "    ~ site:install#with-pip",
        "pages: 1 added, 1 removed, 1 changed, 1 unchanged",
    ]
    assert main(["diff", str(old), str(new), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["ref"] for p in data["pages_added"]] == ["site:new"]
    assert [p["ref"] for p in data["pages_removed"]] == ["site:old"]
    assert data["pages_changed"][0]["sections_changed"] == ["site:install#with-pip"]


def test_wheels_are_compared_like_directories(snapshots, tmp_path: Path, capsys) -> None:
    old, new = snapshots
    old_whl = _wheel(old, tmp_path / "acme-1.0-py3-none-any.whl")
    new_whl = _wheel(new, tmp_path / "acme-2.0-py3-none-any.whl")
    from_wheels = diff_indexes(old_whl, new)
    from_dirs = diff_indexes(old, new)
    assert from_wheels.pages_changed == from_dirs.pages_changed
    assert from_wheels.pages_added == from_dirs.pages_added
    assert main(["diff", str(old_whl), str(new_whl), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pages_removed"][0]["ref"] == "site:old"


def test_docs_wheels_from_the_hatch_plugin_are_read_too(snapshots, tmp_path: Path) -> None:
    old, new = snapshots
    old_whl = _wheel(old, tmp_path / "acme_docs-1-py3-none-any.whl", "acme_docs/_docwheel_index")
    new_whl = _wheel(new, tmp_path / "acme_docs-2-py3-none-any.whl", "acme_docs/_docwheel_index")
    assert diff_indexes(old_whl, new_whl).pages_added == diff_indexes(old, new).pages_added


def test_a_page_title_change_is_a_changed_field(tmp_path: Path) -> None:
    old = _build(tmp_path, "a", {"index.md": "# Home\n\nWelcome.\n"})
    new = _build(tmp_path, "b", {"index.md": "---\ntitle: Start\n---\n\nWelcome.\n"})
    (change,) = diff_indexes(old, new).pages_changed
    assert "title" in change.fields and change.title == "Start"


def test_inputs_that_are_not_snapshots_are_clear_errors(snapshots, tmp_path: Path, capsys) -> None:
    old, _ = snapshots
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    empty_whl = tmp_path / "other-1.0-py3-none-any.whl"
    with zipfile.ZipFile(empty_whl, "w") as archive:
        archive.writestr("other/__init__.py", "")
    broken_whl = tmp_path / "broken-1.0-py3-none-any.whl"
    broken_whl.write_bytes(b"not a zip")
    for given, message in [
        (text, "is neither an index directory nor a wheel (.whl) file"),
        (tmp_path / "missing", "does not exist"),
        (empty_whl, "holds no docs index (nothing under docwheel/_index/"),
        (broken_whl, "cannot be read as a wheel"),
        (tmp_path, "is not a docwheel index"),
    ]:
        with pytest.raises(IndexLoadError, match=message.replace("(", r"\(").replace(")", r"\)")):
            diff_indexes(old, given)
    assert main(["diff", str(old), str(text)]) == 1
    assert capsys.readouterr().err.startswith("docwheel: error: ")
