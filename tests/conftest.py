from __future__ import annotations

from collections.abc import Iterator

import pytest
from httpserver import HTTPTestServer


@pytest.fixture(scope="session")
def _http_server_session() -> Iterator[HTTPTestServer]:
    with HTTPTestServer() as server:
        yield server


@pytest.fixture
def http_server(
    _http_server_session: HTTPTestServer, monkeypatch: pytest.MonkeyPatch
) -> HTTPTestServer:
    """The session's loopback HTTP server, with no routes and no recorded requests."""
    _http_server_session.reset()
    for name in ("no_proxy", "NO_PROXY"):  # a proxy from the environment must not see these
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    return _http_server_session
