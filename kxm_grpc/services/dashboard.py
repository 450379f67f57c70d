"""Dashboard sign-in and sign-out: an operator's session begins and ends, audited.

The HTTP port admits the sign-in's token like any call (``server/dashboard.py`` calls
GetCallerIdentity with it: authentication, the failed-authentication budget, logging); here the
admitted caller must be an operator, and the session begins (``domain/dashboard_sessions.py``).
Both ends are audit records attributed to the operator (``SignInDashboard``, ``SignOutDashboard``),
so what an operator does from the page (through the same operator RPCs as the CLI, each audited
as it is there) is found beside when the operator's session began.
"""

from __future__ import annotations

import structlog

from kxm_grpc.domain import dashboard_sessions
from kxm_grpc.domain.audit import operator_target
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.dashboard_sessions import DashboardSession
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.errors import PermissionDenied, Reason
from kxm_grpc.services import audit
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.dashboard")

SESSION_TTL = 8 * 3600 * MICROS
"""How long a session lasts (a working day); then the page asks for the token again."""


async def sign_in(
    store: Store, keyring: Keyring, caller: Caller, *, admin_token_hash: str | None, now: int
) -> tuple[str, DashboardSession]:
    """Begin ``caller``'s session: the cookie value and its claims; audited.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not an operator.
    """
    operator = caller.operator
    if operator is None:
        raise PermissionDenied(
            "the dashboard is for operators: sign in with the admin token or an operator's token (kxm operator create)",
            reason=Reason.CREDENTIAL_KIND_DENIED,
        )
    key = dashboard_sessions.admin_key(admin_token_hash) if caller.is_admin and admin_token_hash else ""
    value, session = dashboard_sessions.begin(keyring, operator, admin_key=key, now=now, ttl=SESSION_TTL)
    metadata = {"expireTime": str(session.expire_time)}
    await store.write(
        lambda tx: audit.record(tx, caller, "SignInDashboard", operator_target(operator), now=now, metadata=metadata)
    )
    log.info("dashboard_signed_in", operator=operator)
    return value, session


def session_caller(session: DashboardSession) -> Caller:
    """The caller a session's own actions (its sign-out) are attributed to."""
    if session.is_admin:
        return Caller(CredentialKind.ADMIN)
    return Caller(CredentialKind.OPERATOR, operator_name=session.operator)


async def sign_out(store: Store, session: DashboardSession, *, now: int) -> None:
    """End every dashboard session of the session's operator begun up to ``now`` (on every replica:
    the time is a hub setting, and a credentials change, so caches and open watches check again);
    audited."""
    caller = session_caller(session)
    target = operator_target(session.operator)

    def work(tx: Tx) -> None:
        tx.meta.put(dashboard_sessions.signed_out_key(session.operator), str(now))
        credentials_changed(tx)
        audit.record(tx, caller, "SignOutDashboard", target, now=now)

    await store.write(work)
    log.info("dashboard_signed_out", operator=session.operator)
