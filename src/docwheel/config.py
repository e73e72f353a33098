"""Load and validate the sources file.

The file names a snapshot and lists its sources. Validation collects every problem, each
named by its place (``sources[2].url: missing``), and raises them together in one
``ConfigError``: fixing a sources file should take one run, not one run per typo.

``parse_config`` is the pure part (already-loaded YAML in, ``Config`` out); ``load_config``
adds reading the file and YAML errors with their line and column.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from .doctypes import DOC_TYPES, TypeGlobs
from .errors import ConfigError
from .formats.llms import LAYOUT_NAMES
from .formats.generators import NAMES as GENERATOR_NAMES
from .formats.headings import ANCHOR_STYLES

KINDS: tuple[str, ...] = ("llms-full", "llms-txt", "markdown")
# Other names a sources file may use for a kind: ``docs`` says what a folder of Markdown,
# MDX and reStructuredText pages is better than ``markdown`` does.
KIND_ALIASES = {"docs": "markdown"}
CONFIG_ENV_VAR = "DOCWHEEL_CONFIG"

_TOP_KEYS = (
    "name", "description", "sources", "offline", "allow_secrets", "semantic", "checks", "types",
)
_SEMANTIC_KEYS = ("model",)
DEFAULT_SEMANTIC_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_SOURCE_KEYS = (
    "name", "kind", "url", "urls", "path", "base_url", "max_level", "format", "version",
    "max_size", "anchors", "generator", "types",
)
_ALLOW_KEYS = ("source", "page", "match", "reason")
_CHECK_KEYS = ("query", "expect", "within", "source", "version", "mode", "document_type")
CHECK_MODES = ("hybrid", "lexical")  # api.SEARCH_MODES, without importing the index code
MAX_WITHIN = 20  # how deep a check looks: the rank a check asks for is 1..MAX_WITHIN
DEFAULT_WITHIN = 3
_REF = re.compile(r"([^\s:#@]+)(?:@([^\s:#]+))?:([^\s#]+)(?:#(\S+))?")
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SOURCE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3}


@dataclass(frozen=True)
class SourceConfig:
    """One source: where its text comes from and how to cut it into sections.

    Exactly one of ``url``, ``urls`` (markdown only) and ``path`` is set. ``path`` is
    absolute; ``path_text`` keeps it as the sources file wrote it, for messages. ``format``
    (llms-full only) forces a layout instead of detecting it; None detects.
    """

    name: str
    kind: str
    url: str | None = None
    urls: tuple[str, ...] = ()
    path: Path | None = None
    base_url: str | None = None
    max_level: int = 3
    path_text: str = field(default="", repr=False, compare=False)
    format: str | None = None
    # Which version of the docs this is, when one sources file lists several versions of
    # the same docs under one name (search defaults to the newest).
    version: str | None = None
    # The largest response a fetch of this source accepts (None: fetch's own default).
    max_bytes: int | None = None
    # Whose slug rules section anchors follow (formats.headings.ANCHOR_STYLES); None: by layout.
    anchors: str | None = None
    # The docs generator of a markdown source (formats.generators.NAMES); None: detected.
    generator: str | None = None
    # ``types:`` path globs -> document type: this source's own, then the top level's.
    types: TypeGlobs = TypeGlobs()

    @property
    def key(self) -> str:
        """What refs start with: the name, or ``name@version`` for a versioned source."""
        return f"{self.name}@{self.version}" if self.version else self.name

    @property
    def location(self) -> str:
        """Where the source comes from, as a person would name it in a message."""
        if self.url is not None:
            return self.url
        if self.path is not None:
            return self.path_text or str(self.path)
        return f"{len(self.urls)} URLs"


@dataclass(frozen=True)
class AllowSecret:
    """A reviewed exception to the build's secret scan (``allow_secrets:`` in the sources file).

    It allows the findings of ``source`` (on ``page``, a page URL or path, if given) whose
    value contains ``match`` or whose fingerprint (``sha256:…``, as the build prints it) is
    ``match``.
    """

    source: str
    match: str
    page: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Check:
    """An answer check (``checks:`` in the sources file): searching ``query`` must find one
    of ``expect`` within the first ``within`` results, or the build fails.

    ``expect`` holds page refs (``source:path``, found by a hit on any section of the page)
    and section refs (``source:path#anchor``, found by that section among the best
    sections); any one of them counts. ``source``, ``version``, ``mode`` and
    ``document_type`` are the search's filters, as ``docwheel search`` takes them. ``place``
    (``checks[2]``) names it in messages.
    """

    query: str
    expect: tuple[str, ...]
    within: int = DEFAULT_WITHIN
    source: str | None = None
    version: str | None = None
    mode: str | None = None
    place: str = field(default="", compare=False)
    document_type: str | None = None


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    sources: tuple[SourceConfig, ...]
    origin: Path
    # A snapshot folder written by `docwheel fetch` (absolute): remote URLs are read from it
    # instead of the network. DOCWHEEL_OFFLINE wins over it (see snapshot.offline_dir).
    offline: Path | None = None
    allow_secrets: tuple[AllowSecret, ...] = ()
    # The sentence-transformer (hub name or local folder) to distil a query encoder from,
    # when the snapshot gets a semantic layer (``semantic:`` in the sources file).
    semantic_model: str | None = None
    # What the built index must answer (``checks:``); run by the build and `docwheel check`.
    checks: tuple[Check, ...] = ()


def load_config(path: str | os.PathLike[str]) -> Config:
    """Read and validate the sources file at ``path``; raise ``ConfigError`` on any problem."""
    origin = os.fspath(path)
    file = Path(path)
    if file.is_dir():
        raise ConfigError(origin, ["is a folder, not a sources file"])
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            origin,
            [
                "file not found (name another sources file with --config FILE "
                f"or the {CONFIG_ENV_VAR} environment variable)"
            ],
        ) from None
    except UnicodeDecodeError as e:
        raise ConfigError(origin, [f"not UTF-8 text (bad byte at offset {e.start})"]) from None
    except OSError as e:
        raise ConfigError(origin, [f"cannot read: {e.strerror or e}"]) from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.YAMLError as e:
        raise ConfigError(origin, [_yaml_problem(e)]) from None
    absolute = file.resolve()
    config = parse_config(data, base_dir=absolute.parent, origin=origin)
    return dataclasses.replace(config, origin=absolute)


def parse_config(data: object, *, base_dir: Path, origin: str) -> Config:
    """Validate already-loaded YAML; ``path:`` values are resolved against ``base_dir``."""
    if data is None:
        raise ConfigError(origin, ["the file is empty; it needs at least name: and sources:"])
    if not isinstance(data, Mapping):
        raise ConfigError(
            origin, [f"top level: expected a mapping with name and sources, got {_a(data)}"]
        )
    problems: list[str] = []
    _check_keys(data, _TOP_KEYS, "top level", problems)

    name = data.get("name")
    if name is None:
        problems.append("name: missing")
    elif not isinstance(name, str):
        problems.append(f"name: expected a string, got {_a(name)}")
    elif not _SNAPSHOT_NAME.fullmatch(name):
        problems.append(
            f"name: {name!r} must be letters, digits, '-', '_' or '.', "
            "starting with a letter or digit"
        )

    description = data.get("description")
    if description is None:
        description = ""
    elif not isinstance(description, str):
        problems.append(f"description: expected a string, got {_a(description)}")

    semantic_model = _parse_semantic(data, base_dir, problems)
    top_types = _parse_types(data.get("types"), "types", problems)

    offline = data.get("offline")
    if "offline" in data and offline is None:
        problems.append("offline: empty")
    elif offline is not None and (not isinstance(offline, str) or not offline.strip()):
        problems.append(f"offline: expected a snapshot folder name, got {_a(offline)}")
        offline = None

    sources: list[SourceConfig] = []
    raw_sources = data.get("sources")
    if raw_sources is None:
        problems.append("sources: missing")
    elif not isinstance(raw_sources, list):
        problems.append(f"sources: expected a list, got {_a(raw_sources)}")
    elif not raw_sources:
        problems.append("sources: empty; list at least one source")
    else:
        first_use: dict[str, int] = {}
        versioned: dict[str, bool] = {}
        for i, raw in enumerate(raw_sources):
            source = _parse_source(raw, f"sources[{i}]", base_dir, problems)
            if source is None:
                continue
            if source.key in first_use:
                what = f"{source.name!r} version {source.version!r}" if source.version else repr(source.name)
                problems.append(
                    f"sources[{i}].name: {what} is already used by sources[{first_use[source.key]}]"
                )
            elif versioned.setdefault(source.name, bool(source.version)) != bool(source.version):
                problems.append(
                    f"sources[{i}].version: several sources are named {source.name!r}; "
                    "give each of them a different version"
                )
            else:
                first_use[source.key] = i
                globs = TypeGlobs(source.types.entries + top_types.entries)
                sources.append(dataclasses.replace(source, types=globs))

    listed = raw_sources if isinstance(raw_sources, list) else []
    named = {r.get("name") for r in listed if isinstance(r, Mapping)}
    allow = _parse_allow_secrets(data, named, problems)
    checks = _parse_checks(data, listed, semantic_model is not None, problems)

    if problems:
        raise ConfigError(origin, problems)
    assert isinstance(name, str) and isinstance(description, str)
    return Config(
        name=name,
        description=description,
        sources=tuple(sources),
        origin=Path(origin),
        offline=(base_dir / offline).resolve() if offline else None,
        allow_secrets=allow,
        semantic_model=semantic_model,
        checks=checks,
    )


def _parse_source(
    raw: object, place: str, base_dir: Path, problems: list[str]
) -> SourceConfig | None:
    """Check one entry of ``sources``; append its problems and return None if it has any."""
    if not isinstance(raw, Mapping):
        problems.append(
            f"{place}: expected a mapping with name, kind and url or path, got {_a(raw)}"
        )
        return None
    before = len(problems)
    _check_keys(raw, _SOURCE_KEYS, place, problems)

    name = raw.get("name")
    if name is None:
        problems.append(f"{place}.name: missing")
    elif not isinstance(name, str):
        problems.append(f"{place}.name: expected a string, got {_a(name)}")
    elif not _SOURCE_NAME.fullmatch(name):
        problems.append(
            f"{place}.name: {name!r} must be lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )

    kind = raw.get("kind")
    if isinstance(kind, str):
        kind = KIND_ALIASES.get(kind, kind)
    if kind is None:
        problems.append(f"{place}.kind: missing")
    elif not isinstance(kind, str):
        problems.append(f"{place}.kind: expected a string, got {_a(kind)}")
    elif kind not in KINDS:
        problems.append(
            f"{place}.kind: {kind!r} is not one of {', '.join(KINDS)} (or docs, for markdown)"
        )

    # Where the text comes from: exactly one of these. A key left blank (null) is reported
    # as empty and does not count as given.
    choices = ("url", "path") if kind in ("llms-full", "llms-txt") else ("url", "urls", "path")
    if "urls" in raw and "urls" not in choices:
        problems.append(f"{place}.urls: only markdown sources take a list of URLs; use url")
    given = [key for key in choices if raw.get(key) is not None]
    blank = [key for key in choices if key in raw and raw[key] is None]
    for key in blank:
        problems.append(f"{place}.{key}: empty")
    if not given and not blank:
        others = " or ".join(choices[1:])
        problems.append(f"{place}.url: missing (or give {others})")
    elif len(given) > 1:
        problems.append(f"{place}: give exactly one of {', '.join(choices)}")

    url = raw.get("url")
    if url is not None:
        _check_url(url, f"{place}.url", problems)

    urls = raw.get("urls")
    if urls is not None and "urls" in choices:
        _check_url_list(urls, f"{place}.urls", problems)

    path_text = raw.get("path")
    path: Path | None = None
    if path_text is not None:
        path = _check_path(path_text, kind, f"{place}.path", base_dir, problems)

    base_url = raw.get("base_url")
    if base_url is not None:
        _check_url(base_url, f"{place}.base_url", problems)

    max_level = raw.get("max_level")
    if max_level is None:
        max_level = 3
    elif not isinstance(max_level, int) or isinstance(max_level, bool):
        problems.append(f"{place}.max_level: expected a whole number 1-6, got {_a(max_level)}")
    elif not 1 <= max_level <= 6:
        problems.append(f"{place}.max_level: {max_level} is not between 1 and 6")

    layout = raw.get("format")
    if layout is not None:
        if kind != "llms-full":
            problems.append(f"{place}.format: only llms-full sources have a format")
        elif not isinstance(layout, str):
            problems.append(f"{place}.format: expected a string, got {_a(layout)}")
        elif layout not in LAYOUT_NAMES:
            problems.append(f"{place}.format: {layout!r} is not one of {', '.join(LAYOUT_NAMES)}")

    version = raw.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    if version is not None:
        if isinstance(version, float):
            problems.append(
                f"{place}.version: write it in quotes (version: \"{version}\"): "
                "unquoted, YAML reads it as a number and 2.10 becomes 2.1"
            )
        elif not isinstance(version, str):
            problems.append(f"{place}.version: expected a string, got {_a(version)}")
        elif not _VERSION.fullmatch(version):
            problems.append(
                f"{place}.version: {version!r} must be up to 40 letters, digits, '.', '-', '_' "
                "or '+', starting with a letter or digit"
            )

    max_bytes = _check_size(raw.get("max_size"), f"{place}.max_size", problems)

    anchors = raw.get("anchors")
    if anchors is not None and anchors not in ANCHOR_STYLES:
        problems.append(
            f"{place}.anchors: {anchors!r} is not one of {', '.join(ANCHOR_STYLES)}"
        )

    generator = raw.get("generator")
    if generator is not None:
        if kind != "markdown":
            problems.append(
                f"{place}.generator: only markdown sources have a generator "
                "(an llms-full file's layout is its format:)"
            )
        elif generator not in GENERATOR_NAMES:
            hint = difflib.get_close_matches(str(generator), GENERATOR_NAMES, n=1)
            problems.append(
                f"{place}.generator: {generator!r} is not one of {', '.join(GENERATOR_NAMES)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else "")
            )
    types = _parse_types(raw.get("types"), f"{place}.types", problems)

    if len(problems) > before:
        return None
    return SourceConfig(
        name=name,
        kind=kind,
        url=url,
        urls=tuple(urls) if isinstance(urls, list) else (),
        path=path,
        base_url=base_url,
        max_level=max_level,
        path_text=path_text or "",
        format=layout,
        version=version,
        max_bytes=max_bytes,
        anchors=anchors,
        generator=generator,
        types=types,
    )


def _parse_types(value: object, place: str, problems: list[str]) -> TypeGlobs:
    """``types:``: page path globs mapped to document types (``doctypes.DOC_TYPES``)."""
    if value is None:
        return TypeGlobs()
    if not isinstance(value, Mapping):
        problems.append(
            f"{place}: expected a mapping of path globs to types "
            f"(types: {{\"api/**\": reference}}), got {_a(value)}"
        )
        return TypeGlobs()
    entries = []
    for glob, doc_type in value.items():
        if not isinstance(glob, str) or not glob.strip():
            problems.append(f"{place}: expected a path glob as key, got {_a(glob)}")
            continue
        if not isinstance(doc_type, str):
            problems.append(f"{place}[{glob!r}]: expected one of {', '.join(DOC_TYPES)}, got {_a(doc_type)}")
            continue
        if doc_type not in DOC_TYPES:
            problems.append(f"{place}[{glob!r}]: {doc_type!r} is not one of {', '.join(DOC_TYPES)}")
            continue
        entries.append((glob, doc_type))
    return TypeGlobs(tuple(entries))


def _check_size(value: object, place: str, problems: list[str]) -> int | None:
    """``max_size``: a byte count, or a size with a unit (``250 MB``; KB, MB, GB are
    powers of 1000)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str) and (match := _SIZE.fullmatch(value.strip())):
        size = int(float(match.group(1)) * _UNITS[(match.group(2) or "b").lower()])
    else:
        problems.append(f"{place}: expected a size such as 250 MB or a byte count, got {value!r}")
        return None
    if size < 1:
        problems.append(f"{place}: must be more than 0 bytes")
        return None
    return size


def _parse_semantic(data: Mapping, base_dir: Path, problems: list[str]) -> str | None:
    """``semantic: {model: NAME_OR_PATH}`` (or ``semantic: true`` for the default model).

    A model that names an existing folder (relative to the sources file) is that folder;
    anything else is a model hub name, fetched at build time."""
    raw = data.get("semantic")
    if raw is None or raw is False:
        return None
    if raw is True:
        return DEFAULT_SEMANTIC_MODEL
    if not isinstance(raw, Mapping):
        problems.append(f"semantic: expected a mapping such as {{model: NAME}}, got {_a(raw)}")
        return None
    _check_keys(raw, _SEMANTIC_KEYS, "semantic", problems)
    model = raw.get("model", DEFAULT_SEMANTIC_MODEL)
    if not isinstance(model, str) or not model.strip():
        problems.append(f"semantic.model: expected a model name or folder, got {_a(model)}")
        return None
    local = (base_dir / model).expanduser()
    return str(local.resolve()) if local.is_dir() else model


def _parse_allow_secrets(
    data: Mapping, sources: set[object], problems: list[str]
) -> tuple[AllowSecret, ...]:
    """``allow_secrets:``, a list of {source, match, page?, reason?}; problems appended."""
    if "allow_secrets" not in data or data["allow_secrets"] == []:
        return ()
    raw = data["allow_secrets"]
    if not isinstance(raw, list):
        problems.append(f"allow_secrets: expected a list, got {_a(raw)}")
        return ()
    allowed: list[AllowSecret] = []
    for i, entry in enumerate(raw):
        place = f"allow_secrets[{i}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{place}: expected a mapping with source and match, got {_a(entry)}")
            continue
        before = len(problems)
        _check_keys(entry, _ALLOW_KEYS, place, problems)
        source, match = entry.get("source"), entry.get("match")
        page, reason = entry.get("page"), entry.get("reason", "")
        if source is None:
            problems.append(f"{place}.source: missing")
        elif not isinstance(source, str):
            problems.append(f"{place}.source: expected a source name, got {_a(source)}")
        elif sources and source not in sources:
            names = ", ".join(sorted(str(n) for n in sources))
            problems.append(f"{place}.source: {source!r} is not one of the sources ({names})")
        if match is None:
            problems.append(
                f"{place}.match: missing (the secret's sha256:… fingerprint or a part of it)"
            )
        elif not isinstance(match, str):
            problems.append(f"{place}.match: expected a string, got {_a(match)}")
        elif len(match.strip()) < 8:
            problems.append(
                f"{place}.match: {match!r} is too short to name one secret (8+ characters)"
            )
        if "page" in entry and (not isinstance(page, str) or not page.strip()):
            problems.append(f"{place}.page: expected a page URL or path, got {_a(page)}")
        if not isinstance(reason, str):
            problems.append(f"{place}.reason: expected a string, got {_a(reason)}")
        if len(problems) == before:
            allowed.append(AllowSecret(source=source, match=match, page=page, reason=reason))
    return tuple(allowed)


def _parse_checks(
    data: Mapping, listed: list, semantic: bool, problems: list[str]
) -> tuple[Check, ...]:
    """``checks:``, a list of {query, expect, within?, source?, version?, mode?}.

    Whether an expected page exists is known only once the index is built (``checks``
    reports it then, in this style); what the sources file alone shows is checked here: the
    types and ranges, and that a ref names a source (and version) the check can find."""
    if "checks" not in data or data["checks"] == []:
        return ()
    raw = data["checks"]
    if not isinstance(raw, list):
        problems.append(f"checks: expected a list of {{query, expect}}, got {_a(raw)}")
        return ()
    versions: dict[str, list[str]] = {}  # source name -> its versions, as written
    for entry in listed:
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            version = entry.get("version")
            known = versions.setdefault(entry["name"], [])
            if isinstance(version, (int, str)) and not isinstance(version, bool) and version != "":
                known.append(str(version))
    checks: list[Check] = []
    for i, entry in enumerate(raw):
        place = f"checks[{i}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{place}: expected a mapping with query and expect, got {_a(entry)}")
            continue
        before = len(problems)
        _check_keys(entry, _CHECK_KEYS, place, problems)
        query = entry.get("query")
        if query is None:
            problems.append(f"{place}.query: missing (the question a user asks)")
        elif not isinstance(query, str):
            problems.append(f"{place}.query: expected a string, got {_a(query)}")
        elif not query.strip():
            problems.append(f"{place}.query: empty")
        within = entry.get("within", DEFAULT_WITHIN)
        if not isinstance(within, int) or isinstance(within, bool):
            problems.append(
                f"{place}.within: expected a whole number 1-{MAX_WITHIN}, got {_a(within)}"
            )
        elif not 1 <= within <= MAX_WITHIN:
            problems.append(f"{place}.within: {within} is not between 1 and {MAX_WITHIN}")
        source = _check_source_filter(entry, versions, place, problems)
        filtered = len(problems)
        version = _check_version_filter(entry, versions, source, place, problems)
        # A bad version is reported once, not again for every ref it would leave out.
        version_known = len(problems) == filtered
        mode = entry.get("mode")
        if mode is not None and mode not in CHECK_MODES:
            problems.append(f"{place}.mode: {mode!r} is not one of {', '.join(CHECK_MODES)}")
        elif mode == "hybrid" and not semantic:
            problems.append(
                f"{place}.mode: hybrid searches by meaning too, which needs semantic: "
                "in the sources file"
            )
        document_type = _check_type_filter(entry.get("document_type"), place, problems)
        expect = _check_expect(
            entry, versions, source, version if version_known else "all", place, problems
        )
        if len(problems) == before:
            checks.append(
                Check(
                    query.strip(), expect, within, source, version, mode, place=place,
                    document_type=document_type,
                )
            )
    return tuple(checks)


def _check_type_filter(value: object, place: str, problems: list[str]) -> str | None:
    """``document_type``: one type of the vocabulary, or several joined by commas."""
    if value is None or value == "all":
        return None
    names = [n.strip() for n in value.split(",")] if isinstance(value, str) else None
    if not names or not all(names):
        problems.append(f"{place}.document_type: expected a document type, got {_a(value)}")
        return None
    unknown = [n for n in names if n not in DOC_TYPES]
    if unknown:
        problems.append(
            f"{place}.document_type: {unknown[0]!r} is not one of {', '.join(DOC_TYPES)}"
        )
        return None
    return ",".join(names)


def _check_source_filter(
    entry: Mapping, versions: dict[str, list[str]], place: str, problems: list[str]
) -> str | None:
    source = entry.get("source")
    if source is None or source == "all":
        return None
    if not isinstance(source, str):
        problems.append(f"{place}.source: expected a source name, got {_a(source)}")
    elif versions and source not in versions:
        problems.append(
            f"{place}.source: {source!r} is not one of the sources ({', '.join(sorted(versions))})"
        )
    else:
        return source
    return None


def _check_version_filter(
    entry: Mapping, versions: dict[str, list[str]], source: str | None, place: str,
    problems: list[str],
) -> str | None:
    version = entry.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    if version is None:
        return None
    if isinstance(version, float):
        problems.append(
            f"{place}.version: write it in quotes (version: \"{version}\"): "
            "unquoted, YAML reads it as a number and 2.10 becomes 2.1"
        )
        return None
    if not isinstance(version, str):
        problems.append(f"{place}.version: expected a string, got {_a(version)}")
        return None
    if version == "all":
        return version
    names = [source] if source else list(versions)
    known = [v for name in names for v in versions.get(name, [])]
    if versions and version not in known:
        where = f" of source {source!r}" if source else " of any source"
        listed = ", ".join(dict.fromkeys(known)) or "none (no source has a version:)"
        problems.append(
            f"{place}.version: {version!r} is not a version{where} (versions: {listed})"
        )
        return None
    return version


def _check_expect(
    entry: Mapping, versions: dict[str, list[str]], source: str | None, version: str | None,
    place: str, problems: list[str],
) -> tuple[str, ...]:
    """The expected refs: each well formed, of a source and version the search covers."""
    raw = entry.get("expect")
    if raw is None:
        problems.append(
            f"{place}.expect: missing (the page ref source:path, or section ref "
            "source:path#anchor, the query must find)"
        )
        return ()
    if isinstance(raw, str):
        items = [(f"{place}.expect", raw)]
    elif isinstance(raw, list):
        if not raw:
            problems.append(f"{place}.expect: empty; list at least one ref")
        items = [(f"{place}.expect[{n}]", ref) for n, ref in enumerate(raw)]
    else:
        problems.append(f"{place}.expect: expected a ref or a list of refs, got {_a(raw)}")
        return ()
    refs: list[str] = []
    for where, ref in items:
        match = _REF.fullmatch(ref) if isinstance(ref, str) else None
        if match is None:
            shown = repr(ref) if isinstance(ref, str) else _a(ref)
            problems.append(
                f"{where}: {shown} is not a ref; write source:path or source:path#anchor "
                "(`docwheel list` shows them)"
            )
            continue
        name, ref_version = match.group(1), match.group(2)
        problem = _ref_scope_problem(ref, name, ref_version, versions, source, version)
        if problem:
            problems.append(f"{where}: {problem}")
        else:
            refs.append(ref)
    return tuple(dict.fromkeys(refs))


def _ref_scope_problem(
    ref: str, name: str, ref_version: str | None, versions: dict[str, list[str]],
    source: str | None, version: str | None,
) -> str | None:
    """Why a search with these filters can never return ``ref``, or None."""
    if not versions:
        return None  # no usable sources: their own problems are reported
    if name not in versions:
        hint = difflib.get_close_matches(name, list(versions), n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
        return (
            f"{ref!r} names no source{suggestion}; sources: {', '.join(sorted(versions))}"
        )
    if source is not None and name != source:
        return f"{ref!r} is not in source {source!r}, the only one this check searches"
    known = versions[name]
    if known and ref_version is None:
        keys = ", ".join(f"{name}@{v}:" for v in known)
        return f"{ref!r}: source {name!r} is versioned, so its refs start with {keys}"
    if ref_version is not None and ref_version not in known:
        listed = ", ".join(known) if known else "none"
        return f"{ref!r}: source {name!r} has no version {ref_version!r} (versions: {listed})"
    if ref_version is None and version not in (None, "all"):
        return f"{ref!r}: source {name!r} has no versions, and the check searches version {version}"
    if ref_version is not None and version != "all":
        from .versions import newest

        searched = version or newest(known)
        if ref_version != searched:
            hint = f'add version: "{ref_version}" to the check' if version is None else "change one"
            return (
                f"{ref!r} is version {ref_version}, but the check searches version "
                f"{searched} of {name!r}; {hint}"
            )
    return None


def _check_keys(
    mapping: Mapping, allowed: tuple[str, ...], place: str, problems: list[str]
) -> None:
    for key in mapping:
        if key in allowed:
            continue
        hint = difflib.get_close_matches(str(key), allowed, n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
        problems.append(f"{place}: unknown key {key!r}{suggestion}")


def _check_url(value: object, place: str, problems: list[str]) -> None:
    if not isinstance(value, str):
        problems.append(f"{place}: expected a URL string, got {_a(value)}")
    elif not _is_http_url(value):
        problems.append(f"{place}: {value!r} is not an http(s) URL")


def _check_url_list(value: object, place: str, problems: list[str]) -> None:
    if not isinstance(value, list):
        problems.append(f"{place}: expected a list of URLs, got {_a(value)}")
        return
    if not value:
        problems.append(f"{place}: empty; list at least one URL")
    first_use: dict[str, int] = {}
    for i, item in enumerate(value):
        _check_url(item, f"{place}[{i}]", problems)
        if isinstance(item, str):
            if item in first_use:
                problems.append(f"{place}[{i}]: repeats {place}[{first_use[item]}]")
            first_use.setdefault(item, i)


def _check_path(
    value: object, kind: object, place: str, base_dir: Path, problems: list[str]
) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{place}: expected a file or folder name, got {_a(value)}")
        return None
    path = (base_dir / value).resolve()
    if not path.exists():
        problems.append(f"{place}: {value!r} not found (looked for {path})")
        return None
    if kind in ("llms-full", "llms-txt") and not path.is_file():
        problems.append(f"{place}: {value!r} is a folder; {kind} takes one file")
        return None
    return path


def _is_http_url(value: str) -> bool:
    if any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _a(value: object) -> str:
    """Name a YAML value's type the way the sources file's author sees it."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last)."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict:
    seen: set[object] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        except TypeError:  # an unhashable key; construct_mapping reports it
            break
    return loader.construct_mapping(node, deep=True)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
