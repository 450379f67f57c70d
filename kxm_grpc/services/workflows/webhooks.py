"""The signed webhook routes' work, surface-neutral: a start (spec §2.1) and a signal (§2.10).

The HTTP listener (``kxm_grpc/server/webhooks.py``) reads the request, refuses what it can from
the head alone (route, media type, size) and hands the lower-case headers and the exact body
bytes here. Each function then follows the spec's order:

* **start**: unknown definition (WEBHOOK_NOT_FOUND); the start secret resolved from this
  replica's environment (UNAVAILABLE when it cannot be); the signature (``signatures.verify``,
  kind ``start``, with the definition's source deciding the accepted forms); only then the body,
  which must be UTF-8 JSON holding an object (INVALID_JSON); the event from ``x-github-event``,
  else the payload's ``webhookEvent``, else its ``event``; and ``runs.start_in`` in one write.
* **signal**: unknown definition; a definition without a signal secret accepts no signed
  signal (WORKFLOW_SIGNALS_DISABLED); the signature (kind ``signal``, with the route's run id and
  signal key in the signed material); the body ``{status, summary?, evidence?}``; then
  ``steps.signal``, de-duplicated by the delivery id against the body's hash.

No secret, signature, header value or body ever appears in an error or a log line. ``verified``
is called with the definition id once the signature verifies, before anything is parsed or
written: the listener spends the definition's rate budget there, so only a sender holding the
secret can use up a definition's budget (an unauthenticated flood spends its own address's).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.workflows import definitions as definition_rules
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.runs import CheckpointStatus
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason, Unavailable, invalid_field
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.workflows import definitions, runs, steps
from kxm_grpc.services.workflows.runs import Started
from kxm_grpc.services.workflows.steps import SignalOutcome
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
        Unavailable: a secret the definition names by ``secretEnv`` is not set (or not valid)
            in this replica's environment.
        Unauthenticated: the signature errors of ``signatures.verify``.
        InvalidArgument: a missing or malformed delivery id; (INVALID_JSON) the body is not
            UTF-8 JSON holding an object; as ``runs.start_in`` (WORKFLOW_PROMPT_TOO_LONG).
        FailedPrecondition: as ``runs.start_in`` (WEBHOOK_DELIVERY_CONFLICT,
            WEBHOOK_PAYLOAD_REPLAYED, WORKFLOW_TARGET_UNAVAILABLE, the evidence policy errors).
    """
    stored = await _stored(store, definition_id)
    definition = _resolved(stored)
    delivery = signatures.verify(
        headers,
        body,
        kind=Kind.START,
        secret=definition.secret,
        definition_id=definition_id,
        source=definition.source,
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
            definitions.structure(current.document),
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
) -> SignalOutcome:
    """Apply a signed signal to a waiting run (see the module); ``headers`` have lower-case names.

    ``run_id`` and ``signal_key`` are the route's (percent-decoded) segments, as signed.

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND) no such definition; (WORKFLOW_NOT_FOUND) no such run of it.
        FailedPrecondition: (WORKFLOW_SIGNALS_DISABLED) the definition has no signal secret; as
            ``steps.signal`` (WORKFLOW_SIGNAL_DELIVERY_CONFLICT, WORKFLOW_NOT_WAITING, ...).
        Unavailable: the signal secret's variable is not set (or not valid) in this replica.
        Unauthenticated: the signature errors of ``signatures.verify``.
        InvalidArgument: a missing or malformed delivery id; (INVALID_JSON) the body is not
            UTF-8 JSON holding an object; a field of the wrong type (named); as ``steps.signal``.
    """
    stored = await _stored(store, definition_id)
    if definitions.structure(stored.document).signal_secret is None:
        raise FailedPrecondition(
            f"workflow {definition_id} accepts no signed signals (it declares no signalSecret)",
            reason=Reason.WORKFLOW_SIGNALS_DISABLED,
            metadata={"definitionId": definition_id},
        )
    definition = _resolved(stored)
    assert definition.signal_secret is not None  # the structure has one, so the resolved one does
    delivery = signatures.verify(
        headers,
        body,
        kind=Kind.SIGNAL,
        secret=definition.signal_secret,
        definition_id=definition_id,
        run_id=run_id,
        signal_key=signal_key,
        source=definition.source,
        now_seconds=now // MICROS,
    )
    if verified is not None:
        verified(definition_id)
    payload = _object(body)
    return await steps.signal(
        store,
        None,
        steps.Signal(
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


# -- the definition and its secrets ---------------------------------------------------------------


async def _stored(store: Store, definition_id: str) -> StoredDefinition:
    stored = await store.read(lambda tx: tx.workflows.get_definition(definition_id))
    if stored is None:
        raise definitions.not_found(definition_id)
    return stored


def _secret_names(structure: WorkflowDefinition) -> tuple[str, ...]:
    named = (
        structure.secret_env,
        structure.signal_secret_env,
        structure.notify.secret_env if structure.notify is not None else None,
    )
    return tuple(name for name in named if name)


def _resolved(stored: StoredDefinition) -> WorkflowDefinition:
    """The definition with its secrets resolved from this process's environment.

    Raises:
        Unavailable: a variable it names is not set here, or its value breaks a secret's rules.
            The error and the log line name the definition and the fields, never a value.
    """
    names = _secret_names(definitions.structure(stored.document))
    values = tuple(os.environ.get(name) for name in names)
    try:
        return _resolve(stored.document, names, values)
    except definition_rules.DefinitionError as error:
        fields = sorted({problem.field for problem in error.problems})
        log.warning("webhook_secret_unresolved", definition_id=stored.id, fields=fields)
        raise Unavailable(
            f"this replica cannot verify requests for workflow {stored.id}: the environment variable its"
            f" {', '.join(fields)} names is not set here (or not a valid secret)",
            reason=Reason.WORKFLOW_SECRET_UNAVAILABLE,
            metadata={"definitionId": stored.id, "field": ",".join(fields)},
            retry_after=SECRET_RETRY_SECONDS,
        ) from None


@functools.lru_cache(maxsize=256)
def _resolve(document: str, names: tuple[str, ...], values: tuple[str | None, ...]) -> WorkflowDefinition:
    """Cached by the document and the values of the variables it names: a request does not load
    the whole definition again, and a changed variable (or document) is resolved afresh."""
    environment = {name: value for name, value in zip(names, values, strict=True) if value is not None}
    return definitions.resolved(document, environment)


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
    return steps.reject_unknown_status(value)


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
