"""Serving MCP over streamable HTTP, safely by default.

- Loopback only unless asked: any other address needs ``allow_remote`` *and* a bearer
  token, checked before anything listens.
- On loopback, DNS-rebinding protection is on: a request whose ``Host`` or ``Origin`` names
  another site is refused (421/403), so a web page cannot reach the server through a
  rebound domain name. Beyond loopback the token does that job.
- A token, when there is one, is required on every request except ``GET /healthz``
  (401 otherwise); it is compared in constant time.
- ``/healthz`` answers ``{"status": "ok"}`` for load balancers and says nothing more.

The index is read-only and a server keeps nothing but MCP sessions in memory, so replicas
on the same index need nothing shared; with ``stateless`` even sessions are gone and any
replica can answer any request.
"""

from __future__ import annotations

import hmac
import ipaddress
import json

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import DocwheelError

TOKEN_ENV = "DOCWHEEL_TOKEN"
MIN_TOKEN_LENGTH = 16
HEALTH_PATH = "/healthz"
MCP_PATH = "/mcp"
# Every name a loopback server is reached by; the Host header must be one of them.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP address (127.0.0.0/8, ::1); names are not resolved."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, *, allow_remote: bool, token: str | None) -> None:
    """Refuse to listen beyond this machine without an explicit opt-in and a token."""
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise DocwheelError(
            f"the bearer token is too short ({len(token)} characters, "
            f"at least {MIN_TOKEN_LENGTH}); "
            'make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'
        )
    if is_loopback(host):
        return
    if not allow_remote:
        raise DocwheelError(
            f"--host {host} is reachable from other machines; add --allow-remote and a bearer "
            f"token (--token or {TOKEN_ENV}) to serve there, or keep the default 127.0.0.1"
        )
    if not token:
        raise DocwheelError(
            f"--allow-remote needs a bearer token: pass --token or set {TOKEN_ENV} "
            "(clients then send 'Authorization: Bearer <token>')"
        )


def transport_security(host: str) -> TransportSecuritySettings:
    """DNS-rebinding protection for loopback hosts; beyond loopback the token protects."""
    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    bracketed = f"[{host.strip('[]')}]" if ":" in host else host
    names = dict.fromkeys([*_LOOPBACK_NAMES, bracketed])  # ordered, no duplicates
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


class BearerToken:
    """ASGI middleware: every HTTP request but the open paths must carry the token."""

    def __init__(
        self, app: ASGIApp, token: str, open_paths: frozenset[str] = frozenset({HEALTH_PATH})
    ):
        self.app = app
        self._token = token.encode()
        self.open_paths = open_paths

    def allows(self, authorization: bytes) -> bool:
        scheme, _, credentials = authorization.strip().partition(b" ")
        # The scheme is case-insensitive (RFC 7235); the token is compared in constant time.
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.open_paths:
            if not self.allows(dict(scope["headers"]).get(b"authorization", b"")):
                await _unauthorized(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(scope: Scope, receive: Receive, send: Send) -> None:
    body = {
        "error": "unauthorized",
        "error_description": "send the server's token as 'Authorization: Bearer <token>'",
    }
    response = Response(
        json.dumps(body),
        status_code=401,
        media_type="application/json",
        headers={"WWW-Authenticate": 'Bearer realm="docwheel"'},
    )
    await response(scope, receive, send)


def http_app(
    server: MCPServer, *, host: str = "127.0.0.1", token: str | None = None, stateless: bool = False
) -> ASGIApp:
    """The ASGI app: MCP at /mcp, /healthz, host checks for ``host``, the token if given."""

    @server.custom_route(HEALTH_PATH, methods=["GET"], include_in_schema=False)
    async def healthz(_request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=stateless,
        transport_security=transport_security(host),
        host=host,
    )
    return BearerToken(app, token) if token else app


def run_http(
    server: MCPServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    stateless: bool = False,
) -> None:
    """Listen until SIGINT or SIGTERM, then shut down gracefully."""
    import anyio
    import uvicorn

    config = uvicorn.Config(
        http_app(server, host=host, token=token, stateless=stateless),
        host=host.strip("[]"),
        port=port,
        log_level="info",
        timeout_graceful_shutdown=5,
    )
    anyio.run(uvicorn.Server(config).serve)
