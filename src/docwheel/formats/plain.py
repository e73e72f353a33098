"""Plain Markdown folders (a GitHub wiki, docs read on GitHub or any static host): GitHub's
heading anchors, a page served at its path without the extension, ``index`` as its folder.
AsciiDoc files (``.adoc``, as GitHub, GitLab and Asciidoctor render them) are pages too,
with Asciidoctor's section ids."""

from __future__ import annotations

from .site import Generator


class Plain(Generator):
    name = "plain"
    asciidoc = True


GENERATOR = Plain()
