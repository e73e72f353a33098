"""Sphinx source trees: which folders are one, and where the ``html`` builder puts each page.

Small functions, so the generator table can take them over (what the pages' include
directives and links share is in ``rst_tree``).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import urljoin

CONF_FILE = "conf.py"
# How far above a docs folder Sphinx's conf.py may sit (docs/source/ trees keep it in docs/).
CONF_DEPTH = 3


def page_url(rel_path: str, base_url: str | None) -> str:
    """The address the ``html`` builder gives the page from ``rel_path``: the source path
    with ``.html`` for its suffix (``index.rst`` -> ``index.html``, ``tutorial/index.rst``
    -> ``tutorial/index.html``), joined to ``base_url`` when there is one."""
    stem = posixpath.splitext(rel_path.replace("\\", "/"))[0]
    page = f"{stem}.html"
    return urljoin(base_url, page) if base_url else page


def is_sphinx_tree(folder: Path) -> bool:
    """A Sphinx project: ``conf.py`` in the folder or up to three folders above it."""
    here = folder.resolve()
    for _ in range(CONF_DEPTH + 1):
        if (here / CONF_FILE).is_file():
            return True
        if here.parent == here:
            break
        here = here.parent
    return False
