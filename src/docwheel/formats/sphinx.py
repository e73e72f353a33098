"""Sphinx: a ``conf.py`` in the docs folder or above it.

Pages are served at their path with ``.html`` (the ``html`` builder; ``index.rst`` is
``index.html``, a folder's too); section ids are docutils' (``make_id`` of the title).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .site import Generator, Settings, strip_suffix

_SPHINX_CONF = re.compile(r"^\s*(?:extensions|html_theme|project|master_doc|root_doc)\s*=", re.M)
_RST = re.compile(r"^\.\. [\w:-]+::|^[=\-~^\"'`#*+]{4,}\s*$", re.M)


class Sphinx(Generator):
    name = "sphinx"
    config_files = ("conf.py",)
    anchors = "docutils"

    def claims(self, config: Path) -> bool:
        try:
            return _SPHINX_CONF.search(config.read_text(encoding="utf-8", errors="replace")) is not None
        except OSError:
            return False

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        return strip_suffix(rel) + ".html"

    def sniff(self, rel: str, text: str) -> int:
        return 3 if rel.endswith(".rst") else min(len(_RST.findall(text)), 2)


GENERATOR = Sphinx()
