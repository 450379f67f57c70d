"""The signed webhook routes' work, surface-neutral: a start (spec §2.1) and a signal (§2.10).

The HTTP listener (``kxm_grpc/server/webhooks.py``) reads the request, refuses what it can from
the head alone (route, media type, size) and hands the lower-case headers and the exact body
bytes here. Each function then follows the spec's order:

* **start**: unknown definition (WEBHOOK_NOT_FOUND); the start secret resolved from this
  replica's environment (UNAVAILABLE when it cannot be: only that secret, so a replica missing
  the signal or notify secret's variable still takes starts); the signature (``signatures.verify``,
  kind ``start``, with the definition's source deciding the accepted forms); only then the body,
  which must be UTF-8 JSON holding an object (INVALID_JSON); the event from ``x-github-event``,
  else the payload's ``webhookEvent``, else its ``event``; and ``runs.start_in`` in one write.
* **signal**: unknown definition; a definition without a signal secret accepts no signed
  signal (WORKFLOW_SIGNALS_DISABLED); the signal secret resolved (only it: UNAVAILABLE when its
  variable is not set here); the signature (kind ``signal``, with the route's run id and signal
  key in the signed material); the body ``{status, summary?, evidence?}``; then
  ``signals.signal``, de-duplicated by the delivery id against the body's hash.

No secret, signature, header value or body ever appears in an error or a log line. ``verified``
is called with the definition id once the signature verifies, before anything is parsed or
written: the listener spends the definition's rate budget there, so only a sender holding the
secret can use up a definition's budget (an unauthenticated flood spends its own address's).
"""

from __future__ import annotations

import enum
import hmac
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.validation import js_trim, utf16_length
from kxm_grpc.domain.workflows import definitions as definition_rules
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import Source, WorkflowDefinition
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.runs import CheckpointStatus
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason, Unavailable, invalid_field
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.workflows import definitions, runs, signals, step_definitions, step_signals
from kxm_grpc.services.workflows.runs import Started
from kxm_grpc.services.workflows.signals import SignalOutcome
from kxm_grpc.services.workflows.step_engine import EngineSettings
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredDefinition

log = structlog.get_logger("kxm.webhooks")

EVENT_HEADER = "x-github-event"
"""GitHub names its event in a header; other senders in the payload (``webhookEvent``, ``event``)."""

SECRET_RETRY_SECONDS = 30.0
"""The Retry-After of a definition this replica cannot verify (another replica, or this one once
its environment is fixed and it restarted, may)."""

Verified = Callable[[str], None]
"""Called with the definition id once a request's signature verifies (the listener's rate budget)."""


async def start_from_webhook(
    store: Store,
    definition_id: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    limits: Limits,
    replay_horizon: int,
    now: int,
    verified: Verified | None = None,
) -> Started:
    """Start a run from a signed delivery (see the module); ``headers`` have lower-case names.

    Returns ``Started``: a new run, a duplicate delivery's run (``duplicate``; its ``run`` None
    once the run was purged), or no run when the definition's event or filter did not match
    (``started`` False).

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND) no such definition.
        Unavailable: (WORKFLOW_SECRET_UNAVAILABLE) the start secret's variable (``secretEnv``)
            is not set (or not valid) in this replica's environment; no other is read.
        Unauthenticated: the signature errors of ``signatures.verify``.
        InvalidArgument: a missing or malformed delivery id; (INVALID_JSON) the body is not
            UTF-8 JSON holding an object; as ``runs.start_in`` (WORKFLOW_PROMPT_TOO_LONG).
        FailedPrecondition: (WORKFLOW_KIND_MISMATCH) the definition is a step workflow (it has
            no start secret: it starts with StartWorkflowRun), before any signature is read; as
            ``runs.start_in`` (WEBHOOK_DELIVERY_CONFLICT, WEBHOOK_PAYLOAD_REPLAYED,
            WORKFLOW_TARGET_UNAVAILABLE, the evidence policy errors).
    """
    stored = await _stored(store, definition_id)
    secret = _secret_for(stored, Secret.START)
    assert secret is not None  # every definition has a start secret
    delivery = signatures.verify(
        headers,
        body,
        kind=Kind.START,
        secret=secret,
        definition_id=definition_id,
        source=definitions.stage_structure(stored).source,
        now_seconds=now // MICROS,
    )
    if verified is not None:
        verified(definition_id)
    payload = _object(body)
    event = _event(headers, payload)

    def work(tx: Tx) -> Started:
        # Read again in the transaction: the run pins the version current as it starts.
        current = tx.workflows.get_definition(definition_id)
        if current is None:
            raise definitions.not_found(definition_id)
        return runs.start_in(
            tx,
            definitions.stage_structure(current),
            delivery=delivery,
            body=body,
            payload=payload,
            event=event,
            limits=limits,
            replay_horizon=replay_horizon,
            now=now,
        )

    started = await store.write(work)
    if started.run is not None and not started.duplicate:
        log.info(
            "workflow_started",
            run_id=started.run.id,
            definition_id=definition_id,
            project=started.run.project,
            coordinator_id=started.run.coordinator_id,
            via="webhook",
        )
    return started


async def signal_from_webhook(
    store: Store,
    definition_id: str,
    run_id: str,
    signal_key: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    limits: Limits,
    replay_horizon: int = runs.DEFAULT_REPLAY_HORIZON,
    now: int,
    verified: Verified | None = None,
    engine: EngineSettings | None = None,
) -> SignalOutcome:
    """Apply a signed signal to a waiting run (see the module); ``headers`` have lower-case names.

    ``run_id`` and ``signal_key`` are the route's (percent-decoded) segments, as signed. A step
    workflow's run takes it at its wait step (``step_signals``; ``engine``: the hub's engine
    settings), verified with the secret its ``signalSecretEnv`` names; the body may name the
    ``outcome`` (else the status's: ``pass``, ``warning``, ``fail``).

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND) no such definition; (WORKFLOW_NOT_FOUND) no such run of it.
        FailedPrecondition: (WORKFLOW_KIND_MISMATCH) the definition is a step workflow;
            (WORKFLOW_SIGNALS_DISABLED) the definition has no signal secret; as
            ``signals.signal`` (WORKFLOW_SIGNAL_DELIVERY_CONFLICT, WORKFLOW_NOT_WAITING, ...).
        Unavailable: (WORKFLOW_SECRET_UNAVAILABLE) the signal secret's variable is not set (or
            not valid) in this replica; no other is read.
        Unauthenticated: the signature errors of ``signatures.verify``.
        InvalidArgument: a missing or malformed delivery id; (INVALID_JSON) the body is not
            UTF-8 JSON holding an object; a field of the wrong type (named); as ``signals.signal``.
    """
    stored = await _stored(store, definition_id)
    if stored.kind is DefinitionKind.STEPS and engine is not None:
        return await _signal_step_run(
            store, stored, run_id, signal_key, headers, body, engine, replay_horizon, now, verified
        )
    structure = definitions.stage_structure(stored)
    if structure.signal_secret is None:
        raise FailedPrecondition(
            f"workflow {definition_id} accepts no signed signals (it declares no signalSecret)",
            reason=Reason.WORKFLOW_SIGNALS_DISABLED,
            metadata={"definitionId": definition_id},
        )
    secret = _secret_for(stored, Secret.SIGNAL)
    assert secret is not None  # the structure has one, so the resolved one is there
    delivery = signatures.verify(
        headers,
        body,
        kind=Kind.SIGNAL,
        secret=secret,
        definition_id=definition_id,
        run_id=run_id,
        signal_key=signal_key,
        source=structure.source,
        now_seconds=now // MICROS,
    )
    if verified is not None:
        verified(definition_id)
    payload = _object(body)
    return await signals.signal(
        store,
        None,
        signals.Signal(
            definition_id=definition_id,
            run_id=run_id,
            signal_key=signal_key,
            delivery_id=delivery,
            body_sha256=signatures.body_sha256(body),
            status=_status(payload),
            summary=_text(payload, "summary"),
            evidence=_evidence(payload),
        ),
        limits=limits,
        replay_horizon=replay_horizon,
        now=now,
    )


async def _signal_step_run(
    store: Store,
    stored: StoredDefinition,
    run_id: str,
    signal_key: str,
    headers: Mapping[str, str],
    body: bytes,
    engine: EngineSettings,
    replay_horizon: int,
    now: int,
    verified: Verified | None,
) -> SignalOutcome:
    """A signed signal to a step run's wait step (``signal_from_webhook``'s errors)."""
    variable = step_definitions.plan_of(stored).get("signalSecretEnv")
    if not variable:
        raise FailedPrecondition(
            f"workflow {stored.id} accepts no signed signals (it declares no signalSecretEnv)",
            reason=Reason.WORKFLOW_SIGNALS_DISABLED,
            metadata={"definitionId": stored.id},
        )
    secret = _variable_secret(stored.id, str(variable))
    delivery = signatures.verify(
        headers,
        body,
        kind=Kind.SIGNAL,
        secret=secret,
        definition_id=stored.id,
        run_id=run_id,
        signal_key=signal_key,
        source=Source.GENERIC,
        now_seconds=now // MICROS,
    )
    if verified is not None:
        verified(stored.id)
    payload = _object(body)
    status = _status(payload)
    signalled = await step_signals.signal(
        store,
        None,
        step_signals.StepSignal(
            run_id=run_id,
            signal_key=signal_key,
            delivery_id=delivery,
            outcome=_text(payload, "outcome") or step_signals.STATUS_OUTCOME[status],
            body_sha256=signatures.body_sha256(body),
        ),
        definition_id=stored.id,
        settings=engine,
        replay_horizon=replay_horizon,
        now=now,
    )
    return SignalOutcome(
        duplicate=signalled.duplicate,
        status=status,
        stage_id=signalled.step_id,
        signal_key=signal_key,
        completed=signalled.run.status.value == "completed",
        resumed=not signalled.duplicate,
        receive_time=now,
    )


def _variable_secret(definition_id: str, variable: str) -> str:
    """The secret in this process's environment variable ``variable`` (``_env_secret``'s rules).

    Raises:
        Unavailable: (WORKFLOW_SECRET_UNAVAILABLE) it is not set here, or not a valid secret.
    """
    try:
        return _env_secret(os.environ, variable, "signalSecretEnv")
    except SecretUnresolved:
        log.warning(
            "webhook_secret_unresolved", definition_id=definition_id, fields=["signalSecretEnv"], problem="unusable"
        )
        raise Unavailable(
            f"this replica cannot verify requests for workflow {definition_id}: the environment variable its"
            " signalSecretEnv names is not set here (or not a valid secret)",
            reason=Reason.WORKFLOW_SECRET_UNAVAILABLE,
            metadata={"definitionId": definition_id, "field": "signalSecretEnv"},
            retry_after=SECRET_RETRY_SECONDS,
        ) from None


# -- the definition and its secrets ---------------------------------------------------------------


async def _stored(store: Store, definition_id: str) -> StoredDefinition:
    stored = await store.read(lambda tx: tx.workflows.get_definition(definition_id))
    if stored is None:
        raise definitions.not_found(definition_id)
    return stored


class Secret(enum.Enum):
    """Which of a definition's secrets an operation needs (its field in the document)."""

    START = "secret"
    SIGNAL = "signalSecret"
    NOTIFY = "notify.secret"


class SecretUnresolved(Exception):
    """A secret this replica cannot resolve. ``field`` names it as the document does (``secretEnv``,
    ``signalSecretEnv``, ``notify.secretEnv``) and ``problem`` says why; neither holds a value."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def resolve_secret(structure: WorkflowDefinition, which: Secret, env: Mapping[str, str] | None = None) -> str | None:
    """One secret of a definition, resolved from ``env`` (default: this process's environment).

    Only that secret's variable is read, so a replica missing another one (the notify secret's,
    say) still serves what needs this one. The rules are the loader's: trimmed, no NUL or unpaired
    surrogate, 16 to 512 characters; the start and signal secrets must differ, checked when this
    replica can resolve both. ``structure`` is ``definitions.structure(document)``: a literal
    secret is already in it, a named one reads ``""`` with its variable's name beside it.

    Returns:
        The secret, or None when the definition has none of this kind (no ``signalSecret``, no
        ``notify``).

    Raises:
        SecretUnresolved: its variable is not set here, or its value breaks the rules.
    """
    environment = os.environ if env is None else env
    secret = _secret_value(structure, which, environment)
    if secret is None or which is Secret.NOTIFY:
        return secret
    other_kind = Secret.SIGNAL if which is Secret.START else Secret.START
    try:
        other = _secret_value(structure, other_kind, environment)
    except SecretUnresolved:
        other = None  # not resolvable here: checked when registered, and by a replica that has both
    if other is not None and hmac.compare_digest(secret.encode(), other.encode()):
        raise SecretUnresolved(
            "signalSecretEnv" if structure.signal_secret_env else "signalSecret", "equals the start secret"
        )
    return secret


def _secret_value(structure: WorkflowDefinition, which: Secret, env: Mapping[str, str]) -> str | None:
    if which is Secret.START:
        literal, name, field = structure.secret, structure.secret_env, "secretEnv"
    elif which is Secret.SIGNAL:
        if structure.signal_secret is None:
            return None
        literal, name, field = structure.signal_secret, structure.signal_secret_env, "signalSecretEnv"
    else:
        if structure.notify is None:
            return None
        literal, name, field = structure.notify.secret, structure.notify.secret_env, "notify.secretEnv"
    if not name:
        if literal == definitions.REDACTED:
            # A pinned version's structure: never a secret to verify with (the current row has it).
            raise SecretUnresolved(field.removesuffix("Env"), "redacted (a pinned version)")
        return literal  # given literally: the loader checked it
    return _env_secret(env, name, field)


def _env_secret(env: Mapping[str, str], name: str, field: str) -> str:
    """The secret in ``env``'s variable ``name``: trimmed, no NUL or unpaired surrogate, 16 to 512
    characters (the loader's rules for a literal one).

    Raises:
        SecretUnresolved: (``field``) the variable is not set, or its value breaks a rule.
    """
    value = env.get(name)
    if value is None:
        raise SecretUnresolved(field, "not set")
    secret = js_trim(value)
    if "\x00" in secret or _SURROGATE.search(secret):
        raise SecretUnresolved(field, "holds a NUL character or an unpaired surrogate")
    if not definition_rules.MIN_SECRET_CHARS <= utf16_length(secret) <= definition_rules.MAX_SECRET_CHARS:
        raise SecretUnresolved(
            field,
            f"not between {definition_rules.MIN_SECRET_CHARS} and {definition_rules.MAX_SECRET_CHARS} characters",
        )
    return secret


_SURROGATE = re.compile("[\ud800-\udfff]")


def _secret_for(stored: StoredDefinition, which: Secret) -> str | None:
    """The secret ``which`` of a stored definition, resolved from this process's environment.

    Raises:
        Unavailable: its variable is not set here, or its value breaks a secret's rules. The
            error and the log line name the definition and the field, never a value.
    """
    try:
        return resolve_secret(definitions.stage_structure(stored), which)
    except SecretUnresolved as unresolved:
        field = unresolved.field
        log.warning("webhook_secret_unresolved", definition_id=stored.id, fields=[field], problem=unresolved.problem)
        raise Unavailable(
            f"this replica cannot verify requests for workflow {stored.id}: the environment variable its"
            f" {field} names is not set here (or not a valid secret)",
            reason=Reason.WORKFLOW_SECRET_UNAVAILABLE,
            metadata={"definitionId": stored.id, "field": field},
            retry_after=SECRET_RETRY_SECONDS,
        ) from None


# -- the body ---------------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _object(body: bytes) -> dict[str, Any]:
    """The body as a JSON object.

    Raises:
        InvalidArgument: (INVALID_JSON) it is not UTF-8, not JSON (``NaN`` and ``Infinity``
            included), nested too deeply, or JSON but not an object.
    """
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidArgument(
            "the body must be UTF-8 JSON", reason=Reason.INVALID_JSON, metadata={"field": "body"}
        ) from None
    if not isinstance(value, dict):
        raise InvalidArgument("the body must be a JSON object", reason=Reason.INVALID_JSON, metadata={"field": "body"})
    if not _clean(value):
        # Escapes JSON allows but text cannot hold: a NUL (PostgreSQL refuses it in a prompt) or a
        # lone surrogate half (no UTF-8 or UTF-16 form). Refused here, as the sender's error.
        raise InvalidArgument(
            "the body's strings must not contain NUL characters or unpaired surrogates (\\u0000, \\ud800)",
            reason=Reason.INVALID_JSON,
            metadata={"field": "body"},
        )
    return value


_UNCLEAN = re.compile(r"[\x00\ud800-\udfff]")


def _clean(value: object) -> bool:
    """Whether no string (key or value) in a parsed JSON value holds a NUL or a lone surrogate."""
    pending = [value]
    while pending:  # iterative: json.loads allows nesting deeper than a recursive walk would
        item = pending.pop()
        if isinstance(item, str):
            if _UNCLEAN.search(item):
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def _event(headers: Mapping[str, str], payload: Mapping[str, Any]) -> str:
    """The delivery's event: the ``x-github-event`` header, else ``webhookEvent``, else ``event``."""
    header = headers.get(EVENT_HEADER, "").strip()
    if header:
        return header
    for key in ("webhookEvent", "event"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _status(payload: Mapping[str, Any]) -> CheckpointStatus:
    value = payload.get("status")
    if not isinstance(value, str):
        raise invalid_field("status", "must be passed, warning or failed", reason=Reason.INVALID_CHECKPOINT_STATUS)
    return signals.reject_unknown_status(value)


def _text(payload: Mapping[str, Any], name: str) -> str:
    value = payload.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise invalid_field(name, "must be a string")
    return value


def _evidence(payload: Mapping[str, Any]) -> dict[str, str]:
    value = payload.get("evidence")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid_field("evidence", "must be an object of strings", reason=Reason.INVALID_WORKFLOW_EVIDENCE)
    if not all(isinstance(item, str) for item in value.values()):
        raise invalid_field("evidence", "values must be strings", reason=Reason.INVALID_WORKFLOW_EVIDENCE)
    return value
