"""The real documentation corpora in ../shared/corpora, built through the real build.

Each corpus is built once per module (about 50 s for all seven, most of it writing the
Whoosh index) and checked against what its SOURCE.md states: the page count, that no page
or section title comes from inside a code fence, that every page has a URL, and that no MDX
``import``/``export`` line or ``<Component`` tag reaches the indexed text. Skipped when the
corpora folder is absent (it is not part of this repository).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

import docwheel
from docwheel.build import build_index
from docwheel.config import parse_config
from docwheel.sources import MARKDOWN_SUFFIXES, SKIP_DIRS

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"

pytestmark = pytest.mark.skipif(not CORPORA.is_dir(), reason=f"{CORPORA} is not available")


class Corpus(NamedTuple):
    kind: str
    path: str  # inside the corpus folder
    base_url: str
    layout: str
    # The docs generator a publisher names (``generator:``) and docwheel also detects.
    generator: str | None = None


CORPUS = {
    "mcp-llms-full": Corpus(
        "llms-full", "llms-full.txt", "https://modelcontextprotocol.io/", "mintlify"
    ),
    "sinon-llms-full": Corpus("llms-full", "llms-full.txt", "https://sinonjs.org/", "vitepress"),
    "apostrophe-llms-full": Corpus(
        "llms-full", "llms-full.txt", "https://apostrophecms.com/docs/", "rule-blocks"
    ),
    "litellm-llms-full": Corpus(
        "llms-full", "llms-full.txt", "https://docs.litellm.ai/", "firecrawl"
    ),
    "mcp-docs": Corpus(
        "markdown", "docs", "https://modelcontextprotocol.io/", "markdown", "mintlify"
    ),
    "mcp-docs-mintjson": Corpus(
        "markdown", "docs", "https://modelcontextprotocol.io/", "markdown", "mintlify"
    ),
    "fastmcp-docs": Corpus("markdown", "docs", "https://gofastmcp.com/", "markdown", "mintlify"),
    "uv-docs": Corpus("markdown", "docs", "https://docs.astral.sh/uv/", "markdown", "mkdocs"),
    "prettier-docs": Corpus(
        "markdown", "docs", "https://prettier.io/docs/", "markdown", "docusaurus"
    ),
    "vitest-docs": Corpus("markdown", "docs", "https://vitest.dev/", "markdown", "vitepress"),
    "starlight-docs": Corpus(
        "markdown", "docs", "https://starlight.astro.build/", "markdown", "starlight"
    ),
    "flask-docs": Corpus(
        "markdown", "docs", "https://flask.palletsprojects.com/en/stable/", "markdown", "sphinx"
    ),
}


class Built(NamedTuple):
    manifest: dict
    index: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    """Build a corpus the first time a test asks for it; later tests reuse the index."""
    cache: dict[str, Built] = {}

    def get(name: str) -> Built:
        if name not in cache:
            corpus = CORPUS[name]
            config = parse_config(
                {
                    "name": "corpora",
                    # As a publisher writes it: no allow_secrets: (the docs hold only
                    # placeholders and toy values, which the secret scan lets pass).
                    "sources": [
                        {
                            "name": "docs",
                            "kind": corpus.kind,
                            "path": corpus.path,
                            "base_url": corpus.base_url,
                            **({"generator": corpus.generator} if corpus.generator else {}),
                        }
                    ],
                },
                base_dir=CORPORA / name,
                origin=f"{name}/docwheel.yaml",
            )
            out = tmp_path_factory.mktemp(name) / "index"
            cache[name] = Built(build_index(config, out), out)
        return cache[name]

    return get


def expected_pages(name: str) -> int:
    """The page count SOURCE.md states, minus the files docwheel rightly does not index.

    The count is read from the "files / size" row of the table. llms-full corpora state
    "N pages". Markdown trees state "N pages" (fastmcp), "N `.mdx`" files (mcp-docs,
    mcp-docs-mintjson) or "N `.md`" files (the others). Either count includes Mintlify's
    ``snippets/`` folder, which holds fragments that pages import, not pages the site
    serves (docwheel skips it, see ``sources.SKIP_DIRS``): one file in each tree; and the
    fragments other pages include (``<!--@include: -->``, ``--8<--``), which are part of
    those pages. No page in these corpora sets ``noindex``/``hidden``.
    """
    source_md = (CORPORA / name / "SOURCE.md").read_text(encoding="utf-8")
    row = next(line for line in source_md.splitlines() if line.startswith("| files / size |"))
    m = re.search(r"\b(\d+) pages\b", row)
    files = [int(n) for n in re.findall(r"\b(\d+) `\.(?:mdx?|rst)`", row)]  # "33 `.mdx`, 4 `.md`"
    assert m is not None or files, f"{name}/SOURCE.md states no page or file count: {row}"
    count = int(m.group(1)) if m else sum(files)
    corpus = CORPUS[name]
    if corpus.kind == "markdown":
        root = CORPORA / name / corpus.path
        count -= sum(1 for f in _markdown_files(root) if set(f.relative_to(root).parts) & SKIP_DIRS)
        count -= len(included_fragments(root))
    return count


_INCLUDE_TARGET = re.compile(
    r"<!--\s*@include:\s*(\S+?)\s*-->|^\s*--8<--\s+[\"'](\S+?)[\"']", re.M
)


def included_fragments(root: Path) -> set[Path]:
    """The files of the tree that another file includes, read independently of docwheel:
    relative to the including file, or (``--8<--``) to the tree's parent folder."""
    found = set()
    for file in _markdown_files(root):
        text = file.read_text(encoding="utf-8", errors="replace")
        for m in _INCLUDE_TARGET.finditer(text):
            if m.group(1):
                target = (file.parent / m.group(1)).resolve()
            else:
                target = (root.parent / m.group(2)).resolve()
            if target.is_file() and target.is_relative_to(root.resolve()):
                found.add(target)
    return found


def _markdown_files(root: Path) -> Iterator[Path]:
    return (p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in MARKDOWN_SUFFIXES)


# -- an independent reading of the raw files: what is inside fences and what is not -------

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_LABEL = re.compile(r"^(?:#{1,6}\s+|(?:title|sidebarTitle|TITLE|NAV_PATH):\s*)")


def _fenced(lines: list[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it lies inside a fenced code block (fence lines count as in)."""
    fence: tuple[str, int] | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = (m.group(1)[0], len(m.group(1)))
                yield line, True
            else:
                yield line, False
        else:
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= fence[1]
                and not m.group(2).strip()
            ):
                fence = None
            yield line, True


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def fence_only_headings(name: str) -> set[str]:
    """Heading-like lines found only inside code fences (``# Using uvx`` in a bash sample).

    A text that also appears outside fences (as a heading, a frontmatter title or a
    navigation crumb) may legitimately be a title, so it is not counted.
    """
    corpus = CORPUS[name]
    root = CORPORA / name / corpus.path
    files = [root] if root.is_file() else list(_markdown_files(root))
    inside: set[str] = set()
    outside: set[str] = set()
    for file in files:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        for line, fenced in _fenced(lines):
            if fenced:
                m = _ATX.match(line)
                if m:
                    inside.add(_norm(m.group(1)))
            else:
                label = _LABEL.sub("", line.strip()).strip("'\" ")
                outside.update(_norm(part) for part in label.split(">"))
    return inside - outside - {""}


# MDX that must never reach the index, looked for outside fences and inline code.
_CODE_SPAN = re.compile(r"(`+).+?\1")
_ESM_LINE = re.compile(
    r"^\s*(?:import\s+[\w{*][^'\"]*\bfrom\s+['\"]|import\s+['\"]"
    r"|export\s+(?:const|let|var|function|default|class|async)\b)"
)
_COMPONENT = re.compile(r"(?<![\w\\])</?[A-Z][\w.]*(?=[\s/>]|$)")


def mdx_leftovers(text: str) -> list[str]:
    leftovers = []
    for line, fenced in _fenced(text.split("\n")):
        if fenced:
            continue
        prose = _CODE_SPAN.sub("", line)
        if _ESM_LINE.match(prose) or _COMPONENT.search(prose):
            leftovers.append(line)
    return leftovers


# -- the checks ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CORPUS))
def test_page_count_layout_and_warnings_match_source_md(built, name: str) -> None:
    (source,) = built(name).manifest["sources"]
    assert source["pages"] == expected_pages(name)
    assert source["layout"] == CORPUS[name].layout
    assert source["warnings"] == []  # every quirk of these corpora is a known one


@pytest.mark.parametrize("name", list(CORPUS))
def test_no_page_or_section_title_comes_from_inside_a_code_fence(built, name: str) -> None:
    fence_only = fence_only_headings(name)
    with docwheel.open_index(built(name).index) as docs:
        pages = docs.outline()
    titles = [("page", p.ref, p.title) for p in pages]
    titles += [("section", s.ref, s.heading) for p in pages for s in p.sections]
    wrong = [(what, ref, title) for what, ref, title in titles if _norm(title) in fence_only]
    assert wrong == []


@pytest.mark.parametrize("name", list(CORPUS))
def test_every_page_has_an_absolute_url_on_its_site(built, name: str) -> None:
    host = CORPUS[name].base_url.split("/")[2]
    with docwheel.open_index(built(name).index) as docs:
        pages = docs.outline()
    assert [p.ref for p in pages if not p.url.startswith(f"https://{host}/")] == []


@pytest.mark.parametrize("name", list(CORPUS))
def test_no_mdx_import_export_or_component_tag_reaches_the_index(built, name: str) -> None:
    found = {}
    with docwheel.open_index(built(name).index) as docs:
        for page in docs.outline():
            leftovers = mdx_leftovers(docs.read(page.ref).text)
            if leftovers:
                found[page.ref] = leftovers[:3]
    assert found == {}


def test_the_mcp_pair_yields_matching_pages_from_tree_and_llms_full(built) -> None:
    """mcp-docs-mintjson and mcp-llms-full are the same pages: their URLs overlap."""
    with docwheel.open_index(built("mcp-docs-mintjson").index) as tree:
        tree_pages = {p.url: p.title for p in tree.outline()}
    with docwheel.open_index(built("mcp-llms-full").index) as full:
        full_pages = {p.url: p.title for p in full.outline()}
    architecture = "https://modelcontextprotocol.io/docs/concepts/architecture"
    assert tree_pages[architecture] == full_pages[architecture] == "Core architecture"
    assert len(set(tree_pages) & set(full_pages)) >= 15


# -- what a reader never sees: block markers, include lines, placeholders ------------------

_MARKER_LINE = re.compile(
    r"""^\s*(?:(?:!!!|\?\?\?\+?)\s+\w"""  # MkDocs admonitions
    r"""|===[!+]?\s+"|={2,3}\s+\S"""  # content tabs (pymdownx, vitepress-plugin-tabs)
    r"""|:{3,}|/{3,}\s*[A-Za-z]"""  # containers, asides, pymdownx blocks, ::: stubs
    r"""|;?--8<--|<<<\s|\{\*\s|<!--\s*@include:"""  # include lines
    r"""|\([\w.:/-]+\)=\s*$)"""  # MyST targets
)
# `style={{…}}` is a JSX attribute holding an object, not a placeholder.
_PLACEHOLDER = re.compile(r"(?<!=)\{\{.*?\}\}|\{%.*?%\}|(?<![\w%])%[A-Z][A-Z0-9_]{2,}%(?![\w%])")


def marker_leftovers(text: str) -> list[str]:
    """Lines outside fences with a block marker, an include or a template placeholder
    outside inline code."""
    found = []
    for line, fenced in _fenced(text.split("\n")):
        if fenced:
            continue
        if _MARKER_LINE.match(line) or _PLACEHOLDER.search(_CODE_SPAN.sub("", line)):
            found.append(line)
    return found


@pytest.mark.parametrize("name", list(CORPUS))
def test_no_block_marker_include_or_placeholder_reaches_the_index(built, name: str) -> None:
    found = {}
    with docwheel.open_index(built(name).index) as docs:
        for page in docs.outline():
            labels = [page.title, *(s.heading for s in page.sections)]
            leftovers = [t for t in labels if marker_leftovers(t)]
            leftovers += marker_leftovers(docs.read(page.ref).text)
            if leftovers:
                found[page.ref] = leftovers[:3]
    assert found == {}


# -- links into pages: how many of a docs set's own anchors docwheel knows ----------------

# Every corpus whose pages link to one another, with the site its links are written against.
LINKED = {
    **{name: (c.kind, c.path, c.base_url) for name, c in CORPUS.items()},
    "uv-docs": ("markdown", "docs", "https://docs.astral.sh/uv/"),
    "prettier-docs": ("markdown", "docs", "https://prettier.io/docs/"),
    "vitest-docs": ("markdown", "docs", "https://vitest.dev/"),
    "starlight-docs": ("markdown", "docs", "https://starlight.astro.build/"),
}

_LINK_TARGET = re.compile(r"\]\(\s*<?([^)\s>]*#[^)\s>]*)>?(?:\s+[\"'][^)]*[\"'])?\s*\)")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S*#\S*?)>?(?:\s|$)")


class AnchorLinks(NamedTuple):
    """A docs set's own links to ``page#anchor`` (pages it holds), and how many land on an
    anchor docwheel knows: a section's anchor only (``sections``), or also one inside a
    section (``anchors``: deeper headings, HTML anchors)."""

    links: int
    sections: int
    anchors: int
    missed: tuple[str, ...]  # a few links that land on no known anchor, for a reader


def page_links(pages: list, base_url: str) -> Iterator[tuple[object, str, str]]:
    """(linking page, linked page path, anchor) for each link with an anchor, outside code,
    that names a page of the same site: ``](#a)``, ``](page.md#a)``, ``](/guide/x#a)``,
    ``](https://site/x#a)`` and reference definitions ``[x]: page.md#a``. Links are resolved
    against the linking page's URL, as a browser does; the linked page is named by
    ``site_path`` of the URL."""
    from urllib.parse import unquote, urljoin

    from docwheel.formats.markdown import PROSE, classify_lines

    for page in pages:
        for section in page.sections:
            lines = section.text.split("\n")
            for line, kind in zip(lines, classify_lines(lines)):
                if kind != PROSE or "#" not in line:
                    continue
                line = _CODE_SPAN.sub("", line)
                targets = _LINK_TARGET.findall(line) + _LINK_DEFINITION.findall(line)
                for target in targets:
                    url, _, anchor = urljoin(page.url, target).partition("#")
                    if not anchor or not url.startswith(base_url):
                        continue
                    yield page, site_path(url, base_url), unquote(anchor)


def site_path(url: str, base_url: str) -> str:
    """A page's place on its site: its URL after ``base_url``, as docwheel makes page paths
    (``markdown.page_path_from_url``); links and pages are matched by it."""
    from docwheel.formats.markdown import page_path_from_url

    return page_path_from_url(url[len(base_url) :] if url.startswith(base_url) else url)


def anchor_links(name: str) -> AnchorLinks | None:
    """``AnchorLinks`` of corpus ``name``, from its pages as docwheel parses them (no index
    is built); None when docwheel reads no pages from it."""
    from docwheel.errors import SourceError
    from docwheel.sources import load_source

    kind, path, base_url = LINKED[name]
    config = parse_config(
        {
            "name": name,
            "sources": [{"name": "docs", "kind": kind, "path": path, "base_url": base_url}],
        },
        base_dir=CORPORA / name,
        origin=f"{name}/docwheel.yaml",
    )
    try:
        pages = load_source(config.sources[0], fetch=lambda url: None).pages
    except SourceError:
        return None
    by_path = {site_path(page.url, base_url): page for page in pages}
    links = sections = anchors = 0
    missed: list[str] = []
    for page, linked, anchor in page_links(pages, base_url):
        target = by_path.get(linked)
        if target is None:
            continue  # a page the corpus does not hold (generated reference, another site)
        links += 1
        own = {s.anchor for s in target.sections}
        inside = {a.anchor for s in target.sections for a in s.anchors}
        sections += anchor in own
        anchors += anchor in own or anchor in inside
        if anchor not in own and anchor not in inside and len(missed) < 3:
            missed.append(f"{site_path(page.url, base_url)} -> {linked}#{anchor}")
    return AnchorLinks(links, sections, anchors, tuple(missed))


def plain_slugger_share(name: str) -> float | None:
    """The share of the same links a plain slugger lands: every heading of every level of
    each raw file, slugged both GitHub's and VitePress's way, plus its ``{#id}`` — no
    generator rules, no includes. The bar docwheel must reach where 97% is out of reach."""
    from docwheel.formats.headings import slugify, slugify_vitepress
    from docwheel.formats.markdown import PROSE, classify_lines
    from docwheel.sources import load_source

    kind, path, base_url = LINKED[name]
    root = CORPORA / name / path
    if kind != "markdown":
        return None
    slugs: dict[str, set[str]] = {}
    for file in _markdown_files(root):
        lines = file.read_text(encoding="utf-8", errors="replace").split("\n")
        found: set[str] = set()
        for line, kind_ in zip(lines, classify_lines(lines)):
            m = _ATX.match(line) if kind_ == PROSE else None
            if m:
                custom = re.search(r"\{\s*#([^}\s]+)[^}]*\}\s*$", m.group(1))
                text = re.sub(r"\s*\{[^}]*\}\s*$", "", m.group(1))
                found |= {slugify(text), slugify_vitepress(text), *(custom.groups() if custom else ())}
        rel = file.relative_to(root).as_posix()
        slugs[rel.rsplit(".", 1)[0]] = found
    config = parse_config(
        {"name": name, "sources": [{"name": "docs", "kind": kind, "path": path, "base_url": base_url}]},
        base_dir=CORPORA / name,
        origin=f"{name}/docwheel.yaml",
    )
    pages = load_source(config.sources[0], fetch=lambda url: None).pages
    by_path = {site_path(page.url, base_url): page for page in pages}
    links = landed = 0
    for _page, linked, anchor in page_links(pages, base_url):
        target = by_path.get(linked)
        if target is None:
            continue
        links += 1
        own = slugs.get(target.path, set()) | slugs.get(f"{target.path}/index", set())
        landed += anchor in own
    return landed / links if links else None


def test_links_to_deep_anchors_land_on_anchors_docwheel_knows() -> None:
    """Prints (``-s``) per corpus the share of its own page#anchor links that land on a
    known anchor: on section anchors only, with the anchors inside sections, and what a
    plain slugger lands. A docs tree lands at least 97% of its links, or as many as the
    plain slugger where that is lower (links the docs' own authors left dead)."""
    rows = {name: anchor_links(name) for name in LINKED if (CORPORA / name).is_dir()}
    print(f"\n{'corpus':<22} {'links':>6} {'sections':>9} {'+ anchors':>10} {'plain':>7}  missed, e.g.")
    short = []
    for name, found in rows.items():
        if found is None or not found.links:
            print(f"{name:<22} {'-':>6}")
            continue
        sections, anchors = (f"{n / found.links:.1%}" for n in (found.sections, found.anchors))
        plain = plain_slugger_share(name)
        shown = f"{plain:.1%}" if plain is not None else "-"
        missed = "; ".join(found.missed)
        print(f"{name:<22} {found.links:>6} {sections:>9} {anchors:>10} {shown:>7}  {missed}")
        if plain is not None and found.anchors / found.links < min(0.97, plain):
            short.append(name)
    assert all(found.anchors >= found.sections for found in rows.values() if found is not None)
    assert short == []


@pytest.mark.parametrize("name", [n for n, c in CORPUS.items() if c.generator])
def test_each_docs_tree_is_detected_as_its_generator(name: str) -> None:
    from docwheel.formats.generators import detect

    assert detect(CORPORA / name / CORPUS[name].path).generator.name == CORPUS[name].generator


_ATTR_LEFTOVER = re.compile(r"\{\s*:?\s*[#.][\w-]")


@pytest.mark.parametrize("name", list(CORPUS))
def test_no_attribute_list_stays_in_a_title_or_heading(built, name: str) -> None:
    found = []
    with docwheel.open_index(built(name).index) as docs:
        for page in docs.outline():
            for label in (page.title, *(s.heading for s in page.sections)):
                if _ATTR_LEFTOVER.search(label):
                    found.append((page.ref, label))
    assert found == []
