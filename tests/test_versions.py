"""Versioned copies of a page: which pages are copies, which are old, which queries name a
version (``versions.page_copies``, ``versions.names_version``)."""

from __future__ import annotations

from docwheel.versions import CURRENT, named_versions, page_copies


def _copies(*paths: str, source: str = "docs", version: str = ""):
    copies = page_copies([(source, version, path) for path in paths])
    return list(zip(paths, copies.family, copies.old)), copies.labels


def test_version_folders_beside_the_current_docs_are_old_copies_of_its_pages():
    found, labels = _copies(
        "servers/tools", "v3/servers/tools", "v2/servers/tools", "v3/patterns/cli", "servers/new"
    )
    assert found == [
        ("servers/tools", 0, False),
        ("v3/servers/tools", 0, True),
        ("v2/servers/tools", 0, True),
        # Only in an old version: its own page, and old.
        ("v3/patterns/cli", 3, True),
        ("servers/new", 4, False),
    ]
    assert labels == ["v2", "v3"]


def test_dated_revisions_keep_the_newest_current_and_a_draft_is_not_old():
    found, _ = _copies(
        "specification/2024-11-05/server/logging",
        "specification/2025-03-26/server/logging",
        "specification/draft/server/logging",
        "specification/versioning",
    )
    assert found == [
        ("specification/2024-11-05/server/logging", 0, True),
        ("specification/2025-03-26/server/logging", 0, False),
        ("specification/draft/server/logging", 0, False),
        ("specification/versioning", 3, False),
    ]


def test_a_folder_named_like_a_channel_is_not_a_version_without_numbered_siblings():
    found, labels = _copies("guides/next/steps", "guides/steps", "api/v1/users")
    assert [family for _, family, _ in found] == [0, 1, 2]
    assert not any(old for _, _, old in found)
    assert labels == ["v1"]  # one version only: nothing is older than it


def test_sources_versions_are_copies_and_every_one_but_the_newest_is_old():
    copies = page_copies(
        [("client", "1.4", "install"), ("client", "2.0", "install"), ("hooks", "", "install")]
    )
    assert copies.family == [0, 0, 2]  # another source's page of the same path is not a copy
    assert copies.old == [True, False, False]
    assert copies.labels == ["1.4", "2.0"]


def test_a_query_names_a_version_the_way_people_write_it():
    labels = ["2.14.5", "v2", "v3"]
    assert named_versions("On FastMCP 2.x, how do I register a tool?", labels) == (0, 1)
    assert named_versions("v3 tool transforms", labels) == (2,)
    assert named_versions("what changed in version 3", labels) == (2,)
    assert named_versions("fastmcp 2.14 tools", labels) == (0,)  # not all of v2
    assert named_versions("fastmcp tools", labels) == ()
    assert named_versions("python 3.12 tools", labels) == ()  # a number, not these docs' v3
    assert named_versions("OAuth 2.1 flow", labels) == ()
    assert named_versions("v4 tools", labels) == ()  # not one these docs have
    dated = ["2024-11-05", "2025-03-26", "draft"]
    assert named_versions("draft spec tasks", dated) == (2,)
    assert named_versions("logging in 2024-11-05", dated) == (0,)
    assert named_versions("logging levels", dated) == ()


def test_each_page_knows_its_version_by_position_in_the_labels():
    copies = page_copies([
        ("docs", "", "servers/tools"),
        ("docs", "", "v2/servers/tools"),
        ("docs", "", "servers/new"),  # only in the current docs: still the current version
        ("client", "1.4", "install"),
        ("spec", "", "specification/2025-03-26/tools"),
        ("spec", "", "specification/draft/tools"),
        ("spec", "", "specification/versioning"),  # beside dated folders only: no version
    ])
    assert copies.labels == ["draft", "1.4", "v2", "2025-03-26"]
    assert copies.version == [CURRENT, 2, CURRENT, 1, 3, 0, -1]
