"""Authentication: turn presented credentials into a Caller, with no side effects.

Every credential presented is checked before anything is written (the original hub refreshed
presence before checking the project token; this one does not). Which kind of caller an RPC
accepts is its ``Access``; every RPC declares one in the proto (``RpcFacts.access``), which the
server's registry (``kxm_grpc/server/methods.py``) maps to this enum.

Credentials change in transactions that call ``credentials_changed``: it wakes this process's
authentication cache (``CREDENTIALS_TOPIC``) and bumps the durable credentials version
(``Tx.credentials``) in the same transaction, so another process sharing the database learns of the
change too. ``AuthCache`` trusts a cached authentication without reading the version for at most
``CREDENTIALS_RECHECK`` seconds: the bound within which a change made by another process is seen.
"""

from __future__ import annotations

import enum
import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kxm_grpc.domain import dashboard_sessions
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.dashboard_sessions import DashboardSession, admin_key
from kxm_grpc.domain.secrets import (
    OPERATOR_TOKEN_PREFIX,
    RUNTIME_KEY_PREFIX,
    hash_secret,
    hashes_match,
    secret_matches,
)
from kxm_grpc.domain.tokens import ActiveSession
from kxm_grpc.errors import NotFound, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.services.workflows import token_bound
from kxm_grpc.store import Store, Tx


class Access(enum.Enum):
    """Which callers an RPC admits."""

    ADMIN = "admin"
    """The bootstrap admin (the admin token) only: managing operators, reading the audit."""

    OPERATOR = "operator"
    """An operator: the bootstrap admin or a named operator (project management, sync projects)."""

    PROJECT_TOKEN = "project_token"
    """A project token (with or without an agent identity), or an operator naming a project."""

    PROJECT = "project"
    """Anything scoped to one project: a project token, an agent, a runtime, or an operator naming a project."""

    AGENT = "agent"
    """A project token together with a valid agent identity."""

    RUNTIME = "runtime"
    """A runtime key."""

    ANY = "any"
    """Any valid credential: an operator (naming a project or not), a project token, an agent, or a runtime."""


@dataclass(frozen=True, slots=True)
class Credentials:
    """What a call presented (from its metadata)."""

    bearer: str | None = field(default=None, repr=False)
    agent_id: str | None = None
    agent_key: str | None = field(default=None, repr=False)
    project: str | None = None
    dashboard: DashboardSession | None = None
    """A dashboard session the HTTP port verified (signature, expiry, CSRF) instead of a bearer token;
    whether its operator still may act is checked here, at every call (``_dashboard_caller``)."""


@dataclass(frozen=True, slots=True)
class Authenticated:
    """The caller, and the calling agent's record when the call carried an agent identity."""

    caller: Caller
    agent: Agent | None = None
    sessions: tuple[ActiveSession, ...] = ()
    """The session tokens in force for the calling agent's name when this was read (``services/tokens.py``):
    a session token is a credential, so it is cached and invalidated with the rest."""
    bound_assignments: tuple[str, ...] = ()
    """The calling agent's open assignments that require their attempt token (``token_bound``)."""


def _invalid_auth() -> Unauthenticated:
    return Unauthenticated("the bearer token is not valid", reason=Reason.INVALID_AUTH)


def _invalid_agent() -> Unauthenticated:
    return Unauthenticated(
        "the agent id and key do not match a registered agent; register again",
        reason=Reason.INVALID_AGENT_IDENTITY,
    )


CREDENTIALS_TOPIC = "credentials"
"""Notified by every transaction that issues, rotates or revokes a credential (``credentials_changed``)
or changes an agent's presence flag; it invalidates every cached authentication of this process."""

CREDENTIALS_RECHECK = 1.0
"""Seconds a cached authentication is trusted without reading the durable credentials version.

A credential changed by another process sharing the database (a replica) stops being accepted here
within this bound; one changed by this process, at once (``CREDENTIALS_TOPIC``). The cost is one
read of the one-row version table per interval (on the first cached call after it elapses), besides
the read every cache miss makes in the snapshot it authenticates on."""

_CACHE_LIMIT = 10_000


def credentials_changed(tx: Tx) -> None:
    """Record, in the transaction that does it, that a credential was issued, rotated or revoked.

    Bumps the durable credentials version (so other processes' caches see it within
    ``CREDENTIALS_RECHECK``) and, once the transaction commits, drops this process's cached
    authentications (``CREDENTIALS_TOPIC``).
    """
    tx.credentials.bump()
    tx.notify(CREDENTIALS_TOPIC)


def key_revoked() -> Unauthenticated:
    """The status of an open stream whose agent key was revoked or replaced since it was opened."""
    return Unauthenticated(
        "the agent's key was revoked or replaced (it unregistered or registered again); register again",
        reason=Reason.INVALID_AGENT_IDENTITY,
    )


async def check_agent_key(store: Store, agent_id: str, key_hash: str) -> None:
    """Check that ``key_hash`` is still the agent's active key.

    Raises:
        Unauthenticated: (INVALID_AGENT_IDENTITY) the agent is gone, or its key was revoked or replaced.
    """
    stored = await store.read(lambda tx: tx.agents.get_key(agent_id))
    if stored is None or not stored[1] or not hashes_match(stored[0], key_hash):
        raise key_revoked()


class KeyWatch:
    """Re-checks a long-lived call's agent key, with a store read only when some credential changed.

    ``CREDENTIALS_TOPIC`` moves with every transaction that rotates or revokes a key, so a
    version equal to the one of the last check means the key is still valid without reading.
    """

    def __init__(self, store: Store, agent_id: str, key_hash: str, *, verified_at: int = -1) -> None:
        """``verified_at``: the credentials topic's version at which the key was last verified (-1: never)."""
        self._store = store
        self._agent_id = agent_id
        self._key_hash = key_hash
        self._checked = verified_at

    def unchanged(self) -> bool:
        """Whether no credential changed since the last check (``check`` would not read the store)."""
        return self._store.notifier.version(CREDENTIALS_TOPIC) == self._checked

    async def check(self) -> None:
        """Raise ``key_revoked()`` if the key stopped being the agent's active key.

        Raises:
            Unauthenticated: (INVALID_AGENT_IDENTITY) the key was revoked or replaced.
        """
        version = self._store.notifier.version(CREDENTIALS_TOPIC)
        if version == self._checked:
            return
        await check_agent_key(self._store, self._agent_id, self._key_hash)
        self._checked = version  # the version read before the check: a change during it is caught next time


class AuthCache:
    """Successful authentications of this process, valid until a credential or presence changes.

    Checking credentials reads the store on every call otherwise (a snapshot, three lookups and two
    hashes); agents call many times per second. Entries are keyed by the exact credentials
    presented. Failures are never cached. Two signals invalidate them:

    - This process's changes: every entry is dropped when ``CREDENTIALS_TOPIC`` moves. The notifier
      publishes a commit's topics before the committing call returns, so a key revoked here is never
      accepted after its revocation was acknowledged.
    - Every process's changes: each entry carries the durable credentials version its
      authentication read (in the same snapshot), and an entry whose version is not the latest one
      seen is stale. The latest is read again when ``due``: at most every ``recheck`` seconds
      (``CREDENTIALS_RECHECK``), so a change committed by another process is seen within that bound.
    """

    def __init__(
        self, store: Store, *, recheck: float = CREDENTIALS_RECHECK, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._entries: dict[Credentials, tuple[Authenticated, int]] = {}
        self._version = -1
        self._durable = -1
        """The latest durable credentials version read."""
        self._recheck = recheck
        self._clock = clock
        self._checked = -math.inf
        """When (``clock``) the durable version was last read."""

    @property
    def due(self) -> bool:
        """Whether the durable version must be read before a cached entry is trusted again."""
        return self._clock() - self._checked >= self._recheck

    def observe(self, durable: int) -> None:
        """Note the durable credentials version just read; entries verified at an older one are stale.

        The version only grows, so a read older than one already observed (a slow snapshot) tells
        nothing new and is ignored. (Restoring a backup takes the version back; it needs every hub
        process restarted, which empties their caches.)
        """
        if durable < self._durable:
            return
        self._checked = self._clock()
        if durable > self._durable:
            self._durable = durable
            self._entries.clear()

    def get(self, credentials: Credentials) -> Authenticated | None:
        """The cached result for these credentials, if still valid (``due`` aside: see ``authenticate``)."""
        version = self._store.notifier.version(CREDENTIALS_TOPIC)
        if version != self._version:
            self._entries.clear()
            self._version = version
            return None
        entry = self._entries.get(credentials)
        if entry is None or entry[1] != self._durable:
            return None
        return entry[0]

    def put(self, credentials: Credentials, authenticated: Authenticated, version: int, durable: int) -> None:
        """Remember a result read when the topic was at ``version`` and the durable version at ``durable``."""
        self.observe(durable)
        if durable != self._durable or version != self._store.notifier.version(CREDENTIALS_TOPIC):
            return  # a credential changed while we read: do not cache what may be stale
        if len(self._entries) >= _CACHE_LIMIT:
            self._entries.clear()
        self._entries[credentials] = (authenticated, durable)

    def renewed(self, credentials: Credentials, authenticated: Authenticated) -> None:
        """Replace a cached entry after the agent's presence was renewed (its record changed)."""
        entry = self._entries.get(credentials)
        if entry is not None:
            self._entries[credentials] = (authenticated, entry[1])


async def authenticate(
    store: Store,
    admin_token_hash: str | None,
    credentials: Credentials,
    access: Access,
    cache: AuthCache | None = None,
    *,
    now: int = 0,
) -> Authenticated:
    """Check every presented credential, then whether its kind may call an RPC with ``access``.

    An agent's result lists the session tokens in force for its name at ``now`` (0: every one
    not revoked; whoever reads them checks their expiry again).

    With a ``cache``, a cached result is used while valid; when the cache is ``due``, the durable
    credentials version is read first (one small read), so a change another process made is seen.

    An operator's kind is checked against ``access`` before the project it names is looked up, so
    a caller who may not call the RPC is PERMISSION_DENIED whatever project it names: the answer
    never tells which projects exist.

    Raises:
        Unauthenticated: a credential is missing, unknown, revoked, or does not match.
        PermissionDenied: the credentials are valid but of a kind ``access`` does not admit.
        NotFound: an operator ``access`` admits named a project that does not exist.
    """
    if not credentials.bearer and credentials.dashboard is None:
        raise Unauthenticated("no credentials: send 'authorization: Bearer <token>'", reason=Reason.CREDENTIAL_MISSING)
    if (credentials.agent_id is None) != (credentials.agent_key is None):
        raise Unauthenticated(
            "an agent identity needs both x-kxm-agent-id and x-kxm-agent-key", reason=Reason.INVALID_AGENT_IDENTITY
        )

    if cache is None:
        authenticated = await store.read(lambda tx: _resolve(tx, admin_token_hash, credentials, access, now))
        _require(authenticated.caller, access)
        return authenticated
    cached = cache.get(credentials)
    if cached is not None and cache.due:
        cache.observe(await store.read(_durable_version))
        cached = cache.get(credentials)  # None when another process changed a credential
    if cached is None:
        version = store.notifier.version(CREDENTIALS_TOPIC)

        def check(tx: Tx) -> tuple[Authenticated, int]:
            return _resolve(tx, admin_token_hash, credentials, access, now), tx.credentials.version()

        resolved, durable = await store.read(check)
        cache.put(credentials, resolved, version, durable)
        cached = resolved
    _require(cached.caller, access)
    return cached


def _durable_version(tx: Tx) -> int:
    return tx.credentials.version()


def _resolve(tx: Tx, admin_token_hash: str | None, credentials: Credentials, access: Access, now: int) -> Authenticated:
    """The caller the credentials prove (``access`` is used only to refuse an operator's kind early).

    A result depends on the credentials alone (a refusal raises), so the cache may serve it to calls
    of any access; ``_require`` then checks it against theirs.
    """
    if credentials.dashboard is not None:
        return Authenticated(_dashboard_caller(tx, admin_token_hash, credentials, credentials.dashboard, access))
    bearer = credentials.bearer or ""
    if admin_token_hash is not None and secret_matches(bearer, admin_token_hash):
        if credentials.agent_id is not None:
            # An agent identity always travels with its project's token, never the admin's.
            raise _invalid_agent()
        _require_kind(CredentialKind.ADMIN, access)
        return Authenticated(Caller(CredentialKind.ADMIN, project=_named_project(tx, credentials)))
    if bearer.startswith(OPERATOR_TOKEN_PREFIX):
        return Authenticated(_operator_caller(tx, bearer, credentials, access))
    if bearer.startswith(RUNTIME_KEY_PREFIX):
        return Authenticated(_runtime_caller(tx, bearer, credentials))
    project_row = tx.projects.find_by_token_hash(hash_secret(bearer))
    if project_row is None:
        raise _invalid_auth()
    if credentials.project is not None and credentials.project != project_row.name:
        raise PermissionDenied(
            "x-kxm-project names another project than the token's",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"project": credentials.project},
        )
    if credentials.agent_id is None:
        return Authenticated(Caller(CredentialKind.PROJECT, project=project_row.name))
    agent = tx.agents.get(credentials.agent_id)
    key = tx.agents.get_key(credentials.agent_id)
    if agent is None or key is None or agent.project != project_row.name:
        raise _invalid_agent()
    key_hash, active = key
    if not active or not secret_matches(credentials.agent_key or "", key_hash):
        raise _invalid_agent()
    caller = Caller(CredentialKind.AGENT, project=agent.project, agent_id=agent.id, agent_name=agent.name)
    sessions = tuple(tx.session_tokens.active_for_name(agent.project, agent.name, now))
    return Authenticated(caller, agent, sessions, token_bound.bound_assignments(tx, agent.id))


def _named_project(tx: Tx, credentials: Credentials) -> str | None:
    """The project an operator's call names with ``x-kxm-project`` (None: none).

    Raises:
        NotFound: (PROJECT_NOT_FOUND) no project has that name.
    """
    project = credentials.project
    if project is not None and tx.projects.get(project) is None:
        raise NotFound(f"no project named {project}", reason=Reason.PROJECT_NOT_FOUND, metadata={"project": project})
    return project


def _operator_caller(tx: Tx, bearer: str, credentials: Credentials, access: Access) -> Caller:
    """Resolve a named operator's token, looked up by its hash; a revoked operator's is unknown.

    Raises:
        Unauthenticated: the token is unknown or revoked, or an agent identity came with it.
        PermissionDenied: ``access`` does not admit a named operator (before the project is looked up).
        NotFound: (PROJECT_NOT_FOUND) the project it names does not exist.
    """
    if credentials.agent_id is not None:
        # An agent identity always travels with its project's token, never an operator's.
        raise _invalid_agent()
    operator = tx.operators.find_by_token_hash(hash_secret(bearer))
    if operator is None or not operator.active:
        raise _invalid_auth()
    _require_kind(CredentialKind.OPERATOR, access)
    return Caller(CredentialKind.OPERATOR, project=_named_project(tx, credentials), operator_name=operator.name)


def _dashboard_caller(
    tx: Tx, admin_token_hash: str | None, credentials: Credentials, session: DashboardSession, access: Access
) -> Caller:
    """The operator of a dashboard session, if it still may act: the admin while the admin token is
    the one the session began with, a named operator while not revoked.

    Raises:
        Unauthenticated: (INVALID_AUTH) the session was signed out, the admin token changed or the
            operator was revoked; (INVALID_AGENT_IDENTITY) an agent identity came with it.
        PermissionDenied: ``access`` does not admit an operator.
        NotFound: (PROJECT_NOT_FOUND) the project the call names does not exist.
    """
    if credentials.agent_id is not None:
        # An agent identity always travels with its project's token, never an operator's session.
        raise _invalid_agent()
    if dashboard_sessions.ended_by_sign_out(session, tx.meta.get(dashboard_sessions.signed_out_key(session.operator))):
        raise Unauthenticated("this dashboard session was signed out: sign in again", reason=Reason.INVALID_AUTH)
    if session.is_admin:
        if admin_token_hash is None or not hmac.compare_digest(session.admin_key, admin_key(admin_token_hash)):
            raise Unauthenticated(
                "the admin token changed since this dashboard session began", reason=Reason.INVALID_AUTH
            )
        _require_kind(CredentialKind.ADMIN, access)
        return Caller(CredentialKind.ADMIN, project=_named_project(tx, credentials))
    operator = tx.operators.get(session.operator)
    if operator is None or not operator.active:
        raise _invalid_auth()
    _require_kind(CredentialKind.OPERATOR, access)
    return Caller(CredentialKind.OPERATOR, project=_named_project(tx, credentials), operator_name=operator.name)


def _runtime_caller(tx: Tx, bearer: str, credentials: Credentials) -> Caller:
    """Resolve a runtime key, looked up by its hash, to the runtime it was issued to."""
    if credentials.agent_id is not None:
        # An agent identity always travels with its project's token, never a runtime's key.
        raise _invalid_agent()
    runtime = tx.runtimes.find_by_key_hash(hash_secret(bearer))
    if runtime is None:
        raise _invalid_auth()
    if credentials.project is not None and credentials.project != runtime.project:
        raise PermissionDenied(
            "x-kxm-project names another project than the runtime's",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"project": credentials.project},
        )
    return Caller(CredentialKind.RUNTIME, project=runtime.project, runtime_id=runtime.id)


_OPERATORS = frozenset({CredentialKind.ADMIN, CredentialKind.OPERATOR})
"""The bootstrap admin and named operators: they act in a project only by naming it."""

_ADMITTED: dict[Access, frozenset[CredentialKind]] = {
    Access.ADMIN: frozenset({CredentialKind.ADMIN}),
    Access.OPERATOR: _OPERATORS,
    Access.PROJECT_TOKEN: frozenset({CredentialKind.PROJECT, CredentialKind.AGENT}) | _OPERATORS,
    Access.PROJECT: frozenset({CredentialKind.PROJECT, CredentialKind.AGENT, CredentialKind.RUNTIME}) | _OPERATORS,
    Access.AGENT: frozenset({CredentialKind.AGENT}),
    Access.RUNTIME: frozenset({CredentialKind.RUNTIME}),
    Access.ANY: frozenset(CredentialKind),
}


def admitted_kinds(access: Access) -> frozenset[CredentialKind]:
    """The kinds of credential an RPC with ``access`` admits (an operator's, the admin's included,
    only when it names a project, except for ADMIN, OPERATOR and ANY)."""
    return _ADMITTED[access]


_PROJECTLESS = frozenset({Access.ADMIN, Access.OPERATOR, Access.ANY})
"""The access kinds an operator (the admin included) may use without naming a project."""


def _require_kind(kind: CredentialKind, access: Access) -> None:
    """Refuse a credential of a kind ``access`` does not admit.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) ``access`` does not admit ``kind``.
    """
    if kind not in _ADMITTED[access]:
        raise PermissionDenied(
            f"this RPC needs {access.value} credentials, not {kind.value}",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"required": access.value, "presented": kind.value},
        )


def _require(caller: Caller, access: Access) -> None:
    _require_kind(caller.kind, access)
    if caller.kind in _OPERATORS and access not in _PROJECTLESS and caller.project is None:
        raise PermissionDenied(
            f"the {caller.kind.value} token must name a project with x-kxm-project for this RPC",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"required": access.value, "presented": caller.kind.value},
        )


def get_caller_identity(caller: Caller) -> Caller:
    """The caller's own identity, exactly as its credentials established it (``authenticate``).

    Nothing is looked up by a name the request chose: the project is the credential's (an
    operator's is the one ``x-kxm-project`` named and ``authenticate`` found), so no call learns
    anything about another project.
    """
    return caller
