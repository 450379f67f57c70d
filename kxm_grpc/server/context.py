"""The authenticated call, handed from admission (``server/admission.py``) to the servicer through a ContextVar."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who is calling, and the calling agent's record when there is one."""

    caller: Caller
    agent: Agent | None
    request_id: str
    credentials_version: int = -1
    """The credentials topic's version at which the presented credentials were verified (-1: unknown)."""


_current: ContextVar[CallContext] = ContextVar("kxm_call")


def current_call() -> CallContext:
    """The call being served (set by admission before the servicer runs)."""
    return _current.get()


def set_current_call(call: CallContext) -> None:
    """Bind the call for the servicer (admission runs inside the task that serves the call)."""
    _current.set(call)
