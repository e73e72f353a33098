"""Saved snapshots: ``docwheel fetch`` from a loopback server, offline builds from its folder.

Offline builds are checked the hard way: the server's routes are cleared (it must see no
request), and once the whole CLI build runs inside ``unshare -n``, with no network at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, docwheel_cmd, write_config
from httpserver import HTTPTestServer

import docwheel
from docwheel.build import build_from_file, build_index
from docwheel.config import load_config
from docwheel.errors import BuildError, ConfigError, SourceError
from docwheel.fetch import fetch_text
from docwheel.snapshot import OFFLINE_ENV_VAR, SNAPSHOT_INDEX, save_snapshot

LLMS_FULL = FIXTURES / "llms" / "llms-full.txt"
SITE = FIXTURES / "site"
EPOCH = "1798761600"  # 2027-01-01T00:00:00Z
FAST_RETRIES = functools.partial(fetch_text, backoff=0.01)
LATIN1_PAGE = "# Café\n\nLe menu du café est servi à midi.\n".encode("latin-1")


def serve_docs(server: HTTPTestServer) -> None:
    """Every kind of remote source: an llms-full file (with validators), an llms.txt and the
    pages it links, a redirect, and a page in another charset."""
    server.route(
        "/llms-full.txt",
        LLMS_FULL.read_bytes(),
        headers={"ETag": '"v1"', "Last-Modified": "Fri, 01 Jan 2027 00:00:00 GMT"},
    )
    server.serve_dir("/docs/", SITE)
    server.route(
        "/docs/llms.txt",
        "# Docs\n\n- [Install](guides/install.md)\n- [Configure](guides/configure.mdx)\n",
    )
    server.route_redirect("/old/troubleshooting.md", "/docs/guides/troubleshooting.md")
    server.route("/cafe.md", LATIN1_PAGE, content_type="text/markdown; charset=iso-8859-1")


def docs_config(directory: Path, server: HTTPTestServer, extra: str = "") -> Path:
    return write_config(
        directory,
        "name: acme\n"
        f"{extra}"
        "sources:\n"
        f"  - name: full\n    kind: llms-full\n    url: {server.url('/llms-full.txt')}\n"
        f"  - name: list\n    kind: llms-txt\n    url: {server.url('/docs/llms.txt')}\n"
        "  - name: pages\n    kind: markdown\n    urls:\n"
        f"      - {server.url('/old/troubleshooting.md')}\n"
        f"      - {server.url('/cafe.md')}\n"
        f"  - name: local\n    kind: markdown\n    path: {SITE}\n"
        "    base_url: https://acme.example/\n",
    )


def tree(directory: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``directory``."""
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def without_fetch_times(manifest: dict) -> dict:
    manifest = json.loads(json.dumps(manifest))
    for source in manifest["sources"]:
        source.pop("fetched_at")
    return manifest


def test_fetch_saves_each_response_with_its_hash_headers_and_final_url(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    serve_docs(http_server)
    config = docs_config(tmp_path, http_server)
    snap = tmp_path / "snap"

    index = save_snapshot(load_config(config), snap, fetch=fetch_text)

    assert json.loads((snap / SNAPSHOT_INDEX).read_text(encoding="utf-8")) == index
    assert index["name"] == "acme"
    docs = {d["url"]: d for d in index["documents"]}
    url = http_server.url
    assert sorted(docs) == sorted(
        [
            url("/llms-full.txt"),
            url("/docs/llms.txt"),
            url("/docs/guides/install.md"),
            url("/docs/guides/configure.mdx"),
            url("/old/troubleshooting.md"),
            url("/cafe.md"),
        ]
    )
    full = docs[url("/llms-full.txt")]
    served = LLMS_FULL.read_bytes()
    assert full["sha256"] == hashlib.sha256(served).hexdigest()
    assert full["bytes"] == len(served)
    assert full["content_type"] == "text/plain"
    assert full["headers"] == {
        "ETag": '"v1"',
        "Last-Modified": "Fri, 01 Jan 2027 00:00:00 GMT",
        "Content-Type": "text/plain; charset=utf-8",
    }
    assert full["fetched_at"] <= index["fetched_at"]
    moved = docs[url("/old/troubleshooting.md")]
    assert moved["final_url"] == url("/docs/guides/troubleshooting.md")
    for doc in docs.values():  # every body saved byte for byte under its hash
        assert (snap / doc["file"]).read_bytes() == (snap / "files" / doc["sha256"]).read_bytes()
        assert hashlib.sha256((snap / doc["file"]).read_bytes()).hexdigest() == doc["sha256"]
    assert (snap / docs[url("/cafe.md")]["file"]).read_bytes() == LATIN1_PAGE
    # Local sources are recorded, not copied.
    (local,) = index["paths"]
    assert local["source"] == "local" and local["path"] == str(SITE)
    assert sorted(p.name for p in (snap / "files").iterdir()) == sorted(
        d["sha256"] for d in docs.values()
    )
    assert sorted(p.name for p in snap.iterdir()) == ["files", SNAPSHOT_INDEX]


def test_offline_build_reads_only_the_snapshot_and_matches_the_online_build(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    serve_docs(http_server)
    config = docs_config(tmp_path, http_server)
    online = build_from_file(config, tmp_path / "online")
    snapshot = save_snapshot(load_config(config), tmp_path / "snap", fetch=fetch_text)
    http_server.reset()  # no routes: any request would now fail the build

    monkeypatch.setenv(OFFLINE_ENV_VAR, str(tmp_path / "snap"))
    lines: list[str] = []
    offline = build_from_file(config, tmp_path / "offline", progress=lines.append)

    assert http_server.requests == []
    assert offline["files"] == online["files"]  # the same index files, hash for hash
    assert without_fetch_times(offline) == without_fetch_times(online)
    fetch_times = {d["url"]: d["fetched_at"] for d in snapshot["documents"]}
    full = next(s for s in offline["sources"] if s["name"] == "full")
    assert full["fetched_at"] == fetch_times[http_server.url("/llms-full.txt")]
    with docwheel.open_index(tmp_path / "offline") as docs:
        assert "servi à midi" in docs.read("pages:cafe").text
    assert lines[0].startswith(f"offline: remote sources come from {tmp_path / 'snap'}")
    assert any(line.startswith("indexing ") for line in lines)
    assert lines[-1].startswith("indexed ")

    # Rebuilt from the same snapshot with the same SOURCE_DATE_EPOCH: byte for byte.
    build_from_file(config, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(tmp_path / "offline")


def test_offline_key_is_relative_to_the_sources_file_and_the_variable_wins(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(OFFLINE_ENV_VAR, raising=False)
    serve_docs(http_server)
    project = tmp_path / "project"
    project.mkdir()
    save_snapshot(
        load_config(docs_config(project, http_server)), project / "snap", fetch=fetch_text
    )
    http_server.reset()

    config = docs_config(project, http_server, extra="offline: snap\n")
    assert load_config(config).offline == project / "snap"
    build_from_file(config, tmp_path / "by-key")

    moved = tmp_path / "elsewhere"
    shutil.move(project / "snap", moved)  # offline: now names nothing; the variable wins
    monkeypatch.setenv(OFFLINE_ENV_VAR, str(moved))
    build_from_file(config, tmp_path / "by-variable")
    assert http_server.requests == []

    monkeypatch.delenv(OFFLINE_ENV_VAR)
    with pytest.raises(BuildError) as info:
        build_from_file(config, tmp_path / "nothing")
    assert str(info.value).startswith(
        f"offline snapshot {project / 'snap'} (from offline: in {config}) not found"
    )
    assert not (tmp_path / "nothing").exists()


def test_a_url_missing_from_the_snapshot_fails_naming_it_and_writes_nothing(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    http_server.route("/new.md", "# New\n\nA page added after the snapshot.\n")
    full = f"  - name: full\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
    before = write_config(tmp_path, f"name: t\nsources:\n{full}", name="before.yaml")
    save_snapshot(load_config(before), tmp_path / "snap", fetch=fetch_text)
    after = write_config(
        tmp_path,
        f"name: t\nsources:\n{full}"
        f"  - name: new\n    kind: markdown\n    url: {http_server.url('/new.md')}\n",
    )
    monkeypatch.setenv(OFFLINE_ENV_VAR, str(tmp_path / "snap"))
    build_dir = tmp_path / "build"
    build_dir.mkdir()

    with pytest.raises(SourceError) as info:
        build_from_file(after, build_dir / "index")

    assert str(info.value) == (
        f"source 'new' ({http_server.url('/new.md')}): not in the snapshot "
        f"{tmp_path / 'snap'}; run docwheel fetch again"
    )
    assert list(build_dir.iterdir()) == []
    assert http_server.requests[-1][0] == "/llms-full.txt"  # only the fetch asked the server


def test_a_saved_file_changed_after_the_fetch_fails_the_build(
    http_server: HTTPTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    url = http_server.url("/llms-full.txt")
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: full\n    kind: llms-full\n    url: {url}\n"
    )
    index = save_snapshot(load_config(config), tmp_path / "snap", fetch=fetch_text)
    saved = tmp_path / "snap" / index["documents"][0]["file"]
    saved.write_bytes(saved.read_bytes() + b"\nplanted\n")
    monkeypatch.setenv(OFFLINE_ENV_VAR, str(tmp_path / "snap"))

    with pytest.raises(SourceError, match=r"changed since it was saved; run docwheel fetch again"):
        build_from_file(config, tmp_path / "index")
    assert not (tmp_path / "index").exists()


def test_a_failing_source_fails_the_fetch_like_the_build_and_leaves_nothing(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    http_server.route("/llms.txt", "# Docs\n\n- [Gone](gone.md)\n")
    config = load_config(
        write_config(
            tmp_path,
            "name: t\nsources:\n"
            f"  - name: full\n    kind: llms-full\n    url: {http_server.url('/llms-full.txt')}\n"
            f"  - name: list\n    kind: llms-txt\n    url: {http_server.url('/llms.txt')}\n",
        )
    )
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    with pytest.raises(SourceError) as by_build:
        build_index(config, out_dir / "index", fetch=FAST_RETRIES)
    with pytest.raises(SourceError) as by_fetch:
        save_snapshot(config, out_dir / "snap", fetch=FAST_RETRIES)

    assert str(by_fetch.value) == str(by_build.value)
    assert str(by_fetch.value) == (
        f"source 'list' ({http_server.url('/gone.md')}): HTTP 404 Not Found"
    )
    assert list(out_dir.iterdir()) == []


def test_fetch_replaces_a_snapshot_but_never_other_files(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    http_server.route("/llms-full.txt", LLMS_FULL.read_bytes())
    url = http_server.url("/llms-full.txt")
    config = load_config(
        write_config(
            tmp_path, f"name: t\nsources:\n  - name: full\n    kind: llms-full\n    url: {url}\n"
        )
    )
    snap = tmp_path / "snap"
    save_snapshot(config, snap, fetch=fetch_text)
    (snap / "files" / "stale").write_text("from an older fetch")
    save_snapshot(config, snap, fetch=fetch_text)
    assert not (snap / "files" / "stale").exists()

    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(BuildError, match="not a docwheel snapshot"):
        save_snapshot(config, precious, fetch=fetch_text)
    assert [p.name for p in precious.iterdir()] == ["notes.txt"]
    assert len(http_server.requests) == 2  # refused before fetching anything


@pytest.mark.parametrize(
    ("value", "problem"),
    [("3", "offline: expected a snapshot folder name, got a number (3)"), ("", "offline: empty")],
)
def test_offline_key_must_name_a_folder(tmp_path: Path, value: str, problem: str) -> None:
    config = write_config(
        tmp_path,
        f"name: t\noffline: {value}\nsources:\n  - name: s\n    kind: markdown\n"
        f"    path: {SITE}\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert info.value.problems == [problem]


def test_an_offline_build_never_loads_the_network_code(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    serve_docs(http_server)
    config = docs_config(tmp_path, http_server)
    save_snapshot(load_config(config), tmp_path / "snap", fetch=fetch_text)
    script = (
        "import sys\n"
        "from docwheel.build import build_from_file\n"
        "import docwheel.snapshot\n"
        f"build_from_file({str(config)!r}, {str(tmp_path / 'index')!r})\n"
        "print('docwheel.fetch' in sys.modules)\n"
    )
    env = {**_env(), OFFLINE_ENV_VAR: str(tmp_path / "snap")}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


# -- the CLI, with the network cut --------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _offline_prefix() -> tuple[str, ...] | None:
    """``unshare -n`` as root, else ``unshare -rn``; None if neither makes a namespace."""
    if not shutil.which("unshare"):
        return None
    for prefix in (("unshare", "-n"), ("unshare", "-rn")):
        if subprocess.run([*prefix, "true"], capture_output=True, timeout=30).returncode == 0:
            return prefix
    return None


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != OFFLINE_ENV_VAR}
    env["SOURCE_DATE_EPOCH"] = EPOCH
    return env


def run(args: list[str], env: dict[str, str], prefix: tuple[str, ...] = ()):
    proc = subprocess.run(
        [*prefix, *docwheel_cmd(), *args], capture_output=True, text=True, env=env, timeout=180
    )
    assert proc.returncode == 0, f"{args}: exit {proc.returncode}\n{proc.stderr}"
    return proc


def test_cli_build_from_a_snapshot_without_any_network_matches_the_online_build(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    prefix = _offline_prefix()
    if prefix is None:
        pytest.skip("cannot cut the network here: `unshare -n true` and `unshare -rn true` failed")
    serve_docs(http_server)
    config = str(docs_config(tmp_path, http_server))
    env = _env()
    run(["build", "--config", config, "--out", str(tmp_path / "online"), "-q"], env)
    fetched = run(["fetch", "--config", config, "--out", str(tmp_path / "snap")], env)
    assert fetched.stdout == ""
    assert "docwheel: full: fetched 1 documents" in fetched.stderr
    assert "docwheel: saved 6 documents" in fetched.stderr.splitlines()[-1]
    quiet = run(["fetch", "--config", config, "--out", str(tmp_path / "snap"), "--quiet"], env)
    assert quiet.stderr == ""
    http_server.reset()

    offline_env = {**env, OFFLINE_ENV_VAR: str(tmp_path / "snap")}
    out = tmp_path / "offline"
    proc = run(["build", "--config", config, "--out", str(out)], offline_env, prefix)

    assert http_server.requests == []
    assert "docwheel: offline: remote sources come from" in proc.stderr
    assert "docwheel: indexed " in proc.stderr.splitlines()[-1]
    online_files = tree(tmp_path / "online")
    offline_files = tree(out)
    assert online_files.keys() == offline_files.keys()
    for name in online_files.keys() - {"manifest.json"}:
        assert offline_files[name] == online_files[name], name
    online = json.loads((tmp_path / "online" / "manifest.json").read_text(encoding="utf-8"))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert without_fetch_times(manifest) == without_fetch_times(online)

    # And the same offline build again gives the same manifest too.
    run(["build", "--config", config, "--out", str(tmp_path / "again"), "-q"], offline_env, prefix)
    assert tree(tmp_path / "again") == offline_files


def test_cli_fetch_failure_is_one_line_and_leaves_nothing(
    http_server: HTTPTestServer, tmp_path: Path
) -> None:
    url = http_server.url("/gone.txt")
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: web\n    kind: llms-full\n    url: {url}\n"
    )
    proc = subprocess.run(
        [*docwheel_cmd(), "fetch", "--config", str(config), "--out", str(tmp_path / "o" / "s")],
        capture_output=True, text=True, env=_env(), timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        f"docwheel: error: source 'web' ({url}): HTTP 404 Not Found"
    )
    assert not (tmp_path / "o").exists()
