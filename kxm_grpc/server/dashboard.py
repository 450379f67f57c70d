"""The operator dashboard on the HTTP port: its page, its sign-in, and the cookie its calls carry.

Routes (the private HTTP listener only; the public webhook listener serves none of them):

- ``GET /dashboard/`` the page, ``GET /dashboard/app.js`` and ``/dashboard/app.css`` its code and
  style (``kxm_grpc/dashboard/``, committed, no build step), each with a strict
  Content-Security-Policy (nothing but this origin's script, style and calls; no inline code, no
  framing), ``nosniff``, no referrer, an ETag, gzip when asked for; ``/dashboard`` redirects there.
- ``POST /dashboard/session`` with ``{"token": "<operator token>"}`` signs in: the token is
  admitted as a call of GetCallerIdentity would be (authentication, the peer's budget of failed
  authentications, logging), must be an operator's, and the answer sets the session cookie
  (HttpOnly, SameSite=Strict, Path=/, Secure under TLS, Max-Age of the session) and returns the
  operator, the expiry and the CSRF value. ``GET`` returns the same for the cookie's session (the
  page reloaded); ``DELETE`` signs out (clears the cookie; audited).

The page then calls RPCs as any HTTP client does (Connect JSON, server streaming for the ops
watch) with no ``Authorization`` header: ``HttpApiServer`` asks ``session_of`` for the session of
such a call, which requires the CSRF value in ``x-kxm-csrf`` and, when the browser says where the
call comes from, this origin (``Origin``, ``Sec-Fetch-Site``); the call is then admitted with the
session as its credentials (``services/auth.py``: the operator must still be active, the admin
token unchanged). A call with a bearer token is never read for a cookie. Every action is thus an
operator RPC, audited under the operator's name like the CLI's.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import structlog

from kxm_grpc.domain import dashboard_sessions
from kxm_grpc.domain.clock import MICROS, rfc3339
from kxm_grpc.domain.dashboard_sessions import DashboardSession
from kxm_grpc.errors import HubError, InvalidArgument, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.server import http1
from kxm_grpc.server.admission import IncomingCall
from kxm_grpc.server.connect import HTTP_STATUS, connect_error
from kxm_grpc.server.context import CallContext
from kxm_grpc.server.http_calls import HttpCallContext, Route, answer, call_unary, json_bytes
from kxm_grpc.services import dashboard
from kxm_grpc.services.auth import Access, Credentials, authenticate

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.dashboard")

PREFIX = "/dashboard"
COOKIE = "kxm_session"
CSRF_HEADER = "x-kxm-csrf"
IDENTITY_METHOD = "/kxm.v1.AgentService/GetCallerIdentity"
MAX_TOKEN_CHARS = 512

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)

_ASSETS = {
    f"{PREFIX}/": ("index.html", "text/html; charset=utf-8"),
    f"{PREFIX}/app.js": ("app.js", "text/javascript; charset=utf-8"),
    f"{PREFIX}/app.css": ("app.css", "text/css; charset=utf-8"),
}
PATHS = (PREFIX, f"{PREFIX}/session", *_ASSETS)
"""Every path this endpoint answers (``HttpApiServer`` routes exact paths)."""


@dataclass(frozen=True, slots=True)
class _Asset:
    body: bytes
    gzipped: bytes
    content_type: str
    etag: str


def _load_assets() -> dict[str, _Asset]:
    files = resources.files("kxm_grpc.dashboard")
    loaded = {}
    for path, (name, content_type) in _ASSETS.items():
        body = (files / name).read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        loaded[path] = _Asset(body, gzip.compress(body, 9, mtime=0), content_type, etag)
    return loaded


def _cookie_value(headers: Mapping[str, str]) -> str | None:
    """The session cookie's value among the request's cookies (None: none)."""
    for pair in headers.get("cookie", "").split(";"):
        name, _, value = pair.strip().partition("=")
        if name == COOKIE and value:
            return value
    return None


class Dashboard:
    """The dashboard's routes and the session of a cookie-carrying call (see the module docstring)."""

    def __init__(self, hub: HubState, routes: Mapping[str, Route], *, tls: bool) -> None:
        self._hub = hub
        self._identity = routes[IDENTITY_METHOD]
        self._tls = tls
        self._assets = _load_assets()

    # -- the session of an RPC call ------------------------------------------------------------

    def session_of(self, headers: Mapping[str, str]) -> DashboardSession | None:
        """The dashboard session of a call without a bearer token (None: it carries no session cookie).

        Raises:
            Unauthenticated: (INVALID_AUTH) the cookie is not a valid session or it expired.
            PermissionDenied: (CSRF_REJECTED) the call lacks the session's CSRF value, or comes from
                another origin.
        """
        value = _cookie_value(headers)
        if value is None:
            return None
        self._same_origin(headers)
        session = dashboard_sessions.verify(value, self._hub.token_keys, now=self._hub.now())
        if not dashboard_sessions.csrf_matches(session, headers.get(CSRF_HEADER, "")):
            raise PermissionDenied(
                f"a dashboard call must send its session's {CSRF_HEADER} header", reason=Reason.CSRF_REJECTED
            )
        return session

    def seconds_left(self, session: DashboardSession) -> float:
        """How long ``session`` has yet on the hub's clock."""
        return max(0.0, (session.expire_time - self._hub.now()) / MICROS)

    def _same_origin(self, headers: Mapping[str, str]) -> None:
        """Refuse a request the browser says comes from another site or origin.

        ``Origin``'s host and port must be the request's ``Host``; its scheme is not compared, so a
        proxy in front that ends TLS (the hub then sees plain HTTP) still passes its page's calls.

        Raises:
            PermissionDenied: (CSRF_REJECTED) ``Sec-Fetch-Site`` is not same-origin, or ``Origin``
                names another host than the request's.
        """
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            raise PermissionDenied("the dashboard answers its own page only", reason=Reason.CSRF_REJECTED)
        origin = headers.get("origin")
        if origin is not None:
            parts = urllib.parse.urlsplit(origin)
            if parts.scheme not in ("http", "https") or parts.netloc != headers.get("host", ""):
                raise PermissionDenied("the dashboard answers its own page only", reason=Reason.CSRF_REJECTED)

    # -- routes --------------------------------------------------------------------------------

    async def serve(
        self,
        head: http1.Head,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep: bool,
        extra: Sequence[tuple[str, str]],
    ) -> bool:
        """Answer one request to a dashboard path; whether the connection may serve another."""
        path = head.path
        if path == PREFIX:
            await answer(writer, 308, "", b"", keep, [("Location", f"{PREFIX}/"), *SECURITY_HEADERS])
            return keep
        if path == f"{PREFIX}/session":
            return await self._session(head, body, writer, keep)
        if head.method not in ("GET", "HEAD"):
            await self._plain(writer, 405, "the page is read with GET", keep, [("Allow", "GET")])
            return keep
        asset = self._assets[path]
        headers = [("ETag", asset.etag), ("Cache-Control", "no-cache"), ("Vary", "Accept-Encoding")]
        if head.headers.get("if-none-match") == asset.etag:
            await answer(writer, 304, "", b"", keep, [*headers, *SECURITY_HEADERS])
            return keep
        content = asset.body
        if "gzip" in head.headers.get("accept-encoding", ""):
            content = asset.gzipped
            headers.append(("Content-Encoding", "gzip"))
        await answer(writer, 200, asset.content_type, content, keep, [*headers, *SECURITY_HEADERS])
        return keep

    async def _session(self, head: http1.Head, body: bytes, writer: asyncio.StreamWriter, keep: bool) -> bool:
        hub = self._hub
        try:
            if head.method == "POST":
                self._same_origin(head.headers)
                value, session = await self._sign_in(head, body, writer)
                cookie = self._cookie(value, max_age=(session.expire_time - session.issue_time) // MICROS)
                await answer(writer, 200, "application/json", _session_json(session), keep, [cookie, *_NO_STORE])
                return keep
            if head.method == "GET":
                session = await self._cookie_session(head.headers)
                await answer(writer, 200, "application/json", _session_json(session), keep, list(_NO_STORE))
                return keep
            if head.method == "DELETE":
                ending = self.session_of(head.headers)
                if ending is None:
                    raise Unauthenticated("no dashboard session to end", reason=Reason.CREDENTIAL_MISSING)
                await dashboard.sign_out(hub.store, ending, now=hub.now())
                await answer(writer, 204, "", b"", keep, [self._cookie("", max_age=0), *_NO_STORE])
                return keep
            await self._plain(writer, 405, "sign in with POST, read with GET, sign out with DELETE", keep, [])
            return keep
        except HubError as error:
            status = HTTP_STATUS.get(error.status, 500)
            await answer(writer, status, "application/json", json_bytes(connect_error(error)), keep, list(_NO_STORE))
            return keep

    async def _cookie_session(self, headers: Mapping[str, str]) -> DashboardSession:
        """The session of a page asking who it is signed in as (no CSRF value yet: it reads it here),
        if its operator may still act (as every call of the session checks).

        Raises:
            Unauthenticated: no cookie, not a valid session, signed out, or its operator revoked.
            PermissionDenied: (CSRF_REJECTED) from another origin.
        """
        self._same_origin(headers)
        value = _cookie_value(headers)
        if value is None:
            raise Unauthenticated("not signed in", reason=Reason.CREDENTIAL_MISSING)
        hub = self._hub
        session = dashboard_sessions.verify(value, hub.token_keys, now=hub.now())
        await authenticate(hub.store, hub.admin_token_hash, Credentials(dashboard=session), Access.OPERATOR)
        return session

    async def _sign_in(
        self, head: http1.Head, body: bytes, writer: asyncio.StreamWriter
    ) -> tuple[str, DashboardSession]:
        """Admit the token as a GetCallerIdentity call would be, then begin its operator's session.

        Raises:
            InvalidArgument: (PROTOCOL_ERROR) the body is not ``{"token": "..."}``.
            Unauthenticated, PermissionDenied, ResourceExhausted: as admission refuses the token.
            PermissionDenied: (CREDENTIAL_KIND_DENIED) it is not an operator's.
        """
        # The media type exactly: a "simple" type a cross-site form may send (text/plain; ...) never passes.
        if head.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/json":
            raise InvalidArgument('sign in with a JSON body {"token": ...}', reason=Reason.PROTOCOL_ERROR)
        try:
            token = json.loads(body).get("token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS or not token.isascii():
            raise InvalidArgument(
                "token: must be an operator's token (the admin token or kxm_op_...)", reason=Reason.PROTOCOL_ERROR
            )
        peer = writer.get_extra_info("peername")
        peer_host = f"http:{peer[0]}" if isinstance(peer, tuple) else "http:unknown"
        call = IncomingCall(IDENTITY_METHOD, [("authorization", f"Bearer {token}")], peer_host)
        admitted: list[CallContext] = []
        route = self._identity
        await call_unary(route, call, lambda: route.request_type(), HttpCallContext(None), admitted=admitted.append)
        hub = self._hub
        return await dashboard.sign_in(
            hub.store, hub.token_keys, admitted[0].caller, admin_token_hash=hub.admin_token_hash, now=hub.now()
        )

    def _cookie(self, value: str, *, max_age: int) -> tuple[str, str]:
        secure = "; Secure" if self._tls else ""
        return ("Set-Cookie", f"{COOKIE}={value}; Path=/; Max-Age={max(0, max_age)}; HttpOnly; SameSite=Strict{secure}")

    async def _plain(
        self, writer: asyncio.StreamWriter, status: int, text: str, keep: bool, extra: Sequence[tuple[str, str]]
    ) -> None:
        await answer(writer, status, "text/plain; charset=utf-8", (text + "\n").encode(), keep, extra)


_NO_STORE = (("Cache-Control", "no-store"), *SECURITY_HEADERS)


def _session_json(session: DashboardSession) -> bytes:
    return json.dumps(
        {"operator": session.operator, "expireTime": rfc3339(session.expire_time), "csrfToken": session.csrf}
    ).encode()
