"""Answer checks: the publisher's "this question must find that page", held against an index.

Pure over an open index (a ``DocIndex`` or a ``Library``): ``run_checks`` searches each
check's query the way ``docwheel search`` does and finds the rank of its expected refs;
``miss_line``, ``table`` and ``record`` put the results into words. The build fails on a
miss (``build.hold_checks``) and records the ranks in the manifest; ``docwheel check``
prints the table.

Where a rank is read:

- a page ref (``source:path``) is found by the page's result in the page list (what
  ``docwheel search`` and ``search_docs`` return: one result per page, from whichever of
  its sections matched best);
- a section ref (``source:path#anchor``) is found only by that section, in the list of best
  sections (``docwheel search --sections``), so a page found through another section does
  not count for it;
- a ref to a heading deeper than the section split (``page#deep-anchor``) is found by a
  section result whose URL opens at it, that is, whose best match lies under that heading;
- a page listed as another version of a result (``Hit.other_versions``: a ``v2/`` copy, an
  older ``version:``) is found at that result's rank.

A check with several refs passes when any of them is within ``within``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .config import MAX_WITHIN, Check
from .errors import ConfigError, QueryError, UnknownRefError
from .models import Document, PageOutline, SearchResult

DEPTH = MAX_WITHIN  # results read per search: a miss says "not in the top 20"
TOP = 3  # refs a miss names, so the report shows what answered instead


class Searchable(Protocol):
    """What a check needs from the docs: ``DocIndex`` and ``Library`` both have it."""

    parts: Sequence[object]

    def search(self, query: str, **options: object) -> SearchResult: ...

    def read(self, ref: str) -> Document: ...

    def outline(
        self, source: str | None = None, version: str | None = None
    ) -> list[PageOutline]: ...


@dataclass(frozen=True)
class CheckResult:
    """How one check fared: the best rank any expected ref reached (None: not in the top
    ``DEPTH``), which ref that was, and the first refs of the list it was read from."""

    check: Check
    rank: int | None
    found: str | None
    top: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.rank is not None and self.rank <= self.check.within


def run_checks(checks: Sequence[Check], docs: Searchable, *, origin: str) -> list[CheckResult]:
    """Run every check against ``docs``. An expected ref the docs do not have, or a filter
    they cannot search, is a ``ConfigError`` naming the check (``checks[2].expect: unknown
    page …``), every one at once; a miss is a result, for the caller to judge."""
    problems = ref_problems(checks, docs)
    if problems:
        raise ConfigError(origin, problems)
    results = []
    for check in checks:
        try:
            results.append(run_check(check, docs))
        except QueryError as exc:
            problems.append(f"{check.place}: {exc}")
    if problems:
        raise ConfigError(origin, problems)
    return results


def run_check(check: Check, docs: Searchable) -> CheckResult:
    """One check: its page refs ranked in the page list, its section refs in the section
    list (one search each, only for the kinds it has); the better rank wins."""
    pages = [ref for ref in check.expect if "#" not in ref]
    sections = [ref for ref in check.expect if "#" in ref]
    best: tuple[int, str] | None = None
    top: tuple[str, ...] = ()
    for wanted, by_section in ((pages, False), (sections, True)):
        if not wanted:
            continue
        found = docs.search(
            check.query, source=check.source, version=check.version, limit=DEPTH,
            sections=by_section, mode=check.mode, document_type=check.document_type,
        )
        top = top or tuple(hit.ref for hit in found.results[:TOP])
        for rank, hit in enumerate(found.results, 1):
            # A page listed as another version of a result (a v2/ copy, an older version:)
            # is found with it.
            page = hit.ref.partition("#")[0]
            if by_section:
                opens_at = hit.url.partition("#")[2]
                keys = [hit.ref, f"{page}#{opens_at}"] if opens_at else [hit.ref]
            else:
                keys = [page, *hit.other_versions]
            match = next((key for key in keys if key in wanted), None)
            if match is not None:
                if best is None or rank < best[0]:
                    best = (rank, match)
                break
    return CheckResult(check, best[0] if best else None, best[1] if best else None, top)


def ref_problems(checks: Sequence[Check], docs: Searchable) -> list[str]:
    """What only the built docs can tell: expected pages and sections that are not there,
    and a check asking for meaning on docs without semantic vectors."""
    semantic = any(getattr(part, "semantic", None) for part in docs.parts)
    found: list[str | tuple[str, str]] = []  # a problem, or (place, ref) of an unknown ref
    for check in checks:
        if check.mode == "hybrid" and not semantic:
            found.append(
                f"{check.place}.mode: hybrid, but these docs have no semantic vectors "
                "(they were built without semantic:)"
            )
        for n, ref in enumerate(check.expect):
            try:
                docs.read(ref)  # a lookup by ref, not a pass over the whole index
            except UnknownRefError:
                many = len(check.expect) > 1
                found.append((f"{check.place}.expect" + (f"[{n}]" if many else ""), ref))
    if not any(isinstance(item, tuple) for item in found):
        return [item for item in found if isinstance(item, str)]
    # Only now, to name the closest refs: every page and section.
    outline = docs.outline(version="all")
    pages = [page.ref for page in outline]
    sections_of = {page.ref: [entry.ref for entry in page.sections] for page in outline}
    return [
        item if isinstance(item, str) else _unknown(*item, pages, sections_of) for item in found
    ]


def _unknown(where: str, ref: str, pages: list[str], sections_of: dict[str, list[str]]) -> str:
    page, _, anchor = ref.partition("#")
    if not anchor:
        return f"{where}: unknown page {ref!r}{_did_you_mean(ref, pages, ':')}"
    if page not in sections_of:
        return (
            f"{where}: unknown section {ref!r} "
            f"(no page {page!r}{_did_you_mean(page, pages, ':', inner=True)})"
        )
    hint = _did_you_mean(ref, sections_of[page], "#")
    if not hint:
        listed = ", ".join(f"#{r.partition('#')[2]}" for r in sections_of[page][:8])
        hint = f" (its sections: {listed})" if listed else " (the page has no sections)"
    return f"{where}: unknown section {ref!r}{hint}"


def _did_you_mean(ref: str, refs: Sequence[str], cut: str, *, inner: bool = False) -> str:
    """`` (did you mean 'x'?)`` for the refs closest to ``ref``. Refs that share its part
    before ``cut`` (the source, the page) are compared by the rest, so a shared prefix does
    not make every ref look close; the others by the whole ref."""
    head, _, tail = ref.rpartition(cut)
    same = {r.rpartition(cut)[2]: r for r in refs if r.rpartition(cut)[0] == head}
    close = [same[t] for t in difflib.get_close_matches(tail, list(same), n=3, cutoff=0.6)]
    others = [r for r in refs if r.rpartition(cut)[0] != head]
    close = close or difflib.get_close_matches(ref, others, n=3, cutoff=0.6)
    if not close:
        return ""
    asked = " or ".join(map(repr, close))
    return f"; did you mean {asked}?" if inner else f" (did you mean {asked}?)"


# -- in words ----------------------------------------------------------------------------


def describe_check(check: Check) -> str:
    """``checks[1] 'rotate keys' (source api)``: the check as a report names it."""
    filters = [f"{name} {value}" for name, value in _filters(check).items()]
    where = f" ({', '.join(filters)})" if filters else ""
    return f"{check.place} {check.query!r}{where}"


def miss_line(result: CheckResult) -> str:
    """One line for a miss: the query, what it had to find, where that ranked, what ranked
    first instead."""
    check = result.check
    if result.rank is None:
        reached = f"not in the top {DEPTH}"
    else:
        which = f" ({result.found})" if len(check.expect) > 1 else ""
        reached = f"got rank {result.rank}{which}"
    top = ", ".join(result.top) if result.top else "no results"
    return (
        f"{describe_check(check)}: expected {' or '.join(check.expect)} within {check.within}, "
        f"{reached}; top {TOP}: {top}"
    )


def summary(results: Sequence[CheckResult]) -> str:
    """``answer checks: all 5 held`` or ``answer checks: 2 of 5 missed``."""
    missed = sum(1 for r in results if not r.passed)
    if not missed:
        return f"answer checks: all {len(results)} held"
    return f"answer checks: {missed} of {len(results)} missed"


def table(results: Sequence[CheckResult]) -> str:
    """The results as a plain-text table (query, expected, rank, within, result) and a
    summary line; a miss's top results follow the table."""
    rows = [("query", "expected", "rank", "within", "result")]
    for r in results:
        rank = str(r.rank) if r.rank is not None else f">{DEPTH}"
        rows.append((
            r.check.query, r.found or " or ".join(r.check.expect), rank, str(r.check.within),
            "pass" if r.passed else "FAIL",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numbers = (2, 3)  # rank and within, right-aligned
    lines = [
        "  ".join(
            cell.rjust(width) if i in numbers else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]
    misses = [f"  {miss_line(r)}" for r in results if not r.passed]
    return "\n".join([*lines, "", summary(results), *misses]) + "\n"


def record(result: CheckResult) -> dict:
    """A result as JSON (the manifest's ``checks`` and ``docwheel check --json``); filters
    that were not set are left out."""
    check = result.check
    data: dict = {"query": check.query, "expect": list(check.expect), "within": check.within}
    data.update(_filters(check))
    data.update(rank=result.rank, found=result.found, passed=result.passed, top=list(result.top))
    return data


def _filters(check: Check) -> dict[str, str]:
    given = {
        "source": check.source, "version": check.version, "mode": check.mode,
        "document_type": check.document_type,
    }
    return {name: value for name, value in given.items() if value}


__all__ = [
    "DEPTH", "CheckResult", "describe_check", "miss_line", "record", "ref_problems",
    "run_check", "run_checks", "summary", "table",
]
