"""Sphinx: a ``conf.py`` in the docs folder or above it.

Pages are served at their path with ``.html`` (the ``html`` builder; ``index.rst`` is
``index.html``, a folder's too); section ids are docutils' (``make_id`` of the title).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urljoin

from .site import Generator, Settings, Warn

_DEFAULT_ROLE = re.compile(r"""^default_role\s*=\s*["']([\w:.-]+)["']""", re.M)
_SPHINX_CONF = re.compile(r"^\s*(?:extensions|html_theme|project|master_doc|root_doc)\s*=", re.M)


class Sphinx(Generator):
    name = "sphinx"
    config_files = ("conf.py",)
    anchors = "docutils"

    def claims(self, config: Path) -> bool:
        try:
            return _SPHINX_CONF.search(config.read_text(encoding="utf-8", errors="replace")) is not None
        except OSError:
            return False

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        """``default_role`` from ``conf.py`` (read as text, never run)."""
        try:
            text = config.read_text(encoding="utf-8", errors="replace") if config else ""
        except OSError:
            text = ""
        found = _DEFAULT_ROLE.search(text)
        return Settings(default_role=found.group(1) if found else "")

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        return page_url(rel, None)

    # No sniff: a folder of .rst files without a conf.py is no Sphinx build (GitHub shows
    # such files as they are), so only the config file names Sphinx.


GENERATOR = Sphinx()


def page_url(rel_path: str, base_url: str | None) -> str:
    """The address the ``html`` builder gives the page from ``rel_path``: the source path
    with ``.html`` for its suffix (``index.rst`` -> ``index.html``, ``tutorial/index.rst``
    -> ``tutorial/index.html``), joined to ``base_url`` when there is one."""
    page = posixpath.splitext(rel_path.replace("\\", "/"))[0] + ".html"
    return urljoin(base_url, page) if base_url else page
