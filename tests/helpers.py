"""Shared test helpers: paths, and building small indexes from the fixture docs."""

from __future__ import annotations

import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
EVAL = REPO.parent / "shared" / "eval"


def write_config(directory: Path, body: str, name: str = "docwheel.yaml") -> Path:
    path = directory / name
    path.write_text(body, encoding="utf-8")
    return path


def site_config(directory: Path) -> Path:
    """A sources file with two local sources: the Markdown site and the llms-full file."""
    return write_config(
        directory,
        f"""\
name: acme-docs
description: Test docs
sources:
  - name: site
    kind: markdown
    path: {FIXTURES / "site"}
    base_url: https://acme.example/docs/
  - name: platform
    kind: llms-full
    path: {FIXTURES / "llms" / "llms-full.txt"}
""",
    )


def tree(directory: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file under ``directory``."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def docwheel_cmd() -> list[str]:
    """The CLI as installed beside this interpreter."""
    return [sys.executable, "-m", "docwheel"]


def child_processes() -> set[int]:
    """Live children of this process (the helper must not outlive a build)."""
    found: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found
