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


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` ({relative path: text}) under ``root``, folders made as needed."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def load_folder(base: Path, path: str, base_url: str, name: str = "s", **extra):
    """A folder source read as a build reads it (``sources.load_source``), without a network:
    the source ``name`` at ``path`` (relative to ``base``) published at ``base_url``."""
    from docwheel.config import parse_config
    from docwheel.sources import load_source

    source = {"name": name, "kind": "markdown", "path": path, "base_url": base_url, **extra}
    config = parse_config({"name": "t", "sources": [source]}, base_dir=base, origin="t.yaml")
    return load_source(config.sources[0], fetch=None)


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
