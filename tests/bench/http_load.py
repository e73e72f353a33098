"""A bounded load test of `docwheel serve --http` on loopback.

Starts the server as a child process on a free 127.0.0.1 port, then runs ``clients``
concurrent MCP sessions (the official SDK's streamable HTTP client), each making
``calls`` search_docs calls over a spread of queries: a fixed amount of work, never an
open-ended flood. Reports latency percentiles per call, throughput, errors and the
server's memory afterwards. ``bench.py`` calls ``run_http_load``; it also runs alone:

    python tests/bench/http_load.py --index DIR [--clients 16] [--calls 25]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

LIMIT = 10
DEFAULT_QUERIES = [
    "configure authentication", "how do I add a tool", "transport streamable http",
    "error handling", "install", "deploy to production", "resources and templates",
    "logging level", "timeout", "environment variables",
]


@dataclass
class HttpLoad:
    label: str
    clients: int
    calls: int
    times_ms: list[float] = field(default_factory=list)
    errors: int = 0
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    rss_mb: float = float("nan")
    threads: int = 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_healthy(base: str, server: subprocess.Popen, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"docwheel serve --http exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"docwheel serve --http did not answer {base}/healthz in {seconds:.0f} s")


def _status(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/status").read_text()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}


async def _drive(url: str, run: HttpLoad, queries: list[str]) -> None:
    from mcp import Client

    async def client(number: int) -> None:
        try:
            async with Client(url) as remote:
                for i in range(run.calls):
                    query = queries[(number * run.calls + i) % len(queries)]
                    started = time.perf_counter()
                    result = await remote.call_tool("search_docs", {"query": query, "limit": LIMIT})
                    run.times_ms.append((time.perf_counter() - started) * 1000)
                    if result.is_error:
                        run.errors += 1
                        run.failures.append(f"{query!r}: {result.content[0].text[:80]}")
        except Exception as exc:  # a broken session counts every call it did not make
            run.errors += run.calls
            run.failures.append(f"client {number}: {type(exc).__name__}: {exc}")

    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(client(n) for n in range(run.clients))), 300)
    run.wall_s = time.perf_counter() - started


def run_http_load(
    label: str,
    index_dir: Path,
    queries: list[str],
    *,
    clients: int = 16,
    calls: int = 25,
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> HttpLoad:
    """``clients`` sessions x ``calls`` search_docs calls against a fresh HTTP server."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    errlog = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [sys.executable, "-m", "docwheel", "serve", "--http", "--port", str(port),
         "--index", str(index_dir)],
        stdout=subprocess.DEVNULL, stderr=errlog, env=env,
    )
    run = HttpLoad(label, clients, calls)
    try:
        wait_healthy(base, server)
        asyncio.run(_drive(f"{base}/mcp", run, queries or DEFAULT_QUERIES))
        status = _status(server.pid)
        run.rss_mb = int(status["VmRSS"].split()[0]) / 1024
        run.threads = int(status["Threads"])
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if log:
            errlog.close()  # type: ignore[union-attr]
    return run


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def summary(run: HttpLoad) -> list[object]:
    done = len(run.times_ms)
    return [
        run.label, run.clients, run.clients * run.calls, done, run.errors,
        percentile(run.times_ms, 0.5), percentile(run.times_ms, 0.95),
        max(run.times_ms, default=float("nan")), done / run.wall_s if run.wall_s else 0.0,
        run.rss_mb, run.threads,
    ]


HEADERS = ["index", "clients", "requests", "answered", "errors", "median ms", "p95 ms",
           "max ms", "req/s", "RSS MB", "threads"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index directory")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--calls", type=int, default=25, help="search_docs calls per client")
    args = parser.parse_args(argv)
    run = run_http_load(args.index.name, args.index, DEFAULT_QUERIES,
                        clients=args.clients, calls=args.calls, env=dict(os.environ))
    for name, value in zip(HEADERS, summary(run)):
        print(f"{name:>10}: {value:.2f}" if isinstance(value, float) else f"{name:>10}: {value}")
    for failure in run.failures[:5]:
        print(f"failure: {failure}")
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
