"""MkDocs (and Material for MkDocs): ``mkdocs.yml`` beside or above the docs folder.

What its documentation says, and this module does:
- A page ``guide/install.md`` is served at ``guide/install/`` (``use_directory_urls``, on by
  default) or ``guide/install.html`` when it is off; ``index.md`` or ``README.md`` is its
  folder's page (``guide/`` or ``guide/index.html``).
- Heading ids come from Python-Markdown's toc extension: accents folded to ASCII, other
  punctuation dropped, ``-`` between words, repeats numbered ``_1``, ``_2``; an attr_list
  ``{ #custom-id }`` sets the id.
- ``nav:`` names pages with titles and puts them in sections (``Page.group``).
- ``exclude_docs`` (gitignore-style lines) and ``not_in_nav`` keep files out of the site; the
  first is read, as globs.
- With the ``mkdocs-jupyter`` plugin, ``.ipynb`` notebooks are pages too, served as a
  Markdown page of the same name is (``demo.ipynb`` at ``demo/``), titled by its first H1,
  its headings given MkDocs' ids (the plugin slugifies them as Python-Markdown's toc
  does). Of its options, ``include`` (globs of the files converted; a ``.py`` script is
  converted through Jupytext, which docwheel does not run), ``ignore``,
  ``no_input``/``show_input`` and ``remove_tag_config`` (nbconvert's tag removal) are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

from .markdown import page_path_from_url
from .notebook import NBCONVERT_RAW, NotebookRules
from .site import SUFFIXES, Generator, Navigation, Settings, Warn, excluded, strip_suffix

JUPYTER_PLUGIN = "mkdocs-jupyter"
# What MkDocs lists as pages beside notebooks: every Markdown file (rst as docwheel reads
# any folder's .rst).
_PAGE_SUFFIXES = tuple(
    (suffix, "rst" if suffix == ".rst" else "markdown") for suffix in SUFFIXES if suffix != ".ipynb"
)
_ADMONITION = re.compile(r"^(?:!!!|\?\?\?\+?)[ \t]+\w", re.M)
_TAB = re.compile(r'^===\+?[ \t]+"', re.M)


class MkDocs(Generator):
    name = "mkdocs"
    config_files = ("mkdocs.yml", "mkdocs.yaml")
    anchors = "mkdocs"

    def settings(self, config: Path | None, root: Path, warn: Warn) -> Settings:
        data = _load(config, warn)
        clean = data.get("use_directory_urls")
        exclude = data.get("exclude_docs")
        patterns = tuple(
            _glob(line.strip())
            for line in (exclude.splitlines() if isinstance(exclude, str) else ())
            if line.strip() and not line.strip().startswith(("#", "!"))
        )
        jupyter = _plugin(data.get("plugins"), JUPYTER_PLUGIN)
        suffixes: tuple[tuple[str, str], ...] = ()
        rules = NotebookRules()
        if jupyter is not None:
            suffixes = _PAGE_SUFFIXES + ((".ipynb", "notebook"),)
            patterns += _jupyter_ignored(jupyter)
            rules = _jupyter_rules(jupyter)
        return Settings(
            clean_urls=clean if isinstance(clean, bool) else None,
            trailing_slash=True,
            exclude=patterns,
            page_suffixes=suffixes,
            notebook_rules=rules,
        )

    def note(self, settings: Settings) -> str:
        notebooks = any(syntax == "notebook" for _, syntax in settings.page_suffixes)
        return f"notebooks: .ipynb ({JUPYTER_PLUGIN})" if notebooks else ""

    def url_path(self, rel: str, meta: Mapping, settings: Settings) -> str:
        path = strip_suffix(rel)
        folder, _, name = path.rpartition("/")
        clean = settings.clean_urls is not False
        if name.lower() in ("index", "readme"):
            base = f"{folder}/" if folder else ""
            return base if clean else base + "index.html"
        return f"{path}/" if clean else f"{path}.html"

    def navigation(self, config: Path | None, root: Path, warn: Warn) -> Navigation | None:
        data = _load(config, warn)
        nav = data.get("nav")
        if not isinstance(nav, list) or config is None:
            return None
        # nav paths are relative to docs_dir, which is where the source folder points.
        groups: dict[str, tuple[str, ...]] = {}
        titles: dict[str, str] = {}
        for path, labels, title in _nav_entries(nav, ()):
            key = page_path_from_url(path)
            groups.setdefault(key, labels)
            if title:
                titles.setdefault(key, title)
        return Navigation(config.name, groups, titles)

    def sniff(self, rel: str, text: str) -> int:
        return len(_ADMONITION.findall(text)) + len(_TAB.findall(text))


GENERATOR = MkDocs()


def _plugin(plugins: object, name: str) -> dict | None:
    """The options of plugin ``name`` in ``plugins:`` (a list of names or one-key maps, or
    a map), ``{}`` when it has none, None when it is not there."""
    entries = plugins.items() if isinstance(plugins, dict) else (
        next(iter(item.items())) if isinstance(item, dict) and len(item) == 1 else (item, None)
        for item in (plugins if isinstance(plugins, list) else ())
    )
    for key, options in entries:
        if key == name:
            return options if isinstance(options, dict) else {}
    return None


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _jupyter_ignored(options: dict) -> tuple[str, ...]:
    """Notebooks mkdocs-jupyter leaves as plain files: matched by no ``include`` glob or
    by an ``ignore`` one."""
    include = _strings(options.get("include")) or ("*.py", "*.ipynb", "*.md")
    # The plugin matches both with ``PurePath.match`` (from the right) against the file's
    # full path, as ``excluded`` does against its path in the docs folder; a leading
    # ``*/`` stands for a folder that may be above the docs folder.
    ignored = tuple(p.removeprefix("*/") for p in _strings(options.get("ignore")))
    if not any(excluded("x.ipynb", (p,)) or p.endswith(".ipynb") for p in include):
        ignored += ("**/*.ipynb",)
    return ignored


def _jupyter_rules(options: dict) -> NotebookRules:
    """mkdocs-jupyter converts with nbconvert: only the tags ``remove_tag_config`` names
    remove anything; ``no_input: true`` or ``show_input: false`` drop all code."""
    tags = options.get("remove_tag_config")
    tags = tags if isinstance(tags, dict) else {}
    show = options.get("show_input", True) is not False and options.get("no_input") is not True
    return NotebookRules(
        remove_cell=frozenset(_strings(tags.get("remove_cell_tags"))),
        remove_input=frozenset(_strings(tags.get("remove_input_tags"))),
        remove_output=frozenset(_strings(tags.get("remove_all_outputs_tags"))),
        remove_streams=False,
        hidden_metadata=False,
        show_input=show,
        raw=NBCONVERT_RAW,
        # Heading ids stay MkDocs': the plugin gives nbconvert's headings the ids of
        # Python-Markdown's toc slugify, so that its page TOC links work.
    )


def _glob(line: str) -> str:
    """An ``exclude_docs`` line (gitignore syntax) as a glob: ``drafts/`` is that folder
    anywhere, a name without '/' matches at any depth, ``/x`` only at the top."""
    anchored = line.startswith("/")
    pattern = line.strip("/") + ("/**" if line.endswith("/") else "")
    return pattern if anchored or "/" in line.strip("/") else "**/" + pattern


class _Lenient(yaml.SafeLoader):
    """mkdocs.yml uses Python tags (``!!python/name:material.extensions.emoji.twemoji``)
    and ``!ENV``: read them as plain values instead of failing."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_Lenient.add_multi_constructor("", _any_tag)


def _load(config: Path | None, warn: Warn) -> dict:
    if config is None:
        return {}
    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Lenient)  # noqa: S506
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        warn(f"{config.name}: cannot be read ({type(exc).__name__}); MkDocs defaults assumed")
        return {}
    return data if isinstance(data, dict) else {}


def _nav_entries(
    node: object, labels: tuple[str, ...]
) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """(page file, section labels, nav title) for each page of an MkDocs ``nav:``."""
    if isinstance(node, str):
        if "://" not in node:
            yield node, labels, None
    elif isinstance(node, list):
        for item in node:
            yield from _nav_entries(item, labels)
    elif isinstance(node, dict):
        for title, value in node.items():
            title = str(title).strip()
            if isinstance(value, str):
                if "://" not in value:
                    yield value, labels, title or None
            else:
                yield from _nav_entries(value, (*labels, title) if title else labels)
