"""The files ``docwheel new`` writes: a docs project that builds its own docs wheel.

Pure: ``project_files`` returns ``{relative path: text}`` and writes nothing; the CLI checks
the target folder and writes them. The only file system access here is looking at the local
``--source`` paths, to tell a folder from a file and to refuse one that does not exist.

The project is built by docwheel's hatch plugin (``docwheel.hatch_plugin``): hatchling and
docwheel in ``[build-system] requires``, a ``[tool.hatch.build.hooks.docwheel]`` table, the
sources file, and a tiny package whose ``INDEX_DIR`` points at the index inside the wheel.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from .errors import DocwheelError

SOURCES_FILE = "docwheel.yaml"
INDEX_FOLDER = "_docwheel_index"  # inside the docs package, in the wheel and in editable trees
_PROJECT_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_PLAIN_YAML = re.compile(r"[A-Za-z0-9_./~][A-Za-z0-9_./:~%+=?&@-]*")


@dataclass(frozen=True)
class Source:
    """One entry of the sources file, as ``docwheel new`` derives it from a ``--source``."""

    name: str
    kind: str  # llms-full | llms-txt | markdown
    url: str | None = None
    path: str | None = None  # as written in the sources file: relative to the project


def import_name(project_name: str) -> str:
    """The docs package's import name: ``acme-docs`` -> ``acme_docs`` (PEP 503 normalized,
    separators as underscores)."""
    return re.sub(r"[-_.]+", "_", project_name).lower()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a docs project, or None: lower-case letters, digits and
    single '-' between them, starting with a letter (the package name must be importable)."""
    if _PROJECT_NAME.fullmatch(name):
        return None
    return (
        f"--name {name!r}: use lower-case letters, digits and '-', starting with a letter "
        "(for example acme-docs)"
    )


def calendar_version(day: date) -> str:
    """The snapshot version for ``day``: ``2026.11.29`` (see docs/publishing.md)."""
    return f"{day.year}.{day.month:02d}.{day.day:02d}"


def plan_sources(specs: Sequence[str], project_dir: Path) -> list[Source]:
    """One source per ``--source``; every problem is raised together.

    A URL ending in ``llms-full.txt`` is an llms-full source, ``llms.txt`` an llms-txt
    source, ``.md``/``.mdx`` a Markdown page. A local folder or ``.md``/``.mdx`` file is a
    Markdown source (a local ``llms-full.txt`` or ``llms.txt`` keeps its kind); its path is
    written relative to the project folder. Names come from the host or the folder.
    """
    problems: list[str] = []
    planned: list[tuple[str, str, str | None, str | None]] = []  # (name hint, kind, url, path)
    for spec in specs:
        place = f"--source {spec!r}"
        if spec.startswith(("http://", "https://")):
            parts = urlsplit(spec)
            kind = _kind_of(parts.path)
            if not parts.hostname:
                problems.append(f"{place}: not a URL with a host")
            elif kind is None:
                problems.append(
                    f"{place}: cannot tell the kind of source; a URL must end in "
                    "llms-full.txt, llms.txt, .md or .mdx"
                )
            else:
                planned.append((_host_name(parts.hostname), kind, spec, None))
            continue
        local = Path(spec).expanduser()
        if not local.exists():
            problems.append(f"{place}: not found (give a URL, a folder or a Markdown file)")
            continue
        kind = "markdown" if local.is_dir() else _kind_of(local.name)
        if kind is None:
            problems.append(
                f"{place}: a file source must be llms-full.txt, llms.txt, .md or .mdx"
            )
            continue
        hint = local.resolve().name if local.is_dir() else local.stem
        planned.append((hint, kind, None, _project_path(local, project_dir)))
    if not specs:
        problems.append("--source: give at least one URL or path")
    if problems:
        lines = "\n".join(f"  {p}" for p in problems)
        raise DocwheelError(f"cannot create the docs project:\n{lines}")

    sources: list[Source] = []
    used: set[str] = set()
    for n, (hint, kind, url, path) in enumerate(planned, 1):
        name = _source_name(hint) or f"source-{n}"
        unique, k = name, 1
        while unique in used:
            k += 1
            unique = f"{name}-{k}"
        used.add(unique)
        sources.append(Source(name=unique, kind=kind, url=url, path=path))
    return sources


def _project_path(local: Path, project_dir: Path) -> str:
    """``local`` as the sources file in ``project_dir`` names it: relative when it is inside
    the project or beside it (``../docs/``), else absolute; a folder ends in '/'."""
    target = local.resolve()
    relative = Path(os.path.relpath(target, project_dir.resolve())).as_posix()
    text = relative if not relative.startswith("../../") else target.as_posix()
    return text + "/" if local.is_dir() and not text.endswith("/") else text


def _kind_of(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith("llms-full.txt"):
        return "llms-full"
    if lower.endswith("llms.txt"):
        return "llms-txt"
    if lower.endswith((".md", ".mdx")):
        return "markdown"
    return None


def _host_name(host: str) -> str:
    """``docs.acme.dev`` -> ``docs-acme-dev``; a leading ``www.`` is dropped."""
    return host.lower().removeprefix("www.").replace(".", "-")


def _source_name(hint: str) -> str:
    """A valid source name (``[a-z0-9][a-z0-9_-]*``) from a host or folder name, or ''."""
    return re.sub(r"[^a-z0-9_-]+", "-", hint.lower()).strip("-_")


def project_files(
    name: str,
    sources: Sequence[Source],
    *,
    today: date,
    docwheel_version: str,
) -> dict[str, str]:
    """Every file of a new docs project named ``name``, by path relative to the project."""
    problem = name_problem(name)
    if problem:
        raise DocwheelError(problem)
    package = import_name(name)
    requirement = docwheel_requirement(docwheel_version)
    return {
        "pyproject.toml": _pyproject(name, package, calendar_version(today), requirement),
        SOURCES_FILE: _sources_file(name, sources),
        f"src/{package}/__init__.py": package_init(name),
        "README.md": _readme(name, package),
        ".gitignore": (
            f"dist/\n__pycache__/\n# written by editable installs\n/src/{package}/{INDEX_FOLDER}/\n"
        ),
        ".github/workflows/docs.yml": _workflow(name, package),
    }


def docwheel_requirement(version: str) -> str:
    """The docwheel a docs wheel depends on: ``version`` up to the next minor release.

    An index is read only by a docwheel of the same index format, and the format changes
    only with a minor release (0.x) or a major one (from 1.0), so the range admits every
    docwheel that can read the index and no other.
    """
    numbers = [int(p) if p.isdigit() else 0 for p in version.split(".")[:2]] + [0, 0]
    major, minor = numbers[0], numbers[1]
    upper = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}"
    return f"docwheel>={version},<{upper}"


def package_init(name: str) -> str:
    """The docs package's ``__init__.py``: ``INDEX_DIR`` and ``open_index()``. The hatch
    plugin also puts this file in the wheel of a project that has no package of its own."""
    package = import_name(name)
    return f'''\
"""{name}: a documentation snapshot built by docwheel.

    docwheel search "QUERY" --index "$(python -c 'import {package}; print({package}.INDEX_DIR)')"
"""

from __future__ import annotations

from pathlib import Path

INDEX_DIR = Path(__file__).resolve().parent / "{INDEX_FOLDER}"


def open_index():
    """This snapshot's index, as a ``docwheel.DocIndex`` (use it in a ``with`` block)."""
    import docwheel

    return docwheel.open_index(INDEX_DIR)


__all__ = ["INDEX_DIR", "open_index"]
'''


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def _yaml(value: str) -> str:
    if _PLAIN_YAML.fullmatch(value) and yaml.safe_load(value) == value:
        return value
    return json.dumps(value)  # a JSON string is a valid YAML double-quoted scalar


def _pyproject(name: str, package: str, version: str, requirement: str) -> str:
    return f"""\
[build-system]
requires = ["hatchling>=1.27", {_toml(requirement)}]
build-backend = "hatchling.build"

[project]
name = {_toml(name)}
# The docs snapshot's version: the day the docs were frozen.
version = {_toml(version)}
description = {_toml(f"{name}: documentation snapshot for offline search with docwheel")}
readme = "README.md"
requires-python = ">=3.10"
dependencies = [{_toml(requirement)}]

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]
exclude = ["src/{package}/{INDEX_FOLDER}"]

[tool.hatch.build.targets.sdist]
exclude = ["src/{package}/{INDEX_FOLDER}", "dist"]

# docwheel's build hook: fetches the sources and puts the index into the wheel at
# {package}/{INDEX_FOLDER}/. DOCWHEEL_CONFIG names another sources file.
[tool.hatch.build.hooks.docwheel]
config = "{SOURCES_FILE}"
"""


def _sources_file(name: str, sources: Sequence[Source]) -> str:
    lines = [
        "# The docs this wheel freezes. Reference: docwheel's docs/sources-file.md",
        f"name: {_yaml(name)}",
        "sources:",
    ]
    for source in sources:
        lines += [f"  - name: {_yaml(source.name)}", f"    kind: {source.kind}"]
        if source.url is not None:
            lines.append(f"    url: {_yaml(source.url)}")
        else:
            lines.append(f"    path: {_yaml(source.path or '.')}")
    return "\n".join(lines + example_check(sources[0].name if sources else "docs")) + "\n"


def example_check(source: str) -> list[str]:
    """The commented-out answer check a new sources file shows. Commented out because
    nothing is known yet about what the docs answer: a made-up check would fail the first
    build. Uncommented as it is, it is a valid check (of a page that may not exist)."""
    return [
        "",
        "# Answer checks: questions your users ask, and the page each must find within the",
        "# first `within` results; the build fails, leaving no wheel, when one misses. Put in",
        "# a real question and its page (`docwheel list` shows the refs), then uncomment.",
        "# `docwheel check` runs them against a built index. See docwheel's docs/publishing.md.",
        "# checks:",
        "#   - query: how do I install it",
        f"#     expect: {_yaml(source)}:install",
        "#     within: 3",
    ]


def _index_dir(package: str) -> str:
    return f"\"$(python -c 'import {package}; print({package}.INDEX_DIR)')\""


def _readme(name: str, package: str) -> str:
    index = _index_dir(package)
    return f"""\
# {name}

A documentation snapshot, frozen into a wheel by [docwheel](https://pypi.org/project/docwheel/)
and searchable offline. The sources are listed in `{SOURCES_FILE}`; the version in
`pyproject.toml` is the day the docs were frozen (bump it for each new snapshot).

## Build

```bash
python -m pip install build
python -m build --wheel            # fetches the sources, writes dist/{package}-*.whl
```

A build fails with one line naming the source if any source cannot be fetched or read, and
with one line per miss if the docs miss an answer check (`checks:` in `{SOURCES_FILE}`: a
question and the page it must find); no partial wheel is written. If docwheel is not on your package index, install docwheel and
hatchling first and build with `python -m build --wheel --no-isolation`. Try the sources
file without a wheel: `docwheel build --config {SOURCES_FILE} --out /tmp/{name}-index`, and
the checks alone against that index: `docwheel check --index /tmp/{name}-index`.

## Test

```bash
python -m venv /tmp/check && /tmp/check/bin/pip install dist/*.whl
. /tmp/check/bin/activate
docwheel verify --index {index}
docwheel info --index {index}
docwheel search "install" --index {index}
```

## Serve

```bash
docwheel serve --index {index}
```

serves the snapshot to an assistant over MCP (stdio); `--http` serves streamable HTTP.
From Python, `{package}.open_index()` opens it (a `docwheel.DocIndex`).

`.github/workflows/docs.yml` builds and tests the wheel every week (a source that moved
fails early) and on tags, and keeps the wheel as a workflow artifact.
"""


def _workflow(name: str, package: str) -> str:
    check = "/tmp/check/bin"
    index = f"\"$({check}/python -c 'import {package}; print({package}.INDEX_DIR)')\""
    return f"""\
name: docs wheel

on:
  schedule:
    - cron: "23 5 * * 1"   # every Monday: find a moved or broken source early
  push:
    tags: ["*"]
  workflow_dispatch:

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      # Fails, leaving no wheel, if a source broke or the docs miss an answer check
      # (checks: in {SOURCES_FILE}).
      - name: Build the docs wheel
        run: |
          python -m pip install build
          python -m build --wheel
      - name: Test the wheel in a fresh virtual environment
        run: |
          python -m venv /tmp/check
          {check}/pip install dist/*.whl
          {check}/docwheel verify --index {index}
          {check}/docwheel info --index {index}
          {check}/docwheel list --index {index}
      - uses: actions/upload-artifact@v4
        with:
          name: {name}-wheel
          path: dist/*.whl
"""
