"""Command line: argument parsing and printing only.

The search path imports neither the MCP SDK nor the fetch code, so `docwheel search` starts
fast; `serve` and `build` import what they need when they run.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TextIO

from . import __version__
from .api import MAX_LIMIT  # already loaded by the package; it does not import the MCP SDK
from .doctypes import DOC_TYPES
from .errors import DocwheelError

# The same names as server.TOOL_SETS and web.TOKEN_ENV (a test checks): importing those
# modules would load the MCP SDK for every command.
TOOL_SETS = ("docs", "search-fetch")
TOKEN_ENV = "DOCWHEEL_TOKEN"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.run is _serve and not args.http:
        http_only = {
            "--host": args.host is not None,
            "--allow-remote": args.allow_remote,
            "--token": args.token is not None,
            "--stateless": args.stateless,
        }
        given = [flag for flag, on in http_only.items() if on]
        if given:
            parser.error(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --http")
    try:
        return args.run(args, sys.stdout)
    except DocwheelError as exc:
        print(f"docwheel: error: {str(exc).strip()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`docwheel list | head`): stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # stdout is not a real file
            pass
        return 0
    except OSError as exc:  # a file or port the user named cannot be used
        print(f"docwheel: error: {exc}", file=sys.stderr)
        return 1


def _int_between(low: int, high: int):
    """An argparse type: an integer in [low, high]; anything else is a usage error (exit 2)."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    return convert


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docwheel",
        description="Offline documentation search for AI assistants.",
    )
    parser.add_argument("--version", action="version", version=f"docwheel {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_index(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument(
            "--index", metavar="DIR", action="append",
            help="an index directory (repeatable; default: every installed docs wheel, "
            "else the docs bundled with docwheel)",
        )
        p.add_argument(
            "--only", metavar="NAME", action="append",
            help="only this installed docs wheel, by distribution name (repeatable)",
        )
        return p

    docs_version = {
        "metavar": "VERSION", "default": None,
        "help": "docs version of versioned sources (default: the newest; 'all': every one)",
    }

    doc_type = {
        "metavar": "TYPE", "default": None, "dest": "doc_type",
        "help": f"only pages of this document type ({', '.join(DOC_TYPES)}; default: all)",
    }

    p = with_index(sub.add_parser("search", help="search the docs"))
    p.add_argument(
        "query", help="words or a question; AND/OR/NOT, \"phrases\" and type:reference work"
    )
    p.add_argument("--source", default=None, help="only this source")
    p.add_argument("--type", **doc_type)
    p.add_argument("--docs-version", **docs_version)
    p.add_argument(
        "--limit", type=_int_between(1, MAX_LIMIT), default=5, metavar="N",
        help="pages to return (default 5)",
    )
    p.add_argument("--full-text", action="store_true", help="print each section in full")
    p.add_argument(
        "--sections", action="store_true",
        help="return the best sections, several per page if they rank so (default: pages)",
    )
    p.add_argument(
        "--mode", choices=("hybrid", "lexical"), default=None,
        help="hybrid: words and meaning (the default for docs built with semantic:); "
        "lexical: words only",
    )
    p.add_argument("--explain", action="store_true", help="show why each result ranked")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_search)

    p = with_index(sub.add_parser("read", help="print a page or section by its ref"))
    p.add_argument("ref", help="a ref from search or list (source:path or source:path#anchor)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_read)

    p = with_index(sub.add_parser("list", help="list pages and their sections"))
    p.add_argument("--source", default=None, help="only this source")
    p.add_argument("--type", **doc_type)
    p.add_argument("--docs-version", **docs_version)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_list)

    p = with_index(sub.add_parser("info", help="show the index manifest"))
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_info)

    p = with_index(
        sub.add_parser(
            "check", help="run the answer checks of a sources file against built docs"
        )
    )
    p.add_argument(
        "--config", metavar="FILE", default=None,
        help="the sources file whose checks: to run (default: $DOCWHEEL_CONFIG, else "
        "docwheel.yaml)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_check)

    p = with_index(
        sub.add_parser("verify", help="check every index file against the manifest's hashes")
    )
    p.set_defaults(run=_verify)

    p = with_index(sub.add_parser("serve", help="run the MCP server (stdio by default)"))
    p.add_argument(
        "--tools", choices=TOOL_SETS, default="docs",
        help="docs: search_docs, read_doc, list_docs, describe_docs (default); "
        "search-fetch: the search and fetch pair that ChatGPT connectors expect",
    )
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default=None, help="HTTP host (default 127.0.0.1)")
    p.add_argument(
        "--port", type=_int_between(1, 65535), default=8000, help="HTTP port (default 8000)"
    )
    p.add_argument(
        "--allow-remote", action="store_true",
        help="allow a --host other than loopback; needs a bearer token",
    )
    p.add_argument(
        "--token", default=None, metavar="TOKEN",
        help=f"bearer token every HTTP request must carry (default: ${TOKEN_ENV})",
    )
    p.add_argument(
        "--stateless", action="store_true",
        help="no MCP sessions over HTTP: any replica can answer any request",
    )
    p.set_defaults(run=_serve)

    p = sub.add_parser("build", help="build an index directory from a sources file")
    p.add_argument("--config", required=True, metavar="FILE", help="the sources file")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write the index")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.set_defaults(run=_build)

    p = sub.add_parser(
        "fetch", help="save every remote source of a sources file, for offline builds"
    )
    p.add_argument("--config", required=True, metavar="FILE", help="the sources file")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write the snapshot")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.set_defaults(run=_fetch)

    p = sub.add_parser("diff", help="list pages and sections added, removed or changed")
    p.add_argument("old", help="the older snapshot: an index directory or a docs wheel (.whl)")
    p.add_argument("new", help="the newer snapshot: an index directory or a docs wheel (.whl)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_diff)

    p = sub.add_parser("new", help="write a docs project that builds its own docs wheel")
    p.add_argument("dir", metavar="DIR", help="the project folder to create (must be empty)")
    p.add_argument(
        "--name", required=True, type=_project_name,
        help="the distribution name, e.g. acme-docs (lower-case letters, digits, '-')",
    )
    p.add_argument(
        "--source", required=True, action="append", metavar="URL_OR_PATH",
        help="an llms-full.txt, llms.txt or .md/.mdx URL, or a local folder or file "
        "(repeatable)",
    )
    p.set_defaults(run=_new)
    return parser


def _project_name(text: str) -> str:
    """An argparse type: a valid docs project name; anything else is a usage error."""
    from .scaffold import name_problem

    problem = name_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem.removeprefix("--name "))
    return text


def _open(args: argparse.Namespace):
    from .library import open_docs

    return open_docs(args.index or (), args.only or ())


def _present(data: dict) -> dict:
    """A result as JSON: optional parts (a hit's text, a version, other versions) left out,
    not null or empty."""
    return {k: v for k, v in data.items() if v is not None and not (k == "other_versions" and not v)}


def _dump(data: object, out: TextIO) -> None:
    json.dump(data, out, indent=2, ensure_ascii=False)
    out.write("\n")


def _search(args: argparse.Namespace, out: TextIO) -> int:
    with _open(args) as index:
        result = index.search(
            args.query,
            source=args.source,
            version=args.docs_version,
            limit=args.limit,
            full_text=args.full_text,
            sections=args.sections,
            explain=args.explain,
            mode=args.mode,
            document_type=args.doc_type,
        )
    if args.json:
        data = asdict(result)
        # Optional parts of a hit (text without --full-text, …) are left out, not null.
        data["results"] = [_present(h) for h in data["results"]]
        _dump(data, out)
        return 0
    for warning in result.warnings:
        print(f"note: {warning}", file=sys.stderr)
    for n, hit in enumerate(result.results, 1):
        out.write(
            f"{n}. {_heading(hit.title, hit.section)}\n   {hit.url}\n   ref: {hit.ref}\n"
            f"   type: {hit.type}\n"
        )
        if hit.other_versions:
            out.write(f"   other versions: {', '.join(hit.other_versions)}\n")
        body = hit.text if args.full_text else hit.snippet
        if body:
            out.write("".join(f"   {line}\n" for line in body.splitlines()))
        if hit.explain:
            out.write("".join(f"   {line}\n" for line in _explanation(hit.score, hit.explain)))
        out.write("\n")
    unit = "sections" if args.sections else "pages"
    out.write(f"{len(result.results)} of {result.total} matching {unit}\n")
    return 0


def _explanation(score: float, why: dict) -> list[str]:
    """Readable lines for ``Hit.explain``: terms with per-field parts, then the factors."""
    if why.get("hybrid"):
        score = why["score"]  # the hit's score is the mix; this line is the word score
    lines = [
        f"score {score:g} = (section {why['section_score']:g} x coverage {why['coverage']:g}"
        f" + {why['pair_weight']:g} x pairs {sum(why['pairs'].values()):g}"
        f" + {why['page_weight']:g} x page {why['page_score']:g}) x changelog {why['changelog_factor']:g}"
        + (f" x version {why['version_factor']:g}" if why["version_factor"] != 1 else "")
    ]
    hybrid = why.get("hybrid")
    if hybrid:
        weight = hybrid["semantic_weight"]
        lines.insert(0, (
            f"hybrid {hybrid['score']:g} = {1 - weight:g} x words {hybrid['lexical']:g}"
            f" + {weight:g} x meaning {hybrid['semantic']:g} (cosine {hybrid['cosine']:g})"
        ))
        lines[1] = "words: " + lines[1]
    for term, part in why["matched"].items():
        fields = ", ".join(f"{name} {value:g}" for name, value in part["fields"].items())
        weight = why.get("emphasis", {}).get(term)
        marked = f", x{weight:g} as code" if weight else ""
        lines.append(f"  {term}: {part['score']:g} ({fields}{marked})")
    missing = [t for t in why["terms"] if t not in why["matched"]]
    if missing:
        lines.append(f"  not in this section: {', '.join(missing)}")
    return lines


def _read(args: argparse.Namespace, out: TextIO) -> int:
    with _open(args) as index:
        doc = index.read(args.ref)
    if args.json:
        _dump(_present(asdict(doc)), out)
    else:
        out.write(
            f"{_heading(doc.title, doc.section)}\n{doc.url}\ntype: {doc.type}\n\n{doc.text.rstrip()}\n"
        )
    return 0


def _heading(title: str, section: str) -> str:
    """The heading path, which normally starts with the page title: print the title once."""
    if not section or section == title or section.startswith(f"{title} > "):
        return section or title
    return f"{title} — {section}"


def _list(args: argparse.Namespace, out: TextIO) -> int:
    with _open(args) as index:
        pages = index.outline(args.source, args.docs_version, args.doc_type)
    if args.json:
        _dump({"total": len(pages), "pages": [_present(asdict(p)) for p in pages]}, out)
        return 0
    for page in pages:
        out.write(f"{page.title}  [{page.ref}]  ({page.type})\n  {page.url}\n")
        for section in page.sections:
            indent = "  " * max(1, section.level)
            out.write(f"{indent}- {section.heading}  [#{section.ref.partition('#')[2]}]\n")
    out.write(f"{len(pages)} pages\n")
    return 0


def _info(args: argparse.Namespace, out: TextIO) -> int:
    with _open(args) as index:
        parts = [(part.manifest, part.directory) for part in index.parts]
    if args.json:
        manifests = [{**manifest, "directory": str(directory)} for manifest, directory in parts]
        _dump(manifests[0] if len(manifests) == 1 else {"snapshots": manifests}, out)
        return 0
    for n, (manifest, directory) in enumerate(parts):
        out.write("\n" if n else "")
        _write_manifest(manifest, directory, out)
    return 0


def _write_manifest(manifest: dict, directory: object, out: TextIO) -> None:
    out.write(f"{manifest.get('name')} {manifest.get('version') or ''}\n".replace(" \n", "\n"))
    if manifest.get("description"):
        out.write(f"  {manifest['description']}\n")
    out.write(
        f"  built {manifest.get('built_at')} with docwheel {manifest.get('docwheel_version')}\n"
        f"  {manifest.get('pages')} pages, {manifest.get('sections')} sections\n"
        f"  index: {directory}\n"
    )
    if manifest.get("types"):
        out.write(f"  document types: {_types_line(manifest['types'])}\n")
    semantic = manifest.get("semantic")
    if semantic:
        out.write(
            f"  semantic: query encoder from {semantic.get('model')} ({semantic.get('licence')}), "
            f"{semantic.get('dims')} dimensions; search mixes words and meaning\n"
        )
    checks = manifest.get("checks")
    if checks:
        held = sum(1 for check in checks if check.get("passed"))
        out.write(
            f"  answer checks: {held} of {len(checks)} held at build time "
            "(docwheel info --json lists them)\n"
        )
    for s in manifest.get("sources", []):
        where = s.get("url") or s.get("path") or f"{len(s.get('urls', []))} URLs"
        version = f" version {s['version']}" if s.get("version") else ""
        out.write(
            f"source {s['name']}{version} ({s['kind']}): {where}\n"
            f"  {s['pages']} pages, {s['sections']} sections, {s['bytes']:,} bytes, "
            f"sha256 {s['sha256'][:16]}…\n"
        )
        if s.get("layout"):
            out.write(f"  layout: {s['layout']}\n")
        if s.get("generator"):
            out.write(f"  generator: {s['generator']} ({s.get('generator_from', '')})\n")
        if s.get("types"):
            out.write(f"  types: {_types_line(s['types'])}\n")
        if s.get("fetched_at"):
            out.write(f"  fetched {s['fetched_at']}\n")
        for warning in s.get("warnings", []):
            out.write(f"  warning: {warning}\n")


def _check(args: argparse.Namespace, out: TextIO) -> int:
    from .checks import record, run_checks, summary, table
    from .config import CONFIG_ENV_VAR, load_config

    path = args.config or os.environ.get(CONFIG_ENV_VAR) or "docwheel.yaml"
    config = load_config(path)
    if not config.checks:
        raise DocwheelError(
            f"{path}: no checks: to run; list questions and the page each must find "
            "(see docs/publishing.md)"
        )
    with _checked_docs(args, config.name, path) as docs:
        results = run_checks(config.checks, docs, origin=path)
        where = [str(part.directory) for part in docs.parts]
    if args.json:
        _dump(
            {
                "config": path,
                "indexes": where,
                "total": len(results),
                "passed": sum(1 for r in results if r.passed),
                "checks": [record(r) for r in results],
            },
            out,
        )
    else:
        out.write(table(results))
    if any(not r.passed for r in results):
        if args.json:  # the table says it otherwise
            print(f"docwheel: {summary(results)}", file=sys.stderr)
        return 1
    return 0


def _checked_docs(args: argparse.Namespace, name: str, path: str):
    """The docs a sources file's checks run against: ``--index``/``--only`` if given, else
    the installed docs (or docwheel's bundled ones) whose snapshot the file names."""
    if args.index or args.only:
        return _open(args)
    from .api import open_index
    from .library import chosen_indexes

    seen = []
    for installed, directory in chosen_indexes():
        docs = open_index(directory)
        if docs.manifest.get("name") == name:
            return docs
        seen.append(f"{installed or 'docwheel'}: {docs.manifest.get('name')}")
        docs.close()
    raise DocwheelError(
        f"no installed docs of snapshot {name!r}, which {path} names (installed: "
        f"{', '.join(seen) or 'none'}); build them with `docwheel build --config {path} "
        "--out DIR` and pass --index DIR"
    )
def _types_line(counts: Mapping[str, int]) -> str:
    """Pages per document type, in the vocabulary's order: ``guide 20, reference 5``."""
    return ", ".join(f"{name} {counts[name]}" for name in DOC_TYPES if counts.get(name))


def _verify(args: argparse.Namespace, out: TextIO) -> int:
    from .api import verify_index
    from .library import chosen_indexes

    failed = 0
    for name, where in chosen_indexes(args.index or (), args.only or ()):
        directory, manifest, problems = verify_index(where)
        label = f"{name} ({directory})" if name else str(directory)
        for problem in problems:
            print(f"docwheel: {label}: {problem}", file=sys.stderr)
        if problems:
            failed += 1
        else:
            out.write(f"{label}: all {len(manifest['files'])} index files match the manifest\n")
    if failed:
        raise DocwheelError(
            f"{failed} index(es) with problems in their files; "
            "reinstall the docs package or rebuild the index"
        )
    return 0


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    host = args.host or "127.0.0.1"
    token = None
    if args.http:
        token = args.token if args.token is not None else (os.environ.get(TOKEN_ENV) or None)
        from .web import check_binding

        check_binding(host, allow_remote=args.allow_remote, token=token)  # before anything listens
    index = _open(args)  # open first: a missing index fails before the transport starts
    try:
        if args.http:
            _check_port(host, args.port)
        from .server import serve

        serve(
            index, tools=args.tools, http=args.http, host=host, port=args.port,
            token=token, stateless=args.stateless,
        )
    finally:
        index.close()
    return 0


def _check_port(host: str, port: int) -> None:
    """Fail with one line before the HTTP server starts if it could not listen there."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise DocwheelError(f"cannot serve on host {host!r}: {exc.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        if os.name != "nt":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(address)
        except OSError as exc:
            hint = "; choose another --port" if exc.errno == errno.EADDRINUSE else ""
            raise DocwheelError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}"
            ) from None


def _build(args: argparse.Namespace, out: TextIO) -> int:
    from .build import build_from_file

    def progress(message: str) -> None:
        print(f"docwheel: {message}", file=sys.stderr, flush=True)

    build_from_file(args.config, args.out, progress=(lambda _m: None) if args.quiet else progress)
    return 0


def _fetch(args: argparse.Namespace, out: TextIO) -> int:
    from .config import load_config
    from .fetch import fetch_text
    from .snapshot import save_snapshot

    save_snapshot(
        load_config(args.config), args.out, fetch=fetch_text,
        progress=(lambda _m: None) if args.quiet else _progress,
    )
    return 0


def _progress(message: str) -> None:
    print(f"docwheel: {message}", file=sys.stderr, flush=True)


def _diff(args: argparse.Namespace, out: TextIO) -> int:
    from .diff import diff_indexes, render

    result = diff_indexes(args.old, args.new)
    if args.json:
        _dump(asdict(result), out)
    else:
        out.write(render(result))
    return 0


def _new(args: argparse.Namespace, out: TextIO) -> int:
    from datetime import date
    from pathlib import Path

    from .errors import BuildError
    from .scaffold import plan_sources, project_files

    directory = Path(args.dir)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise BuildError(f"{directory}: not an empty folder; docwheel new writes a new project")
    sources = plan_sources(args.source, directory)
    files = project_files(args.name, sources, today=date.today(), docwheel_version=__version__)
    for relative, text in files.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    out.write(
        f"wrote {args.name} ({len(sources)} sources) to {directory}\n"
        f"build it: cd {directory} && python -m build --wheel   (see its README.md)\n"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
