"""Dashboard sessions: what a browser holds after an operator signs in, signed by the hub.

An operator signs in once with a token; the browser keeps a cookie (HttpOnly, SameSite=Strict,
Secure under TLS) whose value is the session's claims signed with the hub's token keys
(``domain/keyring.py``, the keyring of the tool-policy tokens, under its own schema), so any
replica holding the keys verifies it and none stores it. The claims hold no credential:

- ``operator``: ``admin`` (the admin token) or a named operator's name;
- ``admin_key``: for the admin, a digest of the admin token's hash when the session began, so
  rotating the admin token ends its sessions (a named operator's end when it is revoked, which
  the hub checks at every call);
- ``csrf``: a random value the page sends back in ``x-kxm-csrf`` with every call (the double
  submit: another site can make the browser send the cookie, never read or send this value);
- issue and expiry times on the hub's clock.

Signing out records the time in the hub's settings (``signed_out_key``): every session of that
operator issued up to then ends (every browser the operator signed in with), on every replica, at
its next call and, for an open watch, at once.

The value is ``kxmds1.<key id>.<payload>.<mac>``: ``payload`` is the base64url (no padding) of
the claims' canonical JSON and ``mac`` the base64url of HMAC-SHA256 under the key ``key id`` of
``SCHEMA || NUL || payload``. ``verify`` checks the shape, the key, the MAC (in constant time,
before decoding anything) and the expiry, and raises UNAUTHENTICATED (INVALID_AUTH) for any
defect without saying more: the browser can only sign in again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass, field

from kxm_grpc.domain.keyring import KEY_ID, Keyring
from kxm_grpc.domain.operators import BOOTSTRAP_OPERATOR
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.errors import Reason, Unauthenticated

SCHEMA = "kxm.dashboard-session.v1"
PREFIX = "kxmds1."
MAX_CHARS = 2_048
"""A longer cookie value is refused before it is split (a session's is about 300 characters)."""
_B64 = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class DashboardSession:
    """A signed-in operator's session (see the module docstring)."""

    operator: str
    admin_key: str
    """The admin token's digest for the admin's session; empty for a named operator's."""
    csrf: str = field(repr=False)
    issue_time: int
    expire_time: int

    @property
    def is_admin(self) -> bool:
        """Whether the admin token began it."""
        return self.operator == BOOTSTRAP_OPERATOR and bool(self.admin_key)


def signed_out_key(operator: str) -> str:
    """The hub setting (``meta``) holding when ``operator`` last signed out of the dashboard: every
    session of the operator issued up to then has ended."""
    return f"dashboard.signed_out.{operator}"


def ended_by_sign_out(session: DashboardSession, signed_out: str | None) -> bool:
    """Whether a sign-out at ``signed_out`` (the setting's value; None: never) ended the session."""
    return signed_out is not None and session.issue_time <= int(signed_out)


def admin_key(admin_token_hash: str) -> str:
    """The digest of the admin token's stored hash that an admin's session carries (not a secret:
    it is a hash of a hash, and the cookie is HttpOnly anyway)."""
    return hashlib.sha256(f"{SCHEMA}\x00{admin_token_hash}".encode()).hexdigest()[:32]


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: bytes, payload: bytes) -> bytes:
    return hmac.new(secret, SCHEMA.encode("ascii") + b"\x00" + payload, hashlib.sha256).digest()


def begin(keyring: Keyring, operator: str, *, admin_key: str, now: int, ttl: int) -> tuple[str, DashboardSession]:
    """A new session of ``operator`` valid for ``ttl`` microseconds: the cookie value and its claims.

    Raises:
        ValueError: ``ttl`` is not positive or ``operator`` is empty.
    """
    if ttl <= 0 or not operator:
        raise ValueError("a dashboard session needs an operator and a positive ttl")
    session = DashboardSession(operator, admin_key, secrets.token_urlsafe(24), now, now + ttl)
    document = {
        "schema": SCHEMA,
        "operator": operator,
        "adminKey": admin_key,
        "csrf": session.csrf,
        "issueTime": now,
        "expireTime": session.expire_time,
    }
    payload = canonical_json(document).encode("utf-8")
    mac = _mac(keyring.keys[keyring.current], payload)
    return f"{PREFIX}{keyring.current}.{_b64encode(payload)}.{_b64encode(mac)}", session


def _refused() -> Unauthenticated:
    return Unauthenticated(
        "the dashboard session is not valid or has expired: sign in again", reason=Reason.INVALID_AUTH
    )


def verify(value: str, keyring: Keyring, *, now: int) -> DashboardSession:
    """The claims of a session cookie this keyring signed that has not expired.

    Raises:
        Unauthenticated: (INVALID_AUTH) it is malformed, names a key the keyring lacks, its MAC
            does not match, or it expired.
    """
    if len(value) > MAX_CHARS or not value.isascii() or not value.startswith(PREFIX):
        raise _refused()
    parts = value[len(PREFIX) :].rsplit(".", 2)
    if len(parts) != 3 or not KEY_ID.fullmatch(parts[0]) or not all(_B64.fullmatch(p) for p in parts[1:]):
        raise _refused()
    secret = keyring.secret(parts[0])
    if secret is None:
        raise _refused()
    try:
        payload, mac = _b64decode(parts[1]), _b64decode(parts[2])
    except (binascii.Error, ValueError):
        raise _refused() from None
    if not hmac.compare_digest(mac, _mac(secret, payload)):
        raise _refused()
    try:
        document = json.loads(payload)
        session = DashboardSession(
            operator=str(document["operator"]),
            admin_key=str(document["adminKey"]),
            csrf=str(document["csrf"]),
            issue_time=int(document["issueTime"]),
            expire_time=int(document["expireTime"]),
        )
    except (ValueError, KeyError, TypeError):
        raise _refused() from None
    if document.get("schema") != SCHEMA or now >= session.expire_time:
        raise _refused()
    return session


def csrf_matches(session: DashboardSession, presented: str) -> bool:
    """Whether the page sent the session's CSRF value (compared in constant time)."""
    return hmac.compare_digest(session.csrf.encode(), presented.encode("utf-8", "replace"))
