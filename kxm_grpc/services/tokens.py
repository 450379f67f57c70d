"""Session tokens and the tool-policy check of every call of a tool.

Operators mint session tokens for an agent (``mint_session_token``), revoke them and list them;
the hub keeps each one's facts (``SessionRecord``), never the token, and audits each mint and
revocation. Minting and revoking change what authentication reads (the sessions in force of the
calling agent's name, ``Authenticated.sessions``), so both call ``credentials_changed`` in their
transaction: this process's cached authentications drop at once, other replicas' within
``CREDENTIALS_RECHECK``.

``check_tool_call`` is admission's tool-policy step for a call of an RPC with a tool name:

1. An attempt token (``x-kxm-attempt-token``), when presented, is verified and must be the calling
   agent's and of its project (ATTEMPT_TOKEN_INVALID otherwise). Its policy must allow the call.
2. A session token (``x-kxm-session-token``), when presented, is verified, must be the calling
   agent's and of its project, and must not be revoked (SESSION_TOKEN_INVALID otherwise). Its
   policy must allow the call too: with both tokens, both policies apply.
3. Without a session token, an agent whose name holds a session in force is refused
   (SESSION_TOKEN_REQUIRED), with or without an attempt token: leaving the token off, or
   presenting only an attempt's, never lifts the operator's bound. Without an attempt
   token, an agent holding an open assignment of a workflow that sets ``requireAttemptTokens``
   is refused every tool but ``kxm_next_assignment`` (ATTEMPT_TOKEN_REQUIRED), checked before 2.
4. The deciding policy is evaluated on the tool (``domain/tool_policy.py``): TOOL_POLICY_DENIED.

An attempt token is honoured only while its assignment is open: once the assignment is closed
(completed, expired, superseded because its agent went offline, cancelled) its token is refused
(ATTEMPT_TOKEN_INVALID, defect ``assignment_closed``), one point read per call that presents one.
The exception is ``kxm_complete_assignment``, so a completion retried after a lost answer reaches
the service, which answers it as the duplicate it is (or ASSIGNMENT_CLOSED).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import structlog

from kxm_grpc.domain import tokens as rules
from kxm_grpc.domain.audit import session_target
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.tokens import (
    ATTEMPT_SCHEMA,
    SESSION_SCHEMA,
    ActiveSession,
    AttemptClaims,
    Defect,
    SessionClaims,
    SessionRecord,
    token_refused,
    verify_token,
)
from kxm_grpc.domain.tool_policy import ToolPolicy, evaluate
from kxm_grpc.domain.validation import object_id
from kxm_grpc.errors import NotFound, PermissionDenied, Reason, ResourceExhausted, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.services.projects import operator_project, require_project
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.step_runs import AssignmentState

log = structlog.get_logger("kxm.tokens")

DEFAULT_TTL = 24 * 3600 * MICROS
MIN_TTL = 60 * MICROS
MAX_TTL = 30 * 24 * 3600 * MICROS
MAX_ACTIVE_PER_NAME = 16
"""Sessions in force per agent name: authentication reads them all on a cache miss, so they are few."""


@dataclass(frozen=True, slots=True)
class PresentedTokens:
    """The tokens a call presented in its metadata (never logged or shown: ``repr=False``)."""

    attempt: str | None = field(default=None, repr=False)
    session: str | None = field(default=None, repr=False)


NO_TOKENS = PresentedTokens()


@dataclass(frozen=True, slots=True)
class IssuedSession:
    """A session's record and its token, shown once."""

    record: SessionRecord
    token: str = field(repr=False)


def _require_operator(caller: Caller) -> str:
    """The operator the call is attributed to.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not an operator (a surface that skipped admission).
    """
    if caller.operator is None:
        raise PermissionDenied("session tokens are an operator's", reason=Reason.CREDENTIAL_KIND_DENIED)
    return caller.operator


def session_ttl(value: int | None) -> int:
    """The ttl of a new session token in microseconds: 24 h when unset, else 1 minute to 30 days.

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) naming ``ttl``.
    """
    if value is None:
        return DEFAULT_TTL
    if not MIN_TTL <= value <= MAX_TTL:
        raise invalid_field("ttl", "must be 1 minute to 30 days (unset: 24 hours)")
    return value


async def mint_session_token(
    store: Store,
    caller: Caller,
    keyring: Keyring,
    *,
    project: str,
    agent_id: str,
    tool_policy: ToolPolicy,
    ttl: int | None,
    now: int,
) -> IssuedSession:
    """Mint a session token for an agent of the project; audited, its facts stored, the token returned once.

    ``tool_policy`` was made by ``make_policy`` (so it was validated where it was converted).

    Raises:
        InvalidArgument: a malformed project, agent id or ttl.
        NotFound: (PROJECT_NOT_FOUND) no such project; (AGENT_NOT_FOUND) no agent of it has this id.
        ResourceExhausted: (SESSION_TOKEN_LIMIT_REACHED) agents of that name hold 16 sessions in force.
        PermissionDenied: the caller is not an operator.
    """
    operator = _require_operator(caller)
    project = operator_project(caller, project)
    agent_id = object_id("agent_id", agent_id, 64)
    lifetime = session_ttl(ttl)
    session_id = new_id("ses")

    def work(tx: Tx) -> IssuedSession:
        require_project(tx, project)
        agent = tx.agents.get(agent_id)
        if agent is None or agent.project != project:
            raise NotFound(
                f"no agent of {project} has the id {agent_id}",
                reason=Reason.AGENT_NOT_FOUND,
                metadata={"agentId": agent_id},
            )
        if len(tx.session_tokens.active_for_name(project, agent.name, now)) >= MAX_ACTIVE_PER_NAME:
            raise ResourceExhausted(
                f"agents named {agent.name} already hold {MAX_ACTIVE_PER_NAME} session tokens in force; revoke one",
                reason=Reason.SESSION_TOKEN_LIMIT_REACHED,
                metadata={"agentId": agent_id, "limit": str(MAX_ACTIVE_PER_NAME)},
            )
        token, claims = rules.mint_session_token(
            keyring,
            project=project,
            session_id=session_id,
            agent_id=agent_id,
            tool_policy=tool_policy,
            now=now,
            ttl=lifetime,
        )
        record = SessionRecord(
            session_id=session_id,
            project=project,
            agent_id=agent_id,
            agent_name=agent.name,
            tool_policy=tool_policy,
            issue_time=claims.issue_time,
            expire_time=claims.expire_time,
            minted_by=operator,
            key_id=claims.key_id,
        )
        tx.session_tokens.insert(record)
        credentials_changed(tx)
        audit.record(
            tx,
            caller,
            "MintSessionToken",
            session_target(project, session_id),
            now=now,
            metadata={"agentId": agent_id, "expireTime": str(record.expire_time), "keyId": record.key_id},
        )
        return IssuedSession(record, token)

    issued = await store.write(work)
    log.info(
        "session_token_minted",
        session_id=session_id,
        agent_id=agent_id,
        key_id=issued.record.key_id,
        operator=operator,
    )
    return issued


async def revoke_session_token(
    store: Store, caller: Caller, *, project: str, session_id: str, now: int
) -> SessionRecord:
    """Revoke a session token of the project; a revoked one stays as it is (idempotent).

    Raises:
        InvalidArgument: a malformed project or session id.
        NotFound: (PROJECT_NOT_FOUND) no such project; (SESSION_TOKEN_NOT_FOUND) no session of it has this id.
        PermissionDenied: the caller is not an operator.
    """
    _require_operator(caller)
    project = operator_project(caller, project)
    session_id = object_id("session_id", session_id, 64)

    def work(tx: Tx) -> tuple[SessionRecord, bool]:
        require_project(tx, project)
        record = tx.session_tokens.get(session_id)
        if record is None or record.project != project:
            # Another project's session reads as none: its id tells nothing.
            raise NotFound(
                f"no session token of {project} has the id {session_id}",
                reason=Reason.SESSION_TOKEN_NOT_FOUND,
                metadata={"sessionId": session_id},
            )
        if record.revoke_time is not None:
            return record, False
        tx.session_tokens.revoke(session_id, now)
        credentials_changed(tx)
        audit.record(tx, caller, "RevokeSessionToken", session_target(project, session_id), now=now)
        return replace(record, revoke_time=now), True

    record, revoked = await store.write(work)
    if revoked:
        log.info("session_token_revoked", session_id=session_id, agent_id=record.agent_id, operator=caller.operator)
    return record


async def list_session_tokens(
    store: Store, caller: Caller, *, project: str, size: int, token: str
) -> tuple[list[SessionRecord], str]:
    """A project's session tokens newest first, one page at a time (revoked and expired ones too).

    Raises:
        InvalidArgument: a malformed project, a negative page size or a bad page token (INVALID_PAGE_TOKEN).
        NotFound: (PROJECT_NOT_FOUND) no such project.
        PermissionDenied: the caller is not an operator.
    """
    _require_operator(caller)
    project = operator_project(caller, project)
    limit = page_size(size)
    query = f"session-tokens:{project}"
    after = decode_page_token(token, query)
    before: tuple[int, str] | None = None
    if after is not None:
        issue_time, _, session_id = after.partition(":")
        if not issue_time.isdigit() or not session_id:
            raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN)
        before = (int(issue_time), session_id)

    def work(tx: Tx) -> list[SessionRecord]:
        require_project(tx, project)
        return tx.session_tokens.list_page(project, before, limit + 1)

    records = await store.read(work)
    if len(records) > limit:
        last = records[limit - 1]
        return records[:limit], encode_page_token(f"{last.issue_time}:{last.session_id}", query)
    return records, ""


# -- the tool-policy check of a call ----------------------------------------------------------------


def _policy_denied(tool: str, kind: str, rule: str, entry: str) -> PermissionDenied:
    return PermissionDenied(
        f"the {kind} token's tool policy does not allow {tool} ({rule})",
        reason=Reason.TOOL_POLICY_DENIED,
        metadata={
            "tool": tool,
            "token": kind,
            "rule": rule,
            "entry": entry,
            "nextAction": "call a tool the policy allows, or ask an operator for a token whose policy allows this one",
        },
    )


def _session_required(tool: str) -> PermissionDenied:
    return PermissionDenied(
        f"this agent holds a session token and must present it to call {tool}",
        reason=Reason.SESSION_TOKEN_REQUIRED,
        metadata={
            "tool": tool,
            "nextAction": "send the session token in x-kxm-session-token (KXM_SESSION_TOKEN)",
        },
    )


def _bound_to_caller(schema: str, claims: AttemptClaims | SessionClaims, caller: Caller) -> None:
    """Raises: PermissionDenied (the token's kind's INVALID reason) when it is not the caller's."""
    if claims.project != caller.project:
        raise token_refused(schema, Defect.OTHER_PROJECT, "it is of another project")
    if claims.agent_id != caller.agent_id:
        raise token_refused(schema, Defect.OTHER_AGENT, "it was issued to another agent")


AttemptCheck = Callable[[AttemptClaims, Caller], None]

ATTEMPT_CHECKS: Sequence[AttemptCheck] = ()
"""Checks of a verified attempt token beyond its signature and binding, for the step dispatcher to
add (its assignment still open, its attempt not superseded); each raises PermissionDenied."""


async def check_tool_call(
    store: Store,
    keyring: Keyring,
    caller: Caller,
    sessions: Sequence[ActiveSession],
    tool: str,
    presented: PresentedTokens,
    *,
    now: int,
    bound_assignments: Sequence[str] = (),
) -> AttemptClaims | None:
    """Admit or refuse a call of ``tool`` (see the module docstring); the verified attempt claims, if any.

    ``bound_assignments`` are the agent's open assignments whose workflow requires attempt tokens
    (read with its authentication): without an attempt token, only ``kxm_next_assignment`` (which
    hands out the token) is allowed. ``sessions`` are the sessions in force of the calling agent's
    name when its authentication was read (possibly a second old: one revoked since on another
    replica is still listed, one minted there not yet, which is read from the store).

    Raises:
        PermissionDenied: ATTEMPT_TOKEN_INVALID, ATTEMPT_TOKEN_REQUIRED, SESSION_TOKEN_INVALID,
            SESSION_TOKEN_REQUIRED or TOOL_POLICY_DENIED, each with metadata saying what to do next.
    """
    attempt: AttemptClaims | None = None
    policies: list[tuple[str, ToolPolicy]] = []
    if presented.attempt is not None:
        verified = verify_token(presented.attempt, ATTEMPT_SCHEMA, keyring, now=now)
        assert isinstance(verified, AttemptClaims)
        _bound_to_caller(ATTEMPT_SCHEMA, verified, caller)
        for check in ATTEMPT_CHECKS:
            check(verified, caller)
        if tool != COMPLETE_TOOL:
            await _check_assignment_open(store, verified)
        attempt = verified
        policies.append(("attempt", verified.tool_policy))
    elif bound_assignments and tool != NEXT_TOOL:
        raise _attempt_token_required(tool, bound_assignments[0])
    if presented.session is not None:
        session = verify_token(presented.session, SESSION_SCHEMA, keyring, now=now)
        assert isinstance(session, SessionClaims)
        _bound_to_caller(SESSION_SCHEMA, session, caller)
        if not any(s.session_id == session.session_id for s in sessions):
            await _check_not_revoked(store, session, now)
        policies.append(("session", session.tool_policy))
    elif any(s.expire_time > now for s in sessions):
        # An attempt token never stands in for a session in force: the operator's bound holds.
        raise _session_required(tool)
    # Both presented: each policy must allow the tool (the attempt's is narrower in scope, the
    # session's is the operator's bound on the agent).
    for kind, policy in policies:
        decision = evaluate(policy, tool)
        if not decision.allowed:
            raise _policy_denied(tool, kind, decision.rule.value, decision.entry)
    return attempt


COMPLETE_TOOL = "kxm_complete_assignment"
NEXT_TOOL = "kxm_next_assignment"


def _attempt_token_required(tool: str, assignment_id: str) -> PermissionDenied:
    return PermissionDenied(
        f"calling {tool} needs the attempt token of your open assignment {assignment_id}: its workflow requires it",
        reason=Reason.ATTEMPT_TOKEN_REQUIRED,
        metadata={
            "tool": tool,
            "assignmentId": assignment_id,
            "nextAction": "present the assignment's attempt_token (x-kxm-attempt-token, KXM_ATTEMPT_TOKEN)",
        },
    )


async def _check_assignment_open(store: Store, claims: AttemptClaims) -> None:
    """Refuse an attempt token whose assignment is closed (or unknown to this project).

    Raises:
        PermissionDenied: (ATTEMPT_TOKEN_INVALID, defect ``assignment_closed``).
    """
    assignment = await store.read(lambda tx: tx.step_runs.get_assignment(claims.assignment_id))
    if assignment is None or assignment.project != claims.project:
        raise token_refused(ATTEMPT_SCHEMA, Defect.ASSIGNMENT_CLOSED, "the hub has no open assignment for it")
    if assignment.state is not AssignmentState.OPEN:
        raise token_refused(ATTEMPT_SCHEMA, Defect.ASSIGNMENT_CLOSED, f"its assignment is {assignment.state.value}")


async def _check_not_revoked(store: Store, claims: SessionClaims, now: int) -> None:
    """Check in the store a verified session token the cached sessions do not list (revoked, or
    minted on another replica since the calling agent's authentication was cached).

    Raises:
        PermissionDenied: (SESSION_TOKEN_INVALID) it was revoked, or the hub has no record of it.
    """
    record = await store.read(lambda tx: tx.session_tokens.get(claims.session_id))
    if record is None or record.project != claims.project:
        raise token_refused(SESSION_SCHEMA, Defect.UNKNOWN_SESSION, "the hub has no record of this session")
    if record.revoke_time is not None:
        raise token_refused(SESSION_SCHEMA, Defect.REVOKED, "it was revoked")


def check_assignment_scope(attempt: AttemptClaims, assignment_id: str) -> None:
    """Refuse completing another assignment than the attempt token's.

    Raises:
        PermissionDenied: (ATTEMPT_TOKEN_SCOPE_VIOLATION) with the assignment named and the token's.
    """
    if assignment_id != attempt.assignment_id:
        raise PermissionDenied(
            "the call names another assignment than its attempt token's",
            reason=Reason.ATTEMPT_TOKEN_SCOPE_VIOLATION,
            metadata={
                "assignmentId": assignment_id,
                "tokenAssignmentId": attempt.assignment_id,
                "nextAction": "complete an assignment with its own attempt token (or with none)",
            },
        )


def check_run_scope(attempt: AttemptClaims, run_id: str) -> None:
    """Refuse a call naming a run other than its attempt token's (an empty ``run_id`` names none).

    Raises:
        PermissionDenied: (ATTEMPT_TOKEN_SCOPE_VIOLATION) with the run named and the token's.
    """
    if run_id and run_id != attempt.run_id:
        raise PermissionDenied(
            "the call names another workflow run than its attempt token's",
            reason=Reason.ATTEMPT_TOKEN_SCOPE_VIOLATION,
            metadata={
                "runId": run_id,
                "tokenRunId": attempt.run_id,
                "nextAction": "act only on the run of the attempt the token was issued for",
            },
        )
