"""The few ways docwheel fails, each with a message a person can act on.

    DocwheelError
    ├── ConfigError        the sources file is invalid (every problem at once)
    ├── SourceError        a source could not be fetched, read or parsed at build time
    │   └── SecretsFoundError  the indexed text holds credentials (every finding at once)
    ├── FetchError         an HTTP fetch failed (status, timeout, not text, empty)
    ├── BuildError         the build cannot write its output where it was asked to
    │   └── ChecksFailedError  the built docs miss answer checks (every miss at once)
    ├── IndexLoadError     no index where one was expected, or it is unreadable
    │   └── SemanticFilesError  a file of the semantic layer is missing or corrupt
    ├── QueryError         a query that cannot be searched
    └── UnknownRefError    read() was given a ref that is not in the index

Library errors (Whoosh, urllib, YAML) are turned into these at the module that talks to the
library; the CLI and the MCP server turn these into one line of text.
"""

from __future__ import annotations

from collections.abc import Sequence


class DocwheelError(Exception):
    """Base of every error docwheel raises on purpose."""


class ConfigError(DocwheelError):
    """The sources file is invalid; ``problems`` lists each one with its place."""

    def __init__(self, origin: str, problems: Sequence[str]):
        self.origin = origin
        self.problems = list(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{origin}: invalid sources file:\n{lines}")


class SourceError(DocwheelError):
    """A source failed at build time; the message names the source, where, and why."""

    def __init__(self, source: str, where: str, reason: str):
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(f"source {source!r} ({where}): {reason}")


class SecretsFoundError(SourceError):
    """The text a build would index holds possible credentials; one finding per line."""

    def __init__(self, findings: Sequence[str], limit: int = 20):
        self.findings = list(findings)
        shown = [f"  {f}" for f in self.findings[:limit]]
        if len(self.findings) > limit:
            shown.append(f"  … and {len(self.findings) - limit} more")
        DocwheelError.__init__(
            self,
            f"{len(self.findings)} possible secret(s) in the text to index; remove them, or "
            "allow a reviewed one under allow_secrets: in the sources file:\n" + "\n".join(shown),
        )
        self.source = ", ".join(dict.fromkeys(f.split(":", 1)[0] for f in self.findings))
        self.where = "indexed text"
        self.reason = "possible secrets"


class BuildError(DocwheelError):
    """The build cannot write where it was asked to (it never deletes what is not an index)."""


class ChecksFailedError(BuildError):
    """Answer checks (``checks:`` in the sources file) missed; one line per miss.

    The build raises it before its output is moved into place, so a snapshot that misses a
    check is never written, as with a broken source."""

    def __init__(self, total: int, misses: Sequence[str]):
        self.total = total
        self.misses = list(misses)
        lines = "\n".join(f"  {m}" for m in self.misses)
        super().__init__(
            f"{len(self.misses)} of {total} answer check(s) missed (checks: in the sources "
            f"file); fix the docs or the check:\n{lines}"
        )


class FetchError(DocwheelError):
    """An HTTP fetch failed. The build wraps it in a SourceError naming the source."""

    def __init__(self, url: str, reason: str):
        self.url = url
        self.reason = reason
        super().__init__(f"{url}: {reason}")


class IndexLoadError(DocwheelError):
    """No usable index at the given place."""


class SemanticFilesError(IndexLoadError):
    """A file of the semantic layer (query encoder or section vectors) is missing or corrupt."""

    def __init__(self, path: object, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class QueryError(DocwheelError):
    """The query cannot be searched (for example, it is empty)."""


class UnknownRefError(DocwheelError):
    """A ref that names no page or section of the index."""

    def __init__(self, ref: str, suggestions: Sequence[str] = ()):
        self.ref = ref
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(
            f"unknown ref {ref!r}{hint} (refs come from search results or the page list)"
        )
