"""Plain Markdown folders (a GitHub wiki, docs read on GitHub or any static host): GitHub's
heading anchors, a page served at its path without the extension, ``index`` as its folder."""

from __future__ import annotations

from .site import Generator


class Plain(Generator):
    name = "plain"


GENERATOR = Plain()
