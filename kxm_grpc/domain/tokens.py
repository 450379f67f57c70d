"""Attempt and session tokens: claims the hub signs, so an agent carries its tool policy and scope.

Two kinds, each a schema:

- ``kxm.attempt-token.v1`` (``AttemptClaims``): one attempt of a workflow step, minted per
  assignment (``mint_attempt_token``, for the step dispatcher): project, run, step, step
  attempt, assignment, attempt, agent, tool policy, issue and expiry time.
- ``kxm.session-token.v1`` (``SessionClaims``): an agent's session, minted by an operator:
  project, session id, agent, tool policy, issue and expiry time.

A token is one ASCII string: ``<prefix><key id>.<payload>.<mac>`` where the prefix names the
schema (``kxmat1.``, ``kxmst1.``), ``payload`` is the base64url (no padding) of the claims'
canonical JSON (``sync_events.canonical_json``, with ``schema`` inside it too) and ``mac`` the
base64url of HMAC-SHA256 under the key ``key id`` of ``schema || NUL || payload bytes``. Key ids
may hold dots; the payload and mac never do, so a token is split from the right.

``verify_token`` checks, in order, and refuses with PERMISSION_DENIED (``ATTEMPT_TOKEN_INVALID``
or ``SESSION_TOKEN_INVALID`` by the expected kind) naming the ``defect``: its shape
(``malformed``), its prefix (``wrong_schema``: a session token where an attempt token is due),
its key id (``unknown_key``: not in the keyring, such as a key retired or another hub's), its MAC
(``bad_signature``, compared in constant time, before anything of the payload is decoded), its
payload (``malformed``, ``wrong_schema``) and its expiry (``expired``). Expiry is exact on the
hub's clock: a token is valid while ``now < expire_time``, never a moment later; the replicas of a
shared database all read the database's clock, so there is no skew between them to allow for.
The issue time is not compared with ``now`` (the same clock issued it).

What a signature cannot say is checked by the caller (``services/tokens.py``): that the token is
the calling agent's, of its project, and (session) not revoked. A token is a bearer secret: it is
never logged, and nothing here puts one in an exception or a ``repr``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from kxm_grpc.domain.keyring import KEY_ID, Keyring
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.tool_policy import ToolPolicy, policy_from_json, policy_json
from kxm_grpc.errors import HubError, PermissionDenied, Reason

ATTEMPT_SCHEMA = "kxm.attempt-token.v1"
SESSION_SCHEMA = "kxm.session-token.v1"

PREFIXES = {ATTEMPT_SCHEMA: "kxmat1.", SESSION_SCHEMA: "kxmst1."}
"""The recognisable start of each kind of token, by schema."""

REASONS = {ATTEMPT_SCHEMA: Reason.ATTEMPT_TOKEN_INVALID, SESSION_SCHEMA: Reason.SESSION_TOKEN_INVALID}
"""The reason a refused token of each kind is reported with."""

KINDS = {ATTEMPT_SCHEMA: "attempt", SESSION_SCHEMA: "session"}
"""Each schema's short name, as refusals' metadata says it (``token``)."""

MAX_TOKEN_CHARS = 8_192
"""A longer string is refused as malformed before it is split (a policy keeps tokens near 6 KiB at most)."""

_B64 = re.compile(r"[A-Za-z0-9_-]+")


class Defect:
    """Why a token was refused: the ``defect`` metadata of the refusal."""

    MALFORMED = "malformed"
    WRONG_SCHEMA = "wrong_schema"
    UNKNOWN_KEY = "unknown_key"
    BAD_SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    OTHER_PROJECT = "other_project"
    OTHER_AGENT = "other_agent"
    REVOKED = "revoked"
    UNKNOWN_SESSION = "unknown_session"
    ASSIGNMENT_CLOSED = "assignment_closed"


_NEXT_STEPS = {
    Defect.EXPIRED: "ask an operator for a new token",
    Defect.REVOKED: "ask an operator for a new token",
    Defect.UNKNOWN_KEY: "ask an operator for a new token (its key was retired or is another hub's)",
    Defect.ASSIGNMENT_CLOSED: "stop working on this assignment; take the next one (NextAssignment)",
}


def token_refused(schema: str, defect: str, description: str) -> PermissionDenied:
    """The refusal of a presented token of ``schema``: its reason, the defect and what to do next."""
    kind = KINDS[schema]
    return PermissionDenied(
        f"the {kind} token is not valid: {description}",
        reason=REASONS[schema],
        metadata={
            "token": kind,
            "defect": defect,
            "nextAction": _NEXT_STEPS.get(defect, f"present the {kind} token the hub issued, unchanged"),
        },
    )


@dataclass(frozen=True, slots=True)
class AttemptClaims:
    """What an attempt token says (``kxm.attempt-token.v1``); times in hub clock microseconds."""

    project: str
    run_id: str
    step_id: str
    step_attempt: int
    assignment_id: str
    attempt_id: str
    agent_id: str
    tool_policy: ToolPolicy
    issue_time: int
    expire_time: int
    key_id: str = field(default="", compare=False)
    """The key that signed it (set when verified or minted; not part of the payload)."""

    schema = ATTEMPT_SCHEMA


@dataclass(frozen=True, slots=True)
class SessionClaims:
    """What a session token says (``kxm.session-token.v1``); times in hub clock microseconds."""

    project: str
    session_id: str
    agent_id: str
    tool_policy: ToolPolicy
    issue_time: int
    expire_time: int
    key_id: str = field(default="", compare=False)
    """The key that signed it (set when verified or minted; not part of the payload)."""

    schema = SESSION_SCHEMA


Claims = AttemptClaims | SessionClaims


def claims_json(claims: Claims) -> dict[str, Any]:
    """The payload of ``claims`` as a JSON object (camelCase keys, ``schema`` first in meaning)."""
    document: dict[str, Any] = {
        "schema": claims.schema,
        "project": claims.project,
        "agentId": claims.agent_id,
        "toolPolicy": policy_json(claims.tool_policy),
        "issueTime": claims.issue_time,
        "expireTime": claims.expire_time,
    }
    if isinstance(claims, AttemptClaims):
        document.update(
            runId=claims.run_id,
            stepId=claims.step_id,
            stepAttempt=claims.step_attempt,
            assignmentId=claims.assignment_id,
            attemptId=claims.attempt_id,
        )
    else:
        document["sessionId"] = claims.session_id
    return document


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    """Raises: ValueError (binascii.Error) on text that is not base64url."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: bytes, schema: str, payload: bytes) -> bytes:
    return hmac.new(secret, schema.encode("ascii") + b"\x00" + payload, hashlib.sha256).digest()


def sign(claims: Claims, keyring: Keyring) -> str:
    """The token string of ``claims`` signed with the keyring's current key (the caller validated
    the claims: ``mint_*``)."""
    payload = canonical_json(claims_json(claims)).encode("utf-8")
    mac = _mac(keyring.keys[keyring.current], claims.schema, payload)
    token = f"{PREFIXES[claims.schema]}{keyring.current}.{_b64encode(payload)}.{_b64encode(mac)}"
    return token


def mint_attempt_token(
    keyring: Keyring,
    *,
    project: str,
    run_id: str,
    step_id: str,
    step_attempt: int,
    assignment_id: str,
    attempt_id: str,
    agent_id: str,
    tool_policy: ToolPolicy,
    now: int,
    ttl: int,
) -> tuple[str, AttemptClaims]:
    """An attempt token for one assignment, valid for ``ttl`` microseconds from ``now``.

    For the step dispatcher, which mints one with each assignment it sends (the token string goes
    into the assignment, the claims into its record). ``tool_policy`` comes from ``make_policy``.

    Raises:
        ValueError: ``ttl`` is not positive, ``step_attempt`` is below 1, or an id is empty.
    """
    if ttl <= 0 or step_attempt < 1:
        raise ValueError("an attempt token needs a positive ttl and a step attempt from 1")
    if not all((project, run_id, step_id, assignment_id, attempt_id, agent_id)):
        raise ValueError("an attempt token needs every id")
    claims = AttemptClaims(
        project=project,
        run_id=run_id,
        step_id=step_id,
        step_attempt=step_attempt,
        assignment_id=assignment_id,
        attempt_id=attempt_id,
        agent_id=agent_id,
        tool_policy=tool_policy,
        issue_time=now,
        expire_time=now + ttl,
    )
    token = sign(claims, keyring)
    return token, replace(claims, key_id=keyring.current)


def mint_session_token(
    keyring: Keyring,
    *,
    project: str,
    session_id: str,
    agent_id: str,
    tool_policy: ToolPolicy,
    now: int,
    ttl: int,
) -> tuple[str, SessionClaims]:
    """A session token for ``agent_id``, valid for ``ttl`` microseconds from ``now``.

    Raises:
        ValueError: ``ttl`` is not positive, or an id is empty.
    """
    if ttl <= 0 or not (project and session_id and agent_id):
        raise ValueError("a session token needs a positive ttl and every id")
    claims = SessionClaims(
        project=project,
        session_id=session_id,
        agent_id=agent_id,
        tool_policy=tool_policy,
        issue_time=now,
        expire_time=now + ttl,
    )
    token = sign(claims, keyring)
    return token, replace(claims, key_id=keyring.current)


def verify_token(token: str, schema: str, keyring: Keyring, *, now: int) -> Claims:
    """The claims of a token of ``schema`` this keyring signed and that has not expired.

    Raises:
        PermissionDenied: (ATTEMPT_TOKEN_INVALID or SESSION_TOKEN_INVALID, by ``schema``) with the
            ``defect`` metadata of the module docstring. The message never holds the token.
    """
    prefix = PREFIXES[schema]
    if len(token) > MAX_TOKEN_CHARS or not token.isascii():
        raise token_refused(schema, Defect.MALFORMED, "it is not a kxm token")
    if not token.startswith(prefix):
        other = next((s for s, p in PREFIXES.items() if token.startswith(p)), None)
        if other is not None:
            raise token_refused(schema, Defect.WRONG_SCHEMA, f"it is a {KINDS[other]} token")
        raise token_refused(schema, Defect.MALFORMED, "it is not a kxm token")
    parts = token[len(prefix) :].rsplit(".", 2)
    if len(parts) != 3 or not KEY_ID.fullmatch(parts[0]) or not all(_B64.fullmatch(p) for p in parts[1:]):
        raise token_refused(schema, Defect.MALFORMED, "it is not a kxm token")
    key_id, encoded_payload, encoded_mac = parts
    secret = keyring.secret(key_id)
    if secret is None:
        raise token_refused(schema, Defect.UNKNOWN_KEY, "it names a key this hub does not hold")
    try:
        payload, mac = _b64decode(encoded_payload), _b64decode(encoded_mac)
    except (binascii.Error, ValueError):
        raise token_refused(schema, Defect.MALFORMED, "it is not a kxm token") from None
    if not hmac.compare_digest(mac, _mac(secret, schema, payload)):
        raise token_refused(schema, Defect.BAD_SIGNATURE, "its signature does not match")
    claims = _decode(payload, schema, key_id)
    if now >= claims.expire_time:
        raise token_refused(schema, Defect.EXPIRED, "it expired")
    return claims


def _decode(payload: bytes, schema: str, key_id: str) -> Claims:
    """The claims of a payload whose MAC verified (so the hub wrote it; a failure is a hub defect
    or another hub's keys, reported as ``malformed``).

    Raises:
        PermissionDenied: as ``verify_token`` (``malformed``, ``wrong_schema``).
    """
    try:
        document = json.loads(payload)
        if not isinstance(document, dict):
            raise ValueError("not an object")
        if document.get("schema") != schema:
            raise token_refused(schema, Defect.WRONG_SCHEMA, "its payload is of another schema")
        project, agent_id = _text(document, "project"), _text(document, "agentId")
        policy = policy_from_json(_object(document, "toolPolicy"))
        issue_time, expire_time = _int(document, "issueTime"), _int(document, "expireTime")
        if schema == ATTEMPT_SCHEMA:
            return AttemptClaims(
                project=project,
                run_id=_text(document, "runId"),
                step_id=_text(document, "stepId"),
                step_attempt=_int(document, "stepAttempt"),
                assignment_id=_text(document, "assignmentId"),
                attempt_id=_text(document, "attemptId"),
                agent_id=agent_id,
                tool_policy=policy,
                issue_time=issue_time,
                expire_time=expire_time,
                key_id=key_id,
            )
        return SessionClaims(
            project=project,
            session_id=_text(document, "sessionId"),
            agent_id=agent_id,
            tool_policy=policy,
            issue_time=issue_time,
            expire_time=expire_time,
            key_id=key_id,
        )
    except PermissionDenied:
        raise
    except (ValueError, TypeError, HubError):
        raise token_refused(schema, Defect.MALFORMED, "its payload does not decode") from None


def _text(document: dict[str, Any], key: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{key} must be a non-empty string")
    return value


def _int(document: dict[str, Any], key: str) -> int:
    value = document.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} must be an integer")
    return value


def _object(document: dict[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be an object")
    return value


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """What the hub keeps of a session token it minted: its facts, never the token.

    The token string is shown once (MintSessionToken); the record is what revocation and listing
    act on and what makes the session required of its agent (``services/tokens.py``).
    """

    session_id: str
    project: str
    agent_id: str
    agent_name: str
    """The agent's name when the token was minted: the session is required of every agent with
    this name in the project (an agent registering the name again cannot shed it)."""
    tool_policy: ToolPolicy
    issue_time: int
    expire_time: int
    minted_by: str
    """The operator who minted it (``admin`` for the bootstrap admin)."""
    key_id: str
    """The id of the key that signed the token (an id, never a secret)."""
    revoke_time: int | None = None

    def active(self, now: int) -> bool:
        """Whether the session is in force at ``now``: not revoked and not expired."""
        return self.revoke_time is None and now < self.expire_time


@dataclass(frozen=True, slots=True)
class ActiveSession:
    """An agent's session in force when its authentication was read (cached with it, so a call
    costs no read to know whether it owes a session token)."""

    session_id: str
    agent_id: str
    expire_time: int


def unverified_tool_policy(token: str) -> ToolPolicy | None:
    """The tool policy a token's payload states, read WITHOUT checking its signature or expiry.

    Only for the token's own holder to hide the tools its policy denies (the MCP adapter); the hub
    verifies the token and enforces its policy on every call, so a forged payload gains nothing.
    None when the text is not a well-formed kxm token."""
    for schema, prefix in PREFIXES.items():
        if not token.startswith(prefix):
            continue
        parts = token[len(prefix) :].rsplit(".", 2)
        if len(parts) != 3 or not all(_B64.fullmatch(p) for p in parts[1:]):
            return None
        try:
            return _decode(_b64decode(parts[1]), schema, parts[0]).tool_policy
        except (HubError, ValueError):
            return None
    return None
