"""The authenticated call, handed from admission (``server/admission.py``) to the servicer through a ContextVar."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.dashboard_sessions import DashboardSession
from kxm_grpc.domain.tokens import AttemptClaims


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who is calling, the calling agent's record and key when there is one, when they were verified,
    and the attempt token it presented."""

    caller: Caller
    agent: Agent | None
    request_id: str
    credentials_notice_version: int = -1
    """This process's notice count of credential changes when the presented credentials were verified.

    It is the store notifier's version of ``CREDENTIALS_TOPIC`` (``store.notifier.version``), which
    moves with every credential change committed by this process; -1 when unknown (one changed
    during admission). It is not the durable credentials version (``tx.credentials``, every
    process's changes): a long-lived call compares it with the notifier's current version to skip
    re-reading its key (``services.auth.KeyWatch``)."""
    agent_key: str | None = field(default=None, repr=False)
    """The agent key the call presented, which authentication verified (None: no agent identity).

    Kept so a handler needing it (a stream re-checking its key, presence renewal) never re-reads the
    call's metadata; never logged or shown (``repr=False``)."""
    attempt_token: AttemptClaims | None = None
    """The claims of the attempt token the call presented, verified by admission (None: none, or
    an RPC without a tool name, whose tokens are not read). Services check a run's scope against
    it; admission already checks the run a request names (``Gate.check_scope``)."""
    dashboard: DashboardSession | None = None
    """The dashboard session the call was admitted by, instead of a bearer token (None: none); a
    long-lived call checks it again when credentials change (``services.ops.check_watcher``)."""


_current: ContextVar[CallContext] = ContextVar("kxm_call")


def current_call() -> CallContext:
    """The call being served (set by admission before the servicer runs)."""
    return _current.get()


def set_current_call(call: CallContext) -> None:
    """Bind the call for the servicer (admission runs inside the task that serves the call)."""
    _current.set(call)
