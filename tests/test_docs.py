"""The README's two commands stay true: CI runs the README's test command, and the bundled
docs (the default index) stay well formed."""

from __future__ import annotations

import re

from docwheel.formats.markdown import split_frontmatter

from helpers import REPO


def _code_block_after(heading: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n{heading}\n", 1)[1]
    match = re.search(r"```bash\n(.*?)\n```", section, re.S)
    assert match, f"no bash block under {heading}"
    return match.group(1).strip()


def test_ci_runs_the_readme_test_command():
    command = _code_block_after("## Run the tests")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == command


def test_readme_first_command_installs_and_searches_the_bundled_docs():
    assert _code_block_after("## Try it") == 'python -m pip install . && docwheel search "add a source"'


def test_every_bundled_docs_page_has_a_title_and_a_description():
    pages = sorted((REPO / "docs").glob("*.md"))
    assert pages
    for page in pages:
        meta, _body, warning = split_frontmatter(page.read_text(encoding="utf-8"))
        assert warning is None, page
        assert meta.get("title") and meta.get("description"), page
