"""Document types: what kind of page a page is (a guide, the reference, the changelog …).

An assistant asks for the kind of page that answers ("the reference for ``Context``", "what
changed in 3.0"), so every page gets one type from a small fixed vocabulary. ``page_type``
resolves it, first answer wins:

1. the page's frontmatter (``document_type:``, or ``type:`` when its value is a type: other
   generators use that key for other things), when it is a known type;
2. the sources file's ``types:`` globs over page paths (the source's own, then the top
   level's, each in the order written);
3. what the docs say about themselves, read by one table of rules (``RULES``): the
   navigation labels the page sits under (``Page.group``), then its path segments, then its
   title; ``guide`` when nothing matches.

Pure: no I/O, no imports from the build, so the reading side may use the vocabulary.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

DOC_TYPES: tuple[str, ...] = (
    "guide",
    "tutorial",
    "reference",
    "changelog",
    "migration",
    "troubleshooting",
    "blog",
)
DEFAULT_TYPE = "guide"
# Pages that are not the main answer to a question about using the software: they mention
# every feature in passing and rank below guides unless the query asks for them.
SECONDARY_TYPES: tuple[str, ...] = ("changelog", "blog")
# Query words that ask for a secondary type, so its pages keep their full score. Analysed
# by the index (stemmed) before they are compared with query terms.
ASKING_WORDS: dict[str, tuple[str, ...]] = {
    "changelog": tuple(
        (
            "change changes changed changelog release releases released new update updates "
            "version versions upgrade upgrading migrate migration breaking deprecated "
            "deprecation removed added"
        ).split()
    ),
    "blog": ("blog", "blogs", "post", "posts", "announcement", "announcements", "announced"),
}


@dataclass(frozen=True)
class Rule:
    """One row of the table: a label or path segment whose slug matches ``pattern`` in
    full makes the page ``type``."""

    type: str
    pattern: re.Pattern[str]


def _rule(doc_type: str, pattern: str) -> Rule:
    return Rule(doc_type, re.compile(pattern))


# The one table. Slugs are lower-case words joined by "-" ("What's New" -> whats-new,
# "API Reference" -> api-reference). Within one place (the navigation, the path, the title)
# the first row that matches any label decides, so the specific kinds come first: a
# changelog filed under the API reference is a changelog.
RULES: tuple[Rule, ...] = (
    _rule(
        "changelog",
        r".*(change-?logs?|release-?notes|whats-?new|key-changes).*"
        r"|releases?|updates|changes|history-of-changes|.+-notes",
    ),
    _rule(
        "migration",
        r"migrations?|migrating|upgrading|(.+-)?(migration|upgrade)-guides?"
        r"|(migrating|migrate|upgrading|upgrade)-(to|from)-.+|.+-migration-guides?",
    ),
    _rule(
        "troubleshooting",
        r"(.+-)?(troubleshoot|troubleshooting|faqs?|known-issues|common-(issues|errors|problems))"
        r"|frequently-asked-questions|error-(codes|messages|reference|catalog|catalogue)",
    ),
    _rule("blog", r"blogs?|posts|news|announcements?|articles"),
    _rule("tutorial", r"(.+-)?tutorials?|tutorial-.+|walkthroughs?|codelabs?"),
    _rule(
        "reference",
        r"(.+-)?(sdk|reference|references)|sdks|api|apis|api-docs|apiref|api-ref|cli"
        r"|(api|cli|configuration|config|settings|schema|commands?)-reference|reference-.+",
    ),
)
assert all(rule.type in DOC_TYPES for rule in RULES)

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def known_type(value: str) -> str:
    """``value`` when it names a type of the vocabulary (any case), else ""."""
    return value if value.strip().lower() in DOC_TYPES else ""


def slug(label: str) -> str:
    """``"What's New"`` -> ``whats-new``: the form the table's patterns match."""
    return _NOT_WORD.sub("-", label.lower().replace("'", "").replace("\u2019", "")).strip("-")


def rule_type(labels: Iterable[str]) -> str | None:
    """The type the first matching row of ``RULES`` gives any of ``labels``, or None."""
    slugs = [s for s in (slug(label) for label in labels) if s]
    for rule in RULES:
        if any(rule.pattern.fullmatch(s) for s in slugs):
            return rule.type
    return None


@functools.lru_cache(maxsize=1024)
def glob_pattern(glob: str) -> re.Pattern[str]:
    """A path glob as a regex: ``**`` spans folders, ``*`` and ``?`` stay within one;
    ``api/**`` also matches the page ``api`` itself."""
    glob = glob.strip().strip("/")
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("(/.*)?")
            i += 3
        elif glob.startswith("**/", i):
            out.append("(.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


@dataclass(frozen=True)
class TypeGlobs:
    """``types:`` of the sources file, in the order they apply: (glob, type) pairs."""

    entries: tuple[tuple[str, str], ...] = ()

    def type_of(self, path: str) -> str | None:
        path = path.strip("/")
        for glob, doc_type in self.entries:
            if glob_pattern(glob).fullmatch(path):
                return doc_type
        return None


def page_type(
    *,
    path: str,
    title: str = "",
    group: Sequence[str] = (),
    declared: str = "",
    globs: TypeGlobs = TypeGlobs(),
    warn: Callable[[str], None] | None = None,
) -> str:
    """The type of one page: frontmatter (``declared``), then ``globs``, then ``RULES`` over
    the navigation labels, the path segments and the title; ``DEFAULT_TYPE`` otherwise.
    A declared value outside the vocabulary is reported through ``warn`` and skipped."""
    if declared:
        wanted = declared.strip().lower()
        if wanted in DOC_TYPES:
            return wanted
        if warn is not None:
            warn(
                f"page {path!r}: type {declared!r} is not one of {', '.join(DOC_TYPES)}; "
                "typed by the sources file and the page's place instead"
            )
    found = globs.type_of(path)
    if found:
        return found
    for labels in (group, [s for s in path.split("/") if s], [title] if title else []):
        found = rule_type(labels)
        if found:
            return found
    return DEFAULT_TYPE


# ``type:reference`` in a query: a filter on the page type, not words to match. Docwheel's
# own query filter (the other ``word:`` prefixes name index fields).
TYPE_FILTER = re.compile(r"(?<!\S)type:(\S*)")


def query_types(query: str) -> tuple[str, tuple[str, ...]]:
    """``query`` without its ``type:`` filters, and the types they name (lower-cased, in
    order, several joined by commas or given twice: ``type:reference,guide``)."""
    named: list[str] = []
    for match in TYPE_FILTER.finditer(query):
        named += [part.strip().lower() for part in match.group(1).split(",") if part.strip()]
    rest = " ".join(TYPE_FILTER.sub(" ", query).split())
    return rest, tuple(dict.fromkeys(named))
