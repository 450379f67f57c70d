"""Whose context a call reads or writes, and with what origin: the rules every context RPC shares.

A context RPC names its project in ``project``; empty means the credential's. A caller admitted
to one project (an agent, a project token, a runtime key, an operator naming ``x-kxm-project``)
may name only that one; an operator naming no project names it here. ``_shared`` is never a
request's project: it holds the operator defaults every project's pool includes, and no project
name can spell it (a project name starts with a letter or digit).

The *origin* of a write comes only from the verified credential (§11.4a): an operator (the
bootstrap admin or a named one) writes as ``human``, anyone else as ``peer``; the hub's own
writes (journal entries, verified evidence) are ``workflow`` and never pass through here.
"""

from __future__ import annotations

from kxm_grpc.domain import validation
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.items import SHARED_PROJECT, SourceType
from kxm_grpc.domain.projects import project_name
from kxm_grpc.errors import PermissionDenied, Reason, invalid_field


def context_project(caller: Caller, project: str) -> str:
    """The project a context call is about.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) ``project`` names ``_shared``, or another
            project than the one the caller is admitted to.
        InvalidArgument: (PROTOCOL_ERROR, field ``project``) a malformed name, or none from an
            operator that names no project.
    """
    named = validation.js_trim(project)
    if named == SHARED_PROJECT:
        raise PermissionDenied(
            "_shared holds the operators' defaults and is no request's project: name your own project",
            reason=Reason.CONTEXT_ISOLATION_VIOLATION,
            metadata={"project": named},
        )
    if named:
        project_name("project", named)
    if caller.project is not None:
        if named and named != caller.project:
            raise PermissionDenied(
                f"this credential is admitted to project {caller.project!r} only",
                reason=Reason.CONTEXT_ISOLATION_VIOLATION,
                metadata={"project": named, "callerProject": caller.project},
            )
        return caller.project
    if not named:
        raise invalid_field("project", "is required for an operator that names no project (x-kxm-project)")
    return named


def origin(caller: Caller) -> SourceType:
    """The source type a caller's writes carry: ``human`` for an operator, ``peer`` for anyone else."""
    return SourceType.HUMAN if caller.is_operator else SourceType.PEER


def writer(caller: Caller) -> str:
    """Who a caller is, as a proposal's or promotion's ``proposed-by:``/``promoted-by:`` names it:
    the agent id, the operator's name, else the credential's identity (``project:<name>``)."""
    if caller.agent_id:
        return caller.agent_id
    return caller.operator or caller.identity
